//! The unified request as a Messages API call (`POST /v1/messages`, streamed).

use provider_common::body::{Body, Sink, Spot};
use provider_common::cache::{Converted, Role};
use provider_common::ids;
use provider_common::json::{self, Object};
use provider_common::kit::{self, HttpProvider, Request, Route, WithModels};
use provider_common::unified::{Assistant, AssistantPart, Message, Part, Tool, ToolResult};
use serde::Serialize;
use serde_json::Value;
use tack_sdk::{AuthScheme, ProviderError, ProviderSpec};

use crate::{decode, models, thinking};

pub const API_VERSION: &str = "2023-06-01";

/// Lets Claude 4 models think between tool calls, not only before the first one.
const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";

/// Signatures of redacted thinking carry this prefix; the rest is the block's encrypted `data`.
/// Real signatures are base64, which has no `:`, so the two cannot be confused.
pub const REDACTED_PREFIX: &str = "redacted:";

/// Answer allowance when the request sets none: the model's limit, but at most this, so that a
/// plain answer does not reserve the 64k some models allow.
const DEFAULT_MAX_TOKENS: u32 = 32_000;

/// Answer allowance for models outside the catalogue, which every Claude model supports.
const UNKNOWN_MODEL_MAX_TOKENS: u32 = 8192;

/// Ids of calls made by other providers are cut to this length, which every API accepts.
const MAX_ID_CHARS: usize = 64;

/// What the cache keeps of one message: its blocks, each serialized, and what the turn it goes
/// into needs to know of them.
#[derive(Clone, Debug, Default)]
pub struct Fragment {
    blocks: Vec<Vec<u8>>,
    /// Where each block was written in the previous body.
    spots: Vec<Spot>,
    /// Where the opening of the turn it starts, if it starts one, was written.
    turn_spot: Spot,
    starts_with_thinking: bool,
    has_tool_result: bool,
}

/// Anthropic as the provider kit sees it: what it registers, and how it writes requests and
/// reads answers.
#[derive(Default)]
pub struct Anthropic;

impl HttpProvider for Anthropic {
    type Fragment = Fragment;
    type Decoder = decode::MessagesDecoder;

    fn spec() -> ProviderSpec {
        ProviderSpec::new("anthropic", "Anthropic")
            .base_url("https://api.anthropic.com")
            .secret("ANTHROPIC_API_KEY", AuthScheme::Header("x-api-key".into()))
            .with_models(provider_common::models::specs(models::MODELS))
    }

    /// Writes the body; the headers depend on it (interleaved thinking with tools).
    fn write(
        &mut self,
        request: &Request<'_, Fragment>,
        object: &mut Object<'_, Body>,
    ) -> Result<Route, ProviderError> {
        let unified = request.unified;
        let model = provider_common::models::find(models::MODELS, &unified.model);
        let answer_tokens = unified.max_tokens.unwrap_or_else(|| {
            model.map_or(UNKNOWN_MODEL_MAX_TOKENS, |m| {
                m.max_output_tokens.min(DEFAULT_MAX_TOKENS)
            })
        });
        let turns = turns(request.messages);
        let (max_tokens, budget) = if continues_unthought_tool_use(&turns) {
            (answer_tokens, None)
        } else {
            thinking::plan(
                unified.reasoning,
                answer_tokens,
                model.map(|m| m.max_output_tokens),
            )
        };

        let mut route = Route::new("/v1/messages").header("anthropic-version", API_VERSION);
        if budget.is_some() && !request.tools.is_empty() {
            route = route.header("anthropic-beta", INTERLEAVED_THINKING_BETA);
        }
        object.field("model", &unified.model)?;
        object.field("max_tokens", &max_tokens)?;
        object.field("stream", &true)?;
        if !unified.system_prompt.trim().is_empty() {
            // The marker caches the tools and the system prompt, the prefix every turn shares.
            let system = [Block::Text {
                text: &unified.system_prompt,
                cache_control: Some(CacheControl::EPHEMERAL),
            }];
            object.field("system", &system)?;
        }
        write_turns(object.key("messages")?, &turns);
        if !request.tools.is_empty() {
            let tools: Vec<ToolDef> = request.tools.iter().map(ToolDef::from).collect();
            object.field("tools", &tools)?;
        }
        if let Some(budget_tokens) = budget {
            let thinking = ThinkingConfig {
                kind: "enabled",
                budget_tokens,
            };
            object.field("thinking", &thinking)?;
        }
        Ok(route)
    }

