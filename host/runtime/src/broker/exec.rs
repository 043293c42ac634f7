//! `exec`: running programs for a plugin, checked against its grant on every call.
//!
//! An unrestricted grant (`"**"`) runs the command line under `sh -c`, as the bash tool needs. Any
//! narrower grant splits the line into words and runs the program directly, never through a
//! shell, so `;`, `|`, `$(…)` or redirections in the line are plain arguments and cannot smuggle a
//! second command past the pattern.
//!
//! Patterns are matched word by word. A `**` word matches any number of words, whatever they are.
//! A `*` word matches one word, and a word with `*`, `?` or `[…]` in it is a glob for one word,
//! in which `*` and `?` never cross a `/` (`src/**` reaches below `src`). Two kinds of word are
//! never matched by a wildcard unless the pattern asks for them:
//! - an option (a word starting with `-`), which only a pattern word that itself starts with `-`
//!   (`-*`, `--format=*`) or `**` matches, so `git log *` does not allow `git log --output=…`;
//! - a word with a `..` path segment, which only the identical literal word or `**` matches, so
//!   `cat src/*` does not allow `cat src/../../.ssh/id_rsa`.
//!
//! A plugin's commands never see the user's whole environment: they get [`BASE_ENV`] plus the
//! variables the plugin's `env` grant names, and never a variable that holds a secret.
//!
//! And they run in the session's command sandbox ([`crate::sandbox`]): what they may read and
//! write, whether they may use the network, how many processes they may have. The user's own
//! `!cmd` runs unconfined, as the user typed it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::sandbox::{BlockedWatch, SandboxPolicy};

#[cfg(target_os = "linux")]
mod confined;
mod imports;
mod lifeline;
mod pump;
mod relay;

use pump::{pump, HandOver};

/// How a command that passed the grant check is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPlan {
    Shell(String),
    Direct(Vec<String>),
}

/// Checks `command` against the granted patterns.
pub fn authorize(command: &str, patterns: &[String]) -> Result<CommandPlan, AuthorizeError> {
    if patterns.is_empty() {
        return Err(AuthorizeError::NoGrant);
    }
    if command.trim().is_empty() {
        return Err(AuthorizeError::Invalid("empty command".into()));
    }
    if patterns.iter().any(|p| p.trim() == "**") {
        return Ok(CommandPlan::Shell(command.to_string()));
    }
    let words = shlex::split(command).ok_or_else(|| {
        AuthorizeError::Invalid(format!(
            "cannot split `{command}` into words (unbalanced quotes?)"
        ))
    })?;
    if words.is_empty() {
        return Err(AuthorizeError::Invalid("empty command".into()));
    }
    for pattern in patterns {
        let Some(pattern_words) = shlex::split(pattern) else {
            continue;
        };
        if words_match(&pattern_words, &words) {
            return Ok(CommandPlan::Direct(words));
        }
    }
    Err(AuthorizeError::NotCovered {
        command: command.to_string(),
        patterns: patterns.to_vec(),
    })
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthorizeError {
    #[error("this plugin has no exec grant")]
    NoGrant,
    #[error("`{command}` matches none of the granted patterns ({})", patterns.join(", "))]
    NotCovered {
        command: String,
        patterns: Vec<String>,
    },
    #[error("{0}")]
    Invalid(String),
}

fn words_match(pattern: &[String], words: &[String]) -> bool {
    match pattern.split_first() {
        None => words.is_empty(),
        Some((p, rest)) if p == "**" => (0..=words.len()).any(|i| words_match(rest, &words[i..])),
        Some((p, rest)) => match words.split_first() {
            Some((w, tail)) => word_matches(p, w) && words_match(rest, tail),
            None => false,
        },
    }
}

fn word_matches(pattern: &str, word: &str) -> bool {
    if pattern == word {
        return true;
    }
    if !is_wildcard(pattern) || has_dotdot_segment(word) {
        return false;
    }
    if word.starts_with('-') && !pattern.starts_with('-') {
        return false;
    }
    if pattern == "*" {
        return true;
    }
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher().is_match(word))
        .unwrap_or(false)
}

fn is_wildcard(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// Whether `word` climbs a directory somewhere: `..`, `a/../b`, `--out=../x`.
fn has_dotdot_segment(word: &str) -> bool {
    word.split(['/', '\\', '=']).any(|segment| segment == "..")
}

/// Variables every command a plugin runs gets from the user's environment, when set.
pub const BASE_ENV: &[&str] = &[
    "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "USER",
];

/// Whether an environment variable's name says it holds a credential. Such a variable is never
/// handed to a plugin's command, even if its `env` grant names it or a pattern covers it.
pub fn names_a_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "COOKIE",
    ]
    .iter()
    .any(|word| upper.contains(word))
}

