//! The unified request's JSON payloads: messages (shapes in `wit/README.md`) and tool schemas.
//!
//! Messages are parsed into plain types and repaired the way every API wants them: each tool
//! call is followed by exactly one result. APIs reject a call without a result (an aborted turn
//! can leave one) and a result without its call, so a missing result is added as an error result
//! and a stray one is dropped.

use serde::Deserialize;
use serde_json::Value;
use tack_sdk::{ErrorKind, ProviderError, ToolSpec};

/// What a tool call without a recorded result is answered with.
pub const MISSING_RESULT: &str = "No result was recorded for this tool call.";

/// A message of the conversation, as providers see it.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    User(Vec<Part>),
    Assistant(Assistant),
    ToolResult(ToolResult),
}

/// Content of user messages and tool results.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    /// `data` is base64, as stored in the session.
    Image {
        mime_type: String,
        data: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Assistant {
    /// Provider and model that produced the message; opaque data (signatures, encrypted
    /// reasoning) is only valid for the same ones.
    pub provider: String,
    pub model: String,
    pub content: Vec<AssistantPart>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AssistantPart {
    Text(String),
    Thinking {
        text: String,
        signature: Option<String>,
    },
    ToolCall {
        id: String,
        name: String,
        /// The arguments object (`{}` when the model sent none).
        arguments: Value,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub tool_name: String,
    pub content: Vec<Part>,
    pub is_error: bool,
}

/// A tool offered to the model, with its schema parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

impl Assistant {
    /// Whether opaque data in this message (signatures, encrypted reasoning) can be replayed to
    /// `provider`'s `model`.
    pub fn is_from(&self, provider: &str, model: &str) -> bool {
        self.provider == provider && self.model == model
    }

    pub fn has_tool_calls(&self) -> bool {
        self.content
            .iter()
            .any(|part| matches!(part, AssistantPart::ToolCall { .. }))
    }
}

impl ToolResult {
    /// The text blocks joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|part| match part {
                Part::Text(text) => Some(text.as_str()),
                Part::Image { .. } => None,
            })
            .collect();
        texts.join("\n")
    }

    pub fn images(&self) -> impl Iterator<Item = &Part> {
        self.content
            .iter()
            .filter(|part| matches!(part, Part::Image { .. }))
    }
}

/// Parses the request's `messages` (a JSON array) and pairs every tool call with one result.
/// Messages of other roles, which the host converts before a provider sees them, are skipped.
pub fn parse_messages(json: &str) -> Result<Vec<Message>, ProviderError> {
    let wire: Vec<WireMessage> = serde_json::from_str(json).map_err(malformed)?;
    Ok(pair_tool_results(
        wire.into_iter().filter_map(WireMessage::into_message),
    ))
}

pub(crate) fn malformed(e: impl std::fmt::Display) -> ProviderError {
    ProviderError::new(
        ErrorKind::InvalidRequest,
        format!("the request's messages are malformed: {e}"),
    )
}

/// Parses each tool's JSON schema.
pub fn parse_tools(tools: &[ToolSpec]) -> Result<Vec<Tool>, ProviderError> {
    tools
        .iter()
        .map(|tool| {
            let parameters = serde_json::from_str(&tool.parameters).map_err(|e| {
                ProviderError::new(
                    ErrorKind::InvalidRequest,
                    format!("the schema of tool `{}` is not JSON: {e}", tool.name),
                )
            })?;
            Ok(Tool {
                name: tool.name.clone(),
                description: tool.description.clone(),
                parameters,
            })
        })
        .collect()
}

