//! Builds the assistant message from a provider's stream events.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::provider::{ModelInfo, ProviderError, StopKind, StreamEvent, TokenUsage};
use crate::event::MessageDelta;
use crate::message::{
    now_ms, AssistantContent, AssistantMessage, Message, StopReason, TextContent, ThinkingContent,
    ToolCall, Usage,
};

pub(crate) struct AssistantBuilder {
    message: AssistantMessage,
    /// Provider block index → position in `message.content`.
    positions: HashMap<u32, usize>,
    /// Position of a tool call → its argument JSON received so far.
    arguments: HashMap<usize, String>,
    stop: Option<StopKind>,
    cost: super::provider::ModelCost,
}

/// How the stream ended.
pub(crate) enum Ending {
    Complete,
    Aborted,
    Failed(ProviderError),
}

pub(crate) struct Assembled {
    pub message: AssistantMessage,
    /// Tool call id → why its arguments could not be used.
    pub bad_arguments: HashMap<String, String>,
}

impl AssistantBuilder {
    pub fn new(model: &ModelInfo) -> Self {
        AssistantBuilder {
            message: AssistantMessage {
                content: Vec::new(),
                provider: model.provider.clone(),
                model: model.id.clone(),
                usage: Usage::default(),
                stop_reason: StopReason::Stop,
                error_message: None,
                timestamp: now_ms(),
            },
            positions: HashMap::new(),
            arguments: HashMap::new(),
            stop: None,
            cost: model.cost,
        }
    }

    /// The partial message as it stands.
    pub fn snapshot(&self) -> Arc<Message> {
        Arc::new(Message::Assistant(self.message.clone()))
    }

    /// Applies one event (errors are the caller's business) and describes the change, if the
    /// content changed.
    pub fn apply(&mut self, event: StreamEvent) -> Option<MessageDelta> {
        match event {
            StreamEvent::TextDelta { index, delta } => {
                let at = self.block(index, || {
                    AssistantContent::Text(TextContent {
                        text: String::new(),
                    })
                });
                match &mut self.message.content[at] {
                    AssistantContent::Text(t) => t.text.push_str(&delta),
                    _ => return mismatch(index, "text"),
                }
                Some(MessageDelta::TextDelta {
                    content_index: at,
                    delta,
                })
            }
            StreamEvent::ThinkingDelta { index, delta } => {
                let at = self.block(index, empty_thinking);
                match &mut self.message.content[at] {
                    AssistantContent::Thinking(t) => t.thinking.push_str(&delta),
                    _ => return mismatch(index, "thinking"),
                }
                Some(MessageDelta::ThinkingDelta {
                    content_index: at,
                    delta,
                })
            }
            StreamEvent::ThinkingSignature { index, delta } => {
                let at = self.block(index, empty_thinking);
                match &mut self.message.content[at] {
                    AssistantContent::Thinking(t) => {
                        t.signature.get_or_insert_with(String::new).push_str(&delta)
                    }
                    _ => return mismatch(index, "thinking"),
                }
                None
            }
            StreamEvent::ToolCallStart { index, id, name } => {
                if self.positions.contains_key(&index) {
                    return mismatch(index, "new tool call");
                }
                let at = self.block(index, || {
                    AssistantContent::ToolCall(ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: Value::Object(Default::default()),
                    })
                });
                self.arguments.insert(at, String::new());
                Some(MessageDelta::ToolCallStart {
                    content_index: at,
                    id,
                    name,
                })
            }
            StreamEvent::ToolCallDelta { index, delta } => {
                let Some(&at) = self.positions.get(&index) else {
                    return mismatch(index, "tool call");
                };
                let Some(buffer) = self.arguments.get_mut(&at) else {
                    return mismatch(index, "tool call");
                };
                buffer.push_str(&delta);
                Some(MessageDelta::ToolCallDelta {
                    content_index: at,
                    delta,
                })
            }
            StreamEvent::Usage(usage) => {
                self.message.usage = self.usage(usage);
                None
            }
            StreamEvent::Stop(kind) => {
                self.stop = Some(kind);
                None
            }
            StreamEvent::Error(_) => None,
        }
    }

    pub fn finish(mut self, ending: Ending) -> Assembled {
        let mut bad_arguments = HashMap::new();
        for (position, block) in self.message.content.iter_mut().enumerate() {
            let AssistantContent::ToolCall(call) = block else {
                continue;
            };
            let raw = self.arguments.remove(&position).unwrap_or_default();
            if raw.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(&raw) {
                Ok(arguments) => call.arguments = arguments,
                Err(e) => {
                    bad_arguments.insert(
                        call.id.clone(),
                        format!(
                            "The arguments of this `{}` call are not valid JSON ({e}); the call was not run. Arguments received: {}",
                            call.name,
                            excerpt(&raw)
                        ),
                    );
                }
            }
        }
        let has_tool_calls = self.message.tool_calls().next().is_some();
        let (stop_reason, error_message) = match ending {
            Ending::Complete => (
                match self.stop {
                    Some(StopKind::Length) => StopReason::Length,
                    // Some compatible servers say "stop" while asking for tools.
                    _ if has_tool_calls => StopReason::ToolUse,
                    _ => StopReason::Stop,
                },
                None,
            ),
            Ending::Aborted => (StopReason::Aborted, Some("Aborted by the user".to_owned())),
            Ending::Failed(error) => (StopReason::Error, Some(error.to_string())),
        };
        self.message.stop_reason = stop_reason;
        self.message.error_message = error_message;
        Assembled {
            message: self.message,
            bad_arguments,
        }
    }

    fn block(&mut self, index: u32, make: impl FnOnce() -> AssistantContent) -> usize {
        if let Some(&at) = self.positions.get(&index) {
            return at;
        }
        let at = self.message.content.len();
        self.message.content.push(make());
        self.positions.insert(index, at);
        at
    }

    fn usage(&self, usage: TokenUsage) -> Usage {
        Usage {
            input: usage.input,
            output: usage.output,
            cache_read: usage.cache_read,
            cache_write: usage.cache_write,
            cost: self.cost.of(&usage),
        }
    }
}

