//! The in-memory tree of a session's entries: file order, an id index and parent links.

use std::collections::HashMap;

use super::entry::{Entry, EntryKind};

#[derive(Debug, Default)]
pub(crate) struct Tree {
    /// Entries in file order.
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    /// Parent of each entry, always an earlier index, so walks towards the root terminate.
    parents: Vec<Option<usize>>,
    leaf: Option<usize>,
    /// Whether each entry lies on the path from the root to the leaf. Kept current on every
    /// append and leaf move, so "is this on the active branch" costs nothing: plugins read their
    /// state (the latest custom entry of a type) on every tool call, in sessions of any length.
    on_branch: Vec<bool>,
    /// Positions of the custom entries of each type, in file order.
    /// Custom entries by (owner, custom type); `""` stands for no owner.
    customs: HashMap<(String, String), Vec<usize>>,
}

impl Tree {
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn contains(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    pub fn position(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.position(id).map(|i| &self.entries[i])
    }

    pub fn leaf(&self) -> Option<usize> {
        self.leaf
    }

    pub fn set_leaf(&mut self, leaf: Option<usize>) {
        self.move_branch(leaf);
    }

    pub fn leaf_entry(&self) -> Option<&Entry> {
        self.leaf.map(|i| &self.entries[i])
    }

    /// Adds an entry read from a file; it becomes the leaf.
    ///
    /// A duplicate id is refused. A parent that is not an earlier entry (its line was lost or is
    /// garbled) is replaced by the entry just before it in the file, so that one bad line never
    /// cuts the rest of the conversation off its start; the returned note says so.
    pub fn insert_loaded(&mut self, mut entry: Entry) -> Result<Option<String>, String> {
        if self.index.contains_key(&entry.id) {
            return Err(format!("duplicate entry id {:?}; entry skipped", entry.id));
        }
        let mut note = None;
        let parent = match entry.parent_id.as_deref() {
            None => None,
            Some(parent_id) => match self.index.get(parent_id) {
                Some(&i) => Some(i),
                None => {
                    let previous = self.entries.len().checked_sub(1);
                    let replacement = previous.map(|i| self.entries[i].id.clone());
                    note = Some(match &replacement {
                        Some(prev) => format!(
                            "parent {parent_id:?} of entry {:?} is missing; attached to the previous entry {prev:?}",
                            entry.id
                        ),
                        None => format!(
                            "parent {parent_id:?} of entry {:?} is missing; entry made a root",
                            entry.id
                        ),
                    });
                    entry.parent_id = replacement;
                    previous
                }
            },
        };
        self.push(entry, parent);
        Ok(note)
    }

    /// Adds a new entry whose parent is already known to be in the tree; it becomes the leaf.
    /// Returns its position.
    pub fn push_child(&mut self, entry: Entry) -> usize {
        let parent = entry.parent_id.as_deref().and_then(|p| self.position(p));
        self.push(entry, parent)
    }

    fn push(&mut self, entry: Entry, parent: Option<usize>) -> usize {
        let i = self.entries.len();
        self.index.insert(entry.id.clone(), i);
        if let EntryKind::Custom {
            custom_type, owner, ..
        } = &entry.kind
        {
            let key = (owner.clone().unwrap_or_default(), custom_type.clone());
            self.customs.entry(key).or_default().push(i);
        }
        self.entries.push(entry);
        self.parents.push(parent);
        self.on_branch.push(false);
        self.move_branch(Some(i));
        i
    }

    /// Makes `leaf` the leaf and re-marks the active branch. Only the entries between the old
    /// and the new leaf and their common ancestor change, so extending the branch is O(1) and a
    /// move costs the length of the two diverging stretches.
    fn move_branch(&mut self, leaf: Option<usize>) {
        let mut cursor = leaf;
        let common = loop {
            match cursor {
                Some(i) if !self.on_branch[i] => {
                    self.on_branch[i] = true;
                    cursor = self.parents[i];
                }
                other => break other,
            }
        };
        let mut stale = self.leaf;
        while let Some(i) = stale {
            if Some(i) == common {
                break;
            }
            self.on_branch[i] = false;
            stale = self.parents[i];
        }
        self.leaf = leaf;
    }

    /// Makes every custom entry belong to no plugin; returns how many had an owner. For a file
    /// whose owners nobody vouches for: plugin state is read only by the plugin that wrote it,
    /// and a hand-written line could otherwise claim to be a policy plugin's.
    pub fn disown_customs(&mut self) -> usize {
        let mut disowned = 0;
        for entry in &mut self.entries {
            if let EntryKind::Custom { owner, .. } = &mut entry.kind {
                if owner.take().is_some() {
                    // The line as read still names the owner, and copies (forks) repeat it.
                    entry.verbatim = None;
                    disowned += 1;
                }
            }
        }
        if disowned > 0 {
            let mut customs: HashMap<(String, String), Vec<usize>> = HashMap::new();
            for (i, entry) in self.entries.iter().enumerate() {
                if let EntryKind::Custom { custom_type, .. } = &entry.kind {
                    customs
                        .entry((String::new(), custom_type.clone()))
                        .or_default()
                        .push(i);
                }
            }
            self.customs = customs;
        }
        disowned
    }

    /// The newest custom entry of `custom_type` written by `owner` on the active branch.
    pub fn latest_custom(&self, owner: Option<&str>, custom_type: &str) -> Option<&Entry> {
        self.customs
            .get(&(owner.unwrap_or_default().to_owned(), custom_type.to_owned()))?
            .iter()
            .rev()
            .find(|&&i| self.on_branch[i])
            .map(|&i| &self.entries[i])
    }

    /// Positions from the root to `leaf`, inclusive.
    pub fn path_to(&self, leaf: Option<usize>) -> Vec<usize> {
        let mut path = Vec::new();
        let mut cursor = leaf;
        while let Some(i) = cursor {
            path.push(i);
            cursor = self.parents[i];
        }
        path.reverse();
        path
    }

    /// The entries from the root to `leaf`, inclusive.
    pub fn path_entries(&self, leaf: Option<usize>) -> Vec<&Entry> {
        self.path_to(leaf).into_iter().map(|i| self.at(i)).collect()
    }

    /// Positions of the entries whose parent is `of` (`None`: the roots), in file order.
    pub fn children(&self, of: Option<usize>) -> Vec<usize> {
        self.parents
            .iter()
            .enumerate()
            .filter(|(_, parent)| **parent == of)
            .map(|(i, _)| i)
            .collect()
    }

    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parents[i]
    }

    pub fn at(&self, i: usize) -> &Entry {
        &self.entries[i]
    }
}
