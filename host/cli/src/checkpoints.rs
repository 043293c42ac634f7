//! File checkpoints of the interactive modes (`tack-checkpoints` does the storing): a snapshot
//! of the workspace before each run of the agent, tied to the user message the run began with,
//! and one when the run ends; what `/rewind` and RPC `rewind` list and restore. A checkpoint
//! that cannot be taken never stops a run: the user gets a note, once per cause.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, Context, Result};
use tack_checkpoints::{CheckpointStore, Plan, Record, RecordKind, Restored, Skipped};
use tack_core::message::Message;
use tack_core::session::{EntryKind, Session, SessionHandle};
use tack_core::text::human_size;
use tack_protocol::{RewindPoint, SkippedFile};

use crate::settings::CheckpointSettings;
use crate::sync::lock;

pub struct Checkpoints {
    /// `None` when switched off, or when the store cannot be opened (`off_reason` says why).
    store: Option<Arc<Mutex<CheckpointStore>>>,
    off_reason: Option<String>,
    /// Notes already given, so a big file is named once, not at every turn.
    noted: Mutex<BTreeSet<String>>,
}

/// A snapshot taken before a run, waiting for the run's user message.
pub struct Pending {
    session_id: String,
    entries_before: usize,
    tree: String,
}

/// One user message that can be rewound to.
pub struct Point {
    pub entry_id: String,
    pub text: String,
    /// Milliseconds since the epoch, when the checkpoint was taken.
    pub at: u64,
    /// What restoring its files would change now.
    pub plan: Plan,
}

impl Checkpoints {
    /// The checkpoints of the workspace a start-up loaded, under its home and settings.
    pub fn for_start(loaded: &crate::start::Loaded) -> Checkpoints {
        Checkpoints::open(
            loaded.home.root(),
            &loaded.cwd,
            &loaded.settings.checkpoints,
        )
    }

    pub fn open(home: &Path, cwd: &Path, settings: &CheckpointSettings) -> Checkpoints {
        if settings.enabled == Some(false) {
            return Checkpoints::off("file checkpoints are off ([checkpoints] enabled = false)");
        }
        let mut options = settings.options();
        options.exclude.push(home.to_path_buf());
        match CheckpointStore::open(&home.join("checkpoints"), cwd, options) {
            Ok(store) => Checkpoints {
                store: Some(Arc::new(Mutex::new(store))),
                off_reason: None,
                noted: Mutex::default(),
            },
            Err(e) => Checkpoints::off(&format!("file checkpoints are unavailable: {e}")),
        }
    }

    pub fn off(reason: &str) -> Checkpoints {
        Checkpoints {
            store: None,
            off_reason: Some(reason.to_owned()),
            noted: Mutex::default(),
        }
    }

    fn store(&self) -> Result<Arc<Mutex<CheckpointStore>>> {
        self.store.clone().ok_or_else(|| {
            anyhow!(
                "{}",
                self.off_reason
                    .as_deref()
                    .unwrap_or("file checkpoints are off")
            )
        })
    }

    /// Snapshots the workspace before a run; `note` hears what the user should know.
    pub async fn before_run(
        &self,
        session: &SessionHandle,
        note: impl Fn(String),
    ) -> Option<Pending> {
        let (session_id, entries_before) = {
            let s = session.lock();
            (s.id().to_owned(), s.entries().len())
        };
        let tree = self.snapshot(&note).await?;
        Some(Pending {
            session_id,
            entries_before,
            tree,
        })
    }

    /// Ties the snapshot to the run's user message (a run an input hook handled has none, and
    /// records nothing) and snapshots what the run left.
    pub async fn after_run(
        &self,
        session: &SessionHandle,
        pending: Pending,
        note: impl Fn(String),
    ) {
        let entry_id = {
            let s = session.lock();
            if s.id() != pending.session_id {
                return;
            }
            s.entries()
                .get(pending.entries_before..)
                .unwrap_or_default()
                .iter()
                .find(|e| matches!(&e.kind, EntryKind::Message(m) if matches!(m.as_ref(), Message::User(_))))
                .map(|e| e.id.clone())
        };
        let Some(entry_id) = entry_id else {
            return;
        };
        let start = Record::new(RecordKind::Start, Some(entry_id), pending.tree);
        if let Err(e) = self.record(&pending.session_id, start).await {
            return self.note_once(&note, format!("a file checkpoint was not saved: {e:#}"));
        }
        if let Some(tree) = self.snapshot(&note).await {
            let end = Record::new(RecordKind::End, None, tree);
            if let Err(e) = self.record(&pending.session_id, end).await {
                self.note_once(&note, format!("a file checkpoint was not saved: {e:#}"));
            }
        }
    }

