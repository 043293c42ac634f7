//! The session pickers: `/resume` (this folder or all folders, with rename and delete), `/tree`
//! (folds and the all / your messages / labelled views, then whether to summarize the branch
//! left) and `/fork`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Result};
use tack_core::message::Message;
use tack_core::session::{EntryKind, SessionSummary};
use tack_tui::{Picker, PickerEdit, PickerItem, PickerKind, PickerView, UiEvent};

use super::controller::Controller;
use crate::modes::driver::BusyKind;
use crate::sessions::{clip, first_line, short_id};

/// `/resume` items of the working directory (the other items are other folders').
const HERE: u32 = 1;
/// `/tree` items that are the user's own messages.
const USER_MESSAGE: u32 = 1;
/// `/tree` items that carry a label.
const LABELLED: u32 = 2;

/// The `TreeSummary` value that asks for a focus before summarizing (followed by the entry id).
const FOCUS_PREFIX: &str = "focus:";

impl Controller {
    pub(super) fn session_picker(&self) -> Result<Picker> {
        let sessions = self.front.store.list_all()?;
        let cwd = self.front.loaded.cwd.display().to_string();
        let current = self.current_session_path();
        let here = sessions.iter().filter(|s| s.cwd == cwd).count();
        let mut selected = 0;
        let items = sessions
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let is_current = current.as_deref() == Some(s.path.as_path());
                if is_current {
                    selected = i;
                }
                self.session_item(s, is_current, s.cwd == cwd)
            })
            .collect();
        Ok(Picker {
            kind: PickerKind::Session,
            title: "Resume a session (Tab: folders · Ctrl+R rename · Ctrl+D delete)".into(),
            items,
            selected,
            views: vec![
                PickerView {
                    name: "this folder".into(),
                    tags: HERE,
                },
                PickerView {
                    name: "all folders".into(),
                    tags: 0,
                },
            ],
            // With no session here yet, the other folders' are what there is to resume.
            view: usize::from(here == 0),
            editable: true,
            notice: None,
        })
    }

    fn session_item(&self, s: &SessionSummary, is_current: bool, here: bool) -> PickerItem {
        let title = self
            .front
            .store
            .name_of(&s.path)
            .unwrap_or_else(|| first_line(s));
        let created = s
            .created
            .get(..16)
            .unwrap_or(&s.created)
            .replacen('T', " ", 1);
        let mut detail = format!("{} · {created}", short_id(&s.id));
        if !here {
            let _ = write!(detail, " · {}", s.cwd);
        }
        PickerItem {
            label: format!("{} {title}", if is_current { "*" } else { " " }),
            detail,
            value: s.path.display().to_string(),
            tags: if here { HERE } else { 0 },
            depth: 0,
        }
    }

    fn current_session_path(&self) -> Option<PathBuf> {
        self.front.session.lock().path().map(Path::to_path_buf)
    }

    /// A rename or delete asked from an open picker; the picker is sent again with it done.
    pub async fn picker_edit(self: Arc<Self>, kind: PickerKind, value: &str, edit: PickerEdit) {
        let result = match kind {
            PickerKind::Session => self.edit_session(Path::new(value), edit).await,
            _ => Err(anyhow::anyhow!("this list cannot be edited")),
        };
        let notice = match &result {
            Ok(text) => text.clone(),
            Err(e) => format!("{e:#}"),
        };
        match result {
            Ok(text) => self.send(UiEvent::Info(text)),
            Err(e) => self.send(UiEvent::Error(format!("{e:#}"))),
        }
        match self.session_picker() {
            Ok(picker) => self.send(UiEvent::Picker(Picker {
                notice: Some(notice),
                ..picker
            })),
            Err(e) => self.send(UiEvent::Error(format!("{e:#}"))),
        }
        self.send(UiEvent::Footer(self.footer()));
    }

    async fn edit_session(&self, path: &Path, edit: PickerEdit) -> Result<String> {
        let is_current = self.current_session_path().as_deref() == Some(path);
        match edit {
            PickerEdit::Rename(name) if is_current => {
                // As `/name`: through the open session's own handle (so its file and its tree
                // stay one), and not in the middle of a run's entries.
                let work = self.occupy(BusyKind::HostCommand).await?;
                let appended = {
                    let mut session = self.front.session.lock();
                    session
                        .append(EntryKind::SessionInfo {
                            name: Some(name.clone()),
                        })
                        .map(|_| ())
                };
                self.release(&work);
                appended?;
                Ok(format!("Session named {name:?}."))
            }
            PickerEdit::Rename(name) => {
                self.front.store.rename(path, &name)?;
                Ok(format!("Session renamed {name:?}."))
            }
            PickerEdit::Delete if is_current => {
                bail!("this is the open session; switch to another one before deleting it")
            }
            PickerEdit::Delete => {
                self.front.store.delete(path)?;
                Ok(format!("Deleted {}.", path.display()))
            }
        }
    }

    pub(super) fn tree_picker(&self) -> Picker {
        let session = self.front.session.lock();
        let rows = session.outline();
        let mut selected = 0;
        let items = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                if row.is_leaf {
                    selected = i;
                }
                let (kind, text) = crate::commands::host::describe(row.entry);
                let mut label = format!(
                    "{}{}{kind}: {}",
                    if row.on_branch { "* " } else { "  " },
                    "  ".repeat(row.depth),
                    clip(&text, 70)
                );
                if let Some(l) = row.label {
                    let _ = write!(label, "  [{l}]");
                }
                if row.is_leaf {
                    label.push_str("  ← here");
                }
                let mut tags = 0;
                if matches!(&row.entry.kind, EntryKind::Message(m) if matches!(m.as_ref(), Message::User(_)))
                {
                    tags |= USER_MESSAGE;
                }
                if row.label.is_some() {
                    tags |= LABELLED;
                }
                PickerItem {
                    label,
                    detail: row.entry.id.clone(),
                    value: row.entry.id.clone(),
                    tags,
                    depth: row.depth,
                }
            })
            .collect();
        Picker {
            kind: PickerKind::Tree,
            title: "Session tree: move to an entry (Tab: view · ←/→ fold)".into(),
            items,
            selected,
            views: vec![
                PickerView {
                    name: "all".into(),
                    tags: 0,
                },
                PickerView {
                    name: "your messages".into(),
                    tags: USER_MESSAGE,
                },
                PickerView {
                    name: "labelled".into(),
                    tags: LABELLED,
                },
            ],
            view: 0,
            editable: false,
            notice: None,
        }
    }

    /// An entry chosen in `/tree`: when the move leaves messages behind, whether to summarize
    /// them is asked first; otherwise the move is made.
    pub(super) async fn tree_chosen(self: Arc<Self>, entry_id: &str) {
        let target = self.tree_target(entry_id);
        let entry_id = target.as_str();
        let leaves_messages = {
            let session = self.front.session.lock();
            tack_core::compaction::prepare_branch_summary(&session, entry_id)
                .map(|prepared| !prepared.messages.is_empty())
        };
        match leaves_messages {
            Ok(true) => self.send(UiEvent::Picker(tree_summary_picker(entry_id))),
            // A bad id is reported by `/tree` itself.
            Ok(false) | Err(_) => self.command("tree", entry_id).await,
        }
    }

    /// Where a `/tree` move to `entry_id` goes. One of the user's own messages: to the point
    /// before it, with its text kept for the editor (put there once the move is made), so the
    /// next prompt never follows a question with no answer.
    pub(super) fn tree_target(&self, entry_id: &str) -> String {
        let (target, edit) = {
            let session = self.front.session.lock();
            match session.entry(entry_id) {
                Some(entry) => match (&entry.kind, &entry.parent_id) {
                    (EntryKind::Message(m), Some(parent)) => match m.as_ref() {
                        Message::User(user) => (parent.clone(), Some(user.text_content())),
                        _ => (entry_id.to_string(), None),
                    },
                    _ => (entry_id.to_string(), None),
                },
                None => (entry_id.to_string(), None),
            }
        };
        *crate::sync::lock(&self.tree_edit) = edit;
        target
    }

    pub(super) async fn tree_summary_chosen(self: Arc<Self>, value: &str) {
        match value.strip_prefix(FOCUS_PREFIX) {
            Some(entry_id) => {
                self.send(UiEvent::EditorText(format!(
                    "/tree {entry_id} --summarize "
                )));
                self.send(UiEvent::Info(
                    "Type what the summary should focus on, then Enter.".into(),
                ));
            }
            None => self.command("tree", value).await,
        }
    }

    pub(super) fn fork_picker(&self) -> Picker {
        let session = self.front.session.lock();
        let items: Vec<PickerItem> = session
            .branch()
            .into_iter()
            .filter_map(|entry| match &entry.kind {
                EntryKind::Message(m) => match m.as_ref() {
                    Message::User(u) => Some(PickerItem {
                        label: clip(&u.text_content().replace('\n', " "), 80),
                        detail: entry.id.clone(),
                        value: entry.id.clone(),
                        ..Default::default()
                    }),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let selected = items.len().saturating_sub(1);
        Picker {
            kind: PickerKind::Fork,
            title: "Fork: a new session from before this prompt".into(),
            items,
            selected,
            ..Default::default()
        }
    }
}

/// What to do with the branch a `/tree` move to `entry_id` leaves.
fn tree_summary_picker(entry_id: &str) -> Picker {
    let item = |label: &str, detail: &str, value: String| PickerItem {
        label: label.into(),
        detail: detail.into(),
        value,
        ..Default::default()
    };
    Picker {
        kind: PickerKind::TreeSummary,
        title: "Leaving a branch: summarize it?".into(),
        items: vec![
            item("No summary", "just move", entry_id.to_owned()),
            item(
                "Summarize the branch left",
                "the summary is written where you go",
                format!("{entry_id} --summarize"),
            ),
            item(
                "Summarize with a focus…",
                "type what to focus on",
                format!("{FOCUS_PREFIX}{entry_id}"),
            ),
        ],
        selected: 0,
        ..Default::default()
    }
}
