//! Which folders of the workspace changed since the last snapshot, from the kernel (inotify),
//! so that a snapshot reads those folders alone instead of walking and `lstat`ing every file:
//! on a 10,000-file workspace the walk alone costs more than a turn's whole budget, while the
//! folders a turn touches are a handful (git's fsmonitor and watchman rest on the same idea).
//!
//! Only the folders a full walk entered are watched (ignored ones such as `target/` are not),
//! each before it is read, so a change made while the walk runs is reported too. When the
//! kernel's event queue overflows, or a watch cannot be added (the user's watch limit), the
//! next snapshot walks everything again, as one without a watch does.
//!
//! Not seen: writes through a shared memory mapping, and a change to `.git/info/exclude`
//! (`.git` is never watched); a `.gitignore` or `.ignore` that changes is seen, and its folder
//! is walked again whole.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;

/// The folders that changed: relative path (`""` for the workspace) to whether one of its
/// ignore files changed (then the whole folder is walked again, not only its own entries).
pub type Changed = BTreeMap<String, bool>;

/// The names whose change alters which files a folder's walk records.
const IGNORE_FILES: [&[u8]; 2] = [b".gitignore", b".ignore"];

pub use imp::Watch;

/// The folders under `dir` (all depths), and `dir` itself when `with_dir`.
fn under(dirs: &BTreeMap<String, i32>, dir: &str, with_dir: bool) -> Vec<(String, i32)> {
    let mut found: Vec<(String, i32)> = Vec::new();
    if with_dir {
        found.extend(dirs.get(dir).map(|wd| (dir.to_owned(), *wd)));
    }
    found.extend(
        range_below(dirs, dir)
            .filter(|(name, _)| !name.is_empty())
            .map(|(name, wd)| (name.clone(), *wd)),
    );
    found
}

/// The entries of `map` whose key is a path inside folder `dir` (`""`: all of them). `/` sorts
/// right before `0`, so they are the keys from `dir/` up to `dir0`.
pub(crate) fn range_below<'a, V>(
    map: &'a BTreeMap<String, V>,
    dir: &str,
) -> std::collections::btree_map::Range<'a, String, V> {
    if dir.is_empty() {
        return map.range::<String, _>(..);
    }
    map.range(format!("{dir}/")..format!("{dir}0"))
}

