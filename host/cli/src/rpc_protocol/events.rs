//! The agent's events on the wire: the lines of `--mode json` and the events of `--mode rpc`, in
//! Pi's shapes (`AgentSessionEvent` of `@mariozechner/pi-coding-agent`). tack-core's
//! [`AgentEvent`] stays as the host's own; this is the one place that maps it to the wire.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_core::event::{AgentEvent, CompactionReason, MessageDelta, NoticeLevel};
use tack_core::message::{Message, ToolResult};

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
        messages: Vec<Arc<Message>>,
    },
    TurnStart,
    TurnEnd {
        /// The turn's assistant message.
        #[schemars(with = "Value")]
        message: Arc<Message>,
        #[schemars(with = "Vec<Value>")]
        tool_results: Vec<Arc<Message>>,
    },
    MessageStart {
        #[schemars(with = "Value")]
        message: Arc<Message>,
    },
    /// A streamed change to the assistant message being received.
    MessageUpdate {
        /// The partial message after the change.
        #[schemars(with = "Value")]
        message: Arc<Message>,
        assistant_message_event: AssistantMessageEvent,
    },
    /// The message is complete and stored in the session.
    MessageEnd {
        #[schemars(with = "Value")]
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
    TextDelta {
        content_index: usize,
        delta: String,
        #[schemars(with = "Value")]
        partial: Arc<Message>,
    },
    ThinkingDelta {
        content_index: usize,
        delta: String,
        #[schemars(with = "Value")]
        partial: Arc<Message>,
    },
    /// tack adds the call's `id` and `name`.
    #[serde(rename = "toolcall_start")]
    ToolcallStart {
        content_index: usize,
        id: String,
        name: String,
        #[schemars(with = "Value")]
        partial: Arc<Message>,
    },
    /// A fragment of the call's JSON arguments.
    #[serde(rename = "toolcall_delta")]
    ToolcallDelta {
        content_index: usize,
        delta: String,
        #[schemars(with = "Value")]
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
/// arguments, which Pi repeats in every `tool_execution_update`.
#[derive(Debug, Default)]
pub struct EventWire {
    running: Mutex<HashMap<String, Value>>,
}

impl EventWire {
    pub fn new() -> Self {
        EventWire::default()
    }

    pub fn map(&self, event: &AgentEvent) -> WireEvent {
        // The map holds plain values; a panic elsewhere cannot leave it inconsistent.
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        match event.clone() {
            AgentEvent::AgentStart => WireEvent::AgentStart,
            AgentEvent::AgentEnd { messages } => {
                running.clear();
                WireEvent::AgentEnd { messages }
            }
            AgentEvent::TurnStart => WireEvent::TurnStart,
            AgentEvent::TurnEnd {
                message,
                tool_results,
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
            AgentEvent::CompactionStart { reason } => WireEvent::CompactionStart {
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

    /// One line (no trailing newline).
    pub fn line(&self, event: &AgentEvent) -> String {
        // Wire events hold only strings, numbers, JSON values and messages (themselves plain
        // data), so serialization cannot fail; an empty object is the impossible fallback.
        serde_json::to_string(&self.map(event)).unwrap_or_else(|_| String::from("{}"))
    }
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

    #[test]
    fn agent_events_map_to_pis_shapes() {
        let wire = EventWire::new();
        let partial = Arc::new(Message::user("x"));
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
            AgentEvent::CompactionEnd {
                reason: CompactionReason::Overflow,
                summary: Some("s".into()),
                tokens_before: Some(9),
                first_kept_entry_id: Some("e2".into()),
                aborted: false,
                will_retry: true,
                error_message: None,
            },
            AgentEvent::CompactionEnd {
                reason: CompactionReason::Manual,
                summary: None,
                tokens_before: None,
                first_kept_entry_id: None,
                aborted: true,
                will_retry: false,
                error_message: Some("cancelled".into()),
            },
        ]
        .iter()
        .map(|event| {
            let value: Value = serde_json::from_str(&wire.line(event)).expect("json");
            // The timestamps of the messages inside are the clock's.
            strip_timestamps(value)
        })
        .collect();
        insta::assert_json_snapshot!(lines);
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
