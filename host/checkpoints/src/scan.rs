//! Walking the workspace into a [`Tree`]: `.gitignore` rules apply (also outside a git
//! repository), `.git` and the excluded folders are never entered, symbolic links are neither
//! followed nor recorded, and a file is hashed again only when its `stat` changed since this
//! process hashed it.

use std::collections::HashMap;
use std::fs::{self, Metadata};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use ignore::WalkState;

use sha2::{Digest, Sha256};

use crate::objects::Objects;
use crate::tree::{FileRecord, Tree};
use crate::{Error, Options, Result};

/// A file a snapshot left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub size: u64,
    pub reason: SkipReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Above `max_file_bytes`.
    TooLarge,
    /// It could not be read (permissions, or it vanished while being read).
    Unreadable,
    /// Its name is not UTF-8 or holds a line break.
    Name,
}

impl SkipReason {
    pub fn word(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "large",
            SkipReason::Unreadable => "unreadable",
            SkipReason::Name => "name",
        }
    }

    pub fn from_word(word: &str) -> Option<Self> {
        Some(match word {
            "large" => SkipReason::TooLarge,
            "unreadable" => SkipReason::Unreadable,
            "name" => SkipReason::Name,
            _ => return None,
        })
    }

    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "larger than the checkpoint size cap",
            SkipReason::Unreadable => "could not be read",
            SkipReason::Name => "its name is not UTF-8 or holds a line break",
        }
    }
}

/// What a file looked like when it was hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
}

impl Stamp {
    pub fn of(meta: &Metadata) -> Stamp {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Stamp {
                size: meta.len(),
                mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
                ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
                ino: meta.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128);
            Stamp {
                size: meta.len(),
                mtime_ns,
                ctime_ns: mtime_ns,
                ino: 0,
            }
        }
    }
}

/// A file this process hashed (and stored, so its object exists).
#[derive(Debug, Clone)]
pub struct Known {
    stamp: Stamp,
    hashed_at_ns: i128,
    hash: String,
}

impl Known {
    /// A file written in the same clock tick as it was hashed could change again without its
    /// stamp changing (git's "racy" files): such an entry is not trusted, the file is hashed
    /// again.
    fn still(&self, stamp: &Stamp) -> bool {
        const MARGIN_NS: i128 = 1_000_000_000;
        self.stamp == *stamp && stamp.mtime_ns.max(stamp.ctime_ns) + MARGIN_NS <= self.hashed_at_ns
    }
}

pub type Index = HashMap<String, Known>;

/// A file the walk found, with its `lstat`.
struct Found {
    path: PathBuf,
    name: Option<String>,
    meta: Metadata,
}

/// The workspace as a tree. With `objects`, new contents are stored and the index learns them;
/// without, the tree only describes what is there (to compare against a checkpoint).
/// Returns the tree and the bytes newly stored.
pub fn scan(
    workspace: &Path,
    options: &Options,
    index: &mut Index,
    objects: Option<&Objects>,
) -> Result<(Tree, u64)> {
    let mut tree = Tree::default();
    let mut stored = 0;
    for found in walk(workspace, options)? {
        let size = found.meta.len();
        let Some(name) = found.name else {
            let rel = found.path.strip_prefix(workspace).unwrap_or(&found.path);
            tree.skipped.push(Skipped {
                path: rel.to_string_lossy().replace(['\n', '\r'], "?"),
                size,
                reason: SkipReason::Name,
            });
            continue;
        };
        if size > options.max_file_bytes {
            tree.skipped.push(Skipped {
                path: name,
                size,
                reason: SkipReason::TooLarge,
            });
            continue;
        }
        let stamp = Stamp::of(&found.meta);
        let executable = is_executable(&found.meta);
        if let Some(known) = index.get(&name).filter(|k| k.still(&stamp)) {
            tree.files.insert(
                name,
                FileRecord {
                    hash: known.hash.clone(),
                    size,
                    executable,
                },
            );
            continue;
        }
        let hashed_at_ns = now_ns();
        let bytes = match fs::read(&found.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => {
                tree.skipped.push(Skipped {
                    path: name,
                    size,
                    reason: SkipReason::Unreadable,
                });
                continue;
            }
        };
        let hash = hex::encode(Sha256::digest(&bytes));
        if let Some(objects) = objects {
            stored += objects.put(&hash, &bytes)?;
            index.insert(
                name.clone(),
                Known {
                    stamp,
                    hashed_at_ns,
                    hash: hash.clone(),
                },
            );
        }
        tree.files.insert(
            name,
            FileRecord {
                hash,
                size: bytes.len() as u64,
                executable,
            },
        );
    }
    tree.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((tree, stored))
}

/// The regular files of the workspace. The walk and the `lstat` of each file run on every core:
/// on a tree whose files did not change they are nearly all the cost. Folders that cannot be
/// read are passed over (their files cannot be restored either); the workspace itself must be
/// readable.
fn walk(workspace: &Path, options: &Options) -> Result<Vec<Found>> {
    fs::read_dir(workspace).map_err(Error::io("read", workspace))?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let found = Mutex::new(Vec::new());
    let count = AtomicUsize::new(0);
    let max = options.max_files;
    walker(workspace, options)
        .threads(threads)
        .build_parallel()
        .run(|| {
            let count = &count;
            let mut batch = Batch {
                files: Vec::new(),
                into: &found,
            };
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                if count.fetch_add(1, Ordering::Relaxed) >= max {
                    return WalkState::Quit;
                }
                // Gone since its folder was read: not there, then.
                let Ok(meta) = entry.metadata() else {
                    return WalkState::Continue;
                };
                let name = entry
                    .path()
                    .strip_prefix(workspace)
                    .ok()
                    .and_then(Path::to_str)
                    .filter(|s| !s.contains(['\n', '\r']))
                    .map(|s| s.replace(std::path::MAIN_SEPARATOR, "/"));
                batch.files.push(Found {
                    path: entry.into_path(),
                    name,
                    meta,
                });
                if batch.files.len() >= 256 {
                    batch.flush();
                }
                WalkState::Continue
            })
        });
    if count.load(Ordering::Relaxed) > max {
        return Err(Error::TooManyFiles { max });
    }
    Ok(found.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// What one walker thread found, handed over in batches (and the rest when the thread is done).
struct Batch<'a> {
    files: Vec<Found>,
    into: &'a Mutex<Vec<Found>>,
}

impl Batch<'_> {
    fn flush(&mut self) {
        let mut all = self.into.lock().unwrap_or_else(|e| e.into_inner());
        all.append(&mut self.files);
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

fn walker(workspace: &Path, options: &Options) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(workspace);
    builder
        .hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false);
    let exclude = options.exclude.clone();
    builder.filter_entry(move |e| {
        e.file_name() != ".git" && !exclude.iter().any(|x| e.path().starts_with(x))
    });
    builder
}

fn is_executable(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}
