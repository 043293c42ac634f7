//! The session tree: an append-only JSONL file (a header line, then one entry per line) and its
//! in-memory index. The file is the truth; the model's context is a projection of the branch
//! from the root to the current leaf.

mod entry;
mod file;
mod import_pi;
mod lock;
mod outline;
mod pi_format;
mod project;
mod projection;
mod store;
mod tree;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::SecondsFormat;
use serde_json::Value;

pub use entry::{Entry, EntryKind, SessionHeader, UnknownEntry, Verbatim, SESSION_VERSION};
pub use file::LoadWarning;
pub use import_pi::{import_pi, ImportError, Imported};
pub use outline::OutlineRow;
pub use pi_format::PiMessage;
pub use store::{encode_cwd, legacy_encode_cwd, pi_encode_cwd, SessionStore, SessionSummary};

use crate::message::Message;
use file::Writer;
use projection::Projection;
use tree::Tree;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot read session file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write session file {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a tack session file: {reason}", path.display())]
    BadHeader { path: PathBuf, reason: String },
    #[error(
        "{} is a Pi session of format version 1 (entries without ids); `tack import` converts it",
        path.display()
    )]
    PiVersion1 { path: PathBuf },
    #[error(
        "session {} is open in another tack process, which is still writing it; wait for it \
         to finish, or continue a copy with `tack --fork <id>`",
        path.display()
    )]
    Busy { path: PathBuf },
    #[error("the session has no entry with id {0:?}")]
    UnknownEntry(String),
    #[error("no session matches {0:?}")]
    NotFound(String),
    #[error("{arg:?} matches several sessions: {}", candidates.join(", "))]
    Ambiguous {
        arg: String,
        candidates: Vec<String>,
    },
}

/// Whether tack wrote a session file in its own folders, or it came from elsewhere (a path given
/// on the command line or over RPC, Pi's folder).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    Own,
    Foreign,
}

/// How a session file is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionOptions {
    /// `fdatasync` after every append. Off by default: a flushed line survives a crash of tack,
    /// only a crash of the machine can lose it.
    pub fsync: bool,
}

/// A session: its header, its entries and the current leaf.
#[derive(Debug)]
pub struct Session {
    header: SessionHeader,
    path: Option<PathBuf>,
    tree: Tree,
    /// What the active branch gives the model, kept current with every append and leaf move.
    projection: Projection,
    /// `None` for an in-memory session (`--no-session`).
    writer: Option<Writer>,
    options: SessionOptions,
}

impl Session {
    /// Creates a new session file at `path` (which must not exist) and writes its header.
    pub fn create(
        path: impl Into<PathBuf>,
        cwd: &Path,
        parent_session: Option<String>,
        options: SessionOptions,
    ) -> Result<Session, SessionError> {
        Session::create_with_header(path.into(), new_header(cwd, parent_session), options)
    }

    pub(crate) fn create_with_header(
        path: PathBuf,
        header: SessionHeader,
        options: SessionOptions,
    ) -> Result<Session, SessionError> {
        let writer = Writer::create(&path, [header.to_line()], options.fsync)?;
        Ok(Session {
            header,
            path: Some(path),
            tree: Tree::default(),
            projection: Projection::default(),
            writer: Some(writer),
            options,
        })
    }

    /// A session that lives only in memory: the same API, nothing written.
    pub fn in_memory(cwd: &Path) -> Session {
        Session {
            header: new_header(cwd, None),
            path: None,
            tree: Tree::default(),
            projection: Projection::default(),
            writer: None,
            options: SessionOptions::default(),
        }
    }

    /// Loads a session file. Lines that cannot be used are skipped and reported; a missing or
    /// garbled header is an error. The leaf is the last entry of the file.
    pub fn open(
        path: &Path,
        options: SessionOptions,
    ) -> Result<(Session, Vec<LoadWarning>), SessionError> {
        Session::open_as(path, options, Provenance::Own)
    }

