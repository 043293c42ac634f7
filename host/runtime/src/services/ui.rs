//! The user-interface part of [`HostServices`](super::HostServices): logs, dialogs,
//! notifications, status segments, widgets and tool progress.

use async_trait::async_trait;

pub use tack_core::event::{
    ComponentInput, ScreenRead, ScreenReading, ScreenSetting, WorkingIndicator,
};

use crate::api::{Level, ToolResult};

/// Where a plugin's widget goes (`tack:plugin/screen`, 0.2.0); 0.1.0's `ui.set-widget` puts
/// every widget above the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WidgetPlacement {
    #[default]
    AboveEditor,
    BelowEditor,
}

/// Where a plugin's component is drawn (`tack:plugin/screen.show-component`, 0.2.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ComponentPlacement {
    /// In place of the editor.
    #[default]
    Editor,
    /// In a box over the middle of the screen.
    Overlay,
}

/// The answer to one frame: the room the next one has, and what ended this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentFrame {
    pub width: u32,
    pub height: u32,
    pub input: ComponentInput,
}

impl ComponentFrame {
    /// The answer of a front end that cannot show components.
    pub fn closed() -> ComponentFrame {
        ComponentFrame {
            width: 0,
            height: 0,
            input: ComponentInput::Closed,
        }
    }
}

/// What a front end shows of plugins. The defaults are a front end with nobody to ask: logs go
/// to `tracing`, dialogs take their safe default, the rest is dropped.
#[async_trait]
pub trait PluginUi: Send + Sync + 'static {
    fn log(&self, plugin: &str, level: Level, message: &str) {
        match level {
            Level::Debug => tracing::debug!(plugin, "{message}"),
            Level::Info => tracing::info!(plugin, "{message}"),
            Level::Warn => tracing::warn!(plugin, "{message}"),
            Level::Error => tracing::error!(plugin, "{message}"),
        }
    }

    /// Partial output of a running tool call.
    fn tool_progress(&self, _plugin: &str, _call_id: &str, _partial: ToolResult) {}

    async fn confirm(
        &self,
        _plugin: &str,
        _title: &str,
        _message: &str,
        _timeout_ms: Option<u32>,
    ) -> bool {
        false
    }

    async fn select(
        &self,
        _plugin: &str,
        _title: &str,
        _options: &[String],
        _timeout_ms: Option<u32>,
    ) -> Option<u32> {
        None
    }

    async fn input(
        &self,
        _plugin: &str,
        _title: &str,
        _placeholder: &str,
        _timeout_ms: Option<u32>,
    ) -> Option<String> {
        None
    }

    fn notify(&self, plugin: &str, level: Level, message: &str) {
        self.log(plugin, level, message);
    }

    fn set_status(&self, _plugin: &str, _key: &str, _text: Option<&str>) {}

    fn set_widget(
        &self,
        _plugin: &str,
        _key: &str,
        _lines: &[String],
        _placement: WidgetPlacement,
    ) {
    }

    /// Whether a person can answer dialogs (Pi's `ctx.hasUI`): the interactive front ends say
    /// yes.
    fn has_ui(&self) -> bool {
        false
    }

    /// The terminal's title (`tack:plugin/screen`, 0.2.0); empty restores the front end's.
    fn set_title(&self, _plugin: &str, _title: &str) {}

    /// Puts `text` in the user's editor: in place of what is there, or at the cursor with
    /// `paste`.
    fn set_editor_text(&self, _plugin: &str, _text: &str, _paste: bool) {}

    /// The text beside the spinner while the agent works; `None` restores the front end's.
    fn set_working_message(&self, _plugin: &str, _message: Option<&str>) {}

    /// The plugin's footer (left and right parts), or `None` to remove it.
    fn set_footer(&self, _plugin: &str, _footer: Option<(&str, &str)>) {}

    /// How the terminal UI shows the working row, the header, thinking and tool output
    /// (`tack:plugin/screen`, 0.2.0); front ends that show none of it drop it.
    fn set_screen(&self, _plugin: &str, _setting: ScreenSetting) {}

    /// What the terminal UI shows of `what`; `None` where there is no terminal UI to ask.
    async fn read_screen(&self, _plugin: &str, _what: ScreenRead) -> Option<ScreenReading> {
        None
    }

    /// Binds `key` to the plugin (`description`: Some) or unbinds it (None), in a front end that
    /// has keys to bind (`tack:plugin/shortcuts`, 0.2.0); the key was checked for its grammar.
    fn set_shortcut(&self, _plugin: &str, _key: &str, _description: Option<&str>) {}

    /// The themes the user can choose; none where nothing is shown.
    fn themes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Shows the theme called `name` for the rest of this run.
    fn set_theme(&self, _plugin: &str, _name: &str) -> Result<(), String> {
        Err("there is no terminal UI to show a theme".to_string())
    }

    /// Shows `lines` as the plugin's component and waits for a key, or `wait`; a front end
    /// with nobody to show it to answers `Closed` at once.
    async fn show_component(
        &self,
        _plugin: &str,
        _lines: Vec<String>,
        _wait: std::time::Duration,
        _placement: ComponentPlacement,
    ) -> ComponentFrame {
        ComponentFrame::closed()
    }

    /// Takes the plugin's component off the screen, if it has one up.
    fn close_component(&self, _plugin: &str) {}
}

/// No user interface at all.
pub struct HeadlessUi;

impl PluginUi for HeadlessUi {}
