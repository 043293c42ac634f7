//! The agent's events on the wire: the lines of `--mode json` and the events of `--mode rpc`, in
//! Pi's shapes (`AgentSessionEvent` of `@mariozechner/pi-coding-agent`). tack-core's
//! [`AgentEvent`] stays as the host's own; this is the one place that maps it to the wire.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use tack_core::event::{AgentEvent, CompactionReason, MessageDelta, NoticeLevel};
use tack_core::message::{AssistantContent, Message, StopReason, ToolCall, ToolResult};
use tack_core::session::{PiMessage, SessionHeader};

/// One event line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum WireEvent {
    AgentStart,
    /// The run is over; `messages` are the messages it added to the session.
    AgentEnd {
        #[schemars(with = "Vec<Value>")]
        #[serde(serialize_with = "pi_shapes")]
        messages: Vec<Arc<Message>>,
    },
    TurnStart,
    TurnEnd {
        /// The turn's assistant message.
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        message: Arc<Message>,
        #[schemars(with = "Vec<Value>")]
        #[serde(serialize_with = "pi_shapes")]
        tool_results: Vec<Arc<Message>>,
    },
    MessageStart {
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        message: Arc<Message>,
    },
    /// A streamed change to the assistant message being received.
    MessageUpdate {
        /// The partial message after the change.
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        message: Arc<Message>,
        assistant_message_event: AssistantMessageEvent,
    },
    /// The message is complete and stored in the session.
    MessageEnd {
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        message: Arc<Message>,
    },
    /// The call is about to run with `args`: the model's arguments, or what before-tool-call
    /// hooks changed them into (then tack's `rewrittenBy` names the plugins).
    ToolExecutionStart {
        tool_call_id: String,
        tool_name: String,
        args: Value,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        rewritten_by: Vec<String>,
    },
    /// Progress of a running call: the result so far (not a delta).
    ToolExecutionUpdate {
        tool_call_id: String,
        tool_name: String,
        args: Value,
        #[schemars(with = "Value")]
        partial_result: ToolResult,
    },
    ToolExecutionEnd {
        tool_call_id: String,
        tool_name: String,
        #[schemars(with = "Value")]
        result: ToolResult,
        is_error: bool,
    },
    /// The queued messages changed; each entry is a message's text.
    QueueUpdate {
        steering: Vec<String>,
        follow_up: Vec<String>,
    },
    CompactionStart {
        reason: WireCompactionReason,
    },
    /// `result` is `null` when the compaction was aborted (`aborted`) or failed
    /// (`errorMessage`); `willRetry` when it followed a context overflow and the turn is retried.
    CompactionEnd {
        reason: WireCompactionReason,
        result: Option<CompactionResult>,
        aborted: bool,
        will_retry: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_message: Option<String>,
    },
    /// A provider call failed with a retryable error; the next try starts after `delayMs`.
    AutoRetryStart {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error_message: String,
    },
    AutoRetryEnd {
        success: bool,
        attempt: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
    /// tack: a plugin asked the user something in a mode without a UI (`--mode json`); it
    /// resolved to `response`.
    #[serde(rename = "plugin_ui_request")]
    PluginUiResolved {
        plugin: String,
        request: Value,
        response: Value,
    },
    /// tack: a run failed outside the model's reply.
    Error {
        message: String,
    },
    /// tack: a notice from the host.
    Notice {
        level: WireNoticeLevel,
        message: String,
    },
}

