//! What flows between the UI and the program around it: [`UiEvent`]s in (agent events, plugin
//! UI requests, command output, state for the footer and pickers) and [`Action`]s out (what the
//! user asked for). The UI never runs the agent itself.

use std::sync::Arc;

use tack_core::event::{AgentEvent, NoticeLevel};
use tack_core::message::Message;
use tokio::sync::oneshot;

/// Something for the UI to show.
#[derive(Debug)]
pub enum UiEvent {
    Agent(AgentEvent),
    /// Replaces the transcript: the active branch of a session just opened, resumed, forked or
    /// moved in.
    Transcript(Vec<Arc<Message>>),
    /// A plugin asks the user something; the answer goes back through the request's channel.
    Dialog(DialogRequest),
    /// A dialog ended without the user (its timeout); `id` as in [`DialogRequest::id`].
    DialogClosed(String),
    /// Every open dialog ends unanswered (the run was aborted).
    CloseDialogs,
    Notify {
        plugin: String,
        level: NoticeLevel,
        message: String,
    },
    /// A status line segment of a plugin; `None` removes it.
    Status {
        plugin: String,
        key: String,
        text: Option<String>,
    },
    /// Lines a plugin shows above the editor (below it when the key starts with `below:`); no
    /// lines removes the widget.
    Widget {
        plugin: String,
        key: String,
        lines: Vec<String>,
    },
    /// Output of a command, shown in the transcript as markdown.
    Info(String),
    Error(String),
    /// What the footer shows besides the token totals the UI counts itself.
    Footer(FooterInfo),
    /// The slash commands to complete, host's and plugins'.
    Commands(Vec<CommandInfo>),
    /// Opens a picker; the choice comes back as [`Action::Picked`].
    Picker(Picker),
    /// Work other than an agent run keeps the host busy (compaction, a session change); `None`
    /// when it is over.
    Busy(Option<String>),
    /// Earlier prompts, oldest first, for the editor's history.
    History(Vec<String>),
    /// Files of the workspace (relative paths) for `@` completion.
    Files(Vec<String>),
    /// Puts text in the editor, before what is there (a forked prompt, or queued messages an
    /// abort dropped, to edit and send again).
    EditorText(String),
    /// Text for the system clipboard, sent to the terminal as OSC 52.
    Clipboard(String),
    /// The colours change (`/settings`' theme).
    Palette(crate::theme::Palette),
    /// The program must end (a signal): the UI quits as if the user asked.
    Shutdown,
}

/// What the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A prompt while the agent is idle.
    Prompt(String),
    /// A message for the running agent, before its next model call.
    Steer(String),
    /// A message for when the running agent would stop.
    FollowUp(String),
    Abort,
    /// `/name args` (without the slash).
    Command {
        name: String,
        args: String,
    },
    Picked {
        kind: PickerKind,
        value: String,
    },
    /// Image files that go with the next message (pasted paths, shown as `[image N]` chips).
    Attach(Vec<std::path::PathBuf>),
    /// Ctrl+P (forward) and Shift+Ctrl+P: the next scoped model.
    CycleModel {
        forward: bool,
    },
    /// Shift+Tab: the next thinking level.
    CycleThinking,
    Quit,
}

#[derive(Debug)]
pub struct DialogRequest {
    pub id: String,
    pub plugin: String,
    pub kind: DialogKind,
    pub reply: oneshot::Sender<DialogAnswer>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DialogKind {
    Confirm { title: String, message: String },
    Select { title: String, options: Vec<String> },
    Input { title: String, placeholder: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum DialogAnswer {
    Confirmed(bool),
    Selected(usize),
    Text(String),
    Cancelled,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FooterInfo {
    /// `provider/model`.
    pub model: String,
    pub thinking: Option<String>,
    pub cwd: String,
    pub git_branch: Option<String>,
    pub context_window: u32,
    pub session_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CommandInfo {
    pub name: String,
    pub description: String,
    /// The plugin providing it; `None` for the host's own.
    pub plugin: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PickerKind {
    Model,
    Session,
    Tree,
    Fork,
    Thinking,
    Settings,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    pub kind: PickerKind,
    pub title: String,
    pub items: Vec<PickerItem>,
    /// The item selected at first (the current model, the leaf, ...).
    pub selected: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PickerItem {
    pub label: String,
    pub detail: String,
    /// What [`Action::Picked`] carries.
    pub value: String,
}
