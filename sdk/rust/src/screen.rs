//! What a plugin shows on the screen beyond 0.1.0's [`crate::ui`] (`tack:plugin/screen`, new in
//! 0.2.0): widgets below the editor as well as above it, as Pi's `setWidget` places them; the
//! terminal's title; the editor's text; the working message; and a footer of its own.
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
    git_branch, paste_to_editor, set_editor_text, set_footer, set_title, set_widget,
    set_working_message, Footer, WidgetPlacement,
};
