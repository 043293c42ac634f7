//! An open picker: the typed filter, the view (Tab), folded subtrees (Left/Right), and the
//! rename and delete edits of pickers whose items allow them.

use std::collections::HashSet;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::protocol::{Action, Picker, PickerEdit};

#[derive(Debug)]
pub struct PickerState {
    pub picker: Picker,
    pub filter: String,
    /// Index into [`PickerState::visible`].
    pub selected: usize,
    /// Index into the picker's views.
    pub view: usize,
    /// Items whose subtree is hidden.
    pub folded: HashSet<usize>,
    pub mode: Mode,
}

/// What the keys go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Choosing,
    /// Typing a new name for the item (its index in the picker's items).
    Renaming {
        item: usize,
        name: String,
    },
    /// Ctrl+D was pressed once on this item; a second press deletes it.
    ConfirmingDelete {
        item: usize,
    },
}

/// What a key did to the picker.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Stay,
    Close,
    /// The picker closes with this action (a choice).
    Chosen(Action),
    /// The picker stays open and the program is asked for this (an edit).
    Asked(Action),
}

impl PickerState {
    pub fn new(picker: Picker) -> PickerState {
        let view = picker.view.min(picker.views.len().saturating_sub(1));
        let mut state = PickerState {
            picker,
            filter: String::new(),
            selected: 0,
            view,
            folded: HashSet::new(),
            mode: Mode::Choosing,
        };
        state.select_item(state.picker.selected);
        state
    }

    /// The same picker sent again after an edit: the view, filter and folds stay, and the
    /// selection stays on the same row where it can.
    pub fn refresh(&mut self, picker: Picker) {
        let row = self.selected;
        let folded_values: HashSet<String> = self
            .folded
            .iter()
            .filter_map(|&i| self.picker.items.get(i).map(|item| item.value.clone()))
            .collect();
        self.folded = picker
            .items
            .iter()
            .enumerate()
            .filter(|(_, item)| folded_values.contains(&item.value))
            .map(|(i, _)| i)
            .collect();
        self.picker = picker;
        self.mode = Mode::Choosing;
        self.selected = row.min(self.visible().len().saturating_sub(1));
    }

    /// The name of the view shown, if the picker has views.
    pub fn view_name(&self) -> Option<&str> {
        self.picker.views.get(self.view).map(|v| v.name.as_str())
    }

    /// Indices of the items shown: in the view, matching the filter, outside folded subtrees.
    pub fn visible(&self) -> Vec<usize> {
        let filter = self.filter.to_lowercase();
        let tags = self.picker.views.get(self.view).map_or(0, |v| v.tags);
        let mut shown = Vec::new();
        let mut hiding_below: Option<usize> = None;
        for (i, item) in self.picker.items.iter().enumerate() {
            if let Some(depth) = hiding_below {
                if item.depth > depth {
                    continue;
                }
                hiding_below = None;
            }
            if self.folded.contains(&i) {
                hiding_below = Some(item.depth);
            }
            let in_view = item.tags & tags == tags;
            let matches = filter.is_empty()
                || item.label.to_lowercase().contains(&filter)
                || item.detail.to_lowercase().contains(&filter);
            if in_view && matches {
                shown.push(i);
            }
        }
        shown
    }

    /// How many items a fold of item `index` hides.
    pub fn subtree_len(&self, index: usize) -> usize {
        let Some(item) = self.picker.items.get(index) else {
            return 0;
        };
        self.picker.items[index + 1..]
            .iter()
            .take_while(|next| next.depth > item.depth)
            .count()
    }

    fn selected_item(&self) -> Option<usize> {
        self.visible().get(self.selected).copied()
    }

