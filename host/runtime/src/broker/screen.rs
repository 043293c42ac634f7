//! The host side of `tack:plugin/screen` (0.2.0): widgets placed above or below the editor,
//! under the same budget and neutralisation as 0.1.0's `ui.set-widget`; the title, the editor's
//! text, the working message and a footer, each neutralised, one line where it is shown on one,
//! and budgeted.

use std::time::{Duration, Instant};

use crate::bindings::v0_2_0::tack::plugin0_2_0::screen;
use crate::budget::BudgetExceeded;
use crate::services::{
    ComponentInput, ComponentPlacement, ScreenRead, ScreenReading, ScreenSetting, WidgetPlacement,
    WorkingIndicator,
};
use crate::state::PluginState;

/// The most lines one frame of a component may have.
const MAX_COMPONENT_LINES: usize = 200;
/// The longest a frame waits for a key.
const MAX_FRAME_WAIT: Duration = Duration::from_secs(10);
/// The most frames a working indicator has.
const MAX_INDICATOR_FRAMES: usize = 32;
/// The columns one frame of a working indicator may take; the rest is cut.
const INDICATOR_FRAME_COLUMNS: usize = 8;
/// The shortest and longest a frame of a working indicator shows, in milliseconds.
const INDICATOR_INTERVAL_MS: (u32, u32) = (40, 10_000);
/// The spinner's own pace, taken for an interval of 0.
const SPINNER_INTERVAL_MS: u32 = 100;
/// The most lines a header has.
const MAX_HEADER_LINES: usize = 12;

impl screen::Host for PluginState {
    async fn set_widget(
        &mut self,
        key: String,
        lines: Vec<String>,
        placement: screen::WidgetPlacement,
    ) -> wasmtime::Result<()> {
        let placement = match placement {
            screen::WidgetPlacement::AboveEditor => WidgetPlacement::AboveEditor,
            screen::WidgetPlacement::BelowEditor => WidgetPlacement::BelowEditor,
        };
        self.show_widget(&key, &lines, placement)
    }

    async fn set_title(&mut self, title: String) -> wasmtime::Result<()> {
        let title = self.ui_line("a title", &title)?;
        self.env.services.ui.set_title(&self.env.name, &title);
        Ok(())
    }

    async fn set_editor_text(&mut self, text: String) -> wasmtime::Result<()> {
        let text = self.checked_editor_text(&text)?;
        self.env
            .services
            .ui
            .set_editor_text(&self.env.name, &text, false);
        Ok(())
    }

    async fn paste_to_editor(&mut self, text: String) -> wasmtime::Result<()> {
        let text = self.checked_editor_text(&text)?;
        self.env
            .services
            .ui
            .set_editor_text(&self.env.name, &text, true);
        Ok(())
    }

    async fn set_working_message(&mut self, message: Option<String>) -> wasmtime::Result<()> {
        let message = message
            .map(|m| self.ui_line("a working message", &m))
            .transpose()?;
        self.env
            .services
            .ui
            .set_working_message(&self.env.name, message.as_deref());
        Ok(())
    }

    async fn set_working_visible(&mut self, visible: bool) -> wasmtime::Result<()> {
        self.set_screen(ScreenSetting::WorkingVisible(visible));
        Ok(())
    }

    async fn set_working_indicator(
        &mut self,
        indicator: Option<screen::WorkingIndicator>,
    ) -> wasmtime::Result<()> {
        let indicator = match indicator {
            None => None,
            Some(indicator) => {
                if indicator.frames.len() > MAX_INDICATOR_FRAMES {
                    return Err(BudgetExceeded::items(
                        "the frames of a working indicator",
                        indicator.frames.len(),
                        MAX_INDICATOR_FRAMES,
                    )
                    .into());
                }
                let frames = indicator
                    .frames
                    .iter()
                    .map(|frame| {
                        let frame = self.ui_line("a working indicator frame", frame)?;
                        Ok(frame.chars().take(INDICATOR_FRAME_COLUMNS).collect())
                    })
                    .collect::<wasmtime::Result<Vec<String>>>()?;
                let interval_ms = match indicator.interval_ms {
                    0 => SPINNER_INTERVAL_MS,
                    ms => ms.clamp(INDICATOR_INTERVAL_MS.0, INDICATOR_INTERVAL_MS.1),
                };
                Some(WorkingIndicator {
                    frames,
                    interval_ms,
                })
            }
        };
        self.set_screen(ScreenSetting::WorkingIndicator(indicator));
        Ok(())
    }

