//! What flows between the UI and the program around it: [`UiEvent`]s in (agent events, plugin
//! UI requests, command output, state for the footer and pickers) and [`Action`]s out (what the
//! user asked for). The UI never runs the agent itself.

use std::sync::Arc;

use tack_core::event::{
    AgentEvent, ComponentInput, NoticeLevel, ScreenRead, ScreenReading, ScreenSetting, UiRequest,
};
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
    /// A plugin's component shows a frame and waits for a key.
    Component(ComponentRequest),
    /// A plugin's component is over: the call that drew it ended, or it closed it.
    ComponentClosed(String),
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
    /// Lines a plugin shows above the editor, or below it with `below`; no lines removes the
    /// widget.
    Widget {
        plugin: String,
        key: String,
        lines: Vec<String>,
        below: bool,
    },
    /// A plugin's title for the terminal window; empty restores tack's.
    Title(String),
    /// A plugin puts text in the editor: in place of what is there, or at the cursor (`paste`).
    SetEditorText {
        text: String,
        paste: bool,
    },
    /// A plugin's text beside the spinner; `None` restores tack's.
    WorkingMessage(Option<String>),
    /// A plugin changes the working row, the header, thinking's label or tool expansion.
    Screen {
        plugin: String,
        setting: ScreenSetting,
    },
    /// A plugin reads what the UI shows; the answer goes back through `reply`.
    ReadScreen {
        what: ScreenRead,
        reply: oneshot::Sender<ScreenReading>,
    },
    /// A plugin binds `key` (`description`: Some) or unbinds it (None).
    Shortcut {
        plugin: String,
        key: String,
        description: Option<String>,
    },
    /// `/hotkeys`: tack's keys and the shortcuts plugins bound, shown in the transcript.
    Hotkeys,
    /// A plugin's footer (left and right parts) in place of tack's; `None` removes it.
    PluginFooter {
        plugin: String,
        footer: Option<(String, String)>,
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
    /// The colours change to those of the theme called `name` (`/settings`, or a plugin's
    /// `screen.set-theme`).
    Palette {
        name: String,
        palette: crate::theme::Palette,
    },
    /// An image file to attach to the message being written, as an `[image N]` chip at the
    /// cursor (an image pasted from the clipboard and saved by the program).
    AttachImage(std::path::PathBuf),
    /// How the UI draws (`/settings`, and config.toml at start).
    Display(Display),
    /// The program must end (a signal): the UI quits as if the user asked.
    Shutdown,
    /// A plugin's lines for the block of [`Action::Render`] (`None`: the UI draws it). With
    /// `never`, no plugin draws that block, and it is not asked about again.
    Rendered {
        key: RenderKey,
        drawing: Option<PluginDrawing>,
        never: bool,
    },
    /// What `plugin`'s editor shows now, and the text its last key submitted, sent as the user's
    /// prompt.
    PluginEditor {
        plugin: String,
        lines: Vec<String>,
        submitted: Option<String>,
    },
    /// `plugin`'s editor failed: tack's is back, if the plugin's was still in its place.
    PluginEditorFailed {
        plugin: String,
        error: String,
    },
    /// A plugin's answer to [`Action::Complete`] number `seq`: items, and the text before the
    /// cursor they replace. Dropped when the draft changed since.
    Completions {
        seq: u64,
        items: Vec<PluginCompletion>,
        prefix: String,
    },
}

/// Which block a drawing is for, and the room it was asked for: an answer whose block changed
/// since (or whose transcript was loaded again) is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RenderKey {
    /// The transcript's load it belongs to.
    pub generation: u64,
    /// The block's place in that transcript.
    pub index: usize,
    /// How often the block had changed when it was asked.
    pub version: u64,
    /// The transcript's width when it was asked.
    pub width: u16,
    pub expanded: bool,
}

/// What the program asks a plugin to draw (`tack:plugin/renderers`, 0.2.0).
#[derive(Debug, Clone, PartialEq)]
pub enum RenderQuery {
    /// A tool's call, and what it returned so far; the tool's plugin draws it.
    Tool {
        tool: String,
        call_id: String,
        args: serde_json::Value,
        started: bool,
        result: Option<RenderedResult>,
    },
    /// A custom message a plugin sent; that plugin draws it.
    Message {
        plugin: String,
        custom_type: String,
        content: String,
        details: Option<serde_json::Value>,
    },
}

/// What a call returned so far, for its plugin to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedResult {
    pub text: String,
    pub details: Option<serde_json::Value>,
    pub is_error: bool,
    /// The latest progress of a call still running.
    pub partial: bool,
}

/// A plugin's lines for a block, each part `None` where the UI draws it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginDrawing {
    /// A tool call's heading, after its name.
    pub heading: Option<Vec<String>>,
    /// A tool call's body, or a message.
    pub body: Option<Vec<String>>,
}

/// What a plugin's editor in place of tack's is asked (`tack:plugin/editor`, 0.2.0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorInput {
    /// Its lines, with no key: when it is put in place, or the width changed.
    View,
    /// A key typed in it, named as a component's keys are.
    Key(String),
    /// Text pasted into it.
    Paste(String),
}

