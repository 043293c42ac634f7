//! Walking the workspace into a [`Tree`]: `.gitignore` rules apply (also outside a git
//! repository), `.git` and the excluded folders are never entered, symbolic links are neither
//! followed nor recorded, and a file is hashed again only when its `stat` changed since this
//! process hashed it.

use std::collections::HashMap;
use std::fs::{self, Metadata};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use ignore::WalkState;

use sha2::{Digest, Sha256};

use crate::objects::Objects;
use crate::tree::{FileRecord, Tree};
use crate::watch::Watch;
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

/// A file whose stamp is not in the index: read and hashed after the walk.
pub(crate) struct Fresh {
    name: String,
    size: u64,
    stamp: Stamp,
    executable: bool,
}

/// What one walker thread found. Index look-ups and the copies of known hashes happen on the
/// walker threads: on a tree that barely changed they are most of what is left after the walk.
#[derive(Default)]
pub(crate) struct Found {
    pub known: Vec<(String, FileRecord)>,
    pub fresh: Vec<Fresh>,
    pub skipped: Vec<Skipped>,
    /// The folders entered (or, in a shallow walk, seen), the walk's own folder left out.
    pub dirs: Vec<String>,
}

impl Found {
    fn append(&mut self, other: &mut Found) {
        self.known.append(&mut other.known);
        self.fresh.append(&mut other.fresh);
        self.skipped.append(&mut other.skipped);
        self.dirs.append(&mut other.dirs);
    }
}

/// The workspace as a tree. With `objects`, new contents are stored and the index learns them;
/// without, the tree only describes what is there (to compare against a checkpoint). With
/// `watch`, every folder entered is watched before it is read.
/// Returns the tree and the bytes newly stored.
pub fn scan(
    workspace: &Path,
    options: &Options,
    index: &mut Index,
    objects: Option<&Objects>,
    watch: Option<&Watch>,
) -> Result<(Tree, u64)> {
    let found = walk(workspace, "", Depth::All, options, index, watch)?;
    let mut tree = Tree {
        files: found.known.into_iter().collect(),
        skipped: found.skipped,
    };
    let stored = hash_fresh(workspace, found.fresh, &mut tree, index, objects)?;
    tree.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((tree, stored))
}