/// `assistantMessageEvent` of `message_update`: what changed, and the partial message after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum AssistantMessageEvent {
    /// A text block begins at `contentIndex`.
    TextStart {
        content_index: usize,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
    TextDelta {
        content_index: usize,
        delta: String,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
    /// The text block is complete; `content` is its whole text.
    TextEnd {
        content_index: usize,
        content: String,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
    ThinkingStart {
        content_index: usize,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
    ThinkingDelta {
        content_index: usize,
        delta: String,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
    ThinkingEnd {
        content_index: usize,
        content: String,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
    /// tack adds the call's `id` and `name`.
    #[serde(rename = "toolcall_start")]
    ToolcallStart {
        content_index: usize,
        id: String,
        name: String,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
    /// A fragment of the call's JSON arguments.
    #[serde(rename = "toolcall_delta")]
    ToolcallDelta {
        content_index: usize,
        delta: String,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
    /// The call is complete, its arguments parsed; `toolCall` is its content block.
    #[serde(rename = "toolcall_end")]
    ToolcallEnd {
        content_index: usize,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "tool_call_block")]
        tool_call: ToolCall,
        #[schemars(with = "Value")]
        #[serde(serialize_with = "pi_shape")]
        partial: Arc<Message>,
    },
}

/// Pi's `CompactionResult`, with tack's additions in `compact`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    pub summary: String,
    pub first_kept_entry_id: String,
    pub tokens_before: u64,
    /// tack: the compaction entry written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// tack: the estimated context after compacting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_after: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WireCompactionReason {
    Threshold,
    Overflow,
    Manual,
}

impl From<CompactionReason> for WireCompactionReason {
    fn from(reason: CompactionReason) -> Self {
        match reason {
            CompactionReason::Threshold => WireCompactionReason::Threshold,
            CompactionReason::Overflow => WireCompactionReason::Overflow,
            CompactionReason::Manual => WireCompactionReason::Manual,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WireNoticeLevel {
    Debug,
    Info,
    Warn,
    Error,
}

impl From<NoticeLevel> for WireNoticeLevel {
    fn from(level: NoticeLevel) -> Self {
        match level {
            NoticeLevel::Debug => WireNoticeLevel::Debug,
            NoticeLevel::Info => WireNoticeLevel::Info,
            NoticeLevel::Warn => WireNoticeLevel::Warn,
            NoticeLevel::Error => WireNoticeLevel::Error,
        }
    }
}

/// Maps a stream of agent events to wire events. It remembers each running tool call's
/// arguments, which Pi repeats in every `tool_execution_update`, and the content blocks of the
/// assistant message being streamed: tack-core reports deltas only, and Pi's stream opens each
/// block with `*_start` at its first delta and closes them all with `*_end` (in content order)
/// once the response is complete, before `message_end`.
#[derive(Debug, Default)]
pub struct EventWire {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    running: HashMap<String, Value>,
    /// The blocks of the streaming assistant message opened so far, by content index.
    open: BTreeMap<usize, BlockKind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Thinking,
    ToolCall,
}

impl EventWire {
    pub fn new() -> Self {
        EventWire::default()
    }

    /// The wire events of one agent event: one, but a streamed delta that opens a block is
    /// preceded by the block's `*_start`, and the end of an assistant message is preceded by
    /// the `*_end` of each of its blocks.
    pub fn map(&self, event: &AgentEvent) -> Vec<WireEvent> {
        // The state holds plain values; a panic elsewhere cannot leave it inconsistent.
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            AgentEvent::MessageStart { message } if is_assistant(message) => {
                state.open.clear();
                vec![self.map_one(&mut state, event)]
            }
            AgentEvent::MessageUpdate { message, delta } => {
                let (index, kind) = block_of(delta);
                let mut events = Vec::with_capacity(2);
                if let std::collections::btree_map::Entry::Vacant(opening) = state.open.entry(index)
                {
                    opening.insert(kind);
                    let partial = Arc::clone(message);
                    let opened = match kind {
                        BlockKind::Text => Some(AssistantMessageEvent::TextStart {
                            content_index: index,
                            partial,
                        }),
                        BlockKind::Thinking => Some(AssistantMessageEvent::ThinkingStart {
                            content_index: index,
                            partial,
                        }),
                        // A call opens with its own `toolcall_start`, which carries its name.
                        BlockKind::ToolCall => None,
                    };
                    events.extend(opened.map(|opened| WireEvent::MessageUpdate {
                        message: Arc::clone(message),
                        assistant_message_event: opened,
                    }));
                }
                events.push(self.map_one(&mut state, event));
                events
            }
            AgentEvent::MessageEnd { message } if is_assistant(message) => {
                let open = std::mem::take(&mut state.open);
                let mut events = block_ends(open, message);
                events.push(self.map_one(&mut state, event));
                events
            }
            _ => vec![self.map_one(&mut state, event)],
        }
    }

    fn map_one(&self, state: &mut State, event: &AgentEvent) -> WireEvent {
        let running = &mut state.running;
        match event.clone() {
            AgentEvent::AgentStart => WireEvent::AgentStart,
            AgentEvent::AgentEnd { messages } => {
                running.clear();
                WireEvent::AgentEnd { messages }
            }
            AgentEvent::TurnStart { .. } => WireEvent::TurnStart,
            AgentEvent::TurnEnd {
                message,
                tool_results,
                ..
            } => WireEvent::TurnEnd {
                message,
                tool_results,
            },
            AgentEvent::MessageStart { message } => WireEvent::MessageStart { message },
            AgentEvent::MessageUpdate { message, delta } => WireEvent::MessageUpdate {
                assistant_message_event: assistant_event(delta, Arc::clone(&message)),
                message,
            },
            AgentEvent::MessageEnd { message } => WireEvent::MessageEnd { message },
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
                rewritten_by,
            } => {
                running.insert(tool_call_id.clone(), args.clone());
                WireEvent::ToolExecutionStart {
                    tool_call_id,
                    tool_name,
                    args,
                    rewritten_by,
                }
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                partial,
            } => WireEvent::ToolExecutionUpdate {
                args: running.get(&tool_call_id).cloned().unwrap_or(Value::Null),
                tool_call_id,
                tool_name,
                partial_result: partial,
            },
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
            } => {
                running.remove(&tool_call_id);
                WireEvent::ToolExecutionEnd {
                    tool_call_id,
                    tool_name,
                    result,
                    is_error,
                }
            }
            AgentEvent::QueueUpdate {
                steering,
                follow_up,
            } => WireEvent::QueueUpdate {
                steering,
                follow_up,
            },
            AgentEvent::CompactionStart { reason, .. } => WireEvent::CompactionStart {
                reason: reason.into(),
            },
            AgentEvent::CompactionEnd {
                reason,
                summary,
                tokens_before,
                first_kept_entry_id,
                aborted,
                will_retry,
                error_message,
                ..
            } => WireEvent::CompactionEnd {
                reason: reason.into(),
                result: match (summary, first_kept_entry_id, tokens_before) {
                    (Some(summary), Some(first_kept_entry_id), Some(tokens_before)) => {
                        Some(CompactionResult {
                            summary,
                            first_kept_entry_id,
                            tokens_before,
                            entry_id: None,
                            tokens_after: None,
                        })
                    }
                    _ => None,
                },
                aborted,
                will_retry,
                error_message,
            },
            AgentEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            } => WireEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            },
            AgentEvent::AutoRetryEnd {
                success,
                attempt,
                final_error,
            } => WireEvent::AutoRetryEnd {
                success,
                attempt,
                final_error,
            },
            AgentEvent::PluginUiRequest {
                plugin,
                request,
                response,
            } => WireEvent::PluginUiResolved {
                plugin,
                request: serde_json::to_value(request).unwrap_or(Value::Null),
                response,
            },
            AgentEvent::Error { message } => WireEvent::Error { message },
            AgentEvent::Notice { level, message } => WireEvent::Notice {
                level: level.into(),
                message,
            },
        }
    }

    /// The event's lines (no trailing newlines).
    pub fn lines(&self, event: &AgentEvent) -> Vec<String> {
        self.map(event)
            .iter()
            // Wire events hold only strings, numbers, JSON values and messages (themselves
            // plain data), so serialization cannot fail; an empty object is the impossible
            // fallback.
            .map(|wire| serde_json::to_string(wire).unwrap_or_else(|_| String::from("{}")))
            .collect()
    }
}

/// The first line of `--mode json`, as in Pi: the session's header, the line its file starts
/// with (`{"type":"session","version":3,"id":…}`).
pub fn session_line(header: &SessionHeader) -> String {
    #[derive(Serialize)]
    #[serde(tag = "type", rename = "session")]
    struct SessionLine<'a> {
        #[serde(flatten)]
        header: &'a SessionHeader,
    }
    // A header is strings and a number; serialization cannot fail.
    serde_json::to_string(&SessionLine { header }).unwrap_or_else(|_| String::from("{}"))
}

/// Messages go out in Pi's shape, as in session files (usage with `totalTokens` and a cost
/// breakdown, `thinkingSignature`); tack's own JSON of a message is what plugins receive.
fn pi_shape<S: Serializer>(message: &Arc<Message>, serializer: S) -> Result<S::Ok, S::Error> {
    PiMessage(message).serialize(serializer)
}

fn pi_shapes<S: Serializer>(messages: &[Arc<Message>], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(messages.iter().map(|message| PiMessage(message)))
}

/// A tool call as the content block it is (`{"type":"toolCall",…}`).
fn tool_call_block<S: Serializer>(call: &ToolCall, serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(tag = "type", rename = "toolCall")]
    struct Block<'a> {
        #[serde(flatten)]
        call: &'a ToolCall,
    }
    Block { call }.serialize(serializer)
}