    async fn set_hidden_thinking_label(&mut self, label: Option<String>) -> wasmtime::Result<()> {
        let label = label
            .map(|l| self.ui_line("a hidden thinking label", &l))
            .transpose()?;
        self.set_screen(ScreenSetting::HiddenThinkingLabel(label));
        Ok(())
    }

    async fn set_header(&mut self, lines: Vec<String>) -> wasmtime::Result<()> {
        if lines.len() > MAX_HEADER_LINES {
            return Err(BudgetExceeded::items(
                "the lines of a header",
                lines.len(),
                MAX_HEADER_LINES,
            )
            .into());
        }
        let lines = lines
            .iter()
            .map(|line| self.ui_styled_line("a header line", line))
            .collect::<wasmtime::Result<Vec<String>>>()?;
        self.set_screen(ScreenSetting::Header(lines));
        Ok(())
    }

    async fn tools_expanded(&mut self) -> wasmtime::Result<bool> {
        let reading = self.read_screen(ScreenRead::ToolsExpanded).await;
        Ok(matches!(reading, Some(ScreenReading::ToolsExpanded(true))))
    }

    async fn set_tools_expanded(&mut self, expanded: bool) -> wasmtime::Result<()> {
        self.set_screen(ScreenSetting::ToolsExpanded(expanded));
        Ok(())
    }

    async fn editor_text(&mut self) -> wasmtime::Result<Option<String>> {
        // The draft is what the user types: a plugin reads it only with the grant that already
        // hands it the keys typed into its component.
        if !self.env.capabilities.components {
            return Ok(None);
        }
        Ok(match self.read_screen(ScreenRead::EditorText).await {
            Some(ScreenReading::EditorText(text)) => Some(text),
            _ => None,
        })
    }

    async fn set_input_completion(
        &mut self,
        enabled: bool,
    ) -> wasmtime::Result<Result<(), String>> {
        // Completing the draft means seeing it keystroke by keystroke: the grant that reads it.
        if !self.env.capabilities.components {
            return Ok(Err(
                "completing the user's draft needs the `components` grant: the plugin would see what they type".to_string(),
            ));
        }
        self.set_screen(ScreenSetting::InputCompletion(enabled));
        Ok(Ok(()))
    }

    async fn set_editor(&mut self, enabled: bool) -> wasmtime::Result<Result<(), String>> {
        // The editor sees every key the user types in it and decides what is sent for them.
        if !self.env.capabilities.components {
            return Ok(Err(
                "an editor of the plugin's own needs the `components` grant: it would see what the user types and send it for them".to_string(),
            ));
        }
        self.set_screen(ScreenSetting::Editor(enabled));
        Ok(Ok(()))
    }

    async fn themes(&mut self) -> wasmtime::Result<Vec<String>> {
        Ok(self.env.services.ui.themes())
    }

    async fn theme(&mut self) -> wasmtime::Result<Option<String>> {
        Ok(match self.read_screen(ScreenRead::Theme).await {
            Some(ScreenReading::Theme(name)) => Some(name),
            _ => None,
        })
    }

    async fn set_theme(&mut self, name: String) -> wasmtime::Result<Result<(), String>> {
        let name = self.ui_line("a theme name", &name)?;
        Ok(self.env.services.ui.set_theme(&self.env.name, &name))
    }

    async fn set_footer(&mut self, footer: Option<screen::Footer>) -> wasmtime::Result<()> {
        let footer = match footer {
            Some(footer) => Some((
                self.ui_line("a footer's left part", &footer.left)?,
                self.ui_line("a footer's right part", &footer.right)?,
            )),
            None => None,
        };
        self.env.services.ui.set_footer(
            &self.env.name,
            footer.as_ref().map(|(l, r)| (l.as_str(), r.as_str())),
        );
        Ok(())
    }