/// Whether an `env` grant entry covers `name`: the exact name, or a prefix ending in `*`.
fn env_entry_covers(entry: &str, name: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => entry == name,
    }
}

/// The environment of a command a plugin runs: [`BASE_ENV`] and what `granted` names, taken from
/// `vars` (the host's environment), without any variable that names a secret or that `is_secret`
/// says the host holds as one.
pub fn child_env(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    granted: &[String],
    is_secret: impl Fn(&str) -> bool,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| {
            let Some(name) = name.to_str() else {
                return false;
            };
            let wanted = BASE_ENV.contains(&name)
                || granted.iter().any(|entry| env_entry_covers(entry, name));
            wanted && !names_a_secret(name) && !is_secret(name)
        })
        .collect()
}

/// The environment a spawned command starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildEnv {
    /// The host's own environment: for the user's own commands (`!cmd`), never a plugin's.
    Inherit,
    /// Exactly these variables.
    Only(Vec<(OsString, OsString)>),
}

/// `name` looked up in the `PATH` of the child's own environment, as `execvp` in the child would
/// look it up; `name` itself when it holds a `/`, when `vars` has no `PATH` or when nothing there
/// is executable (spawning then fails as it would have).
///
/// Why: std can only search a `PATH` the child does not share with tack by forking, whereas a
/// program given as a path is started with `posix_spawn` (a vfork). A fork copies tack's page
/// tables, and every page tack writes afterwards faults to be copied: a cost per command that
/// grows with tack's memory, which in a long session is mostly the conversation.
fn on_child_path(name: &str, vars: &[(OsString, OsString)], cwd: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    if name.contains('/') {
        return name.into();
    }
    let Some((_, path)) = vars.iter().rev().find(|(key, _)| key == "PATH") else {
        return name.into();
    };
    std::env::split_paths(path)
        .map(|dir| {
            // An empty entry is the working directory, as for execvp.
            let dir = if dir.as_os_str().is_empty() {
                cwd.to_path_buf()
            } else {
                cwd.join(dir)
            };
            dir.join(name)
        })
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| name.into())
}

/// Why a requested working directory was refused.
#[derive(Debug)]
pub struct CwdError {
    /// It resolves outside the workspace (a refusal), rather than not existing.
    pub outside: bool,
    pub message: String,
}

/// The working directory a plugin asked for, relative to the workspace or absolute inside it,
/// with symbolic links resolved; `None` is the workspace.
pub fn resolve_cwd(workspace: &Path, cwd: Option<&str>) -> Result<PathBuf, CwdError> {
    let Some(dir) = cwd else {
        return Ok(workspace.to_path_buf());
    };
    let dir = workspace.join(dir);
    match dir.canonicalize() {
        Ok(real) if real.starts_with(workspace) => Ok(real),
        Ok(_) => Err(CwdError {
            outside: true,
            message: format!(
                "working directory {} is outside the workspace {}",
                dir.display(),
                workspace.display()
            ),
        }),
        Err(e) => Err(CwdError {
            outside: false,
            message: format!("working directory {}: {e}", dir.display()),
        }),
    }
}

/// Why a command could not be kept past tack's exit.
#[derive(Debug, thiserror::Error)]
pub enum KeepError {
    #[error("it is kept already")]
    AlreadyKept,
    #[error("it has ended")]
    Ended,
    #[error("it has no process group of its own")]
    NoGroup,
    #[error("its output could not be handed to a relay: {0}")]
    Io(std::io::Error),
}

/// What `next` reports; mirrors the WIT `process-event`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    Exited(Option<i32>),
    Idle,
    TimedOut,
    Cancelled,
}

pub(crate) enum Chunk {
    Out(Vec<u8>),
    Err(Vec<u8>),
}

/// After the main process exits, output still buffered in the pipes is drained for this long;
/// a background child holding the pipe open must not keep the call waiting.
const EXIT_DRAIN: Duration = Duration::from_millis(200);

/// The sandbox a command runs in: the policy, and the workspace it opens for writing.
#[derive(Debug, Clone, Copy)]
pub struct Sandboxing<'a> {
    pub policy: &'a SandboxPolicy,
    pub workspace: &'a Path,
}

