//! What a plugin shows on the screen beyond 0.1.0's [`crate::ui`] (`tack:plugin/screen`, new in
//! 0.2.0): widgets below the editor as well as above it, as Pi's `setWidget` places them; the
//! terminal's title; the editor's text; the working message; a footer of its own; and
//! components it draws that take the keyboard while they are up ([`Component`], with the
//! `components` grant).
//!
//! ```rust,no_run
//! use tack_sdk::screen::{self, Footer, WidgetPlacement};
//!
//! screen::set_widget("hint", &["Esc stops the run".to_string()], WidgetPlacement::BelowEditor);
//! screen::set_title("tack: refactoring the parser");
//! screen::set_footer(Some(&Footer {
//!     left: "↑1.2k ↓300 $0.012".into(),
//!     right: format!("sonnet ({})", screen::git_branch().unwrap_or_default()),
//! }));
//! ```

pub use crate::additions::tack::plugin0_2_0::screen::{
    close_component, editor_text, git_branch, paste_to_editor, set_editor, set_editor_text,
    set_footer, set_header, set_hidden_thinking_label, set_input_completion, set_theme, set_title,
    set_tools_expanded, set_widget, set_working_indicator, set_working_message,
    set_working_visible, show_component, theme, themes, tools_expanded, ComponentFrame,
    ComponentInput, ComponentPlacement, Footer, WidgetPlacement, WorkingIndicator,
};

/// A component on screen, driven frame by frame from the command or tool that opened it, and
/// taken off the screen when dropped.
///
/// ```rust,no_run
/// use tack_sdk::screen::{Component, ComponentInput, ComponentPlacement};
///
/// let mut picked = 0usize;
/// let items = ["red", "green", "blue"];
/// let mut component = Component::open(ComponentPlacement::Overlay);
/// loop {
///     let lines: Vec<String> = items
///         .iter()
///         .enumerate()
///         .map(|(i, item)| format!("{} {item}", if i == picked { ">" } else { " " }))
///         .collect();
///     match component.frame(&lines, 1_000) {
///         ComponentInput::Key(key) if key == "down" => picked = (picked + 1) % items.len(),
///         ComponentInput::Key(key) if key == "enter" => break,
///         ComponentInput::Closed => break,
///         _ => {}
///     }
/// }
/// ```
pub struct Component {
    placement: ComponentPlacement,
    width: u32,
    height: u32,
}

impl Component {
    /// Opens a component at `placement` and learns its room (nothing is drawn yet).
    pub fn open(placement: ComponentPlacement) -> Component {
        let first = show_component(&[], 0, placement);
        Component {
            placement,
            width: first.width,
            height: first.height,
        }
    }

    /// Columns the next frame's lines may use.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows the next frame may use.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Shows `lines` and waits for a key, or `wait_ms` (answered [`ComponentInput::Tick`]).
    pub fn frame(&mut self, lines: &[String], wait_ms: u32) -> ComponentInput {
        let frame = show_component(lines, wait_ms, self.placement);
        if !matches!(frame.input, ComponentInput::Closed) {
            self.width = frame.width;
            self.height = frame.height;
        }
        frame.input
    }
}

impl Drop for Component {
    fn drop(&mut self) {
        close_component();
    }
}