/// What the program asks plugins to complete (`tack:plugin/completions`, 0.2.0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionQuery {
    /// The argument of a plugin's command: what follows `/command ` up to the cursor.
    CommandArguments {
        plugin: String,
        command: String,
        prefix: String,
    },
    /// The draft at the cursor (row, column in characters), for the plugins that complete it,
    /// newest first: the first that answers wins, as Pi's newest provider wraps the others.
    Input {
        plugins: Vec<String>,
        lines: Vec<String>,
        cursor: (usize, usize),
    },
}

/// One item a plugin offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginCompletion {
    /// What replaces the completed text.
    pub value: String,
    pub label: String,
    pub description: String,
}

/// The settings that change how the UI draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Display {
    /// Images in the transcript as thumbnails (else a one-line mention).
    pub show_images: bool,
    /// Blank columns on each side of the editor.
    pub editor_padding: u16,
}

impl Default for Display {
    fn default() -> Display {
        Display {
            show_images: true,
            editor_padding: 0,
        }
    }
}

impl Display {
    /// The widest padding the editor takes; more would leave too little room to type.
    pub const MAX_EDITOR_PADDING: u16 = 4;
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
    /// An item of an open picker renamed or deleted; the picker stays open and the program
    /// sends it again with the change made.
    PickerEdit {
        kind: PickerKind,
        value: String,
        edit: PickerEdit,
    },
    /// Ctrl+V: attach the image on the system clipboard (the program reads it and answers
    /// with [`UiEvent::AttachImage`]).
    PasteImage,
    /// Image files that go with the next message (pasted paths, shown as `[image N]` chips).
    Attach(Vec<std::path::PathBuf>),
    /// Ctrl+P (forward) and Shift+Ctrl+P: the next scoped model.
    CycleModel {
        forward: bool,
    },
    /// Shift+Tab: the next thinking level.
    CycleThinking,
    /// A key a plugin bound (`key` as it registered it) was pressed in the editor.
    Shortcut {
        plugin: String,
        key: String,
    },
    /// A block a plugin may draw came into view, changed, or is shown at another width or
    /// expansion: ask it for lines `columns` wide, and answer with [`UiEvent::Rendered`]
    /// carrying the same key.
    Render {
        key: RenderKey,
        columns: u16,
        query: RenderQuery,
    },
    /// Ask `plugin`'s editor for its lines `width` columns wide, after `input`; answer with
    /// [`UiEvent::PluginEditor`]. Asked in order: every key counts.
    EditorInput {
        plugin: String,
        input: EditorInput,
        width: u16,
    },
    /// The draft changed where plugins complete it: ask them, and answer with
    /// [`UiEvent::Completions`] carrying the same `seq`.
    Complete {
        seq: u64,
        query: CompletionQuery,
    },
    Quit,
}

#[derive(Debug)]
pub struct DialogRequest {
    pub id: String,
    pub plugin: String,
    /// What to ask; a plugin's timeout is kept by the host, which closes the dialog.
    pub kind: UiRequest,
    pub reply: oneshot::Sender<DialogAnswer>,
    /// An input dialog whose answer is a secret (an API key for `/login`): shown as `•`.
    /// Only the host asks this way; a plugin's dialogs are never masked.
    pub masked: bool,
}

/// A frame of a plugin's component: lines to show, in place of the editor or in a box over the
/// screen, and where the next key (or the end of `wait`) goes.
#[derive(Debug)]
pub struct ComponentRequest {
    pub plugin: String,
    pub lines: Vec<String>,
    pub overlay: bool,
    /// How long to wait for a key before answering [`ComponentInput::Tick`].
    pub wait: std::time::Duration,
    pub reply: oneshot::Sender<ComponentAnswer>,
}

/// What ended a frame, and the room the next one has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentAnswer {
    pub width: u16,
    pub height: u16,
    pub input: ComponentInput,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PickerKind {
    #[default]
    Model,
    Session,
    Tree,
    /// Whether to summarize the branch a `/tree` move leaves.
    TreeSummary,
    Fork,
    Thinking,
    Settings,
    /// `/rewind`: a user message to go back to.
    Rewind,
    /// What `/rewind` restores: files, conversation or both.
    RewindMode,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Picker {
    pub kind: PickerKind,
    pub title: String,
    pub items: Vec<PickerItem>,
    /// The item selected at first (the current model, the leaf, ...).
    pub selected: usize,
    /// Filters the user cycles through with Tab; none: every item shows.
    pub views: Vec<PickerView>,
    /// The view shown first (index into `views`).
    pub view: usize,
    /// Items can be renamed (Ctrl+R) and deleted (Ctrl+D twice), as [`Action::PickerEdit`].
    pub editable: bool,
    /// What the last edit did (or why it was refused), shown in the picker until the next key:
    /// the transcript, where messages go, is behind it.
    pub notice: Option<String>,
}

/// A named filter of a picker: the items carrying every tag of `tags` (0 shows all).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PickerView {
    pub name: String,
    pub tags: u32,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PickerItem {
    pub label: String,
    pub detail: String,
    /// What [`Action::Picked`] carries.
    pub value: String,
    /// Bits the picker's views select on (what they mean is the program's business).
    pub tags: u32,
    /// Nesting: the items after this one with a greater depth are its subtree, which Left
    /// folds and Right unfolds.
    pub depth: usize,
}

/// What [`Action::PickerEdit`] asks.
#[derive(Debug, Clone, PartialEq)]
pub enum PickerEdit {
    Rename(String),
    Delete,
}
