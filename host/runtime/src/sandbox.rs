//! The command sandbox: what a command a plugin runs through `exec` may touch.
//!
//! Plugins are WebAssembly and reach nothing the host does not hand them, but the commands a
//! plugin runs (core-tools' `bash`) are native processes. Without this module they run with the
//! user's whole authority. Each sandboxed command gets, on Linux:
//!
//! - **Landlock** rules for the filesystem: read and execute everywhere except the folders that
//!   hold credentials ([`SECRET_HOME_ENTRIES`] and the tack home), write only to `/dev/null`-like
//!   devices, and in `workspace-write` also under the workspace and the temp dir. Landlock only
//!   allows, it cannot carve a folder out of an allowed tree, so "everywhere except" is a rule on
//!   every sibling along the way to a hidden folder ([`filesystem`]).
//! - A **mount namespace** of its own in `workspace-write`, in which the workspace's `.git/hooks`
//!   and `.git/config` are read-only and `.git` cannot be renamed away: the workspace is writable
//!   and Landlock cannot exempt a subfolder of it ([`git_mounts`]).
//! - A **seccomp** filter when the network is off: `socket()` fails for every family but
//!   `AF_UNIX` ([`network`]), and Landlock's TCP rules where the kernel has them.
//! - A **process limit** against fork bombs: a pids cgroup as root (the kernel exempts root from
//!   `RLIMIT_NPROC`), `RLIMIT_NPROC` otherwise ([`processes`]).
//!
//! What the kernel cannot give is found once per process ([`probe`]) and said at start-up; a
//! command never runs with less than that without failing.
//!
//! Everything that allocates (opening the ruleset and path descriptors, compiling the BPF
//! program, making the cgroup, C strings) happens before the child exists, in
//! [`SandboxPolicy::prepare`]; the child only makes system calls ([`ChildSetup::apply`]):
//! allocating in a child forked from a multithreaded process can deadlock on a lock another
//! thread held, and the child `broker::exec` starts shares tack's memory until it execs (a
//! vfork-style clone, which unlike a fork costs the same however much memory tack holds).

use std::path::{Path, PathBuf};
use std::sync::Arc;

mod blocked;
#[cfg(target_os = "linux")]
mod filesystem;
#[cfg(target_os = "linux")]
mod git_mounts;
#[cfg(target_os = "linux")]
mod network;
mod probe;
#[cfg(target_os = "linux")]
mod processes;

pub use blocked::BlockedWatch;
pub use probe::{probe, Probe, ProcessLimit};
#[cfg(target_os = "linux")]
pub use processes::Cgroup;

/// How much of the machine a plugin's commands may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Read (but not the credential folders), write nothing but `/dev/null`-like devices.
    ReadOnly,
    /// [`SandboxMode::ReadOnly`], and write under the workspace and the temp dir; the
    /// workspace's `.git` hooks and config stay read-only.
    #[default]
    WorkspaceWrite,
    /// No confinement: commands run with the user's authority and the network.
    Full,
}

impl SandboxMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::Full => "full",
        }
    }
}

impl std::fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SandboxMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "read-only" => Ok(SandboxMode::ReadOnly),
            "workspace-write" => Ok(SandboxMode::WorkspaceWrite),
            "full" => Ok(SandboxMode::Full),
            other => Err(format!(
                "unknown sandbox mode `{other}`: use read-only, workspace-write or full"
            )),
        }
    }
}

/// The default cap on the processes (and threads) a sandboxed command may have at once.
pub const DEFAULT_MAX_PROCESSES: u32 = 512;

/// Entries of the user's home that hold credentials; sandboxed commands cannot read them.
pub const SECRET_HOME_ENTRIES: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
];

/// The sandbox the commands of one session run in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    pub mode: SandboxMode,
    /// Whether a confined command may use the network; `full` always has it.
    pub network: bool,
    /// The most processes a command may have at once; 0 for no limit.
    pub max_processes: u32,
    /// Absolute paths a confined command cannot read (nor list, nor write).
    pub hidden: Vec<PathBuf>,
    /// Writable in `workspace-write`, with the workspace.
    pub temp_dir: PathBuf,
    /// Also writable in `workspace-write`: folders the user named, such as a build tool's cache
    /// (`~/.cargo`, which `cargo build` locks and writes).
    pub writable: Vec<PathBuf>,
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        Self::new(SandboxMode::default(), false, DEFAULT_MAX_PROCESSES)
    }
}

