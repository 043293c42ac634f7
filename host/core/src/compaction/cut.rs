//! Where to cut: the first entry kept verbatim after a compaction.
//!
//! Walking back from the newest entry, estimated tokens add up until the kept budget is reached;
//! the cut goes to the nearest valid position at or after that point. Valid positions are
//! user, assistant, custom and summary messages with no tool call before them still waiting for
//! its result after them, so that a tool result never loses the call it answers (providers
//! reject such a context). Entries that never reach the model (model changes, labels, plugin
//! state) just before the cut are kept with it.

use std::collections::HashSet;

use crate::message::Message;
use crate::session::{Entry, EntryKind};
use crate::tokens::{chars_to_tokens, estimate_tokens};

/// A cut in a list of context entries (indices into that list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// The first entry kept verbatim; everything before it is summarized.
    pub first_kept: usize,
    /// Set when the cut falls inside a turn (at an assistant message): the message that started
    /// that turn. Entries from it up to the cut are the turn's prefix, summarized on their own.
    pub turn_start: Option<usize>,
}

/// Finds the cut in `region` (the entries the model currently sees, in order, without compaction
/// entries) that keeps about `keep_recent` tokens. `None` when everything fits in the budget or
/// no valid cut leaves anything to summarize.
pub fn find_cut_point(region: &[&Entry], keep_recent: u64) -> Option<CutPoint> {
    let mut kept = 0u64;
    let budget_reached_at = (0..region.len()).rev().find(|&i| {
        kept += entry_tokens(region[i]);
        kept >= keep_recent
    })?;
    let valid = valid_cuts(region);
    // The first valid cut at or after the point where the budget ran out; if the budget ran out
    // inside the last tool results (one huge result), the last valid cut before it keeps as
    // little as possible.
    let mut cut = (budget_reached_at..region.len())
        .find(|&i| valid[i])
        .or_else(|| (0..budget_reached_at).rev().find(|&i| valid[i]))?;
    while cut > 0 && !reaches_model(region[cut - 1]) {
        cut -= 1;
    }
    if !region[..cut].iter().any(|e| reaches_model(e)) {
        return None;
    }
    let first_message = region[cut..].iter().find(|e| reaches_model(e));
    let splits_turn = matches!(
        first_message.and_then(|e| e.message()).map(|m| &**m),
        Some(Message::Assistant(_))
    );
    let turn_start = if splits_turn {
        (0..cut).rev().find(|&i| starts_turn(region[i]))
    } else {
        None
    };
    // A turn starting at the very first entry leaves no history: the whole summarized part is
    // the turn's prefix, which is still summarized as a prefix so the model knows the turn goes
    // on in the kept part.
    Some(CutPoint {
        first_kept: cut,
        turn_start,
    })
}

/// Estimated tokens an entry adds to the context.
pub(crate) fn entry_tokens(entry: &Entry) -> u64 {
    match &entry.kind {
        EntryKind::Message(message) => estimate_tokens(message),
        EntryKind::CustomMessage { content, .. } => chars_to_tokens(content.len()),
        EntryKind::BranchSummary { summary, .. } => chars_to_tokens(summary.len()),
        _ => 0,
    }
}

/// Whether the entry becomes a message in the model's context.
pub(crate) fn reaches_model(entry: &Entry) -> bool {
    matches!(
        entry.kind,
        EntryKind::Message(_) | EntryKind::CustomMessage { .. } | EntryKind::BranchSummary { .. }
    )
}

/// Whether a turn (a user request and the work answering it) begins at this entry.
fn starts_turn(entry: &Entry) -> bool {
    match &entry.kind {
        EntryKind::Message(message) => matches!(
            **message,
            Message::User(_) | Message::Custom(_) | Message::BranchSummary(_)
        ),
        EntryKind::CustomMessage { .. } | EntryKind::BranchSummary { .. } => true,
        _ => false,
    }
}

/// For each entry, whether the context may start there.
fn valid_cuts(region: &[&Entry]) -> Vec<bool> {
    // Calls of the latest assistant message still waiting for their results. A new assistant
    // message ends the previous batch: results of its calls can no longer follow.
    let mut waiting: HashSet<&str> = HashSet::new();
    region
        .iter()
        .map(|entry| match &entry.kind {
            EntryKind::Message(message) => match &**message {
                Message::ToolResult(result) => {
                    waiting.remove(result.tool_call_id.as_str());
                    false
                }
                Message::Assistant(assistant) => {
                    waiting.clear();
                    waiting.extend(assistant.tool_calls().map(|c| c.id.as_str()));
                    true
                }
                _ => waiting.is_empty(),
            },
            EntryKind::CustomMessage { .. } | EntryKind::BranchSummary { .. } => waiting.is_empty(),
            _ => false,
        })
        .collect()
}