fn is_assistant(message: &Message) -> bool {
    matches!(message, Message::Assistant(_))
}

fn block_of(delta: &MessageDelta) -> (usize, BlockKind) {
    match delta {
        MessageDelta::TextDelta { content_index, .. } => (*content_index, BlockKind::Text),
        MessageDelta::ThinkingDelta { content_index, .. } => (*content_index, BlockKind::Thinking),
        MessageDelta::ToolCallStart { content_index, .. }
        | MessageDelta::ToolCallDelta { content_index, .. } => {
            (*content_index, BlockKind::ToolCall)
        }
    }
}

/// The `*_end` updates of the blocks `open` in the complete `message`, in content order. A
/// response that failed or was aborted closes none, as in Pi.
fn block_ends(open: BTreeMap<usize, BlockKind>, message: &Arc<Message>) -> Vec<WireEvent> {
    let Message::Assistant(assistant) = message.as_ref() else {
        return Vec::new();
    };
    if matches!(
        assistant.stop_reason,
        StopReason::Error | StopReason::Aborted
    ) {
        return Vec::new();
    }
    open.into_iter()
        .filter_map(|(index, kind)| {
            let partial = Arc::clone(message);
            let ended = match (kind, assistant.content.get(index)?) {
                (BlockKind::Text, AssistantContent::Text(text)) => AssistantMessageEvent::TextEnd {
                    content_index: index,
                    content: text.text.clone(),
                    partial,
                },
                (BlockKind::Thinking, AssistantContent::Thinking(thinking)) => {
                    AssistantMessageEvent::ThinkingEnd {
                        content_index: index,
                        content: thinking.thinking.clone(),
                        partial,
                    }
                }
                (BlockKind::ToolCall, AssistantContent::ToolCall(call)) => {
                    AssistantMessageEvent::ToolcallEnd {
                        content_index: index,
                        tool_call: call.clone(),
                        partial,
                    }
                }
                // The block at that index is of another kind: nothing to close truthfully.
                _ => return None,
            };
            Some(WireEvent::MessageUpdate {
                message: Arc::clone(message),
                assistant_message_event: ended,
            })
        })
        .collect()
}