/// The write end of a command's standard input.
pub type Stdin = Box<dyn tokio::io::AsyncWrite + Send + Unpin>;

/// A running process group, owned by a plugin through the `process` resource.
pub struct ProcessHandle {
    child: Child,
    pgid: Option<i32>,
    chunks: mpsc::Receiver<Chunk>,
    streams_open: bool,
    deadline: Option<Instant>,
    cancel: CancellationToken,
    exit: Option<(Option<i32>, Instant)>,
    finished: Option<Observed>,
    /// Whether the output says the sandbox refused something; `None` when unconfined.
    blocked: Option<BlockedWatch>,
    /// The write end of its standard input, until [`ProcessHandle::spawn_interactive`] hands it
    /// out; `None` for a command whose input is `/dev/null`.
    stdin: Option<Stdin>,
    /// Its pids cgroup, removed when the handle goes.
    #[cfg(target_os = "linux")]
    cgroup: Option<crate::sandbox::Cgroup>,
    /// Kills its group if tack dies without dropping the handle (SIGKILL, a crash).
    _lifeline: Option<lifeline::Watched>,
    /// Asks the pumps reading its output for their pipes ([`ProcessHandle::keep`]).
    hand_over: Vec<HandOver>,
    /// Kept past tack's exit: dropping the handle leaves it running.
    kept: bool,
}

impl ProcessHandle {
    /// Starts `plan` in its own process group, confined by `sandbox` unless that is `None` or
    /// `full`.
    pub fn spawn(
        plan: CommandPlan,
        env: ChildEnv,
        cwd: &Path,
        timeout: Option<Duration>,
        cancel: CancellationToken,
        sandbox: Option<Sandboxing<'_>>,
    ) -> std::io::Result<Self> {
        Self::start(plan, env, cwd, timeout, cancel, sandbox, false)
    }