impl SandboxPolicy {
    /// A policy hiding the credential folders of the user's home (`$HOME`), with the system's
    /// temp dir (`$TMPDIR`, else `/tmp`) writable in `workspace-write`.
    pub fn new(mode: SandboxMode, network: bool, max_processes: u32) -> Self {
        let mut policy = SandboxPolicy {
            mode,
            network,
            max_processes,
            hidden: Vec::new(),
            temp_dir: real_path(&std::env::temp_dir()),
            writable: Vec::new(),
        };
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            let home = real_path(Path::new(&home));
            for entry in SECRET_HOME_ENTRIES {
                policy.hide(&home.join(entry));
            }
        }
        policy
    }

    /// No confinement.
    pub fn full() -> Self {
        SandboxPolicy {
            mode: SandboxMode::Full,
            network: true,
            max_processes: 0,
            hidden: Vec::new(),
            temp_dir: std::env::temp_dir(),
            writable: Vec::new(),
        }
    }

    /// Keeps confined commands from reading `path` (the tack home, with its `auth.json`).
    pub fn hide(&mut self, path: &Path) {
        // The real path: Landlock judges where a path leads, and the walk that leaves it out
        // compares real paths. `/` hidden would hide everything, and is taken as a mistake.
        let path = real_path(path);
        if path.parent().is_some() && !self.hidden.contains(&path) {
            self.hidden.push(path);
        }
    }

    /// Lets commands in `workspace-write` write under `dir` too.
    pub fn allow_writes(&mut self, dir: &Path) {
        let dir = real_path(dir);
        if !self.writable.contains(&dir) {
            self.writable.push(dir);
        }
    }

    /// Whether commands run confined at all.
    pub fn confines(&self) -> bool {
        self.mode != SandboxMode::Full
    }

    /// The policy in words: `workspace-write, network off, at most 512 processes`.
    pub fn describe(&self) -> String {
        if !self.confines() {
            return "full (commands run unconfined, with the network)".to_string();
        }
        let network = if self.network {
            "network on"
        } else {
            "network off"
        };
        let processes = match self.max_processes {
            0 => "no process limit".to_string(),
            n => format!("at most {n} processes"),
        };
        format!("{}, {network}, {processes}", self.mode)
    }

    /// The protections this policy asks for that `probe` says this process cannot give, each as
    /// what is missing and what a command can then do.
    pub fn missing(&self, probe: &Probe) -> Vec<String> {
        let mut missing = Vec::new();
        if !self.confines() {
            return missing;
        }
        if let Err(why) = &probe.landlock {
            missing.push(format!(
                "Landlock unavailable ({why}): commands can {} and read your credential folders",
                match self.mode {
                    SandboxMode::ReadOnly => "write anywhere you can",
                    _ => "write outside the workspace",
                }
            ));
        }
        if !self.network {
            if let Err(why) = &probe.seccomp {
                missing.push(format!(
                    "seccomp unavailable ({why}): commands can use the network"
                ));
            }
        }
        if self.mode == SandboxMode::WorkspaceWrite {
            if let Err(why) = &probe.mount_namespace {
                missing.push(format!(
                    "no mount namespace ({why}): commands can change the workspace's .git hooks \
                     and config"
                ));
            }
        }
        if self.max_processes > 0 {
            if let Err(why) = &probe.process_limit {
                missing.push(format!("no process limit ({why}): a fork bomb is not held"));
            }
        }
        missing
    }

    /// What a command needs to start confined by this policy in `workspace`: made now, in the
    /// parent, so the child only makes system calls.
    pub fn prepare(&self, workspace: &Path) -> Result<Prepared, SandboxError> {
        prepare(self, workspace)
    }
}

/// A command's confinement, ready before the child starts.
pub struct Prepared {
    /// What the child applies to itself before `exec`.
    pub child: Arc<ChildSetup>,
    /// The command's pids cgroup, removed when its processes are gone.
    #[cfg(target_os = "linux")]
    pub cgroup: Option<Cgroup>,
}

