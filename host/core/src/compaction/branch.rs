//! Summaries of branches left with `/tree`: the entries from the old leaf back to the deepest
//! entry it shares with the target are summarized, and the summary is written at the target so
//! the work continuing there knows what the other branch found.

use std::sync::Arc;

use super::files::FileOps;
use crate::message::Message;
use crate::session::{entry_messages, EntryKind, Session, SessionError};

/// What moving the leaf to a target leaves behind.
#[derive(Debug, Clone)]
pub struct BranchPreparation {
    /// The leaf being left (`None` for an empty session).
    pub from_id: Option<String>,
    pub target_id: String,
    /// The deepest entry on both the old branch and the target's (`None`: they share no entry).
    pub common_ancestor_id: Option<String>,
    /// The messages of the entries being left, oldest first (empty when the target continues
    /// the old branch).
    pub messages: Vec<Arc<Message>>,
    /// Files those entries read and modified.
    pub file_ops: FileOps,
}

/// Prepares moving `session`'s leaf to `target_id`.
pub fn prepare_branch_summary(
    session: &Session,
    target_id: &str,
) -> Result<BranchPreparation, SessionError> {
    let target = session.branch_to(target_id)?;
    let old = session.branch();
    let shared = old
        .iter()
        .zip(&target)
        .take_while(|(a, b)| a.id == b.id)
        .count();
    // Compaction entries only repeat, in short, what the raw entries around them say; the raw
    // entries are all still there.
    let left: Vec<_> = old[shared..]
        .iter()
        .copied()
        .filter(|e| !matches!(e.kind, EntryKind::Compaction { .. }))
        .collect();
    let messages = entry_messages(&left);
    let mut file_ops = FileOps::default();
    for message in &messages {
        file_ops.add_message(message);
    }
    Ok(BranchPreparation {
        from_id: session.leaf_id().map(str::to_owned),
        target_id: target_id.to_owned(),
        common_ancestor_id: shared.checked_sub(1).map(|i| old[i].id.clone()),
        messages,
        file_ops,
    })
}
