//! Events every front end consumes (TUI, print, `--mode json`, RPC) and plugins observe.
//!
//! Each event serializes to one JSON object tagged by `type` (snake_case); the JSON mode prints one
//! per line. Messages inside keep the camelCase shapes of [`crate::message`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::{Message, ToolResult};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    AgentStart,
    /// The run is over; `messages` are the messages it added to the session.
    AgentEnd {
        messages: Vec<Arc<Message>>,
    },
    /// A turn begins: one response of the model and the tool calls it makes.
    TurnStart {
        /// The turn's place in its run, from 0 (Pi's `turnIndex`).
        turn_index: u32,
        /// When it began, in milliseconds since the Unix epoch (Pi's `timestamp`).
        timestamp: u64,
    },
    TurnEnd {
        /// The same index as the turn's [`AgentEvent::TurnStart`].
        turn_index: u32,
        /// The turn's assistant message.
        message: Arc<Message>,
        tool_results: Vec<Arc<Message>>,
    },
    MessageStart {
        message: Arc<Message>,
    },
    /// A streamed change to the assistant message being received.
    MessageUpdate {
        /// The partial message after the change.
        message: Arc<Message>,
        delta: MessageDelta,
    },
    /// The message is complete and stored in the session.
    MessageEnd {
        message: Arc<Message>,
    },
    /// The call is about to run with `args`: the model's arguments, or what before-tool-call
    /// hooks changed them into (then `rewritten_by` names the plugins). A call refused before it
    /// runs (unknown tool, invalid arguments, blocked) also starts, with the model's arguments.
    ToolExecutionStart {
        tool_call_id: String,
        tool_name: String,
        args: Value,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        rewritten_by: Vec<String>,
    },
    ToolExecutionUpdate {
        tool_call_id: String,
        tool_name: String,
        partial: ToolResult,
    },
    ToolExecutionEnd {
        tool_call_id: String,
        tool_name: String,
        result: ToolResult,
        is_error: bool,
    },
    /// The queued messages changed; each entry is a message's text.
    QueueUpdate {
        steering: Vec<String>,
        follow_up: Vec<String>,
    },
    CompactionStart {
        reason: CompactionReason,
        /// What the user asked the summary to focus on (`/compact <focus>`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        custom_instructions: Option<String>,
    },
    CompactionEnd {
        reason: CompactionReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens_before: Option<u64>,
        /// The first entry the compaction kept verbatim.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        first_kept_entry_id: Option<String>,
        /// The `compaction` entry it wrote.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entry_id: Option<String>,
        /// A plugin's before-compact hook supplied the summary (Pi's `fromExtension`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        from_hook: bool,
        aborted: bool,
        /// The compaction followed a context overflow and the turn is retried now.
        #[serde(default)]
        will_retry: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_message: Option<String>,
    },
    /// A provider call failed with a retryable error; the next try starts after `delay_ms`.
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
    /// A plugin asked the user something in a mode without a UI; it resolved to `response`.
    PluginUiRequest {
        plugin: String,
        request: UiRequest,
        response: Value,
    },
    Error {
        message: String,
    },
    Notice {
        level: NoticeLevel,
        message: String,
    },
}

/// What changed in a streamed assistant message. `content_index` is the block's position in the
/// partial message's `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MessageDelta {
    TextDelta {
        content_index: usize,
        delta: String,
    },
    ThinkingDelta {
        content_index: usize,
        delta: String,
    },
    #[serde(rename = "toolcall_start")]
    ToolCallStart {
        content_index: usize,
        id: String,
        name: String,
    },
    /// A fragment of the call's JSON arguments; the arguments in the partial message stay empty
    /// until the message ends.
    #[serde(rename = "toolcall_delta")]
    ToolCallDelta {
        content_index: usize,
        delta: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// The context passed the window minus the reserve.
    Threshold,
    /// The provider reported a context overflow.
    Overflow,
    /// The user asked for it.
    Manual,
}

/// A dialog a plugin opens: what every front end shows (the terminal UI, RPC's
/// `extension_ui_request`) and what print mode records in the event stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UiRequest {
    Confirm {
        title: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u32>,
    },
    Select {
        title: String,
        options: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u32>,
    },
    Input {
        title: String,
        placeholder: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u32>,
    },
}

impl UiRequest {
    /// How long the plugin waits for an answer before it takes the dialog's default.
    pub fn timeout_ms(&self) -> Option<u32> {
        match self {
            UiRequest::Confirm { timeout_ms, .. }
            | UiRequest::Select { timeout_ms, .. }
            | UiRequest::Input { timeout_ms, .. } => *timeout_ms,
        }
    }
}

/// What ended one frame of a plugin's component (`screen.show-component`): the same in the
/// plugin runtime, which hands it to the plugin, and in the terminal UI, which reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComponentInput {
    /// A key, named as Pi's `matchesKey` names keys (`a`, `enter`, `ctrl+c`, `shift+tab`).
    Key(String),
    /// Text the user pasted.
    Paste(String),
    /// The frame's wait passed without a key.
    Tick,
    /// The component is gone (Ctrl+C, shutdown, or nobody to show it to).
    Closed,
}