    /// [`Session::open`] for a file tack may not have written: with [`Provenance::Foreign`],
    /// every custom entry's owner is dropped in memory (the file is not rewritten), so no plugin
    /// takes a hand-written line for its own state, and a warning says so.
    pub fn open_as(
        path: &Path,
        options: SessionOptions,
        provenance: Provenance,
    ) -> Result<(Session, Vec<LoadWarning>), SessionError> {
        // Held before reading, so no other process appends between the read and the first
        // write; the writer below joins this hold.
        let _held = lock::lock(path)?;
        let mut loaded = file::load_file(path)?;
        if provenance == Provenance::Foreign {
            let disowned = loaded.tree.disown_customs();
            if disowned > 0 {
                loaded.warnings.push(LoadWarning::note(format!(
                    "{disowned} plugin state entr{} ignored: the file is outside tack's session \
                     folders, so nobody vouches for who wrote {}",
                    if disowned == 1 { "y is" } else { "ies are" },
                    if disowned == 1 { "it" } else { "them" },
                )));
            }
        }
        let writer = Writer::open(path, loaded.ends_with_newline, options.fsync)?;
        if let Some(digit_at) = loaded.version_digit_at {
            match file::upgrade_header(path, digit_at, options.fsync) {
                Ok(()) => loaded.header.version = SESSION_VERSION,
                // The session still works in tack; only Pi would misread it.
                Err(e) => tracing::warn!(
                    "cannot mark {} as session format version 3: {e}",
                    path.display()
                ),
            }
        }
        Ok((
            Session {
                header: loaded.header,
                path: Some(path.to_owned()),
                projection: Projection::of(&loaded.tree),
                tree: loaded.tree,
                writer: Some(writer),
                options,
            },
            loaded.warnings,
        ))
    }

    /// Loads a session file to read or copy, without writing it or taking its lock: exporting
    /// or forking a session another process is writing works. [`SessionStore::fork`] of such a
    /// session writes the copy to a file of its own.
    pub fn load_copy(
        path: &Path,
        options: SessionOptions,
        provenance: Provenance,
    ) -> Result<(Session, Vec<LoadWarning>), SessionError> {
        let mut loaded = file::load_file(path)?;
        if provenance == Provenance::Foreign {
            loaded.tree.disown_customs();
        }
        Ok((
            Session {
                header: loaded.header,
                path: Some(path.to_owned()),
                projection: Projection::of(&loaded.tree),
                tree: loaded.tree,
                writer: None,
                options,
            },
            loaded.warnings,
        ))
    }

    /// Loads a session from bytes into an in-memory session (nothing will be written).
    pub fn from_bytes(bytes: &[u8]) -> Result<(Session, Vec<LoadWarning>), SessionError> {
        let loaded = file::load_reader(bytes, Path::new("<memory>"))?;
        Ok((
            Session {
                header: loaded.header,
                path: None,
                projection: Projection::of(&loaded.tree),
                tree: loaded.tree,
                writer: None,
                options: SessionOptions::default(),
            },
            loaded.warnings,
        ))
    }

    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    pub fn id(&self) -> &str {
        &self.header.id
    }

