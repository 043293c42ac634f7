//! Keyboard shortcuts (`tack:plugin/shortcuts`, new in 0.2.0): a key the plugin binds in the
//! terminal UI, heard as the `shortcut` event by its [`crate::Observer`] (with `{"key": ...}`),
//! whether or not it subscribed to events. A key tack or another plugin holds is not bound,
//! and the user is told; `register` fails only for a malformed key or past 32 keys.
//!
//! ```rust,no_run
//! use tack_sdk::shortcuts;
//!
//! shortcuts::register("ctrl+shift+p", "Toggle plan mode")?;
//! # Ok::<(), String>(())
//! ```

pub use crate::additions::tack::plugin0_2_0::shortcuts::{register, unregister};
