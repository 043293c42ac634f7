//! The unified request as a Converse stream call (`POST /model/{modelId}/converse-stream`).
//! Claude models get cache points after the system prompt and the newest user turn, and
//! thinking as Pi asks for it (adaptive for the newest, a budget for the others).
//!
//! Converse wants the roles to alternate and tool results in a user turn, so consecutive
//! messages of one role (a batch of tool results, a user message after them) share a turn.

use provider_common::body::Body;
use provider_common::cache::{Converted, Role};
use provider_common::ids;
use provider_common::json::Object;
use provider_common::kit::{HttpProvider, Request, Route};
use provider_common::unified::{Assistant, AssistantPart, Message, Part, Tool, ToolResult};
use serde_json::{json, Value};
use tack_sdk::{ErrorKind, ProviderError, ProviderSpec, ReasoningLevel};

use crate::decode;

/// Answer allowance when the request sets none.
const DEFAULT_MAX_TOKENS: u32 = 8192;

/// Bedrock's limit on a tool use id.
const MAX_ID_CHARS: usize = 64;

/// What the cache keeps of one message: its content blocks.
#[derive(Clone, Debug, Default)]
pub struct Fragment {
    blocks: Vec<Value>,
}

/// Bedrock as the provider kit sees it.
#[derive(Default)]
pub struct Bedrock;

impl HttpProvider for Bedrock {
    type Fragment = Fragment;
    type Decoder = decode::ConverseDecoder;

    fn spec() -> ProviderSpec {
        ProviderSpec::new("bedrock-converse-stream", "Amazon Bedrock (Converse)")
            .base_url("https://bedrock-runtime.us-east-1.amazonaws.com")
    }

    fn plan(&mut self, request: &Request<'_, Fragment>) -> Result<(), ProviderError> {
        if request.model.is_empty() || request.model.chars().any(char::is_control) {
            return Err(ProviderError::new(
                ErrorKind::InvalidRequest,
                format!("`{}` is not a valid Bedrock model id", request.model),
            ));
        }
        Ok(())
    }

    fn write(
        &mut self,
        request: &Request<'_, Fragment>,
        object: &mut Object<'_, Body>,
    ) -> Result<Route, ProviderError> {
        let (unified, model) = (request.unified, request.model);
        let thinking = Thinking::of(model, unified.reasoning);
        let caches = caches_prompts(model);
        // Fields in the order of their names.
        if let Some(fields) = thinking.as_ref().map(Thinking::fields) {
            object.field("additionalModelRequestFields", &fields)?;
        }
        let mut max_tokens = unified.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        if let Some(Thinking::Budget(budget)) = thinking {
            // The thinking budget counts against the answer's allowance.
            max_tokens = max_tokens.max(budget + DEFAULT_MAX_TOKENS / 2);
        }
        object.field("inferenceConfig", &json!({ "maxTokens": max_tokens }))?;
        let mut turns = turns(request.messages);
        if caches {
            // The conversation up to the newest user turn is cached for the next request.
            if let Some(last) = turns.last_mut().filter(|t| t["role"] == "user") {
                if let Some(content) = last["content"].as_array_mut() {
                    content.push(cache_point());
                }
            }
        }
        object.field("messages", &turns)?;
        if !unified.system_prompt.trim().is_empty() {
            let mut system = vec![json!({ "text": unified.system_prompt })];
            if caches {
                system.push(cache_point());
            }
            object.field("system", &system)?;
        }
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request.tools.iter().map(tool_spec).collect();
            object.field("toolConfig", &json!({ "tools": tools }))?;
        }
        Ok(
            Route::new(format!("/model/{}/converse-stream", path_label(model)))
                .header("accept", "application/vnd.amazon.eventstream"),
        )
    }

    fn decode_error(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
        decode::response_error(status, headers, body)
    }

    fn decoder(&self) -> decode::ConverseDecoder {
        decode::ConverseDecoder::default()
    }
}

impl provider_common::kit::Fragment for Fragment {
    fn convert(message: &Message, provider: &str, model: &str) -> Result<Self, ProviderError> {
        let blocks = match message {
            Message::User(parts) => parts.iter().map(user_block).collect(),
            Message::Assistant(assistant) => assistant_blocks(assistant, provider, model),
            Message::ToolResult(result) => vec![tool_result(result)],
        };
        Ok(Fragment { blocks })
    }

    fn size(&self) -> usize {
        self.blocks.iter().map(|b| b.to_string().len() + 1).sum()
    }
}