    /// The file, or `None` for an in-memory session.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn is_persistent(&self) -> bool {
        self.writer.is_some()
    }

    /// Every entry, in file order.
    pub fn entries(&self) -> &[Entry] {
        self.tree.entries()
    }

    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.tree.get(id)
    }

    pub fn leaf(&self) -> Option<&Entry> {
        self.tree.leaf_entry()
    }

    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf().map(|e| e.id.as_str())
    }

    /// Appends an entry as a child of the leaf; it becomes the leaf. It is on disk (flushed) when
    /// this returns.
    pub fn append(&mut self, kind: EntryKind) -> Result<&Entry, SessionError> {
        if let EntryKind::Label { target_id, .. } = &kind {
            if !self.tree.contains(target_id) {
                return Err(SessionError::UnknownEntry(target_id.clone()));
            }
        }
        let entry = Entry {
            id: self.new_id(),
            parent_id: self.leaf_id().map(str::to_owned),
            timestamp: now_rfc3339(),
            kind,
            verbatim: None,
        };
        if let Some(writer) = &mut self.writer {
            writer.append(&entry.to_line())?;
        }
        let position = self.tree.push_child(entry);
        self.projection.follow(&self.tree);
        Ok(self.tree.at(position))
    }

    /// Appends a `message` entry.
    pub fn append_message(
        &mut self,
        message: impl Into<Arc<Message>>,
    ) -> Result<&Entry, SessionError> {
        self.append(EntryKind::Message(message.into()))
    }

    /// Moves the leaf (`None`: before the first entry). The next append starts a new branch there.
    pub fn set_leaf(&mut self, id: Option<&str>) -> Result<(), SessionError> {
        let position = match id {
            None => None,
            Some(id) => Some(
                self.tree
                    .position(id)
                    .ok_or_else(|| SessionError::UnknownEntry(id.to_owned()))?,
            ),
        };
        self.tree.set_leaf(position);
        self.projection.follow(&self.tree);
        Ok(())
    }

    /// The active branch: entries from the root to the leaf.
    pub fn branch(&self) -> Vec<&Entry> {
        self.tree.path_entries(self.tree.leaf())
    }

    /// The newest `custom` entry of `custom_type` written by `owner` (`None`: the host, or
    /// entries from before owners were recorded) on the active branch: where plugins keep state
    /// that follows `/tree` moves. Constant time, whatever the session's length.
    pub fn latest_custom(&self, owner: Option<&str>, custom_type: &str) -> Option<&Entry> {
        self.tree.latest_custom(owner, custom_type)
    }

    /// `plugin`'s own newest state of `custom_type` (`session.latest-custom`).
    pub fn plugin_state(&self, plugin: &str, custom_type: &str) -> Option<&Value> {
        match &self.latest_custom(Some(plugin), custom_type)?.kind {
            EntryKind::Custom { data, .. } => Some(data),
            _ => None,
        }
    }

    /// Appends state owned by `plugin` (`session.append-custom`).
    pub fn append_plugin_state(
        &mut self,
        plugin: &str,
        custom_type: &str,
        data: Value,
    ) -> Result<&Entry, SessionError> {
        self.append(EntryKind::Custom {
            custom_type: custom_type.to_owned(),
            data,
            owner: Some(plugin.to_owned()),
        })
    }

    /// The active branch as `plugin` may see it (`session.branch`): every entry except other
    /// owners' custom state, as JSON objects exactly as stored.
    pub fn branch_json_for(&self, plugin: &str) -> Value {
        visible_to(plugin, self.branch())
    }

    /// Every entry of every branch as `plugin` may see it (`control.session-entries`, 0.2.0),
    /// in file order, filtered as [`branch_json_for`](Self::branch_json_for). An entry whose
    /// parent is left out names the nearest ancestor that is not as its `parentId`, so that the
    /// tree a plugin builds from them keeps its shape.
    pub fn entries_json_for(&self, plugin: &str) -> Value {
        // File order puts every parent before its children.
        let mut shown_as: HashMap<&str, Option<&str>> = HashMap::new();
        let mut out = Vec::new();
        for entry in self.entries() {
            let parent = entry
                .parent_id
                .as_deref()
                .and_then(|p| shown_as.get(p).copied().unwrap_or(Some(p)));
            if !is_visible_to(plugin, entry) {
                shown_as.insert(&entry.id, parent);
                continue;
            }
            shown_as.insert(&entry.id, Some(&entry.id));
            let mut json = entry.to_json();
            if parent != entry.parent_id.as_deref() {
                json["parentId"] = parent.map_or(Value::Null, |p| Value::String(p.to_owned()));
            }
            out.push(json);
        }
        Value::Array(out)
    }

    /// The entries from the root to `id`.
    pub fn branch_to(&self, id: &str) -> Result<Vec<&Entry>, SessionError> {
        let position = self
            .tree
            .position(id)
            .ok_or_else(|| SessionError::UnknownEntry(id.to_owned()))?;
        Ok(self.tree.path_entries(Some(position)))
    }

    /// The children of `id` in file order; `None` gives the roots.
    pub fn children(&self, id: Option<&str>) -> Result<Vec<&Entry>, SessionError> {
        let of = match id {
            None => None,
            Some(id) => Some(
                self.tree
                    .position(id)
                    .ok_or_else(|| SessionError::UnknownEntry(id.to_owned()))?,
            ),
        };
        Ok(self
            .tree
            .children(of)
            .into_iter()
            .map(|i| self.tree.at(i))
            .collect())
    }

    /// The messages of the active branch the model's context is built from (see
    /// [`crate::message::llm_view`] for what a provider finally receives).
    pub fn project(&self) -> Vec<Arc<Message>> {
        self.projection.messages().to_vec()
    }

    /// [`project`](Self::project), borrowed.
    pub fn projection(&self) -> &[Arc<Message>] {
        self.projection.messages()
    }

    /// The projection in the provider's view ([`crate::message::llm_view`]).
    pub fn llm_view(&self) -> &[Arc<Message>] {
        self.projection.view().messages()
    }

    /// [`llm_view`](Self::llm_view), shared rather than copied: a provider request holds it
    /// for the length of a turn.
    pub fn shared_llm_view(&self) -> Arc<Vec<Arc<Message>>> {
        self.projection.view().shared()
    }

    /// The latest model change on the active branch: `(provider, model_id)`.
    pub fn model(&self) -> Option<(&str, &str)> {
        self.branch().into_iter().rev().find_map(|e| match &e.kind {
            EntryKind::ModelChange { provider, model_id } => {
                Some((provider.as_str(), model_id.as_str()))
            }
            _ => None,
        })
    }

    /// The latest thinking level on the active branch.
    pub fn thinking_level(&self) -> Option<&str> {
        self.branch().into_iter().rev().find_map(|e| match &e.kind {
            EntryKind::ThinkingLevelChange { thinking_level } => Some(thinking_level.as_str()),
            _ => None,
        })
    }

    /// The session's name: the latest `session_info` entry anywhere in the file.
    /// The text of the active branch's last assistant message (`/copy`, RPC's
    /// `get_last_assistant_text`).
    pub fn last_assistant_text(&self) -> Option<String> {
        self.branch()
            .into_iter()
            .rev()
            .find_map(|entry| match &entry.kind {
                EntryKind::Message(message) => match message.as_ref() {
                    Message::Assistant(a) => Some(a.text_content()),
                    _ => None,
                },
                _ => None,
            })
    }

    pub fn name(&self) -> Option<&str> {
        self.entries().iter().rev().find_map(|e| match &e.kind {
            EntryKind::SessionInfo { name } => Some(name.as_deref()),
            _ => None,
        })?
    }

    /// The label of an entry: the latest `label` entry targeting it, unless that cleared it.
    pub fn label(&self, id: &str) -> Option<&str> {
        self.entries().iter().rev().find_map(|e| match &e.kind {
            EntryKind::Label { target_id, label } if target_id == id => Some(label.as_deref()),
            _ => None,
        })?
    }

    /// Starts a new session holding a copy of the branch from the root to `entry_id`, whose
    /// header points back to this one. `path: None` keeps the fork in memory.
    pub fn fork(&self, path: Option<PathBuf>, entry_id: &str) -> Result<Session, SessionError> {
        self.fork_with_header(self.fork_header(), path, entry_id)
    }

    pub(crate) fn fork_header(&self) -> SessionHeader {
        let parent = self.path.as_ref().map(|p| p.display().to_string());
        new_header(Path::new(&self.header.cwd), parent)
    }

    pub(crate) fn fork_with_header(
        &self,
        header: SessionHeader,
        path: Option<PathBuf>,
        entry_id: &str,
    ) -> Result<Session, SessionError> {
        let branch = self.branch_to(entry_id)?;
        let mut tree = Tree::default();
        for entry in &branch {
            tree.push_child((*entry).clone());
        }
        let writer = match &path {
            Some(path) => Some(Writer::create(
                path,
                std::iter::once(header.to_line()).chain(branch.iter().map(|e| e.to_line())),
                self.options.fsync,
            )?),
            None => None,
        };
        Ok(Session {
            header,
            path,
            projection: Projection::of(&tree),
            tree,
            writer,
            options: self.options,
        })
    }

    fn new_id(&self) -> String {
        loop {
            let id = format!("{:08x}", rand::random::<u32>());
            if !self.tree.contains(&id) {
                return id;
            }
        }
    }
}