    async fn git_branch(&mut self) -> wasmtime::Result<Option<String>> {
        Ok(crate::git::branch(&self.env.workspace))
    }

    async fn show_component(
        &mut self,
        lines: Vec<String>,
        wait_ms: u32,
        placement: screen::ComponentPlacement,
    ) -> wasmtime::Result<screen::ComponentFrame> {
        let closed = screen::ComponentFrame {
            width: 0,
            height: 0,
            input: screen::ComponentInput::Closed,
        };
        if !self.env.capabilities.components || self.call.component.closed {
            return Ok(closed);
        }
        if lines.len() > MAX_COMPONENT_LINES {
            return Err(BudgetExceeded::items(
                "the lines of a component",
                lines.len(),
                MAX_COMPONENT_LINES,
            )
            .into());
        }
        let lines = lines
            .iter()
            .map(|line| self.ui_styled_line("a component line", line))
            .collect::<wasmtime::Result<Vec<String>>>()?;
        let placement = match placement {
            screen::ComponentPlacement::Editor => ComponentPlacement::Editor,
            screen::ComponentPlacement::Overlay => ComponentPlacement::Overlay,
        };
        let wait = Duration::from_millis(wait_ms.into()).min(MAX_FRAME_WAIT);
        self.call.component.shown = true;
        let started = Instant::now();
        let env = self.env.clone();
        let frame = env
            .services
            .ui
            .show_component(&env.name, lines, wait, placement)
            .await;
        let input = match frame.input {
            ComponentInput::Key(key) => screen::ComponentInput::Key(key),
            ComponentInput::Paste(text) => screen::ComponentInput::Paste(text),
            ComponentInput::Tick => screen::ComponentInput::Tick,
            ComponentInput::Closed => {
                self.call.component.closed = true;
                return Ok(closed);
            }
        };
        self.resume_after(started);
        Ok(screen::ComponentFrame {
            width: frame.width,
            height: frame.height,
            input,
        })
    }

    async fn close_component(&mut self) -> wasmtime::Result<()> {
        if self.call.component.shown {
            // A later frame of the same call may show a component again (Pi's `custom` called
            // twice), unless the user closed one: then it stays closed for the call.
            self.call.component.shown = false;
            self.env.services.ui.close_component(&self.env.name);
        }
        Ok(())
    }
}

/// The most text a plugin may put in the user's editor at once.
const MAX_EDITOR_TEXT: usize = 64 << 10;

impl PluginState {
    /// UI text shown on one line: budgeted, neutralised, and its line breaks made spaces.
    pub(crate) fn ui_line(&self, what: &str, text: &str) -> wasmtime::Result<String> {
        Ok(self.ui_text(what, text)?.replace(['\n', '\r'], " "))
    }

    /// A line the terminal UI draws with its colours (a widget's, a header's, a component's):
    /// budgeted, its SGR sequences kept for the UI to parse, every other control neutralised,
    /// its line breaks made spaces.
    pub(crate) fn ui_styled_line(&self, what: &str, text: &str) -> wasmtime::Result<String> {
        crate::budget::check_bytes(what, text.len(), self.env.budgets.ui_text_bytes)?;
        Ok(tack_core::text::keep_styles(text).replace('\n', " "))
    }

    fn set_screen(&self, setting: ScreenSetting) {
        self.env.services.ui.set_screen(&self.env.name, setting);
    }

    /// The front end's answer, awaited without holding the plugin's state (which is not `Sync`).
    fn read_screen(
        &self,
        what: ScreenRead,
    ) -> impl std::future::Future<Output = Option<ScreenReading>> + Send + 'static {
        let env = self.env.clone();
        async move { env.services.ui.read_screen(&env.name, what).await }
    }

    /// Text for the editor: at most [`MAX_EDITOR_TEXT`], control sequences neutralised (line
    /// breaks and tabs kept).
    fn checked_editor_text(&self, text: &str) -> wasmtime::Result<String> {
        crate::budget::check_bytes("editor text", text.len(), MAX_EDITOR_TEXT)?;
        let plain = tack_core::text::strip_styles(text);
        Ok(tack_core::text::neutralize_controls(&plain).into_owned())
    }
}
