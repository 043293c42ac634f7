//! The protocol of `tack --mode rpc`: LF-delimited JSON, one object per line.
//!
//! The client writes [`Request`]s (a [`Command`] tagged by `type`, with an optional `id`) and
//! [`UiResponse`]s to the process's stdin. The process writes to stdout exactly one [`Response`]
//! per command (`type: "response"`, the command's `id` echoed), the agent's events (the same
//! objects as `--mode json`, see `tack_core::event::AgentEvent`) and the [`RpcEvent`]s of plugin
//! user interfaces. Events carry no `id`. Nothing else is written to stdout; logs go to stderr.
//!
//! Field names are camelCase and command names snake_case, as in Pi's RPC mode. The JSON Schema
//! of every line is `host/cli/rpc-protocol.schema.json`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_core::agent::ModelInfo;
use tack_core::event::NoticeLevel;
use tack_core::message::{Content, Message};

/// One command line: `{"id": "1", "type": "get_state"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Echoed in the response so the client can match it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(flatten)]
    pub command: Command,
}

/// What a client can ask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Command {
    /// Runs a prompt. Answered as soon as it is accepted; the run shows as events and ends with
    /// `agent_end`. While a run is going on it fails, unless `streamingBehavior` says how to
    /// queue it.
    Prompt {
        message: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Content>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        streaming_behavior: Option<StreamingBehavior>,
    },
    /// A message for the model before its next call (or a new run when idle).
    Steer {
        message: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Content>,
    },
    /// A message for when the agent would otherwise stop (or a new run when idle).
    FollowUp {
        message: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Content>,
    },
    /// Aborts the run (and closes open plugin dialogs); answered once the run has stopped.
    Abort,
    GetState,
    /// The messages of the active branch the model's context is built from.
    GetMessages,
    SetModel {
        provider: String,
        model_id: String,
    },
    GetAvailableModels,
    SetThinkingLevel {
        level: String,
    },
    /// Summarizes the older conversation now.
    Compact {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        custom_instructions: Option<String>,
    },
    SetAutoCompaction {
        enabled: bool,
    },
    NewSession,
    /// Opens another session: a file path, or a session id (or unique prefix).
    SwitchSession {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_path: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// Starts a new session holding the conversation before a user message (an entry id from
    /// `get_fork_points`); the message's text comes back for editing.
    Fork {
        entry_id: String,
    },
    GetForkPoints,
    GetSessionStats,
    /// The plugins' slash commands.
    GetCommands,
    /// Runs a plugin's slash command (`name` without the slash).
    RunCommand {
        name: String,
        #[serde(default)]
        args: String,
    },
    /// Runs the user's own shell command in the workspace (not a tool call of the model). The
    /// output is recorded in the session for the model to see, unless `excludeFromContext`.
    Bash {
        command: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exclude_from_context: bool,
    },
    AbortBash,
    GetLastAssistantText,
    SetSessionName {
        name: String,
    },
}

impl Command {
    /// The `type` of the command, echoed as `command` in its response.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Prompt { .. } => "prompt",
            Command::Steer { .. } => "steer",
            Command::FollowUp { .. } => "follow_up",
            Command::Abort => "abort",
            Command::GetState => "get_state",
            Command::GetMessages => "get_messages",
            Command::SetModel { .. } => "set_model",
            Command::GetAvailableModels => "get_available_models",
            Command::SetThinkingLevel { .. } => "set_thinking_level",
            Command::Compact { .. } => "compact",
            Command::SetAutoCompaction { .. } => "set_auto_compaction",
            Command::NewSession => "new_session",
            Command::SwitchSession { .. } => "switch_session",
            Command::Fork { .. } => "fork",
            Command::GetForkPoints => "get_fork_points",
            Command::GetSessionStats => "get_session_stats",
            Command::GetCommands => "get_commands",
            Command::RunCommand { .. } => "run_command",
            Command::Bash { .. } => "bash",
            Command::AbortBash => "abort_bash",
            Command::GetLastAssistantText => "get_last_assistant_text",
            Command::SetSessionName { .. } => "set_session_name",
        }
    }
}

/// How a `prompt` sent during a run is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamingBehavior {
    Steer,
    FollowUp,
}

/// The `type` of every response line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResponseType {
    #[default]
    #[serde(rename = "response")]
    Response,
}