/// The messages a stretch of entries gives the model, in order. The stretch must hold no
/// compaction entry (those change what comes before them in a projection).
pub(crate) fn entry_messages(entries: &[&Entry]) -> Vec<Arc<Message>> {
    project::project(entries)
}

pub(crate) fn new_header(cwd: &Path, parent_session: Option<String>) -> SessionHeader {
    SessionHeader {
        version: SESSION_VERSION,
        id: uuid::Uuid::now_v7().to_string(),
        timestamp: now_rfc3339(),
        cwd: cwd.display().to_string(),
        parent_session,
    }
}

/// Current time as RFC 3339 with milliseconds, in UTC.
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A session shared between the agent loop and the plugin runtime.
#[derive(Debug, Clone)]
pub struct SessionHandle(Arc<Mutex<Session>>);

impl SessionHandle {
    pub fn new(session: Session) -> Self {
        SessionHandle(Arc::new(Mutex::new(session)))
    }

    /// Locks the session. Never hold the guard across an `.await`.
    pub fn lock(&self) -> MutexGuard<'_, Session> {
        // A panic while holding the lock cannot leave the session half-updated: the file is
        // written before the in-memory tree changes, in one step each.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Replaces the session (after `/resume`, `/new` or `/fork`).
    pub fn replace(&self, session: Session) -> Session {
        std::mem::replace(&mut *self.lock(), session)
    }
}

/// `entries` as JSON, without custom state other than `plugin`'s own: what one plugin keeps in
/// the session is no other plugin's to read.
fn visible_to<'a>(plugin: &str, entries: impl IntoIterator<Item = &'a Entry>) -> Value {
    Value::Array(
        entries
            .into_iter()
            .filter(|e| is_visible_to(plugin, e))
            .map(Entry::to_json)
            .collect(),
    )
}

fn is_visible_to(plugin: &str, entry: &Entry) -> bool {
    match &entry.kind {
        EntryKind::Custom { owner, .. } => owner.as_deref() == Some(plugin),
        _ => true,
    }
}

#[cfg(test)]
mod tests;
