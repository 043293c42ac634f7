//! What a plugin shows on the screen beyond 0.1.0's [`crate::ui`] (`tack:plugin/screen`, new in
//! 0.2.0): widgets below the editor as well as above it, as Pi's `setWidget` places them.
//!
//! ```rust,no_run
//! use tack_sdk::screen::{self, WidgetPlacement};
//!
//! screen::set_widget("hint", &["Esc stops the run".to_string()], WidgetPlacement::BelowEditor);
//! ```

pub use crate::additions::tack::plugin0_2_0::screen::{set_widget, WidgetPlacement};
