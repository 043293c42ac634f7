//! The workspace's `.git` hooks and config, read-only in `workspace-write`.
//!
//! git runs what `.git/hooks` and `.git/config` name (hooks, `core.fsmonitor`, `core.pager`,
//! filter drivers), the next time *you* run git. The workspace is writable, and Landlock cannot
//! take a subfolder out of a writable tree, so the command gets a mount namespace of its own in
//! which those paths are bind-mounted onto themselves read-only, and `.git` itself is a mount
//! point, which cannot be renamed away and replaced. As root the namespace is made directly;
//! otherwise inside a user namespace mapping only the user's own ids.
//!
//! A `.git` *file* (a worktree's pointer to its repository elsewhere) is left alone: that
//! repository lies outside the workspace, where the command cannot write anyway.

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use super::SandboxError;

/// What the child mounts, with every string made before the fork.
pub(super) struct Plan {
    user: Option<UserMaps>,
    /// Bind-mounted onto themselves, writable: mount points cannot be renamed or removed.
    pins: Vec<CString>,
    /// Bind-mounted onto themselves, then remounted read-only with these flags.
    read_only: Vec<(CString, libc::c_ulong)>,
}

/// The lines a process writes to map its own ids into a new user namespace.
struct UserMaps {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl Plan {
    /// The plan for `workspace`, or `None` when it is no git repository of its own.
    pub(super) fn for_workspace(workspace: &Path) -> Result<Option<Plan>, SandboxError> {
        let git = workspace.join(".git");
        match std::fs::symlink_metadata(&git) {
            Ok(meta) if meta.is_dir() => {}
            _ => return Ok(None),
        }
        let io = |what: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| SandboxError::Io { what, path, source }
        };
        // Missing, they could be created: an empty hooks folder and an empty config are what
        // `git init` makes, and change nothing git does.
        let hooks = git.join("hooks");
        if std::fs::symlink_metadata(&hooks).is_err() {
            std::fs::create_dir(&hooks).map_err(io("cannot create", &hooks))?;
        }
        let config = git.join("config");
        if std::fs::symlink_metadata(&config).is_err() {
            std::fs::write(&config, "").map_err(io("cannot create", &config))?;
        }
        let mut protected = vec![hooks, config];
        if let Some(dir) = hooks_path(&git.join("config"), workspace) {
            protected.push(dir);
        }
        let mut read_only = Vec::new();
        for path in protected {
            let flags = locked_flags(&path).map_err(io("cannot inspect", &path))?;
            read_only.push((c_path(&path)?, flags));
        }
        Ok(Some(Plan {
            user: user_maps(),
            pins: vec![c_path(&git)?],
            read_only,
        }))
    }

    /// Enters a new mount namespace and makes the mounts. In the child: system calls only.
    pub(super) fn apply(&self) -> std::io::Result<()> {
        enter_namespace(self.user.as_ref())?;
        for pin in &self.pins {
            mount(Some(pin), pin, libc::MS_BIND)?;
        }
        for (path, flags) in &self.read_only {
            mount(Some(path), path, libc::MS_BIND)?;
            mount(
                None,
                path,
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | flags,
            )?;
        }
        Ok(())
    }
}

/// Whether a command can get a mount namespace: tried once in a forked child.
pub(super) fn probe() -> Result<(), String> {
    let user = user_maps();
    // SAFETY: the child makes only system calls (no allocation, no locks) and leaves with
    // `_exit`; the parent waits for it.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        let code = match enter_namespace(user.as_ref()) {
            Ok(()) => 0,
            Err(e) => e.raw_os_error().unwrap_or(libc::EINVAL),
        };
        // SAFETY: leaves the child without running the parent's exit handlers.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waits for the child forked above; `status` is ours.
    if unsafe { libc::waitpid(pid, &mut status, 0) } != pid {
        return Err(format!("waitpid: {}", std::io::Error::last_os_error()));
    }
    match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
        (true, 0) => Ok(()),
        (true, errno) => Err(format!(
            "unshare: {}",
            std::io::Error::from_raw_os_error(errno)
        )),
        _ => Err("the probe did not finish".to_string()),
    }
}