/// The descriptors, program and strings the child applies to itself.
pub struct ChildSetup {
    #[cfg(target_os = "linux")]
    processes: processes::ChildLimit,
    #[cfg(target_os = "linux")]
    mounts: Option<git_mounts::Plan>,
    #[cfg(target_os = "linux")]
    landlock: Option<std::os::fd::OwnedFd>,
    #[cfg(target_os = "linux")]
    seccomp: Option<network::Program>,
}

impl ChildSetup {
    /// Confines the calling process. Runs in the child before `exec`, on tack's memory: system
    /// calls only, no allocation, no locks.
    pub fn apply(&self) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd as _;
            // Joined before a user namespace changes who we are to the cgroup's files.
            self.processes.apply()?;
            // Before Landlock, which forbids changing mounts.
            if let Some(mounts) = &self.mounts {
                mounts.apply()?;
            }
            // SAFETY: prctl with integer arguments touches no memory of ours.
            if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(ruleset) = &self.landlock {
                // SAFETY: landlock_restrict_self takes a ruleset descriptor we own and flags.
                let done = unsafe {
                    libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32)
                };
                if done != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some(program) = &self.seccomp {
                program.apply()?;
            }
        }
        Ok(())
    }
}

/// Why a command could not be confined (and so was not started).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("command sandbox: cannot build the Landlock rules: {0}")]
    Landlock(String),
    #[error("command sandbox: cannot build the seccomp filter: {0}")]
    Seccomp(String),
    #[error("command sandbox: {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("command sandbox: this system cannot confine commands; run with --sandbox full")]
    Unsupported,
}

#[cfg(target_os = "linux")]
fn prepare(policy: &SandboxPolicy, workspace: &Path) -> Result<Prepared, SandboxError> {
    let probe = probe();
    let workspace = real_path(workspace);
    let landlock = match probe.landlock {
        Ok(_) => filesystem::ruleset(policy, &workspace)?,
        Err(_) => None,
    };
    let seccomp = match (&probe.seccomp, policy.network) {
        (Ok(()), false) => Some(network::Program::deny_sockets()?),
        _ => None,
    };
    let mounts = match (&probe.mount_namespace, policy.mode) {
        (Ok(()), SandboxMode::WorkspaceWrite) => git_mounts::Plan::for_workspace(&workspace)?,
        _ => None,
    };
    let (processes, cgroup) = match &probe.process_limit {
        Ok(limit) if policy.max_processes > 0 => processes::prepare(limit, policy.max_processes)?,
        _ => (processes::ChildLimit::None, None),
    };
    Ok(Prepared {
        child: Arc::new(ChildSetup {
            processes,
            mounts,
            landlock,
            seccomp,
        }),
        cgroup,
    })
}

#[cfg(not(target_os = "linux"))]
fn prepare(_policy: &SandboxPolicy, _workspace: &Path) -> Result<Prepared, SandboxError> {
    Err(SandboxError::Unsupported)
}

/// `path` with links resolved, or as given when it does not exist (yet).
fn real_path(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print_as_the_flag_spells_them() {
        for mode in [
            SandboxMode::ReadOnly,
            SandboxMode::WorkspaceWrite,
            SandboxMode::Full,
        ] {
            assert_eq!(mode.as_str().parse::<SandboxMode>(), Ok(mode));
        }
        assert!("none".parse::<SandboxMode>().is_err());
    }

    #[test]
    fn missing_protections_are_named_for_what_they_let_a_command_do() {
        let nothing = Probe {
            landlock: Err("kernel too old".into()),
            seccomp: Err("not built in".into()),
            mount_namespace: Err("EPERM".into()),
            process_limit: Err("no pids cgroup".into()),
        };
        let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite, false, 64);
        let missing = policy.missing(&nothing).join("; ");
        for word in [
            "Landlock unavailable (kernel too old): commands can write outside the workspace",
            "commands can use the network",
            ".git hooks",
            "fork bomb",
        ] {
            assert!(missing.contains(word), "{missing}");
        }
        assert!(SandboxPolicy::full().missing(&nothing).is_empty());
        let online = SandboxPolicy::new(SandboxMode::ReadOnly, true, 0);
        assert_eq!(online.missing(&nothing).len(), 1, "only Landlock matters");
    }

    #[test]
    fn the_root_is_never_hidden() {
        let mut policy = SandboxPolicy::full();
        policy.hide(Path::new("/"));
        assert!(policy.hidden.is_empty());
    }
}
