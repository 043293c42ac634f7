//! The protocol of `tack --mode rpc` (and the event lines of `--mode json`): LF-delimited JSON, one
//! object per line, in the shapes of Pi's RPC mode (`rpc-types.d.ts` of `@mariozechner/pi-coding-agent`)
//! so that Pi's own clients drive tack unchanged.
//!
//! The client writes [`Request`]s (a [`Command`] tagged by `type`, with an optional `id`) and
//! [`UiResponse`]s (`extension_ui_response`) to the process's stdin. The process writes to stdout
//! exactly one [`Response`] per command (`type: "response"`, the command's `id` echoed), the
//! agent's events ([`WireEvent`], the same lines `--mode json` prints) and the [`RpcEvent`]s of
//! plugin user interfaces (`extension_ui_request`). Events carry no `id`. Nothing else is written
//! to stdout; logs go to stderr.
//!
//! Field names are camelCase and command names snake_case, as in Pi. What tack adds (plugin
//! names, `run_command`, `get_state`'s project files, …) are further fields and commands that Pi
//! clients ignore. `host/protocol/rpc-protocol.schema.json` is generated from these types
//! ([`schema::generate`]).

pub mod client;
mod events;
pub mod schema;

pub use events::{
    session_line, AssistantMessageEvent, CompactionResult, EventWire, WireCompactionReason,
    WireEvent, WireNoticeLevel,
};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_core::agent::{InputKind, ModelCost, ModelInfo};
use tack_core::message::{Content, Message};

/// One command line: `{"id": "1", "type": "get_state"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Request {
    /// Echoed in the response so the client can match it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(flatten)]
    pub command: Command,
}

/// What a client can ask: Pi's commands, and `run_command`, tack's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
        #[schemars(with = "Vec<Value>")]
        images: Vec<Content>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        streaming_behavior: Option<StreamingBehavior>,
    },
    /// A message for the model after the current turn's tool calls, before its next call (or a
    /// new run when idle).
    Steer {
        message: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[schemars(with = "Vec<Value>")]
        images: Vec<Content>,
    },
    /// A message for when the agent would otherwise stop (or a new run when idle).
    FollowUp {
        message: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[schemars(with = "Vec<Value>")]
        images: Vec<Content>,
    },
    /// Aborts the run (and closes open plugin dialogs); answered once the run has stopped.
    Abort,
    /// A fresh session. `parentSession` (a session file) is recorded as its parent.
    NewSession {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_session: Option<String>,
    },
    GetState,
    /// The messages of the active branch the model's context is built from.
    GetMessages,
    SetModel {
        provider: String,
        model_id: String,
    },
    /// The next model of the catalog whose provider has a key.
    CycleModel,
    GetAvailableModels,
    /// One of Pi's levels (`off` … `xhigh`); tack's models know `off` to `high`.
    SetThinkingLevel {
        #[schemars(with = "ThinkingLevel")]
        level: String,
    },
    /// The next thinking level the model supports.
    CycleThinkingLevel,
    SetSteeringMode {
        mode: QueueMode,
    },
    SetFollowUpMode {
        mode: QueueMode,
    },
    /// Summarizes the older conversation now.
    Compact {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        custom_instructions: Option<String>,
    },
    SetAutoCompaction {
        enabled: bool,
    },
    /// Retrying failed provider calls (overloaded, rate limited, 5xx) on or off.
    SetAutoRetry {
        enabled: bool,
    },
    /// Ends the wait before a retry: the failure stands.
    AbortRetry,
    /// Runs the user's own shell command in the workspace (not a tool call of the model). The
    /// output is recorded in the session for the model to see, unless `excludeFromContext`.
    Bash {
        command: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exclude_from_context: bool,
    },
    AbortBash,
    GetSessionStats,
    /// Writes the session as a self-contained HTML page (to `outputPath`, or next to the
    /// session file).
    ExportHtml {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output_path: Option<String>,
    },
    /// Opens another session: a file path (`sessionPath`), or tack's session id (or unique
    /// prefix) in `sessionId`.
    SwitchSession {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_path: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// Starts a new session holding the conversation before a user message (an entry id from
    /// `get_fork_messages`); the message's text comes back for editing.
    Fork {
        entry_id: String,
    },
    /// Starts a new session holding the whole active branch.
    Clone,
    GetForkMessages,
    GetLastAssistantText,
    SetSessionName {
        #[schemars(length(min = 1))]
        name: String,
    },
    /// The plugins' slash commands.
    GetCommands,
    /// tack: runs a plugin's slash command (`name` without the slash).
    RunCommand {
        name: String,
        #[serde(default)]
        args: String,
    },
    /// tack: the user messages of this session whose files can be restored (a checkpoint is
    /// taken before each run in RPC mode and the terminal UI), newest first, with the files a
    /// `rewind` would change now. Answered once a running run is over.
    GetRewindPoints,
    /// tack: goes back to before a user message (an entry id from `get_rewind_points`):
    /// its files (`code`), the conversation (`conversation`, as `fork` without a new session:
    /// the text comes back for editing), or both (the default).
    Rewind {
        entry_id: String,
        #[serde(default)]
        mode: RewindMode,
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
            Command::NewSession { .. } => "new_session",
            Command::GetState => "get_state",
            Command::GetMessages => "get_messages",
            Command::SetModel { .. } => "set_model",
            Command::CycleModel => "cycle_model",
            Command::GetAvailableModels => "get_available_models",
            Command::SetThinkingLevel { .. } => "set_thinking_level",
            Command::CycleThinkingLevel => "cycle_thinking_level",
            Command::SetSteeringMode { .. } => "set_steering_mode",
            Command::SetFollowUpMode { .. } => "set_follow_up_mode",
            Command::Compact { .. } => "compact",
            Command::SetAutoCompaction { .. } => "set_auto_compaction",
            Command::SetAutoRetry { .. } => "set_auto_retry",
            Command::AbortRetry => "abort_retry",
            Command::Bash { .. } => "bash",
            Command::AbortBash => "abort_bash",
            Command::GetSessionStats => "get_session_stats",
            Command::ExportHtml { .. } => "export_html",
            Command::SwitchSession { .. } => "switch_session",
            Command::Fork { .. } => "fork",
            Command::Clone => "clone",
            Command::GetForkMessages => "get_fork_messages",
            Command::GetLastAssistantText => "get_last_assistant_text",
            Command::SetSessionName { .. } => "set_session_name",
            Command::GetCommands => "get_commands",
            Command::RunCommand { .. } => "run_command",
            Command::GetRewindPoints => "get_rewind_points",
            Command::Rewind { .. } => "rewind",
        }
    }
}

