//! The active branch's projection and its provider view, kept current as the branch grows.
//!
//! Every turn reads both: the provider's request, the compaction check, whether the loop may
//! continue. Projecting afresh walked the whole branch and cloned every message's `Arc` several
//! times a turn, on cache lines long gone cold, and at turn 800 that was most of the host's
//! per-turn cost that grows with the session. Entries never change once appended, so an entry
//! added at the leaf extends both in constant time; a compaction or a leaf move projects once
//! more.

use std::sync::Arc;

use crate::message::{LlmView, Message};

use super::entry::EntryKind;
use super::project::{as_message, project};
use super::tree::Tree;

#[derive(Debug, Default)]
pub(crate) struct Projection {
    /// The leaf the two lists belong to.
    leaf: Option<usize>,
    messages: Vec<Arc<Message>>,
    view: LlmView,
}

impl Projection {
    pub fn of(tree: &Tree) -> Self {
        let messages = project(&tree.path_entries(tree.leaf()));
        Projection {
            leaf: tree.leaf(),
            view: LlmView::of(&messages),
            messages,
        }
    }

    /// Catches up with the tree's leaf: a child of the leaf this projection belongs to adds at
    /// most one message; anything else projects the new branch.
    pub fn follow(&mut self, tree: &Tree) {
        let leaf = tree.leaf();
        if leaf == self.leaf {
            return;
        }
        match leaf {
            Some(i)
                if tree.parent(i) == self.leaf
                    && !matches!(tree.at(i).kind, EntryKind::Compaction { .. }) =>
            {
                if let Some(message) = as_message(tree.at(i)) {
                    self.view.push(&message);
                    self.messages.push(message);
                }
                self.leaf = leaf;
            }
            _ => *self = Projection::of(tree),
        }
    }

    pub fn messages(&self) -> &[Arc<Message>] {
        &self.messages
    }

    pub fn view(&self) -> &LlmView {
        &self.view
    }
}