/// The answer to one command. A line that cannot be read as a command is answered with
/// `command: "parse"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "type")]
    pub kind: ResponseType,
    pub command: String,
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Response {
    pub fn ok(id: Option<String>, command: &str, data: Option<Value>) -> Self {
        Response {
            id,
            kind: ResponseType::Response,
            command: command.to_string(),
            success: true,
            data,
            error: None,
        }
    }

    pub fn err(id: Option<String>, command: &str, error: impl Into<String>) -> Self {
        Response {
            id,
            kind: ResponseType::Response,
            command: command.to_string(),
            success: false,
            data: None,
            error: Some(error.into()),
        }
    }
}

/// Events of RPC mode besides the agent's: what plugins ask of, or show to, the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum RpcEvent {
    /// An input hook consumed the prompt: no run (and no `agent_end`) follows.
    InputHandled,
    /// A plugin waits for an answer: reply with a [`UiResponse`] carrying the same `id`.
    PluginUiRequest(UiRequest),
    /// The host closed a dialog before the client answered it (its timeout passed, the run was
    /// aborted, or the process is shutting down); the plugin got the safe default.
    PluginUiClosed { id: String, reason: CloseReason },
    PluginUiNotify {
        plugin: String,
        level: NoticeLevel,
        message: String,
    },
    /// Sets (`text`) or clears (`null`) the plugin's status-line segment `key`.
    PluginUiSetStatus {
        plugin: String,
        key: String,
        text: Option<String>,
    },
    /// Sets the plugin's widget `key` (lines shown above the editor); no lines removes it.
    PluginUiSetWidget {
        plugin: String,
        key: String,
        lines: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiRequest {
    /// Unique per dialog; the answer must carry it.
    pub id: String,
    pub plugin: String,
    #[serde(flatten)]
    pub dialog: Dialog,
}

/// The dialog, tagged by `method`. Without an answer within `timeoutMs` (when set) the dialog
/// resolves to its safe default: not confirmed, nothing selected, no input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "method",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Dialog {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    Timeout,
    Aborted,
    Shutdown,
}

/// The `type` of a dialog answer line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum UiResponseType {
    #[default]
    #[serde(rename = "plugin_ui_response")]
    PluginUiResponse,
}

/// The client's answer to a [`UiRequest`]: `confirmed` for a confirm, `value` for a select (the
/// option's index or its text) or an input (the text), or `cancelled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiResponse {
    #[serde(rename = "type")]
    pub kind: UiResponseType,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<bool>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
}

impl UiResponse {
    fn new(id: &str) -> Self {
        UiResponse {
            kind: UiResponseType::PluginUiResponse,
            id: id.to_string(),
            value: None,
            confirmed: None,
            cancelled: false,
        }
    }

    pub fn confirm(id: &str, confirmed: bool) -> Self {
        UiResponse {
            confirmed: Some(confirmed),
            ..UiResponse::new(id)
        }
    }

    pub fn select(id: &str, index: u32) -> Self {
        UiResponse {
            value: Some(Value::from(index)),
            ..UiResponse::new(id)
        }
    }

    pub fn input(id: &str, text: &str) -> Self {
        UiResponse {
            value: Some(Value::from(text)),
            ..UiResponse::new(id)
        }
    }

    pub fn cancel(id: &str) -> Self {
        UiResponse {
            cancelled: true,
            ..UiResponse::new(id)
        }
    }
}

/// `data` of `get_state`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    pub model: ModelInfo,
    pub thinking_level: String,
    /// A prompt (or a turn a plugin started) is running.
    pub is_running: bool,
    pub is_bash_running: bool,
    pub session_id: String,
    /// `None` for an in-memory session (`--no-session`).
    pub session_file: Option<String>,
    pub session_name: Option<String>,
    pub pending_steering: usize,
    pub pending_follow_up: usize,
    /// Messages of the active branch (see `get_messages`).
    pub message_count: usize,
    pub auto_compaction: bool,
    /// The context files in the system prompt, relative to the working directory.
    #[serde(default)]
    pub context_files: Vec<String>,
    /// The project's `.tack/` files this run used, and those it ignored because the project is
    /// not trusted.
    #[serde(default)]
    pub project_files: ProjectFiles,
}