/// The messages as Converse turns, consecutive messages of one role merged.
fn turns(messages: &[Converted<'_, Fragment>]) -> Vec<Value> {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        if message.fragment.blocks.is_empty() {
            continue;
        }
        let role = match message.role {
            Role::Assistant => "assistant",
            Role::User | Role::ToolResult => "user",
        };
        match turns.last_mut() {
            Some((last, blocks)) if *last == role => {
                blocks.extend(message.fragment.blocks.iter().cloned())
            }
            _ => turns.push((role, message.fragment.blocks.clone())),
        }
    }
    turns
        .into_iter()
        .map(|(role, content)| json!({ "content": content, "role": role }))
        .collect()
}

fn user_block(part: &Part) -> Value {
    match part {
        Part::Text(text) => json!({ "text": text }),
        Part::Image { mime_type, data } => image(mime_type, data),
    }
}

/// Converse names an image's format (`png`, `jpeg`, `gif`, `webp`); its bytes go as base64.
fn image(mime_type: &str, data: &str) -> Value {
    let format = mime_type.strip_prefix("image/").unwrap_or(mime_type);
    let format = if format == "jpg" { "jpeg" } else { format };
    json!({ "image": { "format": format, "source": { "bytes": data } } })
}

/// The assistant's blocks. Reasoning goes back with its signature only to the model that
/// wrote it; another model's reasoning is left out, as its signature would be refused.
fn assistant_blocks(assistant: &Assistant, provider: &str, model: &str) -> Vec<Value> {
    let replay = assistant.is_from(provider, model);
    let mut blocks = Vec::new();
    for part in &assistant.content {
        match part {
            AssistantPart::Text(text) if !text.is_empty() => blocks.push(json!({ "text": text })),
            AssistantPart::Text(_) => {}
            AssistantPart::Thinking { text, signature } => {
                if let (true, Some(signature)) = (replay, signature) {
                    blocks.push(json!({ "reasoningContent": { "reasoningText": {
                        "signature": signature, "text": text } } }));
                }
            }
            AssistantPart::ToolCall {
                id,
                name,
                arguments,
            } => {
                blocks.push(json!({ "toolUse": {
                "input": arguments, "name": name, "toolUseId": ids::sanitize(id, MAX_ID_CHARS) } }))
            }
        }
    }
    blocks
}

fn tool_result(result: &ToolResult) -> Value {
    let mut content: Vec<Value> = result.content.iter().map(user_block).collect();
    if content.is_empty() {
        content.push(json!({ "text": "" }));
    }
    json!({ "toolResult": {
        "content": content,
        "status": if result.is_error { "error" } else { "success" },
        "toolUseId": ids::sanitize(&result.call_id, MAX_ID_CHARS),
    } })
}

fn tool_spec(tool: &Tool) -> Value {
    json!({ "toolSpec": {
        "description": tool.description,
        "inputSchema": { "json": tool.parameters },
        "name": tool.name,
    } })
}

/// How a Claude model on Bedrock is asked to think (Bedrock passes this to Anthropic's models
/// only): the newest decide how much themselves (adaptive, with an effort); the others get a
/// budget per level (Pi's defaults) and may think between tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Thinking {
    Adaptive(&'static str),
    Budget(u32),
}

impl Thinking {
    fn of(model: &str, level: ReasoningLevel) -> Option<Thinking> {
        let model = model.to_ascii_lowercase();
        if !model.contains("claude") {
            return None;
        }
        let adaptive = ["opus-4-6", "opus-4-7", "sonnet-4-6"]
            .iter()
            .any(|m| model.contains(m));
        Some(match (level, adaptive) {
            (ReasoningLevel::Off, _) => return None,
            (ReasoningLevel::Minimal | ReasoningLevel::Low, true) => Thinking::Adaptive("low"),
            (ReasoningLevel::Medium, true) => Thinking::Adaptive("medium"),
            (ReasoningLevel::High, true) => Thinking::Adaptive("high"),
            (ReasoningLevel::Minimal, false) => Thinking::Budget(1024),
            (ReasoningLevel::Low, false) => Thinking::Budget(2048),
            (ReasoningLevel::Medium, false) => Thinking::Budget(8192),
            (ReasoningLevel::High, false) => Thinking::Budget(16384),
        })
    }

