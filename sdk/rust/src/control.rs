//! The running agent and its session as Pi's `ctx` shows them (`tack:plugin/control`, new in
//! 0.2.0): the model, the thinking level, how full the context window is, whether the agent is
//! idle, the system prompt, the session's name, entries (every branch) and entry labels, and
//! compaction on request.
//! Needs no grant.
//!
//! ```rust,no_run
//! use tack_sdk::control;
//!
//! if let Some(usage) = control::context_usage() {
//!     if usage.percent > 80.0 {
//!         // Runs once the agent is idle; `compaction_end` says how it went.
//!         control::compact(Some("Keep the open questions."))?;
//!     }
//! }
//! control::set_session_name("refactoring the parser")?;
//! # Ok::<(), String>(())
//! ```

use crate::additions::tack::plugin0_2_0::control as host;
pub use crate::additions::tack::plugin0_2_0::control::{
    abort, context_usage, fork, has_pending_messages, has_ui, is_idle, leaf_id, model,
    navigate_tree, new_session, reload, session_name, set_label, set_model, set_session_name,
    set_thinking_level, shutdown, switch_session, system_prompt, thinking_level, wait_for_idle,
    ContextWindowUsage, ModelInfo,
};

/// Pi's `sendMessage`: a custom message, with structured `details` (JSON) kept beside its text
/// in the session (the model reads the text only). On an idle agent, `trigger_turn` starts a
/// turn; without it the message is written to the session at once and answered with the next
/// prompt.
pub fn send_custom_message(
    message: &crate::bindings::tack::plugin::session::OutgoingMessage,
    details: Option<&str>,
    delivery: crate::bindings::tack::plugin::session::Delivery,
    trigger_turn: bool,
) -> Result<(), String> {
    host::send_custom_message(message, details, delivery, trigger_turn)
}

/// Every entry of the session, every branch, in the order they were written (each with its
/// `id` and `parentId`; other plugins' `custom` entries left out).
pub fn session_entries() -> Result<Vec<serde_json::Value>, String> {
    serde_json::from_str(&host::session_entries())
        .map_err(|e| format!("malformed session entries from host: {e}"))
}

/// The session's header: `type`, `version`, `id` and `timestamp`.
pub fn session_header() -> Result<serde_json::Value, String> {
    serde_json::from_str(&host::session_header())
        .map_err(|e| format!("malformed session header from host: {e}"))
}

/// Asks for the conversation to be compacted once the agent is idle, with `instructions` for
/// the summary.
pub fn compact(instructions: Option<&str>) -> Result<(), String> {
    host::compact(instructions)
}