    /// Selects the row of item `index`, or the first row when it is not shown.
    fn select_item(&mut self, index: usize) {
        self.selected = self.visible().iter().position(|&i| i == index).unwrap_or(0);
    }

    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        self.picker.notice = None;
        match self.mode.clone() {
            Mode::Renaming { item, name } => self.rename_key(key, item, name),
            Mode::ConfirmingDelete { item } => {
                self.mode = Mode::Choosing;
                if is_ctrl(&key, 'd') {
                    return self.edit(item, PickerEdit::Delete);
                }
                // Any other key cancels the delete and does what it does.
                self.key(key)
            }
            Mode::Choosing => self.choosing_key(key),
        }
    }

    fn choosing_key(&mut self, key: KeyEvent) -> Outcome {
        let count = self.visible().len();
        match key.code {
            KeyCode::Esc => return Outcome::Close,
            KeyCode::Up if count > 0 => self.selected = (self.selected + count - 1) % count,
            KeyCode::Down if count > 0 => self.selected = (self.selected + 1) % count,
            KeyCode::Tab | KeyCode::BackTab if !self.picker.views.is_empty() => {
                let item = self.selected_item();
                let views = self.picker.views.len();
                self.view = if key.code == KeyCode::BackTab {
                    (self.view + views - 1) % views
                } else {
                    (self.view + 1) % views
                };
                if let Some(item) = item {
                    self.select_item(item);
                }
            }
            KeyCode::Tab if count > 0 => self.selected = (self.selected + 1) % count,
            KeyCode::Left => {
                if let Some(item) = self.selected_item() {
                    if self.subtree_len(item) > 0 {
                        self.folded.insert(item);
                    }
                }
            }
            KeyCode::Right => {
                if let Some(item) = self.selected_item() {
                    self.folded.remove(&item);
                }
            }
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(10),
            KeyCode::PageDown => self.selected = (self.selected + 10).min(count.saturating_sub(1)),
            KeyCode::Enter => {
                if let Some(item) = self.selected_item() {
                    return Outcome::Chosen(Action::Picked {
                        kind: self.picker.kind,
                        value: self.picker.items[item].value.clone(),
                    });
                }
            }
            KeyCode::Char('r') if ctrl(&key) && self.picker.editable => {
                if let Some(item) = self.selected_item() {
                    self.mode = Mode::Renaming {
                        item,
                        name: String::new(),
                    };
                }
            }
            KeyCode::Char('d') if ctrl(&key) && self.picker.editable => {
                if let Some(item) = self.selected_item() {
                    self.mode = Mode::ConfirmingDelete { item };
                }
            }
            KeyCode::Backspace => {
                self.filter.pop();
                self.selected = 0;
            }
            KeyCode::Char(c) if !ctrl(&key) => {
                self.filter.push(c);
                self.selected = 0;
            }
            _ => {}
        }
        Outcome::Stay
    }

    fn rename_key(&mut self, key: KeyEvent, item: usize, mut name: String) -> Outcome {
        match key.code {
            KeyCode::Esc => self.mode = Mode::Choosing,
            KeyCode::Enter => {
                self.mode = Mode::Choosing;
                let name = name.trim().to_string();
                if !name.is_empty() {
                    return self.edit(item, PickerEdit::Rename(name));
                }
            }
            KeyCode::Backspace => {
                name.pop();
                self.mode = Mode::Renaming { item, name };
            }
            KeyCode::Char(c) if !ctrl(&key) => {
                name.push(c);
                self.mode = Mode::Renaming { item, name };
            }
            _ => {}
        }
        Outcome::Stay
    }

    fn edit(&self, item: usize, edit: PickerEdit) -> Outcome {
        match self.picker.items.get(item) {
            Some(it) => Outcome::Asked(Action::PickerEdit {
                kind: self.picker.kind,
                value: it.value.clone(),
                edit,
            }),
            None => Outcome::Stay,
        }
    }

    /// The line under the items: the keys, or the prompt of an edit in progress.
    pub fn hint(&self) -> String {
        match &self.mode {
            Mode::Renaming { name, .. } => format!(" new name: {name}▏ Enter · Esc "),
            Mode::ConfirmingDelete { item } => format!(
                " press Ctrl+D again to delete {} ",
                self.picker
                    .items
                    .get(*item)
                    .map_or("it", |i| i.label.trim())
            ),
            Mode::Choosing if self.picker.notice.is_some() => {
                format!(" {} ", self.picker.notice.as_deref().unwrap_or_default())
            }
            Mode::Choosing => {
                let mut keys = vec!["↑/↓ Enter", "type to filter"];
                if self.picker.views.len() > 1 {
                    keys.push("Tab view");
                }
                if self.picker.items.iter().any(|i| i.depth > 0) {
                    keys.push("←/→ fold");
                }
                if self.picker.editable {
                    keys.push("^R rename · ^D delete");
                }
                keys.push("Esc");
                format!(" {} ", keys.join(" · "))
            }
        }
    }
}