/// How a `prompt` sent during a run is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StreamingBehavior {
    Steer,
    FollowUp,
}

/// Pi's thinking levels, for the schema. tack's models know `off` to `high`; `xhigh` is refused
/// with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    Off,
    Minimal,
    Low,
    Medium,
    High,
    Xhigh,
}

/// How queued steering or follow-up messages are delivered: all at once, or one per turn
/// (steering) or per stop (follow-up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum QueueMode {
    All,
    OneAtATime,
}

/// The `type` of every response line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ResponseType {
    #[default]
    #[serde(rename = "response")]
    Response,
}

/// The answer to one command. A line that cannot be read as a command is answered with
/// `command: "parse"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum RpcEvent {
    /// tack: an input hook consumed the prompt: no run (and no `agent_end`) follows.
    InputHandled,
    /// A plugin asks (a dialog: reply with a [`UiResponse`] carrying the same `id`) or shows
    /// something (no reply).
    ExtensionUiRequest(UiRequest),
    /// tack: the host closed a dialog before the client answered it (its timeout passed, the run
    /// was aborted, or the process is shutting down); the plugin got the safe default.
    ExtensionUiClosed { id: String, reason: CloseReason },
}

/// `extension_ui_request`: Pi's shapes, tagged by `method`, with the asking plugin's name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UiRequest {
    /// Unique per request; a dialog's answer must carry it.
    pub id: String,
    /// tack: the plugin asking.
    pub plugin: String,
    #[serde(flatten)]
    pub method: UiMethod,
}