    fn fields(&self) -> Value {
        match self {
            Thinking::Adaptive(effort) => json!({
                "output_config": { "effort": effort },
                "thinking": { "display": "summarized", "type": "adaptive" },
            }),
            Thinking::Budget(budget) => json!({
                "anthropic_beta": ["interleaved-thinking-2025-05-14"],
                "thinking": { "budget_tokens": budget, "display": "summarized", "type": "enabled" },
            }),
        }
    }
}

/// Whether the model takes cache points: Claude 4, 3.7 Sonnet and 3.5 Haiku (Nova caches by
/// itself).
fn caches_prompts(model: &str) -> bool {
    let model = model.to_ascii_lowercase();
    model.contains("claude")
        && ["-4-", "claude-3-7-sonnet", "claude-3-5-haiku"]
            .iter()
            .any(|m| model.contains(m))
}

fn cache_point() -> Value {
    json!({ "cachePoint": { "type": "default" } })
}

/// A model id (or an inference profile's ARN, with its `:` and `/`) as one path segment: every
/// byte but the unreserved ones percent-encoded, as the AWS SDKs encode a label.
fn path_label(model: &str) -> String {
    let mut out = String::with_capacity(model.len());
    for byte in model.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use provider_common::fixtures;
    use provider_common::kit::build_fresh;

    const SCHEMA: &str = r#"{"type": "object"}"#;

    #[test]
    fn a_conversation_becomes_alternating_turns_with_tools_and_thinking() {
        let model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
        let messages = json!([
            {"role": "user", "content": [{"type": "text", "text": "read a.txt"}]},
            {"role": "assistant", "provider": "amazon-bedrock", "model": model, "content": [
                {"type": "thinking", "thinking": "I should read it.", "thinkingSignature": "sig=="},
                {"type": "toolCall", "id": "tooluse_1", "name": "read", "arguments": {"path": "a.txt"}}
            ]},
            {"role": "toolResult", "toolCallId": "tooluse_1", "toolName": "read",
             "content": [{"type": "text", "text": "hello"}], "isError": false},
            {"role": "user", "content": [{"type": "text", "text": "and?"}]}
        ]);
        let mut request = fixtures::request("amazon-bedrock", model, &messages, SCHEMA);
        request.reasoning = ReasoningLevel::Low;
        let call = build_fresh::<Bedrock>(&request).expect("built");
        assert_eq!(
            call.path,
            "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
        );
        let body: Value = serde_json::from_slice(&call.body).expect("json");
        let turns = body["messages"].as_array().expect("messages");
        let roles: Vec<&str> = turns
            .iter()
            .map(|t| t["role"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(roles, ["user", "assistant", "user"]);
        assert_eq!(
            turns[1]["content"][0]["reasoningContent"]["reasoningText"]["signature"],
            "sig=="
        );
        assert_eq!(turns[1]["content"][1]["toolUse"]["input"]["path"], "a.txt");
        assert_eq!(
            turns[2]["content"][0]["toolResult"]["toolUseId"],
            "tooluse_1"
        );
        assert_eq!(turns[2]["content"][1]["text"], "and?");
        assert_eq!(turns[2]["content"][2]["cachePoint"]["type"], "default");
        assert_eq!(body["system"][1]["cachePoint"]["type"], "default");
        assert_eq!(
            body["additionalModelRequestFields"]["thinking"]["budget_tokens"],
            2048
        );

        // The newest Claude models think adaptively, at an effort.
        let mut newest = fixtures::request(
            "amazon-bedrock",
            "us.anthropic.claude-opus-4-6-v1",
            &messages,
            SCHEMA,
        );
        newest.reasoning = ReasoningLevel::High;
        let body: Value =
            serde_json::from_slice(&build_fresh::<Bedrock>(&newest).expect("built").body)
                .expect("json");
        assert_eq!(
            body["additionalModelRequestFields"],
            json!({"output_config": {"effort": "high"},
                   "thinking": {"display": "summarized", "type": "adaptive"}})
        );

        // Another model gets no reasoning it cannot verify.
        let mut other = fixtures::request(
            "amazon-bedrock",
            "anthropic.claude-3-haiku",
            &messages,
            SCHEMA,
        );
        other.reasoning = ReasoningLevel::Off;
        let body: Value =
            serde_json::from_slice(&build_fresh::<Bedrock>(&other).expect("built").body)
                .expect("json");
        assert!(body["messages"][1]["content"][0]
            .get("reasoningContent")
            .is_none());
        assert!(body.get("additionalModelRequestFields").is_none());
        assert_eq!(
            body["system"].as_array().map(Vec::len),
            Some(1),
            "no cache point"
        );
    }
}