    fn decoder(&self) -> decode::MessagesDecoder {
        decode::MessagesDecoder::default()
    }
}

// The request body's parts, serialized straight from the parsed conversation: building a `Value`
// tree first cost more than everything else in a request.

#[derive(Serialize)]
struct ThinkingConfig {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

#[derive(Serialize)]
struct ToolDef<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

impl<'a> From<&'a Tool> for ToolDef<'a> {
    fn from(tool: &'a Tool) -> Self {
        ToolDef {
            name: &tool.name,
            description: &tool.description,
            input_schema: &tool.parameters,
        }
    }
}

/// A turn of the conversation: consecutive messages of one role.
struct Turn<'a> {
    role: &'static str,
    /// Its messages that have blocks (at least one).
    messages: Vec<&'a Fragment>,
    starts_with_thinking: bool,
    has_tool_result: bool,
}

#[derive(Clone, Copy, Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

impl CacheControl {
    const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Image {
        source: ImageSource<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Thinking {
        thinking: &'a str,
        signature: &'a str,
    },
    RedactedThinking {
        data: &'a str,
    },
    ToolUse {
        id: String,
        name: &'a str,
        input: &'a Value,
    },
    ToolResult {
        tool_use_id: String,
        content: Vec<Block<'a>>,
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
}

#[derive(Serialize)]
struct ImageSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'a str,
    data: &'a str,
}

#[cfg(test)]
impl Block<'_> {
    /// Puts a cache marker on a block that can carry one.
    fn mark_cached(&mut self) {
        match self {
            Block::Text { cache_control, .. }
            | Block::Image { cache_control, .. }
            | Block::ToolResult { cache_control, .. } => {
                *cache_control = Some(CacheControl::EPHEMERAL);
            }
            Block::Thinking { .. } | Block::RedactedThinking { .. } | Block::ToolUse { .. } => {}
        }
    }
}

/// Whether the request answers tool results of an assistant turn that did not start with
/// (replayable) thinking. With thinking on, the API requires that turn to start with its
/// thinking block, so such a request is sent without thinking: this happens when thinking is
/// switched on in the middle of a tool loop, or another model made the calls.
fn continues_unthought_tool_use(turns: &[Turn]) -> bool {
    let [.., assistant, results] = turns else {
        return false;
    };
    results.role == "user"
        && results.has_tool_result
        && assistant.role == "assistant"
        && !assistant.starts_with_thinking
}

impl kit::Fragment for Fragment {
    /// One message's blocks. Tool results become `tool_result` blocks of a user turn.
    fn convert(message: &Message, provider: &str, model: &str) -> Result<Self, ProviderError> {
        let blocks = match message {
            Message::User(parts) => user_blocks(parts),
            Message::Assistant(assistant) => assistant_blocks(assistant, provider, model),
            Message::ToolResult(result) => vec![tool_result(result)],
        };
        Ok(Fragment {
            starts_with_thinking: matches!(
                blocks.first(),
                Some(Block::Thinking { .. } | Block::RedactedThinking { .. })
            ),
            has_tool_result: matches!(message, Message::ToolResult(_)),
            spots: vec![Spot::default(); blocks.len()],
            turn_spot: Spot::default(),
            blocks: blocks.iter().map(json::to_vec).collect::<Result<_, _>>()?,
        })
    }

    /// About how many bytes it takes in the body.
    fn size(&self) -> usize {
        self.blocks.iter().map(|block| block.len() + 1).sum()
    }
}

