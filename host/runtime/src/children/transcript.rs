//! A child's transcript in the parent's session: a `custom` entry of type `subagent-run`, owned
//! by the plugin that started the child, so `/tree`, export and resume keep it and the session's
//! stats count what the child cost. A transcript over its budget keeps its newest messages.

use std::sync::Arc;

use serde_json::{json, Value};
use tack_core::message::Message;
use tack_core::session::SessionHandle;

use super::{ChildOutcome, ChildRequest};

/// The custom type of a child's transcript entry.
pub const TRANSCRIPT_ENTRY_TYPE: &str = "subagent-run";
/// The field of a transcript entry's data that holds the child's usage.
pub const TRANSCRIPT_USAGE_FIELD: &str = "usage";

/// Appends the entry; its id, or `None` when it could not be written (the child's answer still
/// stands; the failure is logged).
pub(super) fn record(
    session: &SessionHandle,
    plugin: &str,
    request: &ChildRequest,
    outcome: &ChildOutcome,
    messages: &[Arc<Message>],
    budget: usize,
) -> Option<String> {
    let mut kept: Vec<Value> = messages
        .iter()
        .filter_map(|m| serde_json::to_value(m.as_ref()).ok())
        .collect();
    let mut omitted = 0usize;
    let mut data = entry(request, outcome, &kept, omitted);
    while data.to_string().len() > budget && !kept.is_empty() {
        kept.remove(0);
        omitted += 1;
        data = entry(request, outcome, &kept, omitted);
    }
    let mut session = session.lock();
    match session.append_plugin_state(plugin, TRANSCRIPT_ENTRY_TYPE, data) {
        Ok(entry) => Some(entry.id.clone()),
        Err(e) => {
            tracing::warn!(plugin, "cannot record a child's transcript: {e}");
            None
        }
    }
}

fn entry(
    request: &ChildRequest,
    outcome: &ChildOutcome,
    messages: &[Value],
    omitted: usize,
) -> Value {
    json!({
        "description": request.description,
        "prompt": request.prompt,
        "model": outcome.model,
        "status": outcome.status.as_str(),
        "error": outcome.error,
        "text": outcome.text,
        "usage": outcome.usage,
        "messages": messages,
        "omittedMessages": omitted,
    })
}
