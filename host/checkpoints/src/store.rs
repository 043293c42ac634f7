//! One workspace's checkpoint store: snapshots, the records tying them to a session's user
//! messages, restoring, and pruning the oldest checkpoints when the store outgrows its cap.

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::objects::{write_atomic, Objects};
use crate::restore::{self, Plan, Restored};
use crate::scan::{self, Index, Skipped};
use crate::tree::Tree;
use crate::watch::{Changed, Watch};
use crate::{Error, Options, Result};

/// Objects and trees younger than this are never pruned: another tack process on the same
/// workspace may have written them for a checkpoint it has not recorded yet.
const GRACE_SECS: u64 = 3600;

pub struct CheckpointStore {
    root: PathBuf,
    workspace: PathBuf,
    options: Options,
    objects: Objects,
    index: Index,
    /// The store's size on disk, once measured.
    size: Option<u64>,
    /// The last snapshot: a turn that changed nothing costs no tree to write out and hash.
    last: Option<(String, Tree)>,
    /// What changed since the last snapshot, when the kernel can tell (see `watch`).
    watch: Option<Watch>,
    /// A watch could not cover the workspace (the user's inotify limits): walk every time.
    unwatchable: bool,
    /// Walks of the whole workspace so far (the tests check that a watch spares them).
    full_walks: u32,
}

/// One snapshot taken.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub tree: String,
    pub files: usize,
    pub skipped: Vec<Skipped>,
    /// Bytes of content not in the store before.
    pub stored_bytes: u64,
}

/// A line of a session's record file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub kind: RecordKind,
    /// For `start`: the user message the run began with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    pub tree: String,
    /// Milliseconds since the epoch.
    pub at: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RecordKind {
    /// Taken before a run's first turn: what `/rewind` restores.
    Start,
    /// Taken when a run ended: tells which files the run made.
    End,
}

impl Record {
    pub fn new(kind: RecordKind, entry_id: Option<String>, tree: String) -> Record {
        let at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        Record {
            kind,
            entry_id,
            tree,
            at,
        }
    }
}