/// `path` is inside folder `dir` (`""`: the workspace), at any depth.
pub(crate) fn is_below(path: &str, dir: &str) -> bool {
    dir.is_empty() && !path.is_empty()
        || path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

/// `path`'s folder (`""` for a top-level name).
pub(crate) fn parent_of(path: &str) -> &str {
    path.rfind('/').map_or("", |at| &path[..at])
}

#[derive(Default)]
struct Dirs {
    wd_of: BTreeMap<String, i32>,
    dir_of: HashMap<i32, String>,
}

#[cfg(target_os = "linux")]
mod imp {
    use std::mem::MaybeUninit;
    use std::os::fd::OwnedFd;
    use std::sync::atomic::{AtomicBool, Ordering};

    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use rustix::io::Errno;

    use super::*;

    pub struct Watch {
        fd: OwnedFd,
        dirs: Mutex<Dirs>,
        /// A watch could not be added, or events were lost: the next snapshot walks all.
        broken: AtomicBool,
    }

    impl Watch {
        /// A new, empty watch; `None` where the kernel will not give one (too many instances).
        pub fn new() -> Option<Watch> {
            let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
            Some(Watch {
                fd,
                dirs: Mutex::new(Dirs::default()),
                broken: AtomicBool::new(false),
            })
        }

        /// Watches folder `abs` (relative name `rel`). Called before the folder is read.
        pub fn add(&self, rel: &str, abs: &Path) {
            let flags = WatchFlags::CREATE
                | WatchFlags::DELETE
                | WatchFlags::MODIFY
                | WatchFlags::ATTRIB
                | WatchFlags::CLOSE_WRITE
                | WatchFlags::MOVED_FROM
                | WatchFlags::MOVED_TO
                | WatchFlags::DELETE_SELF
                | WatchFlags::MOVE_SELF
                | WatchFlags::ONLYDIR
                | WatchFlags::DONT_FOLLOW
                | WatchFlags::EXCL_UNLINK;
            match inotify::add_watch(&self.fd, abs, flags) {
                Ok(wd) => {
                    let mut dirs = self.lock();
                    if let Some(old) = dirs.wd_of.insert(rel.to_owned(), wd) {
                        dirs.dir_of.remove(&old);
                    }
                    // The same folder reached by another name (a bind mount): the newest wins.
                    if let Some(other) = dirs.dir_of.insert(wd, rel.to_owned()) {
                        if other != rel {
                            dirs.wd_of.remove(&other);
                        }
                    }
                }
                // Gone or replaced since the walk listed it: its parent's change says so. Or
                // not readable: the walk cannot read it either, and when its mode changes its
                // parent is told (IN_ATTRIB), which walks it then.
                Err(Errno::NOENT | Errno::NOTDIR | Errno::LOOP | Errno::ACCESS) => {}
                Err(_) => self.broken.store(true, Ordering::Relaxed),
            }
        }

        /// Lets the next snapshot walk everything: this watch cannot tell what changed.
        pub fn give_up(&self) {
            self.broken.store(true, Ordering::Relaxed);
        }

        /// Whether something was lost: see [`Watch::changed`].
        pub fn is_broken(&self) -> bool {
            self.broken.load(Ordering::Relaxed)
        }

        /// Whether a full walk entered `rel` (and watches it).
        pub fn watches(&self, rel: &str) -> bool {
            self.lock().wd_of.contains_key(rel)
        }

        /// The watched folders right inside `rel`.
        pub fn children(&self, rel: &str) -> Vec<String> {
            let dirs = self.lock();
            under(&dirs.wd_of, rel, false)
                .into_iter()
                .map(|(name, _)| name)
                .filter(|name| parent_of(name) == rel)
                .collect()
        }

        /// Stops watching the folders under `rel`, and `rel` itself when `with_dir`.
        pub fn forget(&self, rel: &str, with_dir: bool) {
            let mut dirs = self.lock();
            let gone = under(&dirs.wd_of, rel, with_dir);
            for (name, wd) in gone {
                dirs.wd_of.remove(&name);
                dirs.dir_of.remove(&wd);
                // Fails when the folder is gone, which removed the watch already.
                let _ = inotify::remove_watch(&self.fd, wd);
            }
        }

        /// The folders that changed since the last call; `None` when that cannot be known
        /// (events were lost, or a folder could not be watched): walk everything.
        pub fn changed(&self) -> Option<Changed> {
            let mut changed = Changed::new();
            let mut buf = vec![MaybeUninit::<u8>::uninit(); 64 * 1024];
            let mut reader = inotify::Reader::new(&self.fd, &mut buf);
            let dirs = self.lock();
            loop {
                let event = match reader.next() {
                    Ok(event) => event,
                    Err(Errno::WOULDBLOCK | Errno::INTR) => break,
                    Err(_) => {
                        self.broken.store(true, Ordering::Relaxed);
                        break;
                    }
                };
                if event.events().contains(ReadFlags::QUEUE_OVERFLOW) {
                    self.broken.store(true, Ordering::Relaxed);
                    continue;
                }
                // A folder no longer watched (forgotten, or its watch ended): whatever it had
                // was dropped with it, and its parent reports the change of name.
                let Some(dir) = dirs.dir_of.get(&event.wd()) else {
                    continue;
                };
                let rules = event
                    .file_name()
                    .is_some_and(|name| IGNORE_FILES.contains(&name.to_bytes()));
                *changed.entry(dir.clone()).or_default() |= rules;
            }
            drop(dirs);
            (!self.broken.load(Ordering::Relaxed)).then_some(changed)
        }

        fn lock(&self) -> std::sync::MutexGuard<'_, Dirs> {
            self.dirs.lock().unwrap_or_else(|e| e.into_inner())
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::*;

    /// No folder watching here: every snapshot walks the workspace.
    pub struct Watch(std::convert::Infallible, Mutex<Dirs>);

    impl Watch {
        pub fn new() -> Option<Watch> {
            None
        }
        pub fn add(&self, _rel: &str, _abs: &Path) {
            match self.0 {}
        }
        pub fn give_up(&self) {
            match self.0 {}
        }
        pub fn is_broken(&self) -> bool {
            match self.0 {}
        }
        pub fn watches(&self, _rel: &str) -> bool {
            match self.0 {}
        }
        pub fn children(&self, _rel: &str) -> Vec<String> {
            match self.0 {}
        }
        pub fn forget(&self, _rel: &str, _with_dir: bool) {
            match self.0 {}
        }
        pub fn changed(&self) -> Option<Changed> {
            match self.0 {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_and_parent_read_relative_paths() {
        assert!(is_below("a/b", "a"));
        assert!(is_below("a/b/c", "a"));
        assert!(!is_below("ab/c", "a"));
        assert!(!is_below("a", "a"));
        assert!(is_below("a", ""));
        assert!(!is_below("", ""));
        assert_eq!(parent_of("a/b/c"), "a/b");
        assert_eq!(parent_of("a"), "");
        let dirs: BTreeMap<String, i32> = ["", "a", "a/b", "a/b/c", "a.x", "ab", "b"]
            .iter()
            .enumerate()
            .map(|(i, d)| (d.to_string(), i as i32))
            .collect();
        let names = |dir, with| -> Vec<String> {
            under(&dirs, dir, with)
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        assert_eq!(names("a", true), ["a", "a/b", "a/b/c"]);
        assert_eq!(names("a", false), ["a/b", "a/b/c"]);
        assert_eq!(names("", false), ["a", "a.x", "a/b", "a/b/c", "ab", "b"]);
    }
}