/// Without an answer within `timeout` milliseconds (when set) a dialog resolves to its safe
/// default: not confirmed, nothing selected, no input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "method", rename_all_fields = "camelCase")]
pub enum UiMethod {
    #[serde(rename = "select")]
    Select {
        title: String,
        options: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u32>,
    },
    #[serde(rename = "confirm")]
    Confirm {
        title: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u32>,
    },
    #[serde(rename = "input")]
    Input {
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u32>,
    },
    /// Fire-and-forget.
    #[serde(rename = "notify")]
    Notify {
        message: String,
        notify_type: NotifyType,
    },
    /// Sets (`statusText`) or clears (`null`) the status-line segment `statusKey`.
    #[serde(rename = "setStatus")]
    SetStatus {
        status_key: String,
        status_text: Option<String>,
    },
    /// Sets the widget `widgetKey` (lines above the editor); `null` lines remove it.
    #[serde(rename = "setWidget")]
    SetWidget {
        widget_key: String,
        widget_lines: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        widget_placement: Option<WidgetPlacement>,
    },
    /// Sets the terminal window's title. Fire-and-forget.
    #[serde(rename = "setTitle")]
    SetTitle { title: String },
    /// Sets the text in the input editor. Fire-and-forget.
    #[serde(rename = "set_editor_text")]
    SetEditorText { text: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NotifyType {
    Info,
    Warning,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum WidgetPlacement {
    AboveEditor,
    BelowEditor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    Timeout,
    Aborted,
    Shutdown,
}

/// The `type` of a dialog answer line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum UiResponseType {
    #[default]
    #[serde(rename = "extension_ui_response")]
    ExtensionUiResponse,
}

/// `extension_ui_response`, the client's answer to a dialog: `confirmed` for a confirm, `value`
/// for a select (the option's text, or tack's addition: its index) or an input (the text), or
/// `cancelled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
            kind: UiResponseType::ExtensionUiResponse,
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

    pub fn select(id: &str, option: &str) -> Self {
        UiResponse {
            value: Some(Value::from(option)),
            ..UiResponse::new(id)
        }
    }

    pub fn select_index(id: &str, index: u32) -> Self {
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

/// A model as Pi describes it (`Model` of `@mariozechner/pi-ai`): tack's [`ModelInfo`] with
/// Pi's names added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    pub id: String,
    pub name: String,
    /// The provider protocol; tack's providers are plugins, so this is the provider's id.
    pub api: String,
    pub provider: String,
    pub reasoning: bool,
    #[schemars(with = "Vec<String>")]
    pub input: Vec<InputKind>,
    /// US dollars per million tokens: `input`, `output`, `cacheRead`, `cacheWrite`.
    #[schemars(with = "Value")]
    pub cost: ModelCost,
    pub context_window: u32,
    /// Pi's name for `maxOutputTokens`.
    pub max_tokens: u32,
    /// tack's name for `maxTokens`.
    pub max_output_tokens: u32,
}

impl From<ModelInfo> for Model {
    fn from(info: ModelInfo) -> Self {
        Model {
            api: info.provider.clone(),
            id: info.id,
            name: info.name,
            provider: info.provider,
            reasoning: info.reasoning,
            input: info.input,
            cost: info.cost,
            context_window: info.context_window,
            max_tokens: info.max_output_tokens,
            max_output_tokens: info.max_output_tokens,
        }
    }
}

impl From<Model> for ModelInfo {
    fn from(model: Model) -> Self {
        ModelInfo {
            provider: model.provider,
            id: model.id,
            name: model.name,
            context_window: model.context_window,
            max_output_tokens: model.max_output_tokens,
            reasoning: model.reasoning,
            input: model.input,
            cost: model.cost,
        }
    }
}

/// `data` of `get_state`: Pi's `RpcSessionState` and tack's additions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct State {
    pub model: Option<Model>,
    pub thinking_level: String,
    /// A prompt (or a turn a plugin started) is running.
    pub is_streaming: bool,
    pub is_compacting: bool,
    pub steering_mode: QueueMode,
    pub follow_up_mode: QueueMode,
    /// Absent for an in-memory session (`--no-session`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_name: Option<String>,
    pub auto_compaction_enabled: bool,
    /// Messages of the active branch (see `get_messages`).
    pub message_count: usize,
    /// Queued steering and follow-up messages.
    pub pending_message_count: usize,
    /// tack: retrying failed provider calls is on.
    pub auto_retry_enabled: bool,
    /// tack: a `bash` command is running.
    pub is_bash_running: bool,
    /// tack: the queued messages by kind.
    pub pending_steering: usize,
    pub pending_follow_up: usize,
    /// tack: the context files in the system prompt, relative to the working directory.
    #[serde(default)]
    pub context_files: Vec<String>,
    /// tack: the project's `.tack/` files this run used, and those it ignored because the
    /// project is not trusted.
    #[serde(default)]
    pub project_files: ProjectFiles,
}

/// `projectFiles` of `get_state`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectFiles {
    pub used: Vec<String>,
    pub ignored: Vec<String>,
}

