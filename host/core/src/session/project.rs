//! Projection of a branch to the messages the model's context is built from.

use std::sync::Arc;

use crate::message::{
    BranchSummaryMessage, CompactionSummaryMessage, CustomMessage, Message, Timestamp,
};

use serde_json::Value;

use super::entry::{Entry, EntryKind, UnknownEntry};
use super::pi_format::bash_execution_text;

/// The latest compaction on the branch gives a summary message, then the entries from its
/// `firstKeptEntryId` on follow (the compaction entry itself excluded). Messages, custom messages
/// and branch summaries become messages; every other entry (plugin state, model changes, labels,
/// ...) stays out of the model's context.
pub(crate) fn project(branch: &[&Entry]) -> Vec<Arc<Message>> {
    let latest_compaction = branch
        .iter()
        .rposition(|entry| matches!(entry.kind, EntryKind::Compaction { .. }));
    let Some(compaction_at) = latest_compaction else {
        return branch.iter().filter_map(|e| as_message(e)).collect();
    };
    let compaction = branch[compaction_at];
    let EntryKind::Compaction {
        summary,
        first_kept_entry_id,
        tokens_before,
        ..
    } = &compaction.kind
    else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(branch.len() - compaction_at + 1);
    out.push(Arc::new(Message::CompactionSummary(
        CompactionSummaryMessage {
            summary: summary.clone(),
            tokens_before: *tokens_before,
            timestamp: parse_timestamp(&compaction.timestamp),
        },
    )));
    let kept_from = branch[..compaction_at]
        .iter()
        .position(|entry| entry.id == *first_kept_entry_id)
        .unwrap_or(compaction_at);
    out.extend(
        branch[kept_from..compaction_at]
            .iter()
            .filter_map(|e| as_message(e)),
    );
    out.extend(
        branch[compaction_at + 1..]
            .iter()
            .filter_map(|e| as_message(e)),
    );
    out
}

pub(super) fn as_message(entry: &Entry) -> Option<Arc<Message>> {
    match &entry.kind {
        EntryKind::Message(message) => Some(Arc::clone(message)),
        EntryKind::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => Some(Arc::new(Message::Custom(CustomMessage {
            custom_type: custom_type.clone(),
            content: content.clone(),
            display: *display,
            details: details.clone(),
            timestamp: parse_timestamp(&entry.timestamp),
            plugin: None,
        }))),
        EntryKind::BranchSummary {
            from_id, summary, ..
        } => Some(Arc::new(Message::BranchSummary(BranchSummaryMessage {
            summary: summary.clone(),
            from_id: from_id.clone(),
            timestamp: parse_timestamp(&entry.timestamp),
        }))),
        EntryKind::Unknown(unknown) => bash_execution(unknown, &entry.timestamp),
        _ => None,
    }
}

/// Pi's `bashExecution` message (the user's `!command`), which Pi gives the model as user text
/// unless it was run with `!!` (kept out of the context).
fn bash_execution(unknown: &UnknownEntry, timestamp: &str) -> Option<Arc<Message>> {
    if unknown.entry_type != "message" {
        return None;
    }
    let entry: Value = serde_json::from_str(unknown.raw.get()).ok()?;
    let message = entry.get("message")?;
    if message.get("role")?.as_str()? != "bashExecution"
        || message.get("excludeFromContext").and_then(Value::as_bool) == Some(true)
    {
        return None;
    }
    Some(Arc::new(Message::Custom(CustomMessage {
        custom_type: "bashExecution".into(),
        content: bash_execution_text(message),
        display: true,
        details: None,
        timestamp: message
            .get("timestamp")
            .and_then(Value::as_i64)
            .unwrap_or_else(|| parse_timestamp(timestamp)),
        plugin: None,
    })))
}

/// Milliseconds of an RFC 3339 timestamp; 0 when it does not parse.
pub(crate) fn parse_timestamp(text: &str) -> Timestamp {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp_millis())
        .unwrap_or(0)
}
