//! What this kernel and this process can give the command sandbox, found once per process: a
//! protection found missing is said at start-up and left out of every command, rather than
//! failing every command the same way.

use std::path::PathBuf;
use std::sync::OnceLock;

/// Each protection, or why it is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The Landlock ABI version.
    pub landlock: Result<i32, String>,
    pub seccomp: Result<(), String>,
    /// Whether a command can get a mount namespace of its own (as root, or in a user namespace).
    pub mount_namespace: Result<(), String>,
    pub process_limit: Result<ProcessLimit, String>,
}

/// How a command's processes are counted and capped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessLimit {
    /// A pids cgroup of its own under this folder (cgroup v2 or the v1 `pids` hierarchy).
    Cgroup(PathBuf),
    /// `RLIMIT_NPROC` above the user's current count; the kernel does not apply it to root.
    Rlimit,
}

/// This process's [`Probe`], found on first use.
pub fn probe() -> &'static Probe {
    static PROBE: OnceLock<Probe> = OnceLock::new();
    PROBE.get_or_init(find)
}

#[cfg(target_os = "linux")]
fn find() -> Probe {
    Probe {
        landlock: landlock_abi(),
        seccomp: seccomp(),
        mount_namespace: super::git_mounts::probe(),
        process_limit: super::processes::probe(),
    }
}

#[cfg(not(target_os = "linux"))]
fn find() -> Probe {
    let none = || Err("not on Linux".to_string());
    Probe {
        landlock: none(),
        seccomp: none(),
        mount_namespace: none(),
        process_limit: none(),
    }
}

#[cfg(target_os = "linux")]
fn landlock_abi() -> Result<i32, String> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute and size 0, this only asks the kernel for its ABI version.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi >= 1 {
        return Ok(i32::try_from(abi).unwrap_or(i32::MAX));
    }
    Err(match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::ENOSYS) => "kernel too old".to_string(),
        Some(libc::EOPNOTSUPP) => "disabled at boot".to_string(),
        _ => format!("{}", std::io::Error::last_os_error()),
    })
}

#[cfg(target_os = "linux")]
fn seccomp() -> Result<(), String> {
    // SAFETY: PR_GET_SECCOMP takes no pointer; it fails with EINVAL on a kernel without seccomp.
    match unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } {
        // 2: tack itself runs under a filter (a container's); filters stack.
        0 | 2 => Ok(()),
        _ => Err("kernel built without seccomp".to_string()),
    }
}
