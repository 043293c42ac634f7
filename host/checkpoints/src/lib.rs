//! File checkpoints for `/rewind`: before each prompt of an interactive session (and after its
//! run) the workspace's files are recorded by content, so that the files can later be put back
//! as they were when an earlier prompt was sent, whatever changed them (`edit`, `write`, a
//! `bash` command).
//!
//! The store lives in tack's home, one folder per workspace, never in the user's repository:
//!
//! ```text
//! <tack home>/checkpoints/<workspace key>/
//!   workspace            the workspace's path, for people reading the folder
//!   objects/ab/cdef…     file contents, named by their SHA-256 (shared by every checkpoint)
//!   trees/ab/cdef…       one checkpoint's file list: hash, size, mode and path per line
//!   sessions/<id>.jsonl  which tree was taken before which user message of a session
//! ```
//!
//! A snapshot walks the workspace with `.gitignore` rules (`.git` itself is never read), skips
//! files above a size cap (named in the snapshot), and hashes only files whose size, mtime,
//! ctime or inode changed since this process last hashed them. On Linux the first walk also
//! watches every folder it enters (inotify), and later snapshots read only the folders that
//! changed since, so a turn that changed a few files costs those folders' `lstat`s, not a
//! walk.
//!
//! What a restore does (docs/checkpoints.md says it for users):
//! - every file recorded in the checkpoint gets the content and executable bit it had then,
//!   whoever changed it since (the agent or the user);
//! - a file missing from the checkpoint is deleted only when a later snapshot of the same
//!   session saw it (it appeared during the session); files tack never recorded (ignored by
//!   `.gitignore`, above the size cap, made by hand after the last snapshot) are left alone;
//! - nothing outside the workspace is written, and no symbolic link is followed.

mod objects;
mod rescan;
mod restore;
mod scan;
mod store;
mod tree;
mod watch;

use std::path::PathBuf;

pub use restore::{Plan, Restored};
pub use scan::{SkipReason, Skipped};
pub use store::{CheckpointStore, Record, RecordKind, Snapshot};
pub use tree::Tree;

/// Limits of a store.
#[derive(Debug, Clone)]
pub struct Options {
    /// Files larger than this are not recorded (and never touched by a restore).
    pub max_file_bytes: u64,
    /// When the store grows past this, the oldest checkpoints are pruned.
    pub max_store_bytes: u64,
    /// A workspace with more files than this is not checkpointed at all (a home folder opened
    /// by mistake would otherwise be copied).
    pub max_files: usize,
    /// Folders inside the workspace never recorded (the tack home, when the workspace holds it).
    pub exclude: Vec<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_file_bytes: 2 * 1024 * 1024,
            max_store_bytes: 2 * 1024 * 1024 * 1024,
            max_files: 100_000,
            exclude: Vec::new(),
        }
    }
}

/// What went wrong, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the checkpoint store at {} is damaged: {detail}", store.display())]
    Corrupt { store: PathBuf, detail: String },
    #[error(
        "the workspace holds more than {max} files: no checkpoint taken (raise \
         [checkpoints] max_files, or start tack in a project folder)"
    )]
    TooManyFiles { max: usize },
    #[error("no checkpoint for entry {entry_id} in this session (checkpoints are taken before each prompt of an interactive session)")]
    NoCheckpoint { entry_id: String },
    #[error("refusing to restore {path}: {reason}")]
    Unsafe { path: String, reason: String },
}

impl Error {
    fn io(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io {
            action,
            path,
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