/// The messages as Messages API turns: the results of one batch share a turn, and consecutive
/// turns of one role are merged because the API wants the roles to alternate.
fn turns<'a>(messages: &'a [Converted<'_, Fragment>]) -> Vec<Turn<'a>> {
    let mut turns: Vec<Turn<'a>> = Vec::new();
    for message in messages {
        let fragment: &'a Fragment = &message.fragment;
        if fragment.blocks.is_empty() {
            continue;
        }
        let role = match message.role {
            Role::Assistant => "assistant",
            Role::User | Role::ToolResult => "user",
        };
        match turns.last_mut() {
            Some(last) if last.role == role => {
                last.messages.push(fragment);
                last.has_tool_result |= fragment.has_tool_result;
            }
            _ => turns.push(Turn {
                role,
                messages: vec![fragment],
                starts_with_thinking: fragment.starts_with_thinking,
                has_tool_result: fragment.has_tool_result,
            }),
        }
    }
    turns
}

/// Writes the turns, with the second cache marker on the newest user block, so the next turn
/// reads the whole conversation so far from the cache.
///
/// The punctuation and role between two turns are written as one piece, placed by the spot of
/// the turn's first message, so a turn repeated from the previous body costs no comparison.
fn write_turns(out: &mut Body, turns: &[Turn]) {
    let marked = turns.iter().rposition(|turn| turn.role == "user");
    for (at, turn) in turns.iter().enumerate() {
        let opening: &[u8] = match (at, turn.role) {
            (0, "user") => br#"[{"role":"user","content":["#,
            (0, _) => br#"[{"role":"assistant","content":["#,
            (_, "user") => br#"]},{"role":"user","content":["#,
            _ => br#"]},{"role":"assistant","content":["#,
        };
        let Some((first, _)) = turn.messages.split_first() else {
            continue;
        };
        out.fragment(None, opening, &first.turn_spot);
        let last_message = turn.messages.len() - 1;
        let mut separator = None;
        for (index, message) in turn.messages.iter().enumerate() {
            let last_block = message.blocks.len().saturating_sub(1);
            for (block_index, (block, spot)) in
                message.blocks.iter().zip(&message.spots).enumerate()
            {
                if marked == Some(at) && index == last_message && block_index == last_block {
                    if let Some(separator) = separator {
                        out.put(&[separator]);
                    }
                    write_marked(out, block);
                } else {
                    out.fragment(separator, block, spot);
                }
                separator = Some(b',');
            }
        }
    }
    out.put(if turns.is_empty() { b"[]" } else { b"]}]" });
}

/// A serialized text, image or tool-result block (the blocks of user turns) with the cache
/// marker: `cache_control` is those blocks' last field, so it goes before the closing brace.
fn write_marked(out: &mut impl Sink, block: &[u8]) {
    let open = block.strip_suffix(b"}").unwrap_or(block);
    out.put(open);
    out.put(br#","cache_control":{"type":"ephemeral"}}"#);
}

fn user_blocks(parts: &[Part]) -> Vec<Block<'_>> {
    parts.iter().filter_map(part).collect()
}

/// A text or image block; `None` for blank text, which the API refuses.
fn part(part: &Part) -> Option<Block<'_>> {
    match part {
        Part::Text(text) if text.trim().is_empty() => None,
        Part::Text(text) => Some(Block::Text {
            text,
            cache_control: None,
        }),
        Part::Image { mime_type, data } => Some(Block::Image {
            source: ImageSource {
                kind: "base64",
                media_type: mime_type,
                data,
            },
            cache_control: None,
        }),
    }
}

fn assistant_blocks<'a>(assistant: &'a Assistant, provider: &str, model: &str) -> Vec<Block<'a>> {
    let replay_thinking = assistant.is_from(provider, model);
    assistant
        .content
        .iter()
        .filter_map(|block| match block {
            AssistantPart::Text(text) if text.trim().is_empty() => None,
            AssistantPart::Text(text) => Some(Block::Text {
                text,
                cache_control: None,
            }),
            // Thinking goes back only with a signature from this very model: the API verifies
            // it. Thinking it cannot verify (another model's, or cut before its signature) is
            // left out; the answer and the tool calls carry the conversation.
            AssistantPart::Thinking {
                text,
                signature: Some(signature),
            } if replay_thinking => Some(match signature.strip_prefix(REDACTED_PREFIX) {
                Some(data) => Block::RedactedThinking { data },
                None => Block::Thinking {
                    thinking: text,
                    signature,
                },
            }),
            AssistantPart::Thinking { .. } => None,
            AssistantPart::ToolCall {
                id,
                name,
                arguments,
            } => Some(Block::ToolUse {
                id: ids::sanitize(id, MAX_ID_CHARS),
                name,
                input: arguments,
            }),
        })
        .collect()
}