/// How a plugin changes what the terminal UI shows around the conversation
/// (`tack:plugin/screen`, 0.2.0), each already budgeted and neutralised by the plugin runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScreenSetting {
    /// Whether the working row (spinner and message) shows while the agent works.
    WorkingVisible(bool),
    /// Frames in place of the spinner; `None` restores it.
    WorkingIndicator(Option<WorkingIndicator>),
    /// The label of a hidden thinking block in place of "Thinking"; `None` restores it.
    HiddenThinkingLabel(Option<String>),
    /// Lines over the conversation; none gives the header back.
    Header(Vec<String>),
    /// Tool output in full or collapsed, as Ctrl+O toggles it.
    ToolsExpanded(bool),
    /// Whether the plugin is asked for completions of the draft as the user types.
    InputCompletion(bool),
    /// The plugin's editor in place of tack's (`screen.set-editor`), or tack's back.
    Editor(bool),
}

/// A plugin's working indicator: frames shown in turn, each for `interval_ms`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkingIndicator {
    pub frames: Vec<String>,
    pub interval_ms: u32,
}

/// What a plugin may read of the terminal UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenRead {
    ToolsExpanded,
    EditorText,
    Theme,
}

/// The terminal UI's answer to a [`ScreenRead`], of the same kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScreenReading {
    ToolsExpanded(bool),
    EditorText(String),
    Theme(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    Debug,
    Info,
    Warn,
    Error,
}

impl AgentEvent {
    /// Whether every [`crate::agent::Hooks::on_event`] sees this event. Streaming deltas and tool
    /// progress are left out unless [`crate::agent::Hooks::observes_streaming`] asks for them:
    /// they are many, and only a plugin subscribed to them by name (0.2.0) wants them.
    pub fn is_observable(&self) -> bool {
        !matches!(
            self,
            AgentEvent::MessageUpdate { .. } | AgentEvent::ToolExecutionUpdate { .. }
        )
    }

    /// One line of `--mode json` output (no trailing newline).
    pub fn to_json_line(&self) -> String {
        // The enum holds only strings, numbers, `serde_json::Value`s and maps with string keys, so
        // serialization cannot fail; an empty object is the impossible fallback.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

/// Receives every event. Implementations must be quick: the agent loop calls them inline.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: &AgentEvent);
}

impl<F> EventSink for F
where
    F: Fn(&AgentEvent) + Send + Sync,
{
    fn emit(&self, event: &AgentEvent) {
        self(event)
    }
}

/// Discards every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _event: &AgentEvent) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_serialize_as_single_tagged_lines() {
        let event = AgentEvent::ToolExecutionEnd {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            result: ToolResult::text("ok"),
            is_error: false,
        };
        assert_eq!(
            event.to_json_line(),
            r#"{"type":"tool_execution_end","tool_call_id":"c1","tool_name":"read","result":{"content":[{"type":"text","text":"ok"}],"isError":false},"is_error":false}"#
        );
        assert_eq!(
            AgentEvent::AgentStart.to_json_line(),
            r#"{"type":"agent_start"}"#
        );
        let update = AgentEvent::MessageUpdate {
            message: Arc::new(Message::user("x")),
            delta: MessageDelta::ToolCallDelta {
                content_index: 1,
                delta: "{\"a\"".into(),
            },
        };
        let value: Value = serde_json::from_str(&update.to_json_line()).unwrap();
        assert_eq!(value["delta"]["type"], json!("toolcall_delta"));
        assert_eq!(value["delta"]["content_index"], json!(1));
        assert!(!update.to_json_line().contains('\n'));
    }

    #[test]
    fn events_round_trip() {
        let events = vec![
            AgentEvent::QueueUpdate {
                steering: vec!["a".into()],
                follow_up: vec![],
            },
            AgentEvent::AutoRetryStart {
                attempt: 1,
                max_attempts: 3,
                delay_ms: 1000,
                error_message: "overloaded".into(),
            },
            AgentEvent::AutoRetryEnd {
                success: true,
                attempt: 2,
                final_error: None,
            },
            AgentEvent::PluginUiRequest {
                plugin: "permission-gate".into(),
                request: UiRequest::Confirm {
                    title: "Run?".into(),
                    message: "rm -rf".into(),
                    timeout_ms: None,
                },
                response: json!(false),
            },
            AgentEvent::CompactionEnd {
                reason: CompactionReason::Overflow,
                summary: Some("s".into()),
                tokens_before: Some(5),
                first_kept_entry_id: Some("e2".into()),
                entry_id: Some("e3".into()),
                from_hook: false,
                aborted: false,
                will_retry: true,
                error_message: None,
            },
            AgentEvent::Notice {
                level: NoticeLevel::Warn,
                message: "m".into(),
            },
        ];
        for event in events {
            let line = event.to_json_line();
            let back: AgentEvent = serde_json::from_str(&line).unwrap();
            assert_eq!(back, event, "{line}");
        }
    }
}
