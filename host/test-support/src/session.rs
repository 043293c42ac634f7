//! Reading what a run left in a session, and messages to build one from, for tests that drive
//! tack-core's agent in process (with fakes or with real components).

use serde_json::Value;
use tack_core::event::AgentEvent;
use tack_core::message::{Content, Message, ToolResultMessage};
use tack_core::session::{EntryKind, Session};

/// The session's compaction entries: (summary, first kept entry id, details).
pub fn compactions(session: &Session) -> Vec<(String, String, Option<Value>)> {
    session
        .entries()
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Compaction {
                summary,
                first_kept_entry_id,
                details,
                ..
            } => Some((
                summary.clone(),
                first_kept_entry_id.clone(),
                details.clone(),
            )),
            _ => None,
        })
        .collect()
}

/// The compaction start and end events among `events`.
pub fn compaction_events(events: impl IntoIterator<Item = AgentEvent>) -> Vec<AgentEvent> {
    events
        .into_iter()
        .filter(|e| {
            matches!(
                e,
                AgentEvent::CompactionStart { .. } | AgentEvent::CompactionEnd { .. }
            )
        })
        .collect()
}

/// A successful tool result holding `text`.
pub fn tool_result(id: &str, name: &str, text: &str) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content: vec![Content::text(text)],
        details: None,
        is_error: false,
        timestamp: 1,
        rewrite: None,
    })
}
