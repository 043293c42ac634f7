//! tack's interactive terminal UI: ratatui views over the agent's event stream.
//!
//! The crate holds the UI's state, its views and key handling, and the event loop; it knows
//! nothing of plugins or sessions on disk. The program around it feeds [`UiEvent`]s in and
//! carries out the [`Action`]s the user asks for (see `host/cli/src/modes/tui.rs`).

mod app;
mod attachments;
mod complete;
mod editor;
mod external_editor;
pub mod keymap;
pub mod notify;
mod panes;
mod picker;
pub mod protocol;
pub mod render;
mod runner;
mod scroll;
mod state;
pub mod terminal;
pub mod theme;
pub mod transcript;
mod usage;
mod view;

pub use app::App;
pub use protocol::{
    Action, CommandInfo, CompletionQuery, ComponentAnswer, ComponentRequest, DialogAnswer,
    DialogRequest, Display, EditorInput, FooterInfo, Picker, PickerEdit, PickerItem, PickerKind,
    PickerView, PluginCompletion, PluginDrawing, RenderKey, RenderQuery, RenderedResult, UiEvent,
};
pub use runner::{run, terminal_events};
pub use theme::Theme;
pub use usage::Usage;