    /// [`ProcessHandle::spawn`] with a pipe to the command's standard input, and no timeout:
    /// the program lives until it ends or is killed (`tack:plugin/process`).
    pub fn spawn_interactive(
        plan: CommandPlan,
        env: ChildEnv,
        cwd: &Path,
        cancel: CancellationToken,
        sandbox: Option<Sandboxing<'_>>,
    ) -> std::io::Result<(Self, Stdin)> {
        let mut handle = Self::start(plan, env, cwd, None, cancel, sandbox, true)?;
        let stdin = handle
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("the command's standard input was not opened"))?;
        Ok((handle, stdin))
    }

    fn start(
        plan: CommandPlan,
        env: ChildEnv,
        cwd: &Path,
        timeout: Option<Duration>,
        cancel: CancellationToken,
        sandbox: Option<Sandboxing<'_>>,
        with_stdin: bool,
    ) -> std::io::Result<Self> {
        if let Some(sandbox) = sandbox.filter(|s| s.policy.confines()) {
            return Self::spawn_confined(plan, env, cwd, timeout, cancel, sandbox, with_stdin);
        }
        let vars = match &env {
            ChildEnv::Only(vars) => Some(vars.as_slice()),
            ChildEnv::Inherit => None,
        };
        // The program keeps its name as argv[0] (`$0` of `sh -c`) wherever it was found.
        let program = |name: &str| {
            let mut c = tokio::process::Command::new(match vars {
                Some(vars) => on_child_path(name, vars, cwd),
                None => name.into(),
            });
            c.arg0(name);
            c
        };
        let mut command = match plan {
            CommandPlan::Shell(line) => {
                let mut c = program("sh");
                c.arg("-c").arg(line);
                c
            }
            CommandPlan::Direct(words) => {
                let mut c = program(&words[0]);
                c.args(&words[1..]);
                c
            }
        };
        if let ChildEnv::Only(vars) = env {
            command.env_clear().envs(vars);
        }
        command
            .current_dir(cwd)
            .stdin(if with_stdin {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a timeout or abort kills everything it started. Dropping
            // the handle kills that group (unless the command was kept), so the child is not
            // killed on drop on its own.
            .process_group(0);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().map(|pipe| Box::new(pipe) as Stdin);
        let (tx, chunks) = mpsc::channel(64);
        let pipes = (|| -> std::io::Result<_> {
            let reader =
                |fd: std::os::fd::OwnedFd| tokio::net::unix::pipe::Receiver::from_owned_fd(fd);
            let out = child
                .stdout
                .take()
                .map(|p| p.into_owned_fd().and_then(reader))
                .transpose()?;
            let err = child
                .stderr
                .take()
                .map(|p| p.into_owned_fd().and_then(reader))
                .transpose()?;
            Ok((out, err))
        })();
        let (out, err) = match pipes {
            Ok(pipes) => pipes,
            Err(e) => {
                // Nothing kills it on drop: it dies here, before anyone holds it.
                let _ = child.start_kill();
                return Err(e);
            }
        };
        let mut hand_over = Vec::with_capacity(2);
        if let Some(pipe) = out {
            hand_over.push(pump(pipe, tx.clone(), Chunk::Out));
        }
        if let Some(pipe) = err {
            hand_over.push(pump(pipe, tx, Chunk::Err));
        }
        let pgid = child.id().and_then(|id| i32::try_from(id).ok());
        Ok(Self {
            _lifeline: lifeline::watch(pgid),
            pgid,
            child: Child::Tokio(child),
            chunks,
            streams_open: true,
            deadline: timeout.map(|t| Instant::now() + t),
            cancel,
            exit: None,
            finished: None,
            blocked: None,
            stdin,
            #[cfg(target_os = "linux")]
            cgroup: None,
            hand_over,
            kept: false,
        })
    }

    /// [`ProcessHandle::spawn`] in the sandbox: prepared here, applied by the child to itself
    /// between the clone and the exec (see `confined`).
    #[cfg(target_os = "linux")]
    fn spawn_confined(
        plan: CommandPlan,
        env: ChildEnv,
        cwd: &Path,
        timeout: Option<Duration>,
        cancel: CancellationToken,
        sandbox: Sandboxing<'_>,
        with_stdin: bool,
    ) -> std::io::Result<Self> {
        let prepared = sandbox
            .policy
            .prepare(sandbox.workspace)
            .map_err(std::io::Error::other)?;
        let vars = match env {
            ChildEnv::Only(vars) => vars,
            ChildEnv::Inherit => std::env::vars_os().collect(),
        };
        let (name, args) = match plan {
            CommandPlan::Shell(line) => ("sh".to_string(), vec!["-c".to_string(), line]),
            CommandPlan::Direct(words) => match words.split_first() {
                Some((name, args)) => (name.clone(), args.to_vec()),
                None => return Err(std::io::ErrorKind::InvalidInput.into()),
            },
        };
        let program = on_child_path(&name, &vars, cwd);
        let spawned = confined::spawn(
            &program,
            &name,
            &args,
            &vars,
            cwd,
            &prepared.child,
            with_stdin,
        )?;
        let (tx, chunks) = mpsc::channel(64);
        let hand_over = vec![
            pump(spawned.stdout, tx.clone(), Chunk::Out),
            pump(spawned.stderr, tx, Chunk::Err),
        ];
        let pgid = i32::try_from(spawned.child.id()).ok();
        Ok(Self {
            _lifeline: lifeline::watch(pgid),
            pgid,
            child: Child::Confined(spawned.child),
            chunks,
            streams_open: true,
            deadline: timeout.map(|t| Instant::now() + t),
            cancel,
            exit: None,
            finished: None,
            blocked: BlockedWatch::new(sandbox.policy),
            stdin: spawned.stdin.map(|pipe| Box::new(pipe) as Stdin),
            cgroup: prepared.cgroup,
            hand_over,
            kept: false,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn spawn_confined(
        _plan: CommandPlan,
        _env: ChildEnv,
        _cwd: &Path,
        _timeout: Option<Duration>,
        _cancel: CancellationToken,
        sandbox: Sandboxing<'_>,
        _with_stdin: bool,
    ) -> std::io::Result<Self> {
        match sandbox.policy.prepare(sandbox.workspace) {
            Err(e) => Err(std::io::Error::other(e)),
            Ok(_) => Err(std::io::Error::from(std::io::ErrorKind::Unsupported)),
        }
    }

    /// Waits up to `wait` for the next thing to report.
    pub async fn next(&mut self, wait: Duration) -> Observed {
        if let Some(done) = &self.finished {
            return done.clone();
        }
        let idle_at = tokio::time::Instant::now() + wait;
        loop {
            let deadline = self.deadline.map(tokio::time::Instant::from_std);
            let drain_until = self
                .exit
                .map(|(_, at)| tokio::time::Instant::from_std(at + EXIT_DRAIN));
            tokio::select! {
                biased;
                _ = self.cancel.cancelled() => return self.finish(Observed::Cancelled),
                _ = sleep_until_opt(deadline) => return self.finish(Observed::TimedOut),
                chunk = self.chunks.recv(), if self.streams_open => match chunk {
                    Some(Chunk::Out(b)) => {
                        self.watch(&b);
                        return Observed::Stdout(b);
                    }
                    Some(Chunk::Err(b)) => {
                        self.watch(&b);
                        return Observed::Stderr(b);
                    }
                    None => {
                        self.streams_open = false;
                        if let Some((code, _)) = self.exit {
                            return self.finish(Observed::Exited(code));
                        }
                    }
                },
                code = self.child.wait(), if self.exit.is_none() => {
                    if !self.streams_open {
                        return self.finish(Observed::Exited(code));
                    }
                    self.exit = Some((code, Instant::now()));
                }
                _ = sleep_until_opt(drain_until) => {
                    let code = self.exit.and_then(|(c, _)| c);
                    return self.finish(Observed::Exited(code));
                }
                _ = tokio::time::sleep_until(idle_at) => return Observed::Idle,
            }
        }
    }

    /// Sends `signal` to the whole process group, unless it has already been reaped.
    pub fn signal(&self, signal: i32) {
        if self.exit.is_some() || self.finished.is_some() {
            return;
        }
        if let Some(pgid) = self.pgid {
            // SAFETY: kill(2) with a negative pid signals the process group we created for this
            // child; it touches no memory.
            unsafe {
                libc::kill(-pgid, signal);
            }
        }
    }

    pub fn kill(&mut self) {
        self.kill_group();
        if self.finished.is_none() {
            self.finished = Some(Observed::Exited(None));
        }
    }

    /// Keeps the command running past tack's exit, its output going on to `log`: its group
    /// leaves the keeper that would kill it with tack, dropping the handle no longer kills it,
    /// and its pipes go to a relay that writes everything to `log` and, while tack lives, on
    /// to this handle through new pipes, so reading it is unchanged. Returns its process group.
    pub async fn keep(&mut self, log: std::os::fd::OwnedFd) -> Result<i32, KeepError> {
        if self.kept {
            return Err(KeepError::AlreadyKept);
        }
        if self.exit.is_some() || self.finished.is_some() {
            return Err(KeepError::Ended);
        }
        let pgid = self.pgid.ok_or(KeepError::NoGroup)?;
        // Everything that can fail before the pipes leave their pumps does so first: a command
        // whose pipes were lost on the way would die of its next write.
        let mut new_pipes = Vec::with_capacity(self.hand_over.len());
        for _ in 0..self.hand_over.len() {
            new_pipes.push(pump::pipe().map_err(KeepError::Io)?);
        }
        let mut relayed = Vec::with_capacity(new_pipes.len());
        let mut to_read = Vec::with_capacity(new_pipes.len());
        for (ask, (to_tack, from_relay)) in self.hand_over.drain(..).zip(new_pipes) {
            // A pump that is gone had read its stream to the end: nothing is left to relay.
            let Some(part) = ask.take().await else {
                continue;
            };
            relayed.push(relay::Relayed {
                from: part.fd,
                to_tack,
            });
            to_read.push((from_relay, part.tx, part.wrap, part.unsent));
        }
        // What a pump had read but not passed on comes before anything the relay copies.
        if let Ok(copy) = log.try_clone() {
            let mut file = std::fs::File::from(copy);
            for (_, _, _, unsent) in &to_read {
                let _ = std::io::Write::write_all(&mut file, unsent);
            }
        }
        let started = if relayed.is_empty() {
            Ok(())
        } else {
            relay::start(&relayed, &log)
        };
        // Tack's copies of what the relay now holds close here.
        let from_command: Vec<std::os::fd::OwnedFd> = relayed.into_iter().map(|r| r.from).collect();
        match started {
            Ok(()) => {
                drop(from_command);
                for (from_relay, tx, wrap, unsent) in to_read {
                    // The relay runs: the command is kept whatever happens here. A pipe tokio
                    // would not take (never seen) only leaves that stream to the log.
                    match pump::from_fd(from_relay, tx, wrap, unsent) {
                        Ok(ask) => self.hand_over.push(ask),
                        Err(e) => {
                            tracing::warn!("a kept command's output reaches its log only: {e}")
                        }
                    }
                }
            }
            Err(e) => {
                // Back to reading the command's own pipes, as if nothing had been asked.
                for (fd, (_, tx, wrap, unsent)) in from_command.into_iter().zip(to_read) {
                    if let Ok(ask) = pump::from_fd(fd, tx, wrap, unsent) {
                        self.hand_over.push(ask);
                    }
                }
                return Err(KeepError::Io(e));
            }
        }
        self.kept = true;
        self.child.keep();
        // Dropping the watch tells the keeper to forget the group.
        self._lifeline = None;
        Ok(pgid)
    }

    fn watch(&mut self, bytes: &[u8]) {
        if let Some(watch) = &mut self.blocked {
            watch.observe(bytes);
        }
    }

    fn finish(&mut self, how: Observed) -> Observed {
        if matches!(how, Observed::TimedOut | Observed::Cancelled) {
            self.kill_group();
        }
        self.finished = Some(how.clone());
        // A failure that reads like a refusal gets a line naming the sandbox, as the last
        // output before the exit is reported (on the next call).
        if let Observed::Exited(code) = how {
            if let Some(note) = self.blocked.take().and_then(|w| w.note(code)) {
                return Observed::Stderr(note);
            }
        }
        how
    }

    fn kill_group(&mut self) {
        if let Some(pgid) = self.pgid {
            // SAFETY: kill(2) with a negative pid signals the process group we created for this
            // child; it touches no memory.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill_all();
        }
        self.child.start_kill();
    }
}

impl Drop for ProcessHandle {
    fn drop(&mut self) {
        // A process the plugin walked away from while still running dies with its group; one
        // that exited normally leaves its (deliberately) backgrounded children alone, and one
        // the user kept runs on.
        if !self.kept && self.exit.is_none() && !matches!(self.finished, Some(Observed::Exited(_)))
        {
            self.kill_group();
        }
    }
}

/// A started command, by how it was started.
enum Child {
    Tokio(tokio::process::Child),
    #[cfg(target_os = "linux")]
    Confined(confined::ConfinedChild),
}

impl Child {
    /// Its exit code once it has exited; `None` when a signal ended it (or waiting failed).
    async fn wait(&mut self) -> Option<i32> {
        match self {
            Child::Tokio(child) => child.wait().await.ok().and_then(|s| s.code()),
            #[cfg(target_os = "linux")]
            Child::Confined(child) => child.wait().await.ok().flatten(),
        }
    }

    /// Leaves the child running when it is dropped.
    fn keep(&mut self) {
        match self {
            // Not killed on drop (see `start`): tokio reaps it once it ends.
            Child::Tokio(_) => {}
            #[cfg(target_os = "linux")]
            Child::Confined(child) => child.keep(),
        }
    }

    fn start_kill(&mut self) {
        match self {
            Child::Tokio(child) => {
                let _ = child.start_kill();
            }
            #[cfg(target_os = "linux")]
            Child::Confined(child) => child.start_kill(),
        }
    }
}

async fn sleep_until_opt(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_name_is_found_on_the_childs_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (empty, bin) = (dir.path().join("empty"), dir.path().join("bin"));
        std::fs::create_dir_all(&empty).expect("empty dir");
        std::fs::create_dir_all(&bin).expect("bin dir");
        let tool = bin.join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").expect("tool");
        let plain = bin.join("plain");
        std::fs::write(&plain, "not executable").expect("plain");
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let path = std::env::join_paths([&empty, &bin]).expect("PATH");
        let vars = vec![("HOME".into(), "/nowhere".into()), ("PATH".into(), path)];
        let cwd = dir.path();
        assert_eq!(on_child_path("tool", &vars, cwd), tool);
        // Not executable, not there, or already a path: left to spawn, as before.
        assert_eq!(on_child_path("plain", &vars, cwd), PathBuf::from("plain"));
        assert_eq!(
            on_child_path("missing", &vars, cwd),
            PathBuf::from("missing")
        );
        assert_eq!(on_child_path("./tool", &vars, cwd), PathBuf::from("./tool"));
        assert_eq!(
            on_child_path("tool", &vars[..1], cwd),
            PathBuf::from("tool")
        );
        // A relative entry is relative to the child's working directory.
        let relative = vec![("PATH".into(), OsString::from("bin"))];
        assert_eq!(on_child_path("tool", &relative, cwd), tool);
    }

    fn grants(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn unrestricted_grant_uses_the_shell() {
        assert_eq!(
            authorize("ls | wc -l", &grants(&["**"])),
            Ok(CommandPlan::Shell("ls | wc -l".into()))
        );
    }

    #[test]
    fn patterns_match_word_by_word() {
        let g = grants(&["git status *", "cargo test **", "echo hi*"]);
        assert!(authorize("git status src", &g).is_ok());
        assert!(
            authorize("git status --short", &g).is_err(),
            "* is not an option"
        );
        assert!(
            authorize("git status", &g).is_err(),
            "* needs exactly one word"
        );
        assert!(authorize("git status -s -b", &g).is_err());
        assert!(authorize("cargo test", &g).is_ok());
        assert!(authorize("cargo test -p a -- --nocapture", &g).is_ok());
        assert!(authorize("echo hierarchy", &g).is_ok());
        assert!(authorize("git push", &g).is_err());
    }

    #[test]
    fn shell_syntax_cannot_escape_a_narrow_grant() {
        let g = grants(&["git status *"]);
        // Matches the pattern, but runs git directly with a literal ";rm" argument: no shell.
        assert_eq!(
            authorize("git status ';rm'", &g),
            Ok(CommandPlan::Direct(vec![
                "git".into(),
                "status".into(),
                ";rm".into()
            ]))
        );
        assert!(matches!(
            authorize("git status; rm -rf /", &g),
            Err(AuthorizeError::NotCovered { .. })
        ));
        assert_eq!(authorize("ls", &[]), Err(AuthorizeError::NoGrant));
        assert!(matches!(
            authorize("echo 'open", &g),
            Err(AuthorizeError::Invalid(_))
        ));
    }

    #[test]
    fn wildcards_never_match_options_unless_the_pattern_says_so() {
        let g = grants(&["git log *", "git diff -*", "ls **", "fmt --width=*"]);
        assert!(authorize("git log HEAD", &g).is_ok());
        assert!(authorize("git log --output=/home/u/.bashrc", &g).is_err());
        assert!(authorize("git log -p", &g).is_err());
        assert!(
            authorize("git diff --stat", &g).is_ok(),
            "`-*` asks for options"
        );
        assert!(
            authorize("ls -la --color", &g).is_ok(),
            "`**` matches anything"
        );
        assert!(authorize("fmt --width=80", &g).is_ok());
        assert!(authorize("fmt --output=x", &g).is_err());
    }

    #[test]
    fn wildcards_never_match_a_dotdot_segment() {
        let g = grants(&["cat src/*", "cat *", "wc src/**", "cat ../shared/notes.md"]);
        assert!(authorize("cat src/main.rs", &g).is_ok());
        for escape in [
            "cat src/../../.ssh/id_rsa",
            "cat ..",
            "cat ../secret",
            "cat a/../../b",
            "wc src/a/../../../etc/passwd",
        ] {
            assert!(
                matches!(
                    authorize(escape, &g),
                    Err(AuthorizeError::NotCovered { .. })
                ),
                "{escape}"
            );
        }
        assert!(
            authorize("cat src/a/b.rs", &grants(&["cat src/*"])).is_err(),
            "`*` inside a word stays in one directory"
        );
        assert!(
            authorize("wc src/a/b.rs", &g).is_ok(),
            "`src/**` reaches below src"
        );
        assert!(
            authorize("cat ../shared/notes.md", &g).is_ok(),
            "a literal word matches itself"
        );
        assert!(
            authorize("cat file..txt", &g).is_ok(),
            "only whole `..` segments count"
        );
    }

    #[test]
    fn children_get_the_base_environment_and_what_is_granted_never_secrets() {
        let host: Vec<(OsString, OsString)> = [
            ("PATH", "/bin"),
            ("HOME", "/home/u"),
            ("ANTHROPIC_API_KEY", "sk-canary"),
            ("GITHUB_TOKEN", "ghp"),
            ("RUST_LOG", "debug"),
            ("CARGO_HOME", "/c"),
            ("CARGO_REGISTRY_TOKEN", "t"),
            ("MY_PROVIDER", "held"),
            ("EDITOR", "vi"),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
        let granted = grants(&["RUST_LOG", "CARGO_*", "GITHUB_TOKEN", "MY_PROVIDER"]);
        let env = child_env(host, &granted, |name| name == "MY_PROVIDER");
        let names: Vec<&str> = env.iter().filter_map(|(k, _)| k.to_str()).collect();
        assert_eq!(names, ["PATH", "HOME", "RUST_LOG", "CARGO_HOME"]);
    }

    #[tokio::test]
    async fn a_child_sees_only_the_environment_it_is_given() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut p = ProcessHandle::spawn(
            CommandPlan::Direct(vec!["/usr/bin/env".into()]),
            ChildEnv::Only(vec![("ONLY_THIS".into(), "1".into())]),
            dir.path(),
            None,
            CancellationToken::new(),
            None,
        )
        .expect("spawn");
        let mut out = Vec::new();
        loop {
            match p.next(Duration::from_secs(5)).await {
                Observed::Stdout(b) => out.extend(b),
                Observed::Exited(_) => break,
                Observed::Stderr(_) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(String::from_utf8_lossy(&out), "ONLY_THIS=1\n");
    }

    #[tokio::test]
    async fn timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().expect("tempdir");
        let marker = dir.path().join("child-alive");
        let line = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let mut p = ProcessHandle::spawn(
            CommandPlan::Shell(line),
            ChildEnv::Inherit,
            dir.path(),
            Some(Duration::from_millis(200)),
            CancellationToken::new(),
            None,
        )
        .expect("spawn");
        let mut last = Observed::Idle;
        for _ in 0..100 {
            last = p.next(Duration::from_millis(100)).await;
            if !matches!(last, Observed::Idle) {
                break;
            }
        }
        assert_eq!(last, Observed::TimedOut);
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert!(
            !marker.exists(),
            "the backgrounded child outlived the timeout"
        );
    }

    /// Everything a command printed, and its exit code.
    async fn collect(p: &mut ProcessHandle) -> (String, Option<i32>) {
        let mut out = Vec::new();
        loop {
            match p.next(Duration::from_secs(10)).await {
                Observed::Stdout(b) | Observed::Stderr(b) => out.extend(b),
                Observed::Exited(code) => return (String::from_utf8_lossy(&out).into(), code),
                Observed::Idle => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn a_confined_command_runs_reports_and_is_refused_outside_the_workspace() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        let (ws, outside) = (root.join("ws"), root.join("outside"));
        std::fs::create_dir_all(&ws).expect("ws");
        std::fs::create_dir_all(&outside).expect("outside");
        let mut policy = SandboxPolicy::new(crate::sandbox::SandboxMode::WorkspaceWrite, false, 0);
        policy.temp_dir = ws.clone();
        let sandbox = Sandboxing {
            policy: &policy,
            workspace: &ws,
        };
        let env = ChildEnv::Only(vec![("PATH".into(), "/usr/bin:/bin".into())]);
        let line = format!(
            "echo in > here; cat here >/dev/stdout; echo out > {}/x; exit 3",
            outside.display()
        );
        let mut p = ProcessHandle::spawn(
            CommandPlan::Shell(line),
            env.clone(),
            &ws,
            None,
            CancellationToken::new(),
            Some(sandbox),
        )
        .expect("spawn");
        let (out, code) = collect(&mut p).await;
        assert_eq!(code, Some(3), "{out}");
        assert!(
            out.starts_with("in\n") && out.contains("Permission denied"),
            "{out}"
        );
        assert!(
            out.contains("[tack sandbox: workspace-write, network off"),
            "{out}"
        );
        assert!(!outside.join("x").exists());
        // A program that is not there fails the spawn with the child's errno.
        let missing = ProcessHandle::spawn(
            CommandPlan::Direct(vec!["/nonexistent/tool".into()]),
            env,
            &ws,
            None,
            CancellationToken::new(),
            Some(sandbox),
        );
        assert_eq!(
            missing.err().map(|e| e.kind()),
            Some(std::io::ErrorKind::NotFound)
        );
    }

    #[tokio::test]
    async fn output_then_exit_code() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut p = ProcessHandle::spawn(
            CommandPlan::Shell("echo out; echo err >&2; exit 3".into()),
            ChildEnv::Inherit,
            dir.path(),
            None,
            CancellationToken::new(),
            None,
        )
        .expect("spawn");
        let mut out = Vec::new();
        let mut err = Vec::new();
        let code = loop {
            match p.next(Duration::from_secs(5)).await {
                Observed::Stdout(b) => out.extend(b),
                Observed::Stderr(b) => err.extend(b),
                Observed::Exited(code) => break code,
                other => panic!("unexpected {other:?}"),
            }
        };
        assert_eq!(
            (out.as_slice(), err.as_slice(), code),
            (&b"out\n"[..], &b"err\n"[..], Some(3))
        );
    }
}