fn pair_tool_results(messages: impl Iterator<Item = Message>) -> Vec<Message> {
    let mut out = Vec::new();
    // Calls of the latest assistant message still waiting for a result: (id, tool name).
    let mut pending: Vec<(String, String)> = Vec::new();
    for message in messages {
        match message {
            Message::ToolResult(result) => {
                if let Some(at) = pending.iter().position(|(id, _)| *id == result.call_id) {
                    pending.remove(at);
                    out.push(Message::ToolResult(result));
                }
            }
            other => {
                answer_missing(&mut pending, &mut out);
                if let Message::Assistant(assistant) = &other {
                    pending = assistant
                        .content
                        .iter()
                        .filter_map(|part| match part {
                            AssistantPart::ToolCall { id, name, .. } => {
                                Some((id.clone(), name.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                }
                out.push(other);
            }
        }
    }
    answer_missing(&mut pending, &mut out);
    out
}

fn answer_missing(pending: &mut Vec<(String, String)>, out: &mut Vec<Message>) {
    for (call_id, tool_name) in pending.drain(..) {
        out.push(Message::ToolResult(ToolResult {
            call_id,
            tool_name,
            content: vec![Part::Text(MISSING_RESULT.to_string())],
            is_error: true,
        }));
    }
}

/// One stored message. A flat struct rather than an enum tagged by `role` (and blocks likewise by
/// `type`): serde buffers the whole of an internally tagged or untagged value before it can pick
/// the variant, which made every request's parse of the conversation several times slower.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireMessage {
    role: String,
    #[serde(default)]
    content: Option<WireContent>,
    #[serde(default)]
    provider: String,
    #[serde(default)]
    model: String,
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    tool_name: String,
    #[serde(default)]
    is_error: bool,
}

/// Pi writes short user messages as a plain string; tack always writes blocks.
enum WireContent {
    Text(String),
    Blocks(Vec<WireBlock>),
}

impl<'de> Deserialize<'de> for WireContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Content;
        impl<'de> serde::de::Visitor<'de> for Content {
            type Value = WireContent;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or an array of content blocks")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<WireContent, E> {
                Ok(WireContent::Text(text.to_string()))
            }

            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<WireContent, E> {
                Ok(WireContent::Text(text))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<WireContent, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(WireContent::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(Content)
    }
}

/// One content block; which fields count depends on `type`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireBlock {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    mime_type: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default, alias = "thinkingSignature")]
    signature: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Value,
}

impl WireMessage {
    pub(crate) fn into_message(self) -> Option<Message> {
        Some(match self.role.as_str() {
            "user" => Message::User(self.content.map(parts).unwrap_or_default()),
            "assistant" => Message::Assistant(Assistant {
                provider: self.provider,
                model: self.model,
                content: match self.content {
                    Some(WireContent::Text(text)) => vec![AssistantPart::Text(text)],
                    Some(WireContent::Blocks(blocks)) => {
                        blocks.into_iter().filter_map(assistant_part).collect()
                    }
                    None => Vec::new(),
                },
            }),
            "toolResult" => Message::ToolResult(ToolResult {
                // A result that names no call cannot be paired with one, so it is dropped.
                call_id: self.tool_call_id?,
                tool_name: self.tool_name,
                content: self.content.map(parts).unwrap_or_default(),
                is_error: self.is_error,
            }),
            _ => return None,
        })
    }
}

fn parts(content: WireContent) -> Vec<Part> {
    match content {
        WireContent::Text(text) => vec![Part::Text(text)],
        WireContent::Blocks(blocks) => blocks
            .into_iter()
            .filter_map(|block| match (block.kind.as_str(), block.text) {
                ("text", Some(text)) => Some(Part::Text(text)),
                ("image", _) => Some(Part::Image {
                    mime_type: block.mime_type?,
                    data: block.data?,
                }),
                _ => None,
            })
            .collect(),
    }
}

fn assistant_part(block: WireBlock) -> Option<AssistantPart> {
    Some(match block.kind.as_str() {
        "text" => AssistantPart::Text(block.text?),
        "thinking" => AssistantPart::Thinking {
            text: block.thinking.unwrap_or_default(),
            signature: block.signature.filter(|s| !s.is_empty()),
        },
        "toolCall" => AssistantPart::ToolCall {
            id: block.id?,
            name: block.name?,
            arguments: match block.arguments {
                Value::Object(_) => block.arguments,
                // Older sessions may hold the arguments as JSON text.
                Value::String(raw) => serde_json::from_str(&raw)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| Value::Object(Default::default())),
                _ => Value::Object(Default::default()),
            },
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: Value) -> Vec<Message> {
        parse_messages(&value.to_string()).unwrap()
    }

    #[test]
    fn parses_every_block_kind() {
        let messages = parse(json!([
            {"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"}
            ], "timestamp": 1},
            {"role": "assistant", "provider": "p", "model": "m", "content": [
                {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"},
                {"type": "text", "text": "ok"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}
            ], "stopReason": "toolUse", "timestamp": 2},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "read",
             "content": [{"type": "text", "text": "data"}], "isError": false, "timestamp": 3},
            {"role": "user", "content": "plain string", "timestamp": 4}
        ]));
        assert_eq!(
            messages,
            vec![
                Message::User(vec![
                    Part::Text("look".into()),
                    Part::Image {
                        mime_type: "image/png".into(),
                        data: "aGk=".into()
                    }
                ]),
                Message::Assistant(Assistant {
                    provider: "p".into(),
                    model: "m".into(),
                    content: vec![
                        AssistantPart::Thinking {
                            text: "hmm".into(),
                            signature: Some("sig".into())
                        },
                        AssistantPart::Text("ok".into()),
                        AssistantPart::ToolCall {
                            id: "c1".into(),
                            name: "read".into(),
                            arguments: json!({"path": "a"})
                        },
                    ]
                }),
                Message::ToolResult(ToolResult {
                    call_id: "c1".into(),
                    tool_name: "read".into(),
                    content: vec![Part::Text("data".into())],
                    is_error: false
                }),
                Message::User(vec![Part::Text("plain string".into())]),
            ]
        );
    }

    #[test]
    fn every_call_gets_exactly_one_result() {
        let messages = parse(json!([
            {"role": "assistant", "content": [
                {"type": "toolCall", "id": "a", "name": "ls", "arguments": {}},
                {"type": "toolCall", "id": "b", "name": "read", "arguments": "{\"path\":\"x\"}"}
            ]},
            {"role": "toolResult", "toolCallId": "a", "toolName": "ls", "content": []},
            {"role": "toolResult", "toolCallId": "zzz", "toolName": "ls", "content": []},
            {"role": "user", "content": "next"}
        ]));
        assert_eq!(messages.len(), 4, "{messages:#?}");
        let Message::Assistant(assistant) = &messages[0] else {
            panic!("{messages:#?}")
        };
        assert_eq!(
            assistant.content[1],
            AssistantPart::ToolCall {
                id: "b".into(),
                name: "read".into(),
                arguments: json!({"path": "x"})
            }
        );
        assert!(matches!(&messages[1], Message::ToolResult(r) if r.call_id == "a"));
        assert_eq!(
            messages[2],
            Message::ToolResult(ToolResult {
                call_id: "b".into(),
                tool_name: "read".into(),
                content: vec![Part::Text(MISSING_RESULT.into())],
                is_error: true
            })
        );
        assert!(matches!(&messages[3], Message::User(_)));
    }

    #[test]
    fn other_roles_are_skipped_and_garbage_is_refused() {
        let messages = parse(json!([
            {"role": "custom", "customType": "x", "content": "y"},
            {"role": "user", "content": [{"type": "mystery"}]}
        ]));
        assert_eq!(messages, vec![Message::User(vec![])]);
        let err = parse_messages("{}").unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidRequest);
    }

    #[test]
    fn loose_shapes_are_read_the_way_they_mean() {
        let messages = parse(json!([
            {"role": "assistant", "content": "said as a string", "usage": {"input": 1}},
            {"role": "toolResult", "toolName": "ls", "content": "names no call"},
            {"role": "user"},
            {"role": "user", "content": [{"type": "text"}, {"type": "image", "data": "aGk="}]}
        ]));
        assert_eq!(
            messages,
            vec![
                Message::Assistant(Assistant {
                    provider: String::new(),
                    model: String::new(),
                    content: vec![AssistantPart::Text("said as a string".into())],
                }),
                Message::User(vec![]),
                Message::User(vec![]),
            ]
        );
        let err = parse_messages(r#"[{"role": "user", "content": 5}]"#).unwrap_err();
        assert!(
            err.message
                .contains("a string or an array of content blocks"),
            "{}",
            err.message
        );
    }

    #[test]
    fn tool_schemas_must_be_json() {
        let spec = |parameters: &str| ToolSpec {
            name: "t".into(),
            label: "T".into(),
            description: "d".into(),
            parameters: parameters.into(),
            mode: tack_sdk::ExecutionMode::Parallel,
            prompt_snippet: None,
        };
        let tools = parse_tools(&[spec(r#"{"type":"object"}"#)]).unwrap();
        assert_eq!(tools[0].parameters, json!({"type": "object"}));
        assert!(parse_tools(&[spec("nope")]).is_err());
    }
}
