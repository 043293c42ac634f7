//! `exec`: running programs for a plugin, checked against its grant on every call.
//!
//! An unrestricted grant (`"**"`) runs the command line under `sh -c`, with the user's
//! environment, as the bash tool needs. Any narrower grant splits the line into words and runs the
//! program directly, never through a shell, so `;`, `|`, `$(…)` or redirections in the line are
//! plain arguments and cannot smuggle a second command past the pattern.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

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
            Some((w, tail)) => (p == "*" || word_matches(p, w)) && words_match(rest, tail),
            None => false,
        },
    }
}

fn word_matches(pattern: &str, word: &str) -> bool {
    if !pattern.contains(['*', '?', '[']) {
        return pattern == word;
    }
    globset::Glob::new(pattern)
        .map(|g| g.compile_matcher().is_match(word))
        .unwrap_or(false)
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

enum Chunk {
    Out(Vec<u8>),
    Err(Vec<u8>),
}

/// After the main process exits, output still buffered in the pipes is drained for this long;
/// a background child holding the pipe open must not keep the call waiting.
const EXIT_DRAIN: Duration = Duration::from_millis(200);

/// A running process group, owned by a plugin through the `process` resource.
pub struct ProcessHandle {
    child: tokio::process::Child,
    pgid: Option<i32>,
    chunks: mpsc::Receiver<Chunk>,
    streams_open: bool,
    deadline: Option<Instant>,
    cancel: CancellationToken,
    exit: Option<(Option<i32>, Instant)>,
    finished: Option<Observed>,
}

impl ProcessHandle {
    pub fn spawn(
        plan: CommandPlan,
        cwd: &Path,
        timeout: Option<Duration>,
        cancel: CancellationToken,
    ) -> std::io::Result<Self> {
        let mut command = match plan {
            CommandPlan::Shell(line) => {
                let mut c = tokio::process::Command::new("sh");
                c.arg("-c").arg(line);
                c
            }
            CommandPlan::Direct(words) => {
                let mut c = tokio::process::Command::new(&words[0]);
                c.args(&words[1..]);
                c
            }
        };
        command
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a timeout or abort kills everything it started.
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (tx, chunks) = mpsc::channel(64);
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(pump(stdout, tx.clone(), Chunk::Out));
        }
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(pump(stderr, tx, Chunk::Err));
        }
        Ok(Self {
            pgid: child.id().and_then(|id| i32::try_from(id).ok()),
            child,
            chunks,
            streams_open: true,
            deadline: timeout.map(|t| Instant::now() + t),
            cancel,
            exit: None,
            finished: None,
        })
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
                    Some(Chunk::Out(b)) => return Observed::Stdout(b),
                    Some(Chunk::Err(b)) => return Observed::Stderr(b),
                    None => {
                        self.streams_open = false;
                        if let Some((code, _)) = self.exit {
                            return self.finish(Observed::Exited(code));
                        }
                    }
                },
                status = self.child.wait(), if self.exit.is_none() => {
                    let code = status.ok().and_then(|s| s.code());
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

    pub fn kill(&mut self) {
        self.kill_group();
        if self.finished.is_none() {
            self.finished = Some(Observed::Exited(None));
        }
    }

    fn finish(&mut self, how: Observed) -> Observed {
        if matches!(how, Observed::TimedOut | Observed::Cancelled) {
            self.kill_group();
        }
        self.finished = Some(how.clone());
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
        let _ = self.child.start_kill();
    }
}

impl Drop for ProcessHandle {
    fn drop(&mut self) {
        // A process the plugin walked away from while still running dies with its group; one
        // that exited normally leaves its (deliberately) backgrounded children alone.
        if self.exit.is_none() && !matches!(self.finished, Some(Observed::Exited(_))) {
            self.kill_group();
        }
    }
}

async fn pump<R: tokio::io::AsyncRead + Unpin>(
    mut reader: R,
    tx: mpsc::Sender<Chunk>,
    wrap: fn(Vec<u8>) -> Chunk,
) {
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if tx.send(wrap(buf[..n].to_vec())).await.is_err() {
                    break;
                }
            }
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
        assert!(authorize("git status --short", &g).is_ok());
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

    #[tokio::test]
    async fn timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().expect("tempdir");
        let marker = dir.path().join("child-alive");
        let line = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let mut p = ProcessHandle::spawn(
            CommandPlan::Shell(line),
            dir.path(),
            Some(Duration::from_millis(200)),
            CancellationToken::new(),
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

    #[tokio::test]
    async fn output_then_exit_code() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut p = ProcessHandle::spawn(
            CommandPlan::Shell("echo out; echo err >&2; exit 3".into()),
            dir.path(),
            None,
            CancellationToken::new(),
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