fn tool_result(result: &ToolResult) -> Block<'_> {
    let mut content: Vec<Block> = result.content.iter().filter_map(part).collect();
    if content.is_empty() {
        // An error result must have content, and an empty one tells the model nothing.
        content.push(Block::Text {
            text: "(no output)",
            cache_control: None,
        });
    }
    Block::ToolResult {
        tool_use_id: ids::sanitize(&result.call_id, MAX_ID_CHARS),
        content,
        is_error: result.is_error,
        cache_control: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use provider_common::fixtures::{self, READ_PARAMETERS};
    use provider_common::kit;
    use serde_json::json;
    use tack_sdk::{HttpCall, ProviderRequest, ReasoningLevel};

    fn build(request: &ProviderRequest) -> Result<HttpCall, ProviderError> {
        kit::build_fresh::<Anthropic>(request)
    }

    fn request(messages: Value, reasoning: ReasoningLevel) -> ProviderRequest {
        ProviderRequest {
            max_tokens: Some(4096),
            reasoning,
            ..fixtures::request("anthropic", "claude-sonnet-4-5", &messages, READ_PARAMETERS)
        }
    }

    fn body(call: &HttpCall) -> Value {
        serde_json::from_slice(&call.body).unwrap()
    }

    fn conversation() -> Value {
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "What is in this picture and in a.txt?"},
                {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}
            ], "timestamp": 1},
            {"role": "assistant", "provider": "anthropic", "model": "claude-sonnet-4-5",
             "content": [
                {"type": "thinking", "thinking": "Look, then read.", "signature": "c2lnMQ=="},
                {"type": "thinking", "thinking": "", "signature": "redacted:ZW5j"},
                {"type": "text", "text": "A cat. Reading the file."},
                {"type": "toolCall", "id": "toolu_01", "name": "read", "arguments": {"path": "a.txt"}}
             ], "stopReason": "toolUse", "timestamp": 2},
            {"role": "toolResult", "toolCallId": "toolu_01", "toolName": "read",
             "content": [{"type": "text", "text": "hello"}], "isError": false, "timestamp": 3}
        ])
    }

    #[test]
    fn golden_body_with_text_image_tool_call_result_and_thinking() {
        let call = build(&request(conversation(), ReasoningLevel::Medium)).unwrap();
        assert_eq!(call.method, "POST");
        assert_eq!(call.path, "/v1/messages");
        assert!(call
            .headers
            .contains(&("anthropic-version".into(), "2023-06-01".into())));
        assert!(call
            .headers
            .contains(&("anthropic-beta".into(), INTERLEAVED_THINKING_BETA.into())));
        assert!(
            !call
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("x-api-key")),
            "the host attaches the key"
        );
        assert_eq!(
            body(&call),
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 4096 + 8192,
                "stream": true,
                "system": [{"type": "text", "text": "You are terse.",
                            "cache_control": {"type": "ephemeral"}}],
                "tools": [{"name": "read", "description": "Reads a file",
                           "input_schema": {"type": "object",
                                            "properties": {"path": {"type": "string"}}}}],
                "thinking": {"type": "enabled", "budget_tokens": 8192},
                "messages": [
                    {"role": "user", "content": [
                        {"type": "text", "text": "What is in this picture and in a.txt?"},
                        {"type": "image", "source": {"type": "base64",
                                                     "media_type": "image/png",
                                                     "data": "iVBORw0K"}}
                    ]},
                    {"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "Look, then read.",
                         "signature": "c2lnMQ=="},
                        {"type": "redacted_thinking", "data": "ZW5j"},
                        {"type": "text", "text": "A cat. Reading the file."},
                        {"type": "tool_use", "id": "toolu_01", "name": "read",
                         "input": {"path": "a.txt"}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_01",
                         "content": [{"type": "text", "text": "hello"}],
                         "is_error": false,
                         "cache_control": {"type": "ephemeral"}}
                    ]}
                ]
            })
        );
    }

    #[test]
    fn other_models_thinking_is_dropped_and_results_share_a_turn() {
        let messages = json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "provider": "openai", "model": "o4-mini", "content": [
                {"type": "thinking", "thinking": "secret", "signature": "x"},
                {"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {}},
                {"type": "toolCall", "id": "call_2|fc_2", "name": "read", "arguments": {}}
            ]},
            {"role": "toolResult", "toolCallId": "call_1|fc_1", "toolName": "read",
             "content": [], "isError": true},
            {"role": "toolResult", "toolCallId": "call_2|fc_2", "toolName": "read",
             "content": [{"type": "image", "data": "R0lG", "mimeType": "image/gif"}]},
            {"role": "user", "content": "and now?"}
        ]);
        let body = body(&build(&request(messages, ReasoningLevel::Off)).unwrap());
        assert_eq!(body["max_tokens"], 4096);
        assert!(body.get("thinking").is_none());
        let turns = body["messages"].as_array().unwrap();
        assert_eq!(turns.len(), 3, "{turns:#?}");
        assert_eq!(
            turns[1]["content"],
            json!([
                {"type": "tool_use", "id": "call_1_fc_1", "name": "read", "input": {}},
                {"type": "tool_use", "id": "call_2_fc_2", "name": "read", "input": {}}
            ])
        );
        assert_eq!(
            turns[2]["content"],
            json!([
                {"type": "tool_result", "tool_use_id": "call_1_fc_1",
                 "content": [{"type": "text", "text": "(no output)"}], "is_error": true},
                {"type": "tool_result", "tool_use_id": "call_2_fc_2",
                 "content": [{"type": "image", "source": {"type": "base64",
                              "media_type": "image/gif", "data": "R0lG"}}],
                 "is_error": false},
                {"type": "text", "text": "and now?", "cache_control": {"type": "ephemeral"}}
            ])
        );
    }

    #[test]
    fn thinking_is_off_while_answering_calls_made_without_it() {
        let loop_with = |first: Value| {
            json!([
                {"role": "user", "content": "read a.txt"},
                {"role": "assistant", "provider": "anthropic", "model": "claude-sonnet-4-5",
                 "content": [first,
                             {"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}]},
                {"role": "toolResult", "toolCallId": "t1", "toolName": "read",
                 "content": [{"type": "text", "text": "x"}]}
            ])
        };
        let unthought = loop_with(json!({"type": "text", "text": "Reading."}));
        let sent = body(&build(&request(unthought, ReasoningLevel::High)).unwrap());
        assert!(sent.get("thinking").is_none(), "{sent}");
        assert_eq!(sent["max_tokens"], 4096);

        let thought = loop_with(json!({"type": "thinking", "thinking": "t", "signature": "s"}));
        let sent = body(&build(&request(thought, ReasoningLevel::High)).unwrap());
        assert_eq!(sent["thinking"]["budget_tokens"], 16_384);
    }

    #[test]
    fn the_spliced_marker_is_the_serialized_one() {
        let result = ToolResult {
            call_id: "c".into(),
            tool_name: "t".into(),
            content: vec![Part::Text("x".into())],
            is_error: false,
        };
        let image = Part::Image {
            mime_type: "image/png".into(),
            data: "aGk=".into(),
        };
        let text = Part::Text("hi".into());
        for block in [
            tool_result(&result),
            part(&image).unwrap(),
            part(&text).unwrap(),
        ] {
            let mut spliced = Vec::new();
            write_marked(&mut spliced, &json::to_vec(&block).unwrap());
            let mut marked = block;
            marked.mark_cached();
            assert_eq!(
                String::from_utf8(spliced).unwrap(),
                serde_json::to_string(&marked).unwrap()
            );
        }
    }

    #[test]
    fn default_max_tokens_and_unknown_models() {
        let mut req = request(
            json!([{"role": "user", "content": "hi"}]),
            ReasoningLevel::Off,
        );
        req.max_tokens = None;
        assert_eq!(body(&build(&req).unwrap())["max_tokens"], 32_000);
        req.model = "claude-future".into();
        assert_eq!(body(&build(&req).unwrap())["max_tokens"], 8192);
        req.system_prompt = String::new();
        assert!(body(&build(&req).unwrap()).get("system").is_none());
        req.messages = "not json".into();
        assert!(build(&req).is_err());
    }

    #[test]
    fn cached_bodies_are_the_bytes_of_fresh_ones_through_a_long_session() {
        provider_common::script::assert_kit_matches_fresh::<Anthropic>(
            &provider_common::script::ANTHROPIC,
            240,
        );
    }
}
