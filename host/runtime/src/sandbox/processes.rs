//! A cap on the processes a command may have at once, so a fork bomb stalls inside its sandbox
//! instead of taking the machine (and tack) with it.
//!
//! `RLIMIT_NPROC` would do, but the kernel never applies it to root, and it counts every process
//! of the user, not of the command. So where a pids cgroup can be made (as root, or in a
//! delegated cgroup v2 subtree) each command gets one with `pids.max`; otherwise `RLIMIT_NPROC` is
//! set to the user's current count plus the cap.

use std::fs::File;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::{ProcessLimit, SandboxError};

/// What the child does to itself.
pub(super) enum ChildLimit {
    None,
    /// Writes its pid (`0`: the writer) to this open `cgroup.procs`.
    Cgroup(OwnedFd),
    Rlimit(libc::rlim_t),
}

impl ChildLimit {
    /// In the child: system calls only.
    pub(super) fn apply(&self) -> std::io::Result<()> {
        match self {
            ChildLimit::None => Ok(()),
            ChildLimit::Cgroup(procs) => {
                // SAFETY: writes a borrowed byte to a descriptor we own.
                let written = unsafe { libc::write(procs.as_raw_fd(), b"0".as_ptr().cast(), 1) };
                if written != 1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            }
            ChildLimit::Rlimit(max) => {
                let limit = libc::rlimit {
                    rlim_cur: *max,
                    rlim_max: *max,
                };
                // SAFETY: setrlimit reads the struct we pass.
                if unsafe { libc::setrlimit(libc::RLIMIT_NPROC, &limit) } != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            }
        }
    }
}

/// A command's own pids cgroup. Dropped once its processes are gone (or killed), it removes the
/// folder; while processes the command left running in the background are still in it, removal
/// is retried later.
pub struct Cgroup {
    dir: PathBuf,
}

impl Cgroup {
    /// Kills every process in the cgroup: the command's process group misses those that made
    /// groups or sessions of their own.
    pub fn kill_all(&self) {
        for _ in 0..8 {
            let Ok(procs) = std::fs::read_to_string(self.dir.join("cgroup.procs")) else {
                return;
            };
            let pids: Vec<i32> = procs
                .lines()
                .filter_map(|l| l.trim().parse().ok())
                .collect();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                // SAFETY: kill(2) touches no memory.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        if std::fs::remove_dir(&self.dir).is_ok() {
            return;
        }
        let dir = std::mem::take(&mut self.dir);
        // Killed processes leave their cgroup only once they have died, a moment later; a
        // background process the command left may live on, and its folder is retried at the
        // next command.
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    for _ in 0..40 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        if std::fs::remove_dir(&dir).is_ok() {
                            return;
                        }
                    }
                    leftover(dir);
                });
            }
            Err(_) => leftover(dir),
        }
    }
}

static LEFTOVERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn leftover(dir: PathBuf) {
    if let Ok(mut dirs) = LEFTOVERS.lock() {
        dirs.push(dir);
    }
}

/// Removes the cgroups of earlier commands whose last process has gone.
fn sweep() {
    if let Ok(mut dirs) = LEFTOVERS.lock() {
        dirs.retain(|dir| std::fs::remove_dir(dir).is_err() && dir.exists());
    }
}

/// The child's limit and, for a cgroup, the cgroup to remove afterwards.
pub(super) fn prepare(
    limit: &ProcessLimit,
    max: u32,
) -> Result<(ChildLimit, Option<Cgroup>), SandboxError> {
    match limit {
        ProcessLimit::Cgroup(parent) => {
            sweep();
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let io = |what: &'static str, path: PathBuf| {
                move |source| SandboxError::Io { what, path, source }
            };
            let dir = loop {
                let dir = parent.join(format!(
                    "tack-{}-{}",
                    std::process::id(),
                    NEXT.fetch_add(1, Ordering::Relaxed)
                ));
                match std::fs::create_dir(&dir) {
                    Ok(()) => break dir,
                    // Left by an earlier tack with this pid whose last command still had
                    // processes when it exited: removed if empty, else another name.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        if std::fs::remove_dir(&dir).is_ok() && std::fs::create_dir(&dir).is_ok() {
                            break dir;
                        }
                    }
                    Err(e) => return Err(io("cannot create the cgroup", dir)(e)),
                }
            };
            let cgroup = Cgroup { dir };
            let max_file = cgroup.dir.join("pids.max");
            std::fs::write(&max_file, max.to_string()).map_err(io("cannot write", max_file))?;
            let procs_file = cgroup.dir.join("cgroup.procs");
            let procs = File::options()
                .write(true)
                .open(&procs_file)
                .map_err(io("cannot open", procs_file))?;
            Ok((ChildLimit::Cgroup(procs.into()), Some(cgroup)))
        }
        ProcessLimit::Rlimit => {
            let current = user_tasks();
            Ok((
                ChildLimit::Rlimit((current + u64::from(max)) as libc::rlim_t),
                None,
            ))
        }
    }
}

