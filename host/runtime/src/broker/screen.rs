//! The host side of `tack:plugin/screen` (0.2.0): widgets placed above or below the editor,
//! under the same budget and neutralisation as 0.1.0's `ui.set-widget`; the title, the editor's
//! text, the working message and a footer, each neutralised, one line where it is shown on one,
//! and budgeted.

use crate::bindings::v0_2_0::tack::plugin0_2_0::screen;
use crate::services::WidgetPlacement;
use crate::state::PluginState;

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
        let text = self.editor_text(&text)?;
        self.env
            .services
            .ui
            .set_editor_text(&self.env.name, &text, false);
        Ok(())
    }

    async fn paste_to_editor(&mut self, text: String) -> wasmtime::Result<()> {
        let text = self.editor_text(&text)?;
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
}

/// The most text a plugin may put in the user's editor at once.
const MAX_EDITOR_TEXT: usize = 64 << 10;

impl PluginState {
    /// UI text shown on one line: budgeted, neutralised, and its line breaks made spaces.
    fn ui_line(&self, what: &str, text: &str) -> wasmtime::Result<String> {
        Ok(self.ui_text(what, text)?.replace(['\n', '\r'], " "))
    }

    /// Text for the editor: at most [`MAX_EDITOR_TEXT`], control sequences neutralised (line
    /// breaks and tabs kept).
    fn editor_text(&self, text: &str) -> wasmtime::Result<String> {
        crate::budget::check_bytes("editor text", text.len(), MAX_EDITOR_TEXT)?;
        Ok(tack_core::text::neutralize_controls(text).into_owned())
    }
}