    async fn snapshot(&self, note: &impl Fn(String)) -> Option<String> {
        let store = self.store.clone()?;
        let taken = tokio::task::spawn_blocking(move || lock(&store).snapshot()).await;
        match taken {
            Ok(Ok(snapshot)) => {
                for skipped in &snapshot.skipped {
                    self.note_once(note, skipped_note(skipped));
                }
                Some(snapshot.tree)
            }
            Ok(Err(e)) => {
                self.note_once(note, format!("no file checkpoint for this prompt: {e}"));
                None
            }
            Err(e) => {
                self.note_once(note, format!("no file checkpoint for this prompt: {e}"));
                None
            }
        }
    }

    async fn record(&self, session_id: &str, record: Record) -> Result<()> {
        let store = self.store()?;
        let session_id = session_id.to_owned();
        tokio::task::spawn_blocking(move || lock(&store).record(&session_id, &record))
            .await
            .context("the checkpoint task failed")??;
        Ok(())
    }

    fn note_once(&self, note: &impl Fn(String), text: String) {
        if lock(&self.noted).insert(text.clone()) {
            note(text);
        }
    }

    /// The session's user messages that have a checkpoint, newest first, each with what a
    /// restore would change.
    pub async fn points(&self, session: &SessionHandle) -> Result<Vec<Point>> {
        let store = self.store()?;
        let (session_id, messages) = {
            let s = session.lock();
            (s.id().to_owned(), user_messages(&s))
        };
        tokio::task::spawn_blocking(move || -> Result<Vec<Point>> {
            let mut store = lock(&store);
            let records = store.checkpoints(&session_id)?;
            if records.is_empty() {
                return Ok(Vec::new());
            }
            let current = store.current()?;
            let mut points = Vec::new();
            let mut seen = BTreeSet::new();
            for record in records {
                let Some(entry_id) = record.entry_id else {
                    continue;
                };
                let Some((_, text)) = messages.iter().find(|(id, _)| *id == entry_id) else {
                    continue;
                };
                if !seen.insert(entry_id.clone()) {
                    continue;
                }
                let plan = store.plan(&session_id, &entry_id, &current)?;
                points.push(Point {
                    text: text.clone(),
                    entry_id,
                    at: record.at,
                    plan,
                });
            }
            Ok(points)
        })
        .await
        .context("the checkpoint task failed")?
    }

    /// Puts the files back as they were before user message `entry_id` of session `session_id`.
    pub async fn restore(&self, session_id: &str, entry_id: &str) -> Result<Restored> {
        let store = self.store()?;
        let (session_id, entry_id) = (session_id.to_owned(), entry_id.to_owned());
        let restored =
            tokio::task::spawn_blocking(move || lock(&store).restore(&session_id, &entry_id))
                .await
                .context("the checkpoint task failed")??;
        Ok(restored)
    }
}

/// Every user message of the session with its text.
fn user_messages(session: &Session) -> Vec<(String, String)> {
    session
        .entries()
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Message(m) => match m.as_ref() {
                Message::User(u) => Some((e.id.clone(), u.text_content())),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

pub fn skipped_file(s: &Skipped) -> SkippedFile {
    SkippedFile {
        path: s.path.clone(),
        size: s.size,
        reason: s.reason.describe().to_owned(),
    }
}

impl Point {
    pub fn wire(&self) -> RewindPoint {
        RewindPoint {
            entry_id: self.entry_id.clone(),
            text: self.text.clone(),
            timestamp: self.at,
            changed: self.plan.write.clone(),
            created: self.plan.delete.clone(),
            skipped: self.plan.skipped.iter().map(skipped_file).collect(),
        }
    }
}

pub fn skipped_note(skipped: &Skipped) -> String {
    format!(
        "file checkpoints leave out {} ({}, {}): /rewind will not restore it",
        skipped.path,
        human_size(skipped.size),
        skipped.reason.describe()
    )
}