fn ctrl(key: &KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL)
}

fn is_ctrl(key: &KeyEvent, c: char) -> bool {
    ctrl(key) && key.code == KeyCode::Char(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{PickerItem, PickerKind, PickerView};

    fn item(label: &str, tags: u32, depth: usize) -> PickerItem {
        PickerItem {
            label: label.into(),
            value: label.into(),
            tags,
            depth,
            ..Default::default()
        }
    }

    fn press(state: &mut PickerState, code: KeyCode) -> Outcome {
        state.key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn press_ctrl(state: &mut PickerState, c: char) -> Outcome {
        state.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
    }

    fn labels(state: &PickerState) -> Vec<&str> {
        state
            .visible()
            .into_iter()
            .map(|i| state.picker.items[i].label.as_str())
            .collect()
    }

    #[test]
    fn views_filter_by_tags_and_folds_hide_subtrees() {
        let mut state = PickerState::new(Picker {
            kind: PickerKind::Tree,
            items: vec![
                item("root", 1, 0),
                item("a1", 1, 1),
                item("a2", 0, 1),
                item("b1", 1, 1),
                item("b2", 2, 2),
                item("after", 0, 0),
            ],
            selected: 3,
            views: vec![
                PickerView {
                    name: "all".into(),
                    tags: 0,
                },
                PickerView {
                    name: "mine".into(),
                    tags: 1,
                },
            ],
            ..Default::default()
        });
        assert_eq!(state.selected, 3, "starts on the picker's item");
        press(&mut state, KeyCode::Left);
        assert_eq!(labels(&state), ["root", "a1", "a2", "b1", "after"]);
        press(&mut state, KeyCode::Right);
        assert_eq!(labels(&state).len(), 6);
        press(&mut state, KeyCode::Tab);
        assert_eq!(state.view_name(), Some("mine"));
        assert_eq!(labels(&state), ["root", "a1", "b1"]);
        assert_eq!(state.selected, 2, "the selection follows its item");
        // Folding the root hides everything under it.
        press(&mut state, KeyCode::Up);
        press(&mut state, KeyCode::Up);
        press(&mut state, KeyCode::Left);
        assert_eq!(labels(&state), ["root"]);
        press(&mut state, KeyCode::BackTab);
        assert_eq!(labels(&state), ["root", "after"]);
    }

    #[test]
    fn rename_and_delete_ask_the_program_and_keep_the_picker_open() {
        let mut state = PickerState::new(Picker {
            kind: PickerKind::Session,
            items: vec![item("one", 0, 0), item("two", 0, 0)],
            editable: true,
            ..Default::default()
        });
        press(&mut state, KeyCode::Down);
        assert_eq!(press_ctrl(&mut state, 'r'), Outcome::Stay);
        for c in "new name".chars() {
            press(&mut state, KeyCode::Char(c));
        }
        assert!(state.hint().contains("new name: new name"));
        assert_eq!(
            press(&mut state, KeyCode::Enter),
            Outcome::Asked(Action::PickerEdit {
                kind: PickerKind::Session,
                value: "two".into(),
                edit: PickerEdit::Rename("new name".into()),
            })
        );
        // One Ctrl+D asks for a second; another key cancels.
        press_ctrl(&mut state, 'd');
        assert!(state.hint().contains("Ctrl+D again to delete two"));
        assert_eq!(press(&mut state, KeyCode::Up), Outcome::Stay);
        assert_eq!(state.mode, Mode::Choosing);
        press_ctrl(&mut state, 'd');
        assert_eq!(
            press_ctrl(&mut state, 'd'),
            Outcome::Asked(Action::PickerEdit {
                kind: PickerKind::Session,
                value: "one".into(),
                edit: PickerEdit::Delete,
            })
        );
        // A picker without edits ignores the keys.
        let mut plain = PickerState::new(Picker {
            items: vec![item("x", 0, 0)],
            ..Default::default()
        });
        press_ctrl(&mut plain, 'd');
        assert_eq!(plain.mode, Mode::Choosing);
    }
}
