//! The unified request as a Messages API call (`POST /v1/messages`, streamed).

use provider_common::ids;
use provider_common::unified::{self, Assistant, AssistantPart, Message, Part, Tool, ToolResult};
use serde_json::{json, Value};
use tack_sdk::{HttpCall, ProviderError, ProviderRequest};

use crate::{models, thinking};

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

pub fn build(request: &ProviderRequest) -> Result<HttpCall, ProviderError> {
    let messages = unified::parse_messages(&request.messages)?;
    let tools = unified::parse_tools(&request.tools)?;
    let model = models::find(&request.model);
    let answer_tokens = request.max_tokens.unwrap_or_else(|| {
        model.map_or(UNKNOWN_MODEL_MAX_TOKENS, |m| {
            m.max_output_tokens.min(DEFAULT_MAX_TOKENS)
        })
    });
    let turns = convert_messages(&messages, &request.provider, &request.model);
    let (max_tokens, budget) = if continues_unthought_tool_use(&turns) {
        (answer_tokens, None)
    } else {
        thinking::plan(
            request.reasoning,
            answer_tokens,
            model.map(|m| m.max_output_tokens),
        )
    };

    let mut body = json!({
        "model": request.model,
        "max_tokens": max_tokens,
        "stream": true,
        "messages": turns,
    });
    if !request.system_prompt.trim().is_empty() {
        // The marker caches the tools and the system prompt, the prefix every turn shares.
        body["system"] = json!([{
            "type": "text",
            "text": request.system_prompt,
            "cache_control": {"type": "ephemeral"},
        }]);
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools.iter().map(tool).collect());
    }
    let mut headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("accept".to_string(), "text/event-stream".to_string()),
        ("anthropic-version".to_string(), API_VERSION.to_string()),
    ];
    if let Some(budget) = budget {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        if !tools.is_empty() {
            headers.push((
                "anthropic-beta".to_string(),
                INTERLEAVED_THINKING_BETA.to_string(),
            ));
        }
    }
    Ok(HttpCall {
        method: "POST".to_string(),
        path: "/v1/messages".to_string(),
        headers,
        body: body.to_string().into_bytes(),
    })
}

/// Whether the request answers tool results of an assistant turn that did not start with
/// (replayable) thinking. With thinking on, the API requires that turn to start with its
/// thinking block, so such a request is sent without thinking: this happens when thinking is
/// switched on in the middle of a tool loop, or another model made the calls.
fn continues_unthought_tool_use(turns: &[Value]) -> bool {
    let [.., assistant, results] = turns else {
        return false;
    };
    let answers_tools = results["role"] == "user"
        && results["content"]
            .as_array()
            .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"));
    let starts_with_thinking = matches!(
        assistant.pointer("/content/0/type").and_then(Value::as_str),
        Some("thinking" | "redacted_thinking")
    );
    answers_tools && assistant["role"] == "assistant" && !starts_with_thinking
}

fn tool(tool: &Tool) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.parameters,
    })
}

/// Turns the conversation into Messages API turns. Tool results become `tool_result` blocks of a
/// user turn, so the results of one batch share a turn; consecutive turns of one role are merged
/// because the API wants the roles to alternate.
fn convert_messages(messages: &[Message], provider: &str, model: &str) -> Vec<Value> {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        let (role, blocks) = match message {
            Message::User(parts) => ("user", user_blocks(parts)),
            Message::Assistant(assistant) => {
                ("assistant", assistant_blocks(assistant, provider, model))
            }
            Message::ToolResult(result) => ("user", vec![tool_result(result)]),
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    // The second cache marker: on the newest user block, so the next turn reads the whole
    // conversation so far from the cache.
    if let Some((_, blocks)) = turns.iter_mut().rev().find(|(role, _)| *role == "user") {
        if let Some(Value::Object(block)) = blocks.last_mut() {
            block.insert("cache_control".into(), json!({"type": "ephemeral"}));
        }
    }
    turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

fn user_blocks(parts: &[Part]) -> Vec<Value> {
    parts.iter().filter_map(part).collect()
}

/// A text or image block; `None` for blank text, which the API refuses.
fn part(part: &Part) -> Option<Value> {
    match part {
        Part::Text(text) if text.trim().is_empty() => None,
        Part::Text(text) => Some(json!({"type": "text", "text": text})),
        Part::Image { mime_type, data } => Some(json!({
            "type": "image",
            "source": {"type": "base64", "media_type": mime_type, "data": data},
        })),
    }
}

fn assistant_blocks(assistant: &Assistant, provider: &str, model: &str) -> Vec<Value> {
    let replay_thinking = assistant.is_from(provider, model);
    assistant
        .content
        .iter()
        .filter_map(|block| match block {
            AssistantPart::Text(text) if text.trim().is_empty() => None,
            AssistantPart::Text(text) => Some(json!({"type": "text", "text": text})),
            // Thinking goes back only with a signature from this very model: the API verifies
            // it. Thinking it cannot verify (another model's, or cut before its signature) is
            // left out; the answer and the tool calls carry the conversation.
            AssistantPart::Thinking {
                text,
                signature: Some(signature),
            } if replay_thinking => Some(match signature.strip_prefix(REDACTED_PREFIX) {
                Some(data) => json!({"type": "redacted_thinking", "data": data}),
                None => json!({"type": "thinking", "thinking": text, "signature": signature}),
            }),
            AssistantPart::Thinking { .. } => None,
            AssistantPart::ToolCall {
                id,
                name,
                arguments,
            } => Some(json!({
                "type": "tool_use",
                "id": ids::sanitize(id, MAX_ID_CHARS),
                "name": name,
                "input": arguments,
            })),
        })
        .collect()
}

fn tool_result(result: &ToolResult) -> Value {
    let mut content: Vec<Value> = result.content.iter().filter_map(part).collect();
    if content.is_empty() {
        // An error result must have content, and an empty one tells the model nothing.
        content.push(json!({"type": "text", "text": "(no output)"}));
    }
    json!({
        "type": "tool_result",
        "tool_use_id": ids::sanitize(&result.call_id, MAX_ID_CHARS),
        "content": content,
        "is_error": result.is_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_sdk::{ExecutionMode, ReasoningLevel, ToolSpec};

    fn request(messages: Value, reasoning: ReasoningLevel) -> ProviderRequest {
        ProviderRequest {
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            system_prompt: "You are terse.".into(),
            messages: messages.to_string(),
            tools: vec![ToolSpec {
                name: "read".into(),
                label: "Read".into(),
                description: "Reads a file".into(),
                parameters: r#"{"type":"object","properties":{"path":{"type":"string"}}}"#.into(),
                mode: ExecutionMode::Parallel,
                prompt_snippet: None,
            }],
            max_tokens: Some(4096),
            reasoning,
            options: "{}".into(),
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
}
