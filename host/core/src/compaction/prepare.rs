//! What a compaction summarizes: the model's current context on the active branch (the previous
//! compaction's kept entries and everything after it), split at the cut point.

use std::sync::Arc;

use super::cut::find_cut_point;
use super::files::FileOps;
use crate::message::Message;
use crate::session::{entry_messages, Entry, EntryKind, Session};
use crate::tokens::estimate_context;

/// Everything a compaction needs before the summary is written.
#[derive(Debug, Clone)]
pub struct CompactionPreparation {
    /// Where the verbatim part starts.
    pub first_kept_entry_id: String,
    /// Complete turns before the cut, summarized with the previous summary.
    pub messages_to_summarize: Vec<Arc<Message>>,
    /// When the cut splits a turn: the turn's part before the cut, summarized on its own.
    pub turn_prefix: Vec<Arc<Message>>,
    /// Estimated context size now.
    pub tokens_before: u64,
    /// The summary of the latest compaction on the branch, which the new summary updates.
    pub previous_summary: Option<String>,
    /// Files read and modified, carried over from the previous compaction plus the summarized
    /// tool calls.
    pub file_ops: FileOps,
}

impl CompactionPreparation {
    pub fn is_split_turn(&self) -> bool {
        !self.turn_prefix.is_empty()
    }

    /// Every message the summary covers, in order (for the before-compact hook).
    pub fn all_messages(&self) -> Vec<Arc<Message>> {
        self.messages_to_summarize
            .iter()
            .chain(&self.turn_prefix)
            .cloned()
            .collect()
    }
}

/// Prepares a compaction of `session`'s active branch keeping about `keep_recent` tokens.
/// `None` when there is nothing to summarize (the context fits in the kept part, or the branch
/// ends with a compaction).
pub fn prepare_compaction(session: &Session, keep_recent: u64) -> Option<CompactionPreparation> {
    let branch = session.branch();
    if matches!(
        branch.last().map(|e| &e.kind),
        Some(EntryKind::Compaction { .. })
    ) {
        return None;
    }
    let (region, previous_summary, mut file_ops) = context_region(&branch);
    let cut = find_cut_point(&region, keep_recent)?;
    let history_end = cut.turn_start.unwrap_or(cut.first_kept);
    let messages_to_summarize = entry_messages(&region[..history_end]);
    let turn_prefix = match cut.turn_start {
        Some(start) => entry_messages(&region[start..cut.first_kept]),
        None => Vec::new(),
    };
    for message in messages_to_summarize.iter().chain(&turn_prefix) {
        file_ops.add_message(message);
    }
    Some(CompactionPreparation {
        first_kept_entry_id: region[cut.first_kept].id.clone(),
        messages_to_summarize,
        turn_prefix,
        tokens_before: estimate_context(&session.project()).tokens,
        previous_summary,
        file_ops,
    })
}

/// The entries the model currently sees (compaction entries left out), the latest summary and
/// its file lists.
fn context_region<'a>(branch: &[&'a Entry]) -> (Vec<&'a Entry>, Option<String>, FileOps) {
    let latest = branch
        .iter()
        .rposition(|e| matches!(e.kind, EntryKind::Compaction { .. }));
    let Some(at) = latest else {
        return (branch.to_vec(), None, FileOps::default());
    };
    let EntryKind::Compaction {
        summary,
        first_kept_entry_id,
        details,
        ..
    } = &branch[at].kind
    else {
        return (branch.to_vec(), None, FileOps::default());
    };
    // As in the projection: a first-kept id not found before the compaction keeps nothing.
    let kept_from = branch[..at]
        .iter()
        .position(|e| e.id == *first_kept_entry_id)
        .unwrap_or(at);
    let region = branch[kept_from..]
        .iter()
        .copied()
        .filter(|e| !matches!(e.kind, EntryKind::Compaction { .. }))
        .collect();
    (
        region,
        Some(summary.clone()),
        FileOps::from_details(details.as_ref()),
    )
}