/// How the processes of a command can be capped here, found once.
pub(super) fn probe() -> Result<ProcessLimit, String> {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mut tried = Vec::new();
    for parent in [v2_parent(&mountinfo, &own), v1_parent(&mountinfo, &own)]
        .into_iter()
        .flatten()
    {
        match try_cgroup(&parent) {
            Ok(()) => {
                remove_stale(&parent);
                return Ok(ProcessLimit::Cgroup(parent));
            }
            Err(e) => tried.push(format!("{}: {e}", parent.display())),
        }
    }
    if !root {
        return Ok(ProcessLimit::Rlimit);
    }
    Err(if tried.is_empty() {
        "no pids cgroup, and RLIMIT_NPROC does not bind root".to_string()
    } else {
        format!(
            "cannot make a pids cgroup ({}), and RLIMIT_NPROC does not bind root",
            tried.join("; ")
        )
    })
}

/// Removes the empty cgroups of tack processes that have exited: a command's cgroup outlives its
/// tack when processes it left in the background were still alive then.
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("tack-"))
            .and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            // Fails, harmlessly, while a process is still in it.
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// Makes and removes a cgroup under `parent`, and checks it has `pids.max`.
fn try_cgroup(parent: &Path) -> std::io::Result<()> {
    let dir = parent.join(format!("tack-probe-{}", std::process::id()));
    std::fs::create_dir(&dir)?;
    let has_max = dir.join("pids.max").exists();
    std::fs::remove_dir(&dir)?;
    if has_max {
        Ok(())
    } else {
        Err(std::io::Error::other("no pids controller there"))
    }
}

/// The cgroup v2 folder this process is in, when the pids controller is enabled for its
/// children (or can be).
fn v2_parent(mountinfo: &str, own: &str) -> Option<PathBuf> {
    let mount = mounts(mountinfo).find(|m| m.fstype == "cgroup2")?.point;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = mount.join(path.trim_start_matches('/'));
    let controllers = std::fs::read_to_string(dir.join("cgroup.controllers")).ok()?;
    if !controllers.split_whitespace().any(|c| c == "pids") {
        return None;
    }
    let subtree = dir.join("cgroup.subtree_control");
    let enabled =
        std::fs::read_to_string(&subtree).is_ok_and(|s| s.split_whitespace().any(|c| c == "pids"));
    // Enabling fails when this process sits in the folder itself (no internal processes);
    // then the v1 hierarchy, or nothing.
    (enabled || std::fs::write(&subtree, "+pids").is_ok()).then_some(dir)
}

/// The cgroup v1 `pids` folder this process is in.
fn v1_parent(mountinfo: &str, own: &str) -> Option<PathBuf> {
    let mount = mounts(mountinfo)
        .find(|m| m.fstype == "cgroup" && m.options.split(',').any(|o| o == "pids"))?
        .point;
    let path = own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers.split(',').any(|c| c == "pids").then_some(path)
    })?;
    Some(mount.join(path.trim_start_matches('/')))
}

struct Mount<'a> {
    point: PathBuf,
    fstype: &'a str,
    options: &'a str,
}

/// `/proc/self/mountinfo`'s lines: `id parent dev root point opts [tags] - fstype source super`.
fn mounts(mountinfo: &str) -> impl Iterator<Item = Mount<'_>> {
    mountinfo.lines().filter_map(|line| {
        let (head, tail) = line.split_once(" - ")?;
        let point = head.split(' ').nth(4)?;
        let mut tail = tail.split(' ');
        let fstype = tail.next()?;
        let options = tail.nth(1).unwrap_or("");
        Some(Mount {
            point: PathBuf::from(point.replace("\\040", " ")),
            fstype,
            options,
        })
    })
}

/// The tasks (threads count: `RLIMIT_NPROC` counts them) of this process's real user.
fn user_tasks() -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
        // A task folder's link count is 2 plus its threads.
        .map(|e| {
            std::fs::metadata(e.path().join("task")).map_or(1, |m| m.nlink().saturating_sub(2))
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pids_hierarchies_are_found_in_mountinfo() {
        let mountinfo = "\
30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
35 25 0:31 / /sys/fs/cgroup/pids rw,nosuid shared:14 - cgroup cgroup rw,pids
36 25 0:32 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
";
        let own = "8:pids:/user.slice\n4:memory:/x\n0::/\n";
        assert_eq!(
            v1_parent(mountinfo, own),
            Some(PathBuf::from("/sys/fs/cgroup/pids/user.slice"))
        );
    }
}
