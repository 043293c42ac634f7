//! One writer per session file across processes: an advisory lock (`flock`) on the file, held
//! for as long as a [`Writer`](super::file::Writer) appends to it. A second tack process that
//! opens the same session (`-c` in two terminals, RPC `switch_session` to a file another process
//! writes) is refused with a message saying so, rather than interleaving its lines with the
//! other's.
//!
//! Within one process the lock is shared: switching sessions opens the new one before the old
//! is dropped, and the agent serialises appends through its session handle anyway. `flock`
//! belongs to an open file description, so the process keeps one per file, counted by the
//! writers that hold it, and the lock goes when the last of them does.

use std::collections::HashMap;
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::SessionError;

/// The lock on one session file, shared by this process's writers of it.
#[derive(Debug)]
pub(crate) struct FileLock {
    key: (u64, u64),
    _file: File,
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if let Ok(mut held) = held().lock() {
            if held.get(&self.key).is_some_and(|w| w.strong_count() == 0) {
                held.remove(&self.key);
            }
        }
    }
}

/// The locks this process holds, by the file's device and inode (one file, whatever the path).
type Held = Mutex<HashMap<(u64, u64), Weak<FileLock>>>;

fn held() -> &'static Held {
    static HELD: OnceLock<Held> = OnceLock::new();
    HELD.get_or_init(Default::default)
}

/// Takes (or joins this process's hold of) the lock on the session file at `path`.
pub(crate) fn lock(path: &Path) -> Result<Arc<FileLock>, SessionError> {
    let io = |source| SessionError::Write {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(|source| SessionError::Read {
        path: path.to_owned(),
        source,
    })?;
    let key = identity(&file).map_err(io)?;
    let mut held = held()
        .lock()
        .map_err(|_| io(std::io::Error::other("the session lock table is poisoned")))?;
    if let Some(existing) = held.get(&key).and_then(Weak::upgrade) {
        return Ok(existing);
    }
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(SessionError::Busy {
                path: PathBuf::from(path),
            })
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    let lock = Arc::new(FileLock { key, _file: file });
    held.insert(key, Arc::downgrade(&lock));
    Ok(lock)
}

#[cfg(unix)]
fn identity(file: &File) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata()?;
    Ok((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(file: &File) -> std::io::Result<(u64, u64)> {
    // Without inode numbers, the file's creation time and length stand in; the lock itself
    // still comes from the OS.
    let meta = file.metadata()?;
    let created = meta
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    Ok((created, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_process_shares_the_lock_and_releases_it_with_the_last_holder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "x\n").expect("write");
        let first = lock(&path).expect("lock");
        let second = lock(&path).expect("the same process joins its own hold");
        assert!(Arc::ptr_eq(&first, &second));
        // Another open file description (as another process would have) is refused.
        let other = File::open(&path).expect("open");
        assert!(matches!(other.try_lock(), Err(TryLockError::WouldBlock)));
        drop(first);
        assert!(matches!(other.try_lock(), Err(TryLockError::WouldBlock)));
        drop(second);
        other.try_lock().expect("free once the last holder is gone");
    }
}