fn empty_thinking() -> AssistantContent {
    AssistantContent::Thinking(ThinkingContent {
        thinking: String::new(),
        signature: None,
    })
}

fn mismatch(index: u32, expected: &str) -> Option<MessageDelta> {
    tracing::warn!("provider stream: block {index} is not a {expected} block here; event ignored");
    None
}

fn excerpt(raw: &str) -> String {
    const MAX: usize = 200;
    if raw.len() <= MAX {
        return raw.to_owned();
    }
    let end = raw.floor_char_boundary(MAX);
    format!("{}… ({} bytes in all)", &raw[..end], raw.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::provider::{ModelCost, ProviderErrorKind};
    use serde_json::json;

    fn model() -> ModelInfo {
        ModelInfo {
            provider: "p".into(),
            id: "m".into(),
            name: "M".into(),
            context_window: 1000,
            max_output_tokens: 100,
            reasoning: true,
            input: vec![],
            cost: ModelCost {
                input: 1.0,
                output: 2.0,
                cache_read: 0.0,
                cache_write: 0.0,
            },
        }
    }

    #[test]
    fn assembles_blocks_by_index() {
        let mut b = AssistantBuilder::new(&model());
        let events = vec![
            StreamEvent::ThinkingDelta {
                index: 0,
                delta: "hm".into(),
            },
            StreamEvent::ThinkingSignature {
                index: 0,
                delta: "sig".into(),
            },
            StreamEvent::TextDelta {
                index: 1,
                delta: "Hel".into(),
            },
            StreamEvent::ToolCallStart {
                index: 2,
                id: "c1".into(),
                name: "read".into(),
            },
            StreamEvent::TextDelta {
                index: 1,
                delta: "lo".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 2,
                delta: "{\"path\":".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 2,
                delta: "\"a\"}".into(),
            },
            StreamEvent::ToolCallStart {
                index: 3,
                id: "c2".into(),
                name: "ls".into(),
            },
            StreamEvent::ToolCallStart {
                index: 4,
                id: "c3".into(),
                name: "bad".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 4,
                delta: "{\"x\": tru".into(),
            },
            StreamEvent::Usage(TokenUsage {
                input: 1_000_000,
                output: 500_000,
                ..Default::default()
            }),
            StreamEvent::Stop(StopKind::Stop),
        ];
        let mut deltas = 0;
        for event in events {
            deltas += usize::from(b.apply(event).is_some());
        }
        assert_eq!(deltas, 9);
        let Assembled {
            message,
            bad_arguments,
        } = b.finish(Ending::Complete);
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        // $1 per million input tokens, $2 per million output tokens (see `model`).
        assert_eq!(
            message.usage.cost,
            crate::message::Cost {
                input: 1.0,
                output: 1.0,
                total: 2.0,
                ..Default::default()
            }
        );
        assert_eq!(message.text_content(), "Hello");
        let calls: Vec<&ToolCall> = message.tool_calls().collect();
        assert_eq!(calls[0].arguments, json!({"path": "a"}));
        assert_eq!(calls[1].arguments, json!({}));
        assert!(
            bad_arguments["c3"].contains("not valid JSON"),
            "{bad_arguments:?}"
        );
        assert!(
            matches!(&message.content[0], AssistantContent::Thinking(t) if t.signature.as_deref() == Some("sig"))
        );
    }

    #[test]
    fn endings_set_stop_reasons() {
        let mut b = AssistantBuilder::new(&model());
        b.apply(StreamEvent::Stop(StopKind::Length));
        assert_eq!(
            b.finish(Ending::Complete).message.stop_reason,
            StopReason::Length
        );
        let b = AssistantBuilder::new(&model());
        let failed = b.finish(Ending::Failed(ProviderError::new(
            ProviderErrorKind::Auth,
            "bad key",
        )));
        assert_eq!(failed.message.stop_reason, StopReason::Error);
        assert_eq!(
            failed.message.error_message.as_deref(),
            Some("authentication failed: bad key")
        );
        let b = AssistantBuilder::new(&model());
        assert_eq!(
            b.finish(Ending::Aborted).message.stop_reason,
            StopReason::Aborted
        );
    }
}