/// `projectFiles` of `get_state`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectFiles {
    pub used: Vec<String>,
    pub ignored: Vec<String>,
}

/// One entry of `get_available_models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AvailableModel {
    #[serde(flatten)]
    pub model: ModelInfo,
    /// The provider's API key is configured (or it needs none).
    pub key_available: bool,
}

/// `data` of `set_model` and `set_thinking_level`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    pub model: ModelInfo,
    pub thinking_level: String,
}

/// `data` of `new_session`, `switch_session` and `fork`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: String,
    pub session_file: Option<String>,
    /// For `fork`: the text of the user message forked at, for the client to edit and resend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One entry of `get_fork_points`: a user message of the active branch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkPoint {
    pub entry_id: String,
    pub text: String,
}

/// `data` of `get_session_stats`, over every entry of the session file (abandoned branches cost
/// tokens too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStats {
    pub session_id: String,
    pub session_file: Option<String>,
    pub user_messages: usize,
    pub assistant_messages: usize,
    pub tool_calls: usize,
    pub tool_results: usize,
    pub total_messages: usize,
    pub tokens: TokenTotals,
    /// US dollars.
    pub cost: f64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub total: u64,
}

/// One entry of `get_commands`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandInfo {
    pub name: String,
    pub description: String,
    pub plugin: String,
}

/// `data` of `bash`. The output is stdout and stderr interleaved as they arrived, cut to its last
/// part when long (`truncated`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    pub output: String,
    /// `None` when the process was killed or died of a signal.
    pub exit_code: Option<i32>,
    pub cancelled: bool,
    pub truncated: bool,
}

/// `data` of `get_messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Messages {
    pub messages: Vec<Message>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_are_flat_objects_with_an_optional_id() {
        let request = Request {
            id: Some("7".into()),
            command: Command::Prompt {
                message: "hi".into(),
                images: Vec::new(),
                streaming_behavior: Some(StreamingBehavior::FollowUp),
            },
        };
        let value = serde_json::to_value(&request).expect("serialize");
        assert_eq!(
            value,
            json!({"id": "7", "type": "prompt", "message": "hi", "streamingBehavior": "followUp"})
        );
        let back: Request = serde_json::from_value(value).expect("deserialize");
        assert_eq!(back, request);
        let bare: Request = serde_json::from_value(json!({"type": "abort_bash"})).expect("no id");
        assert_eq!(bare.id, None);
        assert_eq!(bare.command.name(), "abort_bash");
    }

    #[test]
    fn command_names_match_their_tags() {
        let commands = [
            Command::FollowUp {
                message: String::new(),
                images: Vec::new(),
            },
            Command::SetModel {
                provider: "p".into(),
                model_id: "m".into(),
            },
            Command::GetLastAssistantText,
            Command::SwitchSession {
                session_path: None,
                session_id: Some("x".into()),
            },
        ];
        for command in commands {
            let value = serde_json::to_value(&command).expect("serialize");
            assert_eq!(value["type"], command.name());
        }
    }

    #[test]
    fn dialog_requests_and_answers_round_trip() {
        let event = RpcEvent::PluginUiRequest(UiRequest {
            id: "d1".into(),
            plugin: "plan-mode".into(),
            dialog: Dialog::Select {
                title: "Pick".into(),
                options: vec!["a".into(), "b".into()],
                timeout_ms: Some(500),
            },
        });
        let value = serde_json::to_value(&event).expect("serialize");
        assert_eq!(
            value,
            json!({"type": "plugin_ui_request", "id": "d1", "plugin": "plan-mode",
                   "method": "select", "title": "Pick", "options": ["a", "b"], "timeoutMs": 500})
        );
        assert_eq!(
            serde_json::from_value::<RpcEvent>(value).expect("deserialize"),
            event
        );
        let answer = serde_json::to_value(UiResponse::confirm("d1", true)).expect("answer");
        assert_eq!(
            answer,
            json!({"type": "plugin_ui_response", "id": "d1", "confirmed": true})
        );
        let response = Response::err(Some("3".into()), "parse", "bad");
        assert_eq!(
            serde_json::to_value(&response).expect("response"),
            json!({"id": "3", "type": "response", "command": "parse", "success": false, "error": "bad"})
        );
    }
}