/// Reads and hashes the files the walk did not know, into `tree`; with `objects`, stores them
/// and teaches the index. Returns the bytes newly stored.
pub(crate) fn hash_fresh(
    workspace: &Path,
    fresh: Vec<Fresh>,
    tree: &mut Tree,
    index: &mut Index,
    objects: Option<&Objects>,
) -> Result<u64> {
    let mut stored = 0;
    for fresh in fresh {
        let Fresh {
            name,
            size,
            stamp,
            executable,
        } = fresh;
        let hashed_at_ns = now_ns();
        let bytes = match fs::read(workspace.join(&name)) {
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
    Ok(stored)
}

/// How deep a walk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Depth {
    /// The folder's own entries: its files, and the names of its folders.
    Shallow,
    All,
}

/// The regular files of folder `from` of the workspace (`""`: all of it), sorted out against
/// the index. The walk and the `lstat` of each file run on every core: on a tree whose files
/// did not change they are nearly all the cost. Folders that cannot be read are passed over
/// (their files cannot be restored either); `from` itself must be readable.
pub(crate) fn walk(
    workspace: &Path,
    from: &str,
    depth: Depth,
    options: &Options,
    index: &Index,
    watch: Option<&Watch>,
) -> Result<Found> {
    let start = if from.is_empty() {
        workspace.to_path_buf()
    } else {
        workspace.join(from)
    };
    if let Some(watch) = watch {
        watch.add(from, &start);
    }
    fs::read_dir(&start).map_err(Error::io("read", &start))?;
    let threads = match depth {
        Depth::Shallow => 1,
        Depth::All => std::thread::available_parallelism().map_or(2, |n| n.get().min(8)),
    };
    let all = Mutex::new(Found::default());
    let count = AtomicUsize::new(0);
    let max = options.max_files;
    let max_file_bytes = options.max_file_bytes;
    let prefix = workspace.as_os_str().as_encoded_bytes();
    walker(&start, options)
        .max_depth((depth == Depth::Shallow).then_some(1))
        .threads(threads)
        .build_parallel()
        .run(|| {
            let count = &count;
            let mut part = Part {
                found: Found::default(),
                into: &all,
            };
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                let Some(kind) = entry.file_type() else {
                    return WalkState::Continue;
                };
                if kind.is_dir() && entry.depth() > 0 {
                    match relative_name(entry.path(), workspace, prefix) {
                        Some(name) => {
                            // Before the walker reads it: a change made meanwhile is reported.
                            if let Some(watch) = watch.filter(|_| depth == Depth::All) {
                                watch.add(&name, entry.path());
                            }
                            part.found.dirs.push(name);
                        }
                        // A folder no tree can name cannot be told apart from others in a
                        // watch either: later snapshots walk everything.
                        None => watch.into_iter().for_each(Watch::give_up),
                    }
                    return WalkState::Continue;
                }
                if !kind.is_file() {
                    return WalkState::Continue;
                }
                if count.fetch_add(1, Ordering::Relaxed) >= max {
                    return WalkState::Quit;
                }
                // Gone since its folder was read: not there, then.
                let Ok(meta) = entry.metadata() else {
                    return WalkState::Continue;
                };
                let size = meta.len();
                let Some(name) = relative_name(entry.path(), workspace, prefix) else {
                    let path = entry.path();
                    let rel = path.strip_prefix(workspace).unwrap_or(path);
                    part.found.skipped.push(Skipped {
                        path: rel.to_string_lossy().replace(['\n', '\r'], "?"),
                        size,
                        reason: SkipReason::Name,
                    });
                    return WalkState::Continue;
                };
                if size > max_file_bytes {
                    part.found.skipped.push(Skipped {
                        path: name,
                        size,
                        reason: SkipReason::TooLarge,
                    });
                    return WalkState::Continue;
                }
                let stamp = Stamp::of(&meta);
                let executable = is_executable(&meta);
                match index.get(&name).filter(|k| k.still(&stamp)) {
                    Some(known) => part.found.known.push((
                        name,
                        FileRecord {
                            hash: known.hash.clone(),
                            size,
                            executable,
                        },
                    )),
                    None => part.found.fresh.push(Fresh {
                        name,
                        size,
                        stamp,
                        executable,
                    }),
                }
                WalkState::Continue
            })
        });
    if count.load(Ordering::Relaxed) > max {
        return Err(Error::TooManyFiles { max });
    }
    Ok(all.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// `path` relative to the workspace, `/`-separated, if it is a name a tree can hold (UTF-8,
/// no line break). The walker's paths are the workspace's path joined with names, so the
/// prefix is cut as bytes; the component-wise cut is the fallback.
fn relative_name(path: &Path, workspace: &Path, prefix: &[u8]) -> Option<String> {
    let bytes = path.as_os_str().as_encoded_bytes();
    let rel = match bytes.strip_prefix(prefix) {
        Some([b'/', rest @ ..]) if cfg!(unix) => std::str::from_utf8(rest).ok()?,
        _ => path.strip_prefix(workspace).ok()?.to_str()?,
    };
    if rel.contains(['\n', '\r']) {
        return None;
    }
    Some(if std::path::MAIN_SEPARATOR == '/' {
        rel.to_owned()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    })
}

/// What one walker thread found, handed over when the thread is done.
struct Part<'a> {
    found: Found,
    into: &'a Mutex<Found>,
}

impl Drop for Part<'_> {
    fn drop(&mut self) {
        let mut all = self.into.lock().unwrap_or_else(|e| e.into_inner());
        all.append(&mut self.found);
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
        e.file_name() != ".git"
            && !exclude.iter().any(|x| {
                // A path that starts with a folder's path starts with its bytes: the cheap test
                // first, on every entry.
                let (p, x) = (e.path(), x.as_path());
                p.as_os_str()
                    .as_encoded_bytes()
                    .starts_with(x.as_os_str().as_encoded_bytes())
                    && p.starts_with(x)
            })
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