impl CheckpointStore {
    /// The store of `workspace` under `dir` (`<tack home>/checkpoints`).
    pub fn open(dir: &Path, workspace: &Path, mut options: Options) -> Result<Self> {
        let workspace = workspace
            .canonicalize()
            .map_err(Error::io("read", workspace))?;
        let key = hex::encode(Sha256::digest(workspace.to_string_lossy().as_bytes()));
        let root = dir.join(&key[..16]);
        fs::create_dir_all(&root).map_err(Error::io("create", &root))?;
        // Copies of the user's files (a `.env` nobody ignored among them): theirs alone.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(Error::io("set the mode of", dir))?;
        }
        let note = root.join("workspace");
        if !note.exists() {
            write_atomic(&note, workspace.to_string_lossy().as_bytes())?;
        }
        // The store (and the tack home holding it) may sit inside the workspace.
        options.exclude.push(dir.to_path_buf());
        options.exclude = options
            .exclude
            .iter()
            .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
            .collect();
        Ok(CheckpointStore {
            objects: Objects::new(root.join("objects")),
            root,
            workspace,
            options,
            index: Index::default(),
            size: None,
            last: None,
            watch: None,
            unwatchable: false,
            full_walks: 0,
        })
    }

    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Records the workspace as it is now.
    pub fn snapshot(&mut self) -> Result<Snapshot> {
        let (tree, stored, unchanged_id) = match (self.changes(), self.last.take()) {
            (Some(changed), Some((id, tree))) if changed.is_empty() => (tree, 0, Some(id)),
            (Some(changed), Some((_, mut tree))) => match self.update(&mut tree, changed) {
                Ok(stored) => (tree, stored, None),
                // Half updated: the walk of everything says what is there (or what is wrong).
                Err(_) => {
                    let (tree, stored) = self.walk_all()?;
                    (tree, stored, None)
                }
            },
            (_, last) => {
                let (tree, stored) = self.walk_all()?;
                let unchanged_id = last.filter(|(_, l)| *l == tree).map(|(id, _)| id);
                (tree, stored, unchanged_id)
            }
        };
        let files = tree.files.len();
        let skipped = tree.skipped.clone();
        let mut stored_bytes = stored;
        let id = match unchanged_id {
            Some(id) if self.tree_path(&id).is_file() => id,
            _ => {
                let text = tree.to_text();
                let id = Tree::id_of(&text);
                let path = self.tree_path(&id);
                if !path.is_file() {
                    write_atomic(&path, text.as_bytes())?;
                    stored_bytes += text.len() as u64;
                }
                id
            }
        };
        if let Some(size) = &mut self.size {
            *size += stored_bytes;
        }
        self.last = Some((id.clone(), tree));
        Ok(Snapshot {
            tree: id,
            files,
            skipped,
            stored_bytes,
        })
    }

    /// The folders changed since the last snapshot; `None` when only a walk of everything can
    /// tell.
    fn changes(&self) -> Option<Changed> {
        self.watch
            .as_ref()
            .filter(|watch| watch.watches(""))
            .and_then(Watch::changed)
    }

    fn update(&mut self, tree: &mut Tree, changed: Changed) -> Result<u64> {
        let Some(watch) = &self.watch else {
            return Err(Error::Corrupt {
                store: self.root.clone(),
                detail: "no folder watch to update from".into(),
            });
        };
        crate::rescan::update(
            &self.workspace,
            &self.options,
            &mut self.index,
            &self.objects,
            watch,
            tree,
            changed,
        )
    }

    /// Walks the whole workspace, under a new watch when one can be had.
    fn walk_all(&mut self) -> Result<(Tree, u64)> {
        // Dropping the old watch ends every watch of it.
        self.watch = None;
        self.full_walks += 1;
        let watch = if self.unwatchable { None } else { Watch::new() };
        let scanned = scan::scan(
            &self.workspace,
            &self.options,
            &mut self.index,
            Some(&self.objects),
            watch.as_ref(),
        )?;
        if let Some(watch) = watch {
            // Broken already: some folder could not be watched, and never will be. (Its events
            // stay queued: a change made during the walk is the next snapshot's to read.)
            if !watch.is_broken() {
                self.watch = Some(watch);
            } else {
                self.unwatchable = true;
            }
        }
        Ok(scanned)
    }

    /// Adds `record` to the session's records; prunes the oldest checkpoints when the store is
    /// over its cap.
    pub fn record(&mut self, session_id: &str, record: &Record) -> Result<()> {
        let path = self.session_path(session_id)?;
        let dir = self.root.join("sessions");
        fs::create_dir_all(&dir).map_err(Error::io("create", &dir))?;
        let mut line = serde_json::to_string(record).map_err(|e| Error::Corrupt {
            store: self.root.clone(),
            detail: e.to_string(),
        })?;
        line.push('\n');
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(Error::io("write", &path))?;
        self.prune_if_needed()
    }

    /// The session's records, oldest first.
    pub fn records(&self, session_id: &str) -> Result<Vec<Record>> {
        let path = self.session_path(session_id)?;
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io("read", &path)(e)),
        };
        let mut records = Vec::new();
        for (n, line) in text.lines().enumerate() {
            // A line cut by a crash is the last one: what came before still stands.
            if line.trim().is_empty() || (n + 1 == text.lines().count() && !text.ends_with('\n')) {
                continue;
            }
            records.push(serde_json::from_str(line).map_err(|e| Error::Corrupt {
                store: self.root.clone(),
                detail: format!("{} line {}: {e}", path.display(), n + 1),
            })?);
        }
        Ok(records)
    }

    /// The start checkpoints of the session: user message ids, newest first.
    pub fn checkpoints(&self, session_id: &str) -> Result<Vec<Record>> {
        let mut starts: Vec<Record> = self
            .records(session_id)?
            .into_iter()
            .filter(|r| r.kind == RecordKind::Start && r.entry_id.is_some())
            .collect();
        starts.reverse();
        Ok(starts)
    }

    pub fn tree(&self, id: &str) -> Result<Tree> {
        let path = self.tree_path(id);
        let corrupt = |detail: String| Error::Corrupt {
            store: self.root.clone(),
            detail,
        };
        let text = fs::read_to_string(&path)
            .map_err(|e| corrupt(format!("cannot read tree {}: {e}", path.display())))?;
        if Tree::id_of(&text) != id {
            return Err(corrupt(format!(
                "tree {} does not match its hash",
                path.display()
            )));
        }
        Tree::parse(&text).map_err(|e| corrupt(format!("tree {}: {e}", path.display())))
    }

    /// The workspace as it is, without storing anything.
    pub fn current(&mut self) -> Result<Tree> {
        let (tree, _) = scan::scan(&self.workspace, &self.options, &mut self.index, None, None)?;
        Ok(tree)
    }

    /// What restoring the checkpoint taken before user message `entry_id` would change in
    /// `current` (from [`CheckpointStore::current`]).
    pub fn plan(&self, session_id: &str, entry_id: &str, current: &Tree) -> Result<Plan> {
        let (target, later) = self.target(session_id, entry_id)?;
        Ok(restore::plan(&target, &later, current))
    }

    /// Puts the workspace's files back as they were before user message `entry_id`.
    pub fn restore(&mut self, session_id: &str, entry_id: &str) -> Result<Restored> {
        let (target, later) = self.target(session_id, entry_id)?;
        let current = self.current()?;
        let plan = restore::plan(&target, &later, &current);
        restore::apply(&self.workspace, &self.objects, &self.root, &target, &plan)
    }

    /// The checkpoint's tree and the trees recorded after it.
    fn target(&self, session_id: &str, entry_id: &str) -> Result<(Tree, Vec<Tree>)> {
        let records = self.records(session_id)?;
        let at = records
            .iter()
            .rposition(|r| r.kind == RecordKind::Start && r.entry_id.as_deref() == Some(entry_id))
            .ok_or_else(|| Error::NoCheckpoint {
                entry_id: entry_id.to_owned(),
            })?;
        let target = self.tree(&records[at].tree)?;
        let mut seen = BTreeSet::new();
        let mut later = Vec::new();
        for r in &records[at + 1..] {
            if r.tree != records[at].tree && seen.insert(r.tree.clone()) {
                later.push(self.tree(&r.tree)?);
            }
        }
        Ok((target, later))
    }

    fn tree_path(&self, id: &str) -> PathBuf {
        let (head, tail) = id.split_at(id.len().min(2));
        self.root.join("trees").join(head).join(tail)
    }

    fn session_path(&self, session_id: &str) -> Result<PathBuf> {
        let ok = !session_id.is_empty()
            && session_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !ok {
            return Err(Error::Corrupt {
                store: self.root.clone(),
                detail: format!("{session_id:?} is not a session id"),
            });
        }
        Ok(self
            .root
            .join("sessions")
            .join(format!("{session_id}.jsonl")))
    }

    /// Drops the oldest records, a quarter at a time, and the contents only they held, until
    /// the store fits its cap again (the newest checkpoint always stays).
    fn prune_if_needed(&mut self) -> Result<()> {
        let size = match self.size {
            Some(size) => size,
            None => dir_size(&self.root),
        };
        self.size = Some(size);
        if size <= self.options.max_store_bytes {
            return Ok(());
        }
        let mut last = size;
        loop {
            let mut all = Vec::new();
            for session in self.session_ids()? {
                for (line, record) in self.records(&session)?.into_iter().enumerate() {
                    all.push((record.at, session.clone(), line));
                }
            }
            if all.len() <= 1 {
                break;
            }
            all.sort();
            let drop: BTreeSet<(String, usize)> = all[..all.len().div_ceil(4).min(all.len() - 1)]
                .iter()
                .map(|(_, s, l)| (s.clone(), *l))
                .collect();
            for session in self.session_ids()? {
                let kept: Vec<Record> = self
                    .records(&session)?
                    .into_iter()
                    .enumerate()
                    .filter(|(line, _)| !drop.contains(&(session.clone(), *line)))
                    .map(|(_, r)| r)
                    .collect();
                let mut text = String::new();
                for r in &kept {
                    text.push_str(&serde_json::to_string(r).unwrap_or_default());
                    text.push('\n');
                }
                write_atomic(&self.session_path(&session)?, text.as_bytes())?;
            }
            self.collect_garbage()?;
            let size = dir_size(&self.root);
            self.size = Some(size);
            // Nothing freed: what is left is too young to delete (see GRACE_SECS).
            if size <= self.options.max_store_bytes || size >= last {
                break;
            }
            last = size;
        }
        Ok(())
    }

    fn session_ids(&self) -> Result<Vec<String>> {
        let dir = self.root.join("sessions");
        let mut ids = Vec::new();
        let Ok(read) = fs::read_dir(&dir) else {
            return Ok(ids);
        };
        for entry in read.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".jsonl") {
                ids.push(id.to_owned());
            }
        }
        Ok(ids)
    }

    /// Deletes trees and objects no record holds (older than the grace period).
    fn collect_garbage(&mut self) -> Result<()> {
        let mut trees = BTreeSet::new();
        for session in self.session_ids()? {
            for r in self.records(&session)? {
                trees.insert(r.tree);
            }
        }
        let mut objects = BTreeSet::new();
        for id in &trees {
            // A damaged tree keeps nothing alive; its checkpoint reports the damage on use.
            if let Ok(tree) = self.tree(id) {
                objects.extend(tree.files.into_values().map(|f| f.hash));
            }
        }
        sweep(&self.root.join("trees"), &trees);
        sweep(&self.root.join("objects"), &objects);
        // Remembered hashes may name objects (and trees) just deleted.
        self.index.clear();
        self.last = None;
        Ok(())
    }
}

/// Removes the `ab/cdef…` files of `dir` whose name is not in `keep`.
fn sweep(dir: &Path, keep: &BTreeSet<String>) {
    let Ok(heads) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for head in heads.flatten() {
        let Ok(files) = fs::read_dir(head.path()) else {
            continue;
        };
        for file in files.flatten() {
            let name = format!(
                "{}{}",
                head.file_name().to_string_lossy(),
                file.file_name().to_string_lossy()
            );
            let young = file
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_none_or(|age| age.as_secs() < GRACE_SECS);
            if !keep.contains(&name) && !young {
                let _ = fs::remove_file(file.path());
            }
        }
    }
}

fn dir_size(dir: &Path) -> u64 {
    let Ok(read) = fs::read_dir(dir) else {
        return 0;
    };
    read.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

#[cfg(test)]
mod tests;