/// `unshare` (with a user namespace when not root), then makes every mount private, so nothing
/// done here reaches the user's namespace.
fn enter_namespace(user: Option<&UserMaps>) -> std::io::Result<()> {
    let flags = match user {
        Some(_) => libc::CLONE_NEWNS | libc::CLONE_NEWUSER,
        None => libc::CLONE_NEWNS,
    };
    // SAFETY: unshare takes flags only.
    if unsafe { libc::unshare(flags) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if let Some(maps) = user {
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_file(c"/proc/self/uid_map", &maps.uid_map)?;
        write_file(c"/proc/self/gid_map", &maps.gid_map)?;
    }
    mount(None, c"/", libc::MS_REC | libc::MS_PRIVATE)
}

fn mount(source: Option<&CStr>, target: &CStr, flags: libc::c_ulong) -> std::io::Result<()> {
    let source = source.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: the strings are NUL-terminated and outlive the call; no filesystem type or data.
    let done = unsafe {
        libc::mount(
            source,
            target.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    };
    if done != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn write_file(path: &CStr, bytes: &[u8]) -> std::io::Result<()> {
    // SAFETY: open/write/close on a NUL-terminated path and a borrowed buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = std::io::Error::last_os_error();
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(error);
        }
    }
    Ok(())
}

/// The id maps for a user namespace, or `None` as root, who needs none.
fn user_maps() -> Option<UserMaps> {
    // SAFETY: getuid/getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    (uid != 0).then(|| UserMaps {
        uid_map: format!("{uid} {uid} 1").into_bytes(),
        gid_map: format!("{gid} {gid} 1").into_bytes(),
    })
}

/// The flags of the mount `path` is on that a read-only remount must keep: in a user namespace
/// the kernel refuses a remount that would drop `nosuid`, `nodev` or `noexec`.
fn locked_flags(path: &Path) -> std::io::Result<libc::c_ulong> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: statvfs fills the buffer we own from a NUL-terminated path.
    if unsafe { libc::statvfs(c.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: statvfs succeeded, so the buffer is initialised.
    let got = unsafe { stat.assume_init() }.f_flag;
    let mut flags = 0;
    for (st, ms) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if got & st != 0 {
            flags |= ms;
        }
    }
    Ok(flags)
}

/// `core.hooksPath` of the repository when it names a folder inside the workspace (`.husky`,
/// `.githooks`): hooks git runs from there are as dangerous as `.git/hooks`.
fn hooks_path(config: &Path, workspace: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(config).ok()?;
    let value = text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("hookspath")
            .then(|| value.trim().trim_matches('"').to_string())
    })?;
    let dir = workspace.join(value).canonicalize().ok()?;
    (dir.starts_with(workspace) && dir != workspace && dir.is_dir()).then_some(dir)
}

fn c_path(path: &Path) -> Result<CString, SandboxError> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| SandboxError::Io {
        what: "cannot use",
        path: path.to_path_buf(),
        source: std::io::Error::from_raw_os_error(libc::EINVAL),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hooks_path_inside_the_workspace_is_protected_too() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = dir.path().canonicalize().expect("real");
        std::fs::create_dir_all(ws.join(".git")).expect("git");
        std::fs::create_dir_all(ws.join(".husky")).expect("husky");
        let config = ws.join(".git/config");
        std::fs::write(&config, "[core]\n\thooksPath = .husky\n").expect("config");
        assert_eq!(hooks_path(&config, &ws), Some(ws.join(".husky")));
        std::fs::write(&config, "[core]\n\thooksPath = /etc\n").expect("config");
        assert_eq!(
            hooks_path(&config, &ws),
            None,
            "outside: not writable anyway"
        );
    }
}
