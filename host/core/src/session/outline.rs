//! The whole tree of a session as rows for display (`/tree`): depth-first in file order, with
//! labels and the active branch marked.

use std::collections::HashMap;

use super::entry::{Entry, EntryKind};
use super::Session;

/// One entry of the tree view.
#[derive(Debug, Clone, PartialEq)]
pub struct OutlineRow<'a> {
    pub entry: &'a Entry,
    /// Nesting level. It grows only where an entry has several children, so a long linear
    /// conversation stays at one level.
    pub depth: usize,
    /// The entry's current label.
    pub label: Option<&'a str>,
    /// Whether the entry is on the active branch (root to leaf).
    pub on_branch: bool,
    /// Whether the entry is the leaf.
    pub is_leaf: bool,
}

impl Session {
    /// Every entry as a row of the tree, depth first, children in file order.
    pub fn outline(&self) -> Vec<OutlineRow<'_>> {
        let entries = self.entries();
        let mut children: HashMap<Option<&str>, Vec<&Entry>> = HashMap::new();
        let mut labels: HashMap<&str, Option<&str>> = HashMap::new();
        for entry in entries {
            children
                .entry(entry.parent_id.as_deref())
                .or_default()
                .push(entry);
            if let EntryKind::Label { target_id, label } = &entry.kind {
                labels.insert(target_id.as_str(), label.as_deref());
            }
        }
        let branch: std::collections::HashSet<&str> =
            self.branch().iter().map(|e| e.id.as_str()).collect();
        let leaf = self.leaf_id();

        let mut rows = Vec::with_capacity(entries.len());
        // An explicit stack: a conversation can be deeper than the call stack.
        let mut stack: Vec<(&Entry, usize)> = children
            .get(&None)
            .map(|roots| roots.iter().rev().map(|e| (*e, 0)).collect())
            .unwrap_or_default();
        while let Some((entry, depth)) = stack.pop() {
            rows.push(OutlineRow {
                entry,
                depth,
                label: labels.get(entry.id.as_str()).copied().flatten(),
                on_branch: branch.contains(entry.id.as_str()),
                is_leaf: leaf == Some(entry.id.as_str()),
            });
            if let Some(kids) = children.get(&Some(entry.id.as_str())) {
                let child_depth = if kids.len() > 1 { depth + 1 } else { depth };
                stack.extend(kids.iter().rev().map(|e| (*e, child_depth)));
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::message::Message;

    #[test]
    fn outline_nests_at_branch_points_and_marks_the_branch() {
        let mut s = Session::in_memory(Path::new("/w"));
        let a = s.append_message(Message::user("a")).unwrap().id.clone();
        let b = s.append_message(Message::user("b")).unwrap().id.clone();
        s.set_leaf(Some(&a)).unwrap();
        let c = s.append_message(Message::user("c")).unwrap().id.clone();
        let d = s.append_message(Message::user("d")).unwrap().id.clone();
        s.append(EntryKind::Label {
            target_id: b.clone(),
            label: Some("first try".into()),
        })
        .unwrap();
        let rows: Vec<(String, usize, Option<&str>, bool, bool)> = s
            .outline()
            .iter()
            .map(|r| (r.entry.id.clone(), r.depth, r.label, r.on_branch, r.is_leaf))
            .collect();
        let label_id = s.leaf_id().unwrap().to_owned();
        assert_eq!(
            rows,
            vec![
                (a, 0, None, true, false),
                (b, 1, Some("first try"), false, false),
                (c, 1, None, true, false),
                (d, 1, None, true, false),
                (label_id, 1, None, true, true),
            ]
        );
    }
}