fn assistant_event(delta: MessageDelta, partial: Arc<Message>) -> AssistantMessageEvent {
    match delta {
        MessageDelta::TextDelta {
            content_index,
            delta,
        } => AssistantMessageEvent::TextDelta {
            content_index,
            delta,
            partial,
        },
        MessageDelta::ThinkingDelta {
            content_index,
            delta,
        } => AssistantMessageEvent::ThinkingDelta {
            content_index,
            delta,
            partial,
        },
        MessageDelta::ToolCallStart {
            content_index,
            id,
            name,
        } => AssistantMessageEvent::ToolcallStart {
            content_index,
            id,
            name,
            partial,
        },
        MessageDelta::ToolCallDelta {
            content_index,
            delta,
        } => AssistantMessageEvent::ToolcallDelta {
            content_index,
            delta,
            partial,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tack_core::message::{AssistantMessage, TextContent, ThinkingContent, Usage};

    #[test]
    fn agent_events_map_to_pis_shapes() {
        let wire = EventWire::new();
        let partial = Arc::new(Message::user("x"));
        let thinking = AssistantContent::Thinking(ThinkingContent {
            thinking: "Look. Again.".into(),
            signature: Some("reasoning_content".into()),
        });
        let call = AssistantContent::ToolCall(ToolCall {
            id: "c2".into(),
            name: "read".into(),
            arguments: json!({"path": "a"}),
        });
        let text = AssistantContent::Text(TextContent { text: "Hal".into() });
        let streaming = assistant(vec![thinking, call], StopReason::ToolUse);
        let lines: Vec<Value> = [
            AgentEvent::ToolExecutionStart {
                tool_call_id: "c1".into(),
                tool_name: "bash".into(),
                args: json!({"command": "ls"}),
                rewritten_by: Vec::new(),
            },
            AgentEvent::ToolExecutionUpdate {
                tool_call_id: "c1".into(),
                tool_name: "bash".into(),
                partial: ToolResult::text("so far"),
            },
            AgentEvent::ToolExecutionEnd {
                tool_call_id: "c1".into(),
                tool_name: "bash".into(),
                result: ToolResult::text("done"),
                is_error: false,
            },
            AgentEvent::MessageUpdate {
                message: Arc::clone(&partial),
                delta: MessageDelta::TextDelta {
                    content_index: 0,
                    delta: "Hel".into(),
                },
            },
            AgentEvent::QueueUpdate {
                steering: vec!["left".into()],
                follow_up: vec!["then".into()],
            },
            // A streamed answer: each block opens at its first delta and all close, in content
            // order, before the message ends.
            AgentEvent::MessageStart {
                message: assistant(Vec::new(), StopReason::Stop),
            },
            AgentEvent::MessageUpdate {
                message: Arc::clone(&streaming),
                delta: MessageDelta::ThinkingDelta {
                    content_index: 0,
                    delta: "Look.".into(),
                },
            },
            AgentEvent::MessageUpdate {
                message: Arc::clone(&streaming),
                delta: MessageDelta::ToolCallStart {
                    content_index: 1,
                    id: "c2".into(),
                    name: "read".into(),
                },
            },
            AgentEvent::MessageUpdate {
                message: Arc::clone(&streaming),
                delta: MessageDelta::ToolCallDelta {
                    content_index: 1,
                    delta: "{\"path\":\"a\"}".into(),
                },
            },
            AgentEvent::MessageUpdate {
                message: Arc::clone(&streaming),
                delta: MessageDelta::ThinkingDelta {
                    content_index: 0,
                    delta: " Again.".into(),
                },
            },
            AgentEvent::MessageEnd {
                message: Arc::clone(&streaming),
            },
            // A failed response closes no block.
            AgentEvent::MessageStart {
                message: assistant(Vec::new(), StopReason::Error),
            },
            AgentEvent::MessageUpdate {
                message: assistant(vec![text.clone()], StopReason::Error),
                delta: MessageDelta::TextDelta {
                    content_index: 0,
                    delta: "Hal".into(),
                },
            },
            AgentEvent::MessageEnd {
                message: assistant(vec![text], StopReason::Error),
            },
            AgentEvent::CompactionEnd {
                reason: CompactionReason::Overflow,
                summary: Some("s".into()),
                tokens_before: Some(9),
                first_kept_entry_id: Some("e2".into()),
                entry_id: Some("e3".into()),
                from_hook: false,
                aborted: false,
                will_retry: true,
                error_message: None,
            },
            AgentEvent::CompactionEnd {
                reason: CompactionReason::Manual,
                summary: None,
                tokens_before: None,
                first_kept_entry_id: None,
                entry_id: None,
                from_hook: false,
                aborted: true,
                will_retry: false,
                error_message: Some("cancelled".into()),
            },
        ]
        .iter()
        .flat_map(|event| {
            wire.lines(event).into_iter().map(|line| {
                let value: Value = serde_json::from_str(&line).expect("json");
                // The timestamps of the messages inside are the clock's.
                strip_timestamps(value)
            })
        })
        .collect();
        insta::assert_json_snapshot!(lines);
    }

    fn assistant(content: Vec<AssistantContent>, stop_reason: StopReason) -> Arc<Message> {
        Arc::new(Message::Assistant(AssistantMessage {
            content,
            provider: "mock".into(),
            model: "mock-model".into(),
            usage: Usage {
                input: 40,
                output: 8,
                cost: tack_core::message::Cost {
                    input: 0.2,
                    output: 0.3,
                    total: 0.5,
                    ..Default::default()
                },
                ..Usage::default()
            },
            error_message: (stop_reason == StopReason::Error).then(|| "overloaded".into()),
            stop_reason,
            timestamp: 0,
        }))
    }

    fn strip_timestamps(mut value: Value) -> Value {
        match &mut value {
            Value::Object(map) => {
                map.remove("timestamp");
                for v in map.values_mut() {
                    *v = strip_timestamps(v.take());
                }
            }
            Value::Array(items) => {
                for v in items.iter_mut() {
                    *v = strip_timestamps(v.take());
                }
            }
            _ => {}
        }
        value
    }
}