/// One entry of `get_available_models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvailableModel {
    #[serde(flatten)]
    pub model: Model,
    /// tack: the provider's API key is configured (or it needs none).
    pub key_available: bool,
}

/// `data` of `set_thinking_level` (tack; Pi sends none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    pub model: Model,
    pub thinking_level: String,
}

/// `data` of `cycle_model` (or `null` when there is no other model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CycledModel {
    pub model: Model,
    pub thinking_level: String,
    /// Pi cycles through `--models` scopes; tack always through the whole catalog.
    pub is_scoped: bool,
}

/// `data` of `new_session`, `switch_session`, `fork` and `clone`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    /// A plugin cancelled the change (its `session-hooks` export, `tack:plugin@0.2.0`); the
    /// session is the one open before.
    pub cancelled: bool,
    /// For `fork`: the text of the user message forked at, for the client to edit and resend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// tack: the session now open.
    pub session_id: String,
    pub session_file: Option<String>,
}

/// One entry of `get_fork_messages`: a user message of the active branch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForkMessage {
    pub entry_id: String,
    pub text: String,
}

/// What `rewind` restores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RewindMode {
    /// The files and the conversation.
    #[default]
    Both,
    /// The conversation only: the session moves to before the message, files stay as they are.
    Conversation,
    /// The files only: the conversation stays as it is.
    Code,
}

/// `data` of `get_rewind_points`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RewindPoints {
    /// Newest first.
    pub points: Vec<RewindPoint>,
}

/// A user message with a file checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RewindPoint {
    pub entry_id: String,
    pub text: String,
    /// When the checkpoint was taken, in milliseconds since the epoch.
    pub timestamp: u64,
    /// Workspace-relative paths a code restore would write back (changed or deleted since).
    pub changed: Vec<String>,
    /// Workspace-relative paths a code restore would delete (they appeared since).
    pub created: Vec<String>,
    /// Files the checkpoint left out, which a restore does not touch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
}

/// A file a checkpoint did not record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkippedFile {
    pub path: String,
    pub size: u64,
    pub reason: String,
}

/// `data` of `rewind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rewound {
    pub mode: RewindMode,
    /// Files written back.
    pub restored: Vec<String>,
    /// Files deleted (made after the checkpoint).
    pub deleted: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
    /// For `conversation` and `both`: the entry the session moved to (absent when the message
    /// was the session's first entry: the conversation is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    /// For `conversation` and `both`: the message's text, for the client to edit and resend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `data` of `get_session_stats`, over every entry of the session file (abandoned branches cost
/// tokens too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub total: u64,
}

/// One entry of `get_commands` (Pi's `RpcSlashCommand`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandInfo {
    pub name: String,
    pub description: String,
    /// Always `extension`: tack's commands come from plugins.
    pub source: String,
    pub source_info: SourceInfo,
    /// tack: the plugin providing it.
    pub plugin: String,
}

/// Where a command comes from (Pi's `SourceInfo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    pub path: String,
    pub source: String,
    pub scope: String,
    pub origin: String,
}

/// `data` of `bash`. The output is stdout and stderr interleaved as they arrived, cut to its last
/// part when long (`truncated`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    pub output: String,
    /// `None` when the process was killed or died of a signal.
    pub exit_code: Option<i32>,
    pub cancelled: bool,
    pub truncated: bool,
}

/// `data` of `get_messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Messages {
    #[schemars(with = "Vec<Value>")]
    pub messages: Vec<Message>,
}

/// `data` of `export_html`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExportedHtml {
    pub path: String,
}

/// Every line a client may write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ClientLine {
    Command(Request),
    UiResponse(UiResponse),
}

/// Every line tack writes to stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ServerLine {
    Response(Response),
    Event(WireEvent),
    Rpc(RpcEvent),
}

#[cfg(test)]
mod tests;
