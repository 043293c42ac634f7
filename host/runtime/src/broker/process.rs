//! The host side of `tack:plugin/process` (0.2.0): long-lived programs a plugin writes to and
//! reads from, such as an MCP server or a language server.
//!
//! A process belongs to the plugin, not to the instance or the call that started it: the host
//! runs a plugin in several instances, and a server started while one served a tool call must be
//! reachable from the next. So processes live in a table shared by the plugin's instances
//! ([`ProcessTable`], held by its `PluginEnv`), under ids that mean nothing to another plugin;
//! they are killed when the plugin releases them or when the table goes (tack exits, `/reload`).
//! Each is authorized against the `process` grant and confined by the command sandbox exactly
//! like an `exec` command, and never leaves it.
//!
//! The plugin pulls what a program did (its output, its end), but nobody pulls between runs, when
//! no plugin code runs: a background command that ends then would go unnoticed until the next
//! call. So each process has a watcher task that pulls on the plugin's behalf whenever no call of
//! the plugin wants the process, keeps the unread output within the same caps, and once the
//! program has ended calls the process's [`ExitNotice`] (the `process_exit` event, told to the
//! plugin that started it and to no other).

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt as _;
use tokio_util::sync::CancellationToken;

use super::exec::{authorize, AuthorizeError, CommandPlan, Observed, ProcessHandle, Stdin};

mod imports;
mod kept_log;

/// How many processes a plugin may hold at once (running, or ended and not released), unless
/// its grant names more command lines ([`process_budget`]).
pub const MAX_PROCESSES: usize = 8;
/// The most processes any grant buys.
pub const MAX_GRANTED_PROCESSES: usize = 32;

/// The processes a plugin granted `patterns` may hold at once: 8, or one per distinct granted
/// pattern when the user granted more (the MCP client's grant is one command line per server),
/// up to 32. A grant is the user's, shown at install, so a longer one is theirs to give.
pub fn process_budget(patterns: &[String]) -> usize {
    let distinct: std::collections::BTreeSet<&str> = patterns.iter().map(|p| p.trim()).collect();
    distinct.len().clamp(MAX_PROCESSES, MAX_GRANTED_PROCESSES)
}
/// Unread standard output kept per process; beyond it the host stops reading the pipe, so the
/// program blocks on its writes instead of losing output.
pub const STDOUT_CAP: usize = 1 << 20;
/// Unread standard error kept per process: the newest bytes, the oldest dropped and counted.
pub const STDERR_KEEP: usize = 256 << 10;
/// The newest output kept per process for [`ProcessTable::details`], read or not.
pub const RECENT_KEEP: usize = 4 << 10;
/// The longest one read, line read or wait may block.
pub const MAX_WAIT: Duration = Duration::from_secs(60);
/// How long a write may wait for a program that reads nothing.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a process call failed; mirrors the WIT `process-error`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProcessError {
    #[error("{0}")]
    Denied(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Failed(String),
    #[error("{0}")]
    Limit(String),
    #[error("no process {0}")]
    Unknown(u64),
}

/// One of a process's output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What a read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Data(Vec<u8>),
    Idle,
    Closed,
}

/// A process as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    pub id: u64,
    pub command: String,
    /// `None` while it runs; `Some(code)` once it ended (`code` is `None` for a signal).
    pub exit: Option<Option<i32>>,
    /// Kept past tack's exit ([`ProcessTable::keep`]).
    pub kept: bool,
}

/// A process kept past tack's exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// Its process group: `kill -- -<group>` stops it.
    pub group: i32,
    /// The file its output goes to, also once tack has exited.
    pub log: std::path::PathBuf,
}

/// What [`ProcessTable::details`] tells about a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessDetails {
    /// How long it has run: until now while it runs, until its end once it ended.
    pub runtime: Duration,
    /// The newest [`RECENT_KEEP`] bytes of its output on both streams, in the order they came.
    pub recent: Vec<u8>,
}

/// Told once a process ends (its id and exit code, `None` for a signal), unless the plugin
/// released it first or the table went. It runs on the watcher's task, so it may take its time.
pub type ExitNotice =
    Box<dyn FnOnce(u64, Option<i32>) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send>;

/// Pulls made once the wait is over. The pipes are read only when the plugin reads or waits, so
/// a zero wait (a plugin checking on a background program) must still take what has already
/// arrived; but a program writing without pause must not keep such a call taking for ever.
#[derive(Default)]
struct LatePulls(u32);

impl LatePulls {
    const MAX: u32 = 256;

    /// Counts a pull with `left` of the wait; true when too many came after its end.
    fn exhausted(&mut self, left: Duration) -> bool {
        if !left.is_zero() {
            return false;
        }
        self.0 += 1;
        self.0 > Self::MAX
    }
}

/// The processes of one plugin, shared by all its instances.
#[derive(Default)]
pub struct ProcessTable {
    inner: Mutex<Entries>,
    /// Cancelled when the table goes, so the watchers let go of their processes at once and
    /// dropping them kills those still running.
    gone: CancellationToken,
}

impl Drop for ProcessTable {
    fn drop(&mut self) {
        self.gone.cancel();
    }
}

#[derive(Default)]
struct Entries {
    next_id: u64,
    live: BTreeMap<u64, Arc<Entry>>,
}

/// One process, locked by the plugin's calls and by its watcher.
///
/// A call must never wait on the watcher's pull. An edge (a wake-up when a call arrives) is not
/// enough: on another worker thread the watcher can take the lock again between the call's
/// wake-up and its turn in the lock's queue, and then pull a whole slice with nobody to wake it.
/// So the calls on their way to the lock are counted (`wanting`), and the watcher checks the
/// count after it registered for the wake-up and before it pulls, and stays off the lock while
/// the count is above zero.
struct Entry {
    running: tokio::sync::Mutex<Running>,
    /// Calls between wanting the process and holding it.
    wanting: AtomicUsize,
    /// Woken when a call starts wanting the process, cutting the watcher's pull short.
    wanted: tokio::sync::Notify,
    /// Woken when the last wanting call got the process, so the watcher may queue again.
    unwanted: tokio::sync::Notify,
}

impl Entry {
    fn new(running: Running) -> Self {
        Self {
            running: tokio::sync::Mutex::new(running),
            wanting: AtomicUsize::new(0),
            wanted: tokio::sync::Notify::new(),
            unwanted: tokio::sync::Notify::new(),
        }
    }

    /// The process, for a call of the plugin.
    async fn lock(&self) -> tokio::sync::MutexGuard<'_, Running> {
        let _wanting = Wanting::start(self);
        self.wanted.notify_waiters();
        self.running.lock().await
    }

    fn is_wanted(&self) -> bool {
        self.wanting.load(Ordering::SeqCst) > 0
    }

    /// Returns once no call is on its way to the process.
    async fn until_unwanted(&self) {
        loop {
            let unwanted = self.unwanted.notified();
            tokio::pin!(unwanted);
            unwanted.as_mut().enable();
            if !self.is_wanted() {
                return;
            }
            unwanted.await;
        }
    }
}

/// A call on its way to the process, counted until it holds it (or is dropped on the way).
struct Wanting<'a>(&'a Entry);

impl<'a> Wanting<'a> {
    fn start(entry: &'a Entry) -> Self {
        entry.wanting.fetch_add(1, Ordering::SeqCst);
        Self(entry)
    }
}

impl Drop for Wanting<'_> {
    fn drop(&mut self) {
        if self.0.wanting.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.unwanted.notify_waiters();
        }
    }
}

/// A started program and what it sent that the plugin has not read yet.
struct Running {
    command: String,
    handle: ProcessHandle,
    stdin: Option<Stdin>,
    stdout: VecDeque<u8>,
    stderr: VecDeque<u8>,
    stderr_dropped: u64,
    /// Set once the handle reported the end: the program exited and its output is drained.
    exit: Option<Option<i32>>,
    started: Instant,
    /// When `exit` was set.
    ended: Option<Instant>,
    /// The newest output of both streams, whether read or not ([`RECENT_KEEP`]).
    recent: VecDeque<u8>,
    /// Set by `release`: the watcher stops without telling anyone.
    released: bool,
    /// Set by `keep`.
    kept: Option<Kept>,
}

impl ProcessTable {
    /// Authorizes `command` against `patterns` (the `process` grant) and starts it in `cwd`;
    /// `on_exit` is told when it ends.
    pub fn spawn(
        &self,
        command: &str,
        patterns: &[String],
        start: impl FnOnce(CommandPlan, CancellationToken) -> std::io::Result<(ProcessHandle, Stdin)>,
        on_exit: Option<ExitNotice>,
    ) -> Result<u64, ProcessError> {
        let plan = match authorize(command, patterns) {
            Ok(plan) => plan,
            Err(AuthorizeError::NoGrant) => {
                return Err(ProcessError::Denied(format!(
                    "`{command}` was not started: this plugin has no `process` grant"
                )))
            }
            Err(e @ AuthorizeError::NotCovered { .. }) => {
                return Err(ProcessError::Denied(format!(
                    "{e} of the `process` grant, so it was not started"
                )))
            }
            Err(e @ AuthorizeError::Invalid(_)) => {
                return Err(ProcessError::Invalid(e.to_string()))
            }
        };
        let mut entries = self.lock();
        let budget = process_budget(patterns);
        if entries.live.len() >= budget {
            return Err(ProcessError::Limit(format!(
                "the plugin already holds {budget} processes, the most it may; release one it \
                 no longer needs"
            )));
        }
        // Nobody cancels it but the table: it outlives the call that started it.
        let (handle, stdin) = start(plan, CancellationToken::new())
            .map_err(|e| ProcessError::Failed(format!("cannot start `{command}`: {e}")))?;
        entries.next_id += 1;
        let id = entries.next_id;
        let entry = Arc::new(Entry::new(Running {
            command: command.to_string(),
            handle,
            stdin: Some(stdin),
            stdout: VecDeque::new(),
            stderr: VecDeque::new(),
            stderr_dropped: 0,
            exit: None,
            started: Instant::now(),
            ended: None,
            recent: VecDeque::new(),
            released: false,
            kept: None,
        }));
        // The watcher holds the process weakly: releasing it or dropping the table still kills
        // it. Without a runtime (never the case for a plugin's import) nothing watches and the
        // plugin's own pulls see the end, as before.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(watch(
                Arc::downgrade(&entry),
                id,
                self.gone.clone(),
                on_exit,
            ));
        }
        entries.live.insert(id, entry);
        Ok(id)
    }

    pub async fn write(&self, id: u64, data: &[u8]) -> Result<(), ProcessError> {
        let entry = self.get(id)?;
        let mut running = entry.lock().await;
        let Some(stdin) = running.stdin.as_mut() else {
            return Err(ProcessError::Failed(format!(
                "process {id}'s standard input is closed"
            )));
        };
        let written = tokio::time::timeout(WRITE_TIMEOUT, async {
            stdin.write_all(data).await?;
            stdin.flush().await
        })
        .await;
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                running.stdin = None;
                Err(ProcessError::Failed(format!(
                    "cannot write to process {id} (`{}`): {e}",
                    running.command
                )))
            }
            Err(_) => Err(ProcessError::Failed(format!(
                "process {id} (`{}`) read none of its input for {} s",
                running.command,
                WRITE_TIMEOUT.as_secs()
            ))),
        }
    }

    pub async fn close_stdin(&self, id: u64) -> Result<(), ProcessError> {
        let entry = self.get(id)?;
        let mut running = entry.lock().await;
        if let Some(mut stdin) = running.stdin.take() {
            // Closing is what matters; a program that already went away has nothing to flush to.
            let _ = stdin.shutdown().await;
        }
        Ok(())
    }

    /// Reads up to `max` bytes, or one line when `line`, waiting up to `wait`.
    pub async fn read(
        &self,
        id: u64,
        stream: Stream,
        max: usize,
        line: bool,
        wait: Duration,
    ) -> Result<Output, ProcessError> {
        if max == 0 {
            return Err(ProcessError::Invalid("max-bytes must be at least 1".into()));
        }
        let entry = self.get(id)?;
        let mut running = entry.lock().await;
        let deadline = Instant::now() + wait.min(MAX_WAIT);
        let mut late = LatePulls::default();
        loop {
            if let Some(data) = running.take(stream, max, line) {
                return Ok(Output::Data(data));
            }
            if running.exit.is_some() {
                // Whatever is left of a last line without its newline.
                let buffer = running.buffer(stream);
                if buffer.is_empty() {
                    return Ok(Output::Closed);
                }
                let n = buffer.len().min(if line { STDOUT_CAP } else { max });
                return Ok(Output::Data(buffer.drain(..n).collect()));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if late.exhausted(left) || !running.pull(left).await {
                return Ok(Output::Idle);
            }
        }
    }

    pub async fn stderr_dropped(&self, id: u64) -> Result<u64, ProcessError> {
        Ok(self.get(id)?.lock().await.stderr_dropped)
    }

    pub async fn signal(&self, id: u64, signal: i32) -> Result<(), ProcessError> {
        let entry = self.get(id)?;
        let mut running = entry.lock().await;
        if signal == libc::SIGKILL {
            running.handle.kill();
        } else {
            running.handle.signal(signal);
        }
        Ok(())
    }

    /// Waits up to `wait` for the end; `Some(code)` once it ended.
    pub async fn wait(&self, id: u64, wait: Duration) -> Result<Option<Option<i32>>, ProcessError> {
        let entry = self.get(id)?;
        let mut running = entry.lock().await;
        let deadline = Instant::now() + wait.min(MAX_WAIT);
        let mut late = LatePulls::default();
        loop {
            if let Some(code) = running.exit {
                return Ok(Some(code));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if late.exhausted(left) || !running.pull(left).await {
                return Ok(running.exit);
            }
        }
    }

    /// Forgets the process, killing its group if it still runs.
    pub async fn release(&self, id: u64) -> Result<(), ProcessError> {
        let entry = self
            .lock()
            .live
            .remove(&id)
            .ok_or(ProcessError::Unknown(id))?;
        let mut running = entry.lock().await;
        running.released = true;
        if running.exit.is_none() {
            running.handle.kill();
        }
        Ok(())
    }

    /// Keeps a running process past tack's exit, its output going on to a new file in
    /// `log_dir` (see [`ProcessHandle::keep`]). Whether to is the user's decision, asked by the
    /// caller.
    pub async fn keep(&self, id: u64, log_dir: &std::path::Path) -> Result<Kept, ProcessError> {
        let entry = self.get(id)?;
        let mut running = entry.lock().await;
        if let Some(kept) = &running.kept {
            return Ok(kept.clone());
        }
        if running.exit.is_some() {
            return Err(ProcessError::Failed(format!(
                "process {id} (`{}`) has ended; there is nothing to keep",
                running.command
            )));
        }
        let cannot =
            |why: String| ProcessError::Failed(format!("process {id} cannot be kept: {why}"));
        let name = format!(
            "{}-{id}.log",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        );
        let (log, path) = kept_log::create(log_dir, &name).map_err(|e| cannot(e.to_string()))?;
        let group = running
            .handle
            .keep(log)
            .await
            .map_err(|e| cannot(e.to_string()))?;
        let kept = Kept { group, log: path };
        running.kept = Some(kept.clone());
        Ok(kept)
    }

    /// How long the process has run and what it wrote last, read or not: for showing it to a
    /// person without taking output from whoever reads it.
    pub async fn details(&self, id: u64) -> Result<ProcessDetails, ProcessError> {
        let entry = self.get(id)?;
        let running = entry.lock().await;
        let until = running.ended.unwrap_or_else(Instant::now);
        Ok(ProcessDetails {
            runtime: until.saturating_duration_since(running.started),
            recent: running.recent.iter().copied().collect(),
        })
    }

    pub async fn list(&self) -> Vec<ProcessInfo> {
        let entries: Vec<(u64, Arc<Entry>)> = self
            .lock()
            .live
            .iter()
            .map(|(id, e)| (*id, e.clone()))
            .collect();
        let mut infos = Vec::with_capacity(entries.len());
        for (id, entry) in entries {
            let running = entry.lock().await;
            infos.push(ProcessInfo {
                id,
                command: running.command.clone(),
                exit: running.exit,
                kept: running.kept.is_some(),
            });
        }
        infos
    }

    fn get(&self, id: u64) -> Result<Arc<Entry>, ProcessError> {
        self.lock()
            .live
            .get(&id)
            .cloned()
            .ok_or(ProcessError::Unknown(id))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // The table holds no invariant a panicking holder could break halfway.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Running {
    fn buffer(&mut self, stream: Stream) -> &mut VecDeque<u8> {
        match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        }
    }

    /// What a read can return now: `max` bytes, or a whole line (a line over the cap comes in
    /// pieces of the cap).
    fn take(&mut self, stream: Stream, max: usize, line: bool) -> Option<Vec<u8>> {
        let buffer = self.buffer(stream);
        if buffer.is_empty() {
            return None;
        }
        let n = if line {
            match buffer.iter().position(|b| *b == b'\n') {
                Some(at) => at + 1,
                None if buffer.len() >= STDOUT_CAP => STDOUT_CAP,
                None => return None,
            }
        } else {
            buffer.len().min(max)
        };
        Some(buffer.drain(..n).collect())
    }

    fn stdout_full(&self) -> bool {
        self.stdout.len() >= STDOUT_CAP
    }

    fn remember(&mut self, bytes: &[u8]) {
        self.recent.extend(bytes);
        let over = self.recent.len().saturating_sub(RECENT_KEEP);
        self.recent.drain(..over);
    }

    fn ended(&mut self, code: Option<i32>) {
        self.exit = Some(code);
        self.ended = Some(Instant::now());
        self.stdin = None;
    }

    /// Takes the next thing the program did, waiting up to `wait`; `false` when nothing
    /// happened (or nothing may be read while standard output is full).
    async fn pull(&mut self, wait: Duration) -> bool {
        if self.exit.is_some() || self.stdout_full() {
            // Stopping here is the back-pressure: the pipe fills and the program waits.
            if self.exit.is_none() {
                tokio::time::sleep(wait.min(Duration::from_millis(50))).await;
            }
            return false;
        }
        match self.handle.next(wait).await {
            Observed::Stdout(bytes) => {
                self.remember(&bytes);
                self.stdout.extend(bytes);
                true
            }
            Observed::Stderr(bytes) => {
                self.remember(&bytes);
                self.stderr.extend(bytes);
                let over = self.stderr.len().saturating_sub(STDERR_KEEP);
                if over > 0 {
                    self.stderr.drain(..over);
                    self.stderr_dropped += over as u64;
                }
                true
            }
            Observed::Exited(code) => {
                self.ended(code);
                true
            }
            // Nobody cancels the handle and it has no timeout, so the end can only be a kill.
            Observed::TimedOut | Observed::Cancelled => {
                self.ended(None);
                true
            }
            Observed::Idle => false,
        }
    }
}

/// The longest the watcher holds a process in one pull; a call wanting the process cuts it short.
const WATCH_SLICE: Duration = Duration::from_secs(30);

/// Pulls for the plugin until the process ends, then tells `on_exit`; stops without a word once
/// the process is released or the table goes.
async fn watch(entry: Weak<Entry>, id: u64, gone: CancellationToken, on_exit: Option<ExitNotice>) {
    let ended = tokio::select! {
        biased;
        _ = gone.cancelled() => return,
        ended = until_end(&entry) => ended,
    };
    if let (Some(code), Some(notice)) = (ended, on_exit) {
        if !gone.is_cancelled() {
            notice(id, code).await;
        }
    }
}

/// The process's exit code once it ended; `None` once it was released or dropped.
async fn until_end(entry: &Weak<Entry>) -> Option<Option<i32>> {
    loop {
        let entry = entry.upgrade()?;
        entry.until_unwanted().await;
        let mut running = entry.running.lock().await;
        if running.released {
            return None;
        }
        if let Some(code) = running.exit {
            return Some(code);
        }
        // Registered before the count is read: a call that starts wanting the process after
        // this check wakes the pull below.
        let wanted = entry.wanted.notified();
        tokio::pin!(wanted);
        wanted.as_mut().enable();
        if entry.is_wanted() {
            continue;
        }
        if running.stdout_full() {
            // Nothing is read until the plugin reads (the back-pressure), so wait for its call.
            drop(running);
            wanted.await;
            continue;
        }
        tokio::select! {
            biased;
            _ = &mut wanted => {}
            _ = running.pull(WATCH_SLICE) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::exec::ChildEnv;

    fn start(table: &ProcessTable, command: &str, grant: &[&str]) -> Result<u64, ProcessError> {
        let dir = std::env::temp_dir();
        let patterns: Vec<String> = grant.iter().map(|s| s.to_string()).collect();
        table.spawn(
            command,
            &patterns,
            |plan, cancel| {
                ProcessHandle::spawn_interactive(plan, ChildEnv::Inherit, &dir, cancel, None)
            },
            None,
        )
    }

    #[tokio::test]
    async fn a_line_written_comes_back_and_the_process_outlives_each_read() {
        let table = ProcessTable::default();
        let id = start(&table, "cat", &["cat"]).expect("spawn");
        for round in 0..3 {
            let line = format!("round {round}\n");
            table.write(id, line.as_bytes()).await.expect("write");
            let got = table
                .read(id, Stream::Stdout, 1024, true, Duration::from_secs(10))
                .await
                .expect("read");
            assert_eq!(got, Output::Data(line.into_bytes()));
        }
        table.close_stdin(id).await.expect("close");
        assert_eq!(
            table.wait(id, Duration::from_secs(10)).await,
            Ok(Some(Some(0)))
        );
        assert_eq!(
            table
                .read(id, Stream::Stdout, 10, false, Duration::from_millis(10))
                .await,
            Ok(Output::Closed)
        );
        table.release(id).await.expect("release");
        assert_eq!(
            table.wait(id, Duration::ZERO).await,
            Err(ProcessError::Unknown(id))
        );
    }

    /// Keeping a process hands its pipes to the relay without losing a byte: reading goes on as
    /// before (both streams, and standard input still reaches it), and everything it writes
    /// from then on is in the log as well; the table going no longer kills it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_kept_process_is_read_as_before_and_its_output_also_goes_to_the_log() {
        let data = tempfile::tempdir().expect("data dir");
        let table = ProcessTable::default();
        let id = start(
            &table,
            "sh -c 'echo first; read x; echo second $x; echo warned >&2; exec sleep 30'",
            &["**"],
        )
        .expect("spawn");
        async fn line(table: &ProcessTable, id: u64, stream: Stream) -> Output {
            table
                .read(id, stream, 1024, true, Duration::from_secs(10))
                .await
                .expect("read")
        }
        assert_eq!(
            line(&table, id, Stream::Stdout).await,
            Output::Data(b"first\n".to_vec())
        );
        let kept = table.keep(id, data.path()).await.expect("keep");
        assert!(kept.log.starts_with(data.path().join("kept")), "{kept:?}");
        assert_eq!(table.keep(id, data.path()).await, Ok(kept.clone()));
        table.write(id, b"hi\n").await.expect("write");
        assert_eq!(
            line(&table, id, Stream::Stdout).await,
            Output::Data(b"second hi\n".to_vec())
        );
        assert_eq!(
            line(&table, id, Stream::Stderr).await,
            Output::Data(b"warned\n".to_vec())
        );
        assert!(table.list().await[0].kept);
        drop(table);
        // The table is gone (and with it the program's standard input), and the program runs
        // on until the test ends its group.
        tokio::time::sleep(Duration::from_millis(200)).await;
        // SAFETY: kill(2) with 0 only checks that the group exists.
        assert_eq!(
            unsafe { libc::kill(-kept.group, 0) },
            0,
            "the kept group died with the table"
        );
        // SAFETY: ends the group this test started.
        unsafe { libc::kill(-kept.group, libc::SIGKILL) };
        let log = std::fs::read_to_string(&kept.log).expect("log");
        assert!(
            log.contains("second hi\n") && log.contains("warned\n") && !log.contains("first"),
            "{log:?}"
        );
    }

    /// A program that wrote far more than anyone read is stuck on a full pipe behind full
    /// buffers; keeping it still goes through, and not a byte is lost or reordered.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn keeping_a_program_whose_output_nobody_read_loses_nothing() {
        let data = tempfile::tempdir().expect("data dir");
        let table = ProcessTable::default();
        // More than tack ever holds unread (the 1 MiB buffer, 64 chunks of up to 32 KiB in the
        // channel, the pump's pending chunk, the pipe), whatever sizes the pipe's reads come in:
        // the end must pass through the relay, and so reach the log.
        let id = start(
            &table,
            "sh -c 'head -c 8000000 /dev/zero | tr \"\\0\" x; echo; echo END; exec sleep 30'",
            &["**"],
        )
        .expect("spawn");
        // Long enough for the buffers to fill and the program to block.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let kept = tokio::time::timeout(Duration::from_secs(20), table.keep(id, data.path()))
            .await
            .expect("keep does not wait for a reader")
            .expect("kept");
        let mut read = Vec::new();
        while !read.ends_with(b"END\n") {
            match table
                .read(id, Stream::Stdout, 1 << 20, false, Duration::from_secs(10))
                .await
                .expect("read")
            {
                Output::Data(data) => read.extend_from_slice(&data),
                other => panic!("{other:?} after {} bytes", read.len()),
            }
        }
        assert_eq!(read.len(), 8_000_000 + 1 + 4);
        assert!(read[..8_000_000].iter().all(|b| *b == b'x'));
        // The relay hands each chunk to tack before it writes it to the log: wait for the log to
        // catch up before ending the group, or the last chunk may die with it.
        let give_up = std::time::Instant::now() + Duration::from_secs(10);
        while !std::fs::read(&kept.log).is_ok_and(|log| log.ends_with(b"END\n"))
            && std::time::Instant::now() < give_up
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // SAFETY: ends the group this test started.
        unsafe { libc::kill(-kept.group, libc::SIGKILL) };
        let log = std::fs::read(&kept.log).expect("log");
        let odd = log.iter().position(|b| !b"xEND\n".contains(b));
        assert!(
            log.ends_with(b"x\nEND\n") && odd.is_none(),
            "the log holds {} bytes, ends with {:?}, an odd byte at {odd:?}",
            log.len(),
            String::from_utf8_lossy(&log[log.len().saturating_sub(20)..])
        );
    }

    /// A plugin checking on a background program without waiting gets what it wrote so far, and
    /// sees it end.
    #[tokio::test]
    async fn a_zero_wait_takes_what_has_arrived_and_sees_the_end() {
        let table = ProcessTable::default();
        let id = start(&table, "sh -c 'echo one; echo two >&2'", &["**"]).expect("spawn");
        // Give the program time to write and exit without anyone reading.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(
            table
                .read(id, Stream::Stdout, 1024, false, Duration::ZERO)
                .await,
            Ok(Output::Data(b"one\n".to_vec()))
        );
        assert_eq!(
            table
                .read(id, Stream::Stderr, 1024, false, Duration::ZERO)
                .await,
            Ok(Output::Data(b"two\n".to_vec()))
        );
        assert_eq!(table.wait(id, Duration::ZERO).await, Ok(Some(Some(0))));
        assert_eq!(
            table
                .read(id, Stream::Stdout, 1024, false, Duration::ZERO)
                .await,
            Ok(Output::Closed)
        );
    }

    /// A notice that sends what it is told on a channel.
    fn told() -> (
        ExitNotice,
        tokio::sync::mpsc::UnboundedReceiver<(u64, Option<i32>)>,
    ) {
        let (send, receive) = tokio::sync::mpsc::unbounded_channel();
        let notice: ExitNotice = Box::new(move |id, code| {
            Box::pin(async move {
                let _ = send.send((id, code));
            })
        });
        (notice, receive)
    }

    fn start_told(
        table: &ProcessTable,
        command: &str,
        notice: ExitNotice,
    ) -> Result<u64, ProcessError> {
        let dir = std::env::temp_dir();
        table.spawn(
            command,
            &["**".to_string()],
            |plan, cancel| {
                ProcessHandle::spawn_interactive(plan, ChildEnv::Inherit, &dir, cancel, None)
            },
            Some(notice),
        )
    }

    /// Nobody reads or waits, as between runs: the end is still noticed and told, and the
    /// output stays for the plugin.
    #[tokio::test]
    async fn an_end_nobody_waits_for_is_told_and_the_output_stays() {
        let table = ProcessTable::default();
        let (notice, mut exits) = told();
        let id = start_told(&table, "echo out; exit 3", notice).expect("spawn");
        let exit = tokio::time::timeout(Duration::from_secs(30), exits.recv())
            .await
            .expect("told in time");
        assert_eq!(exit, Some((id, Some(3))));
        assert_eq!(table.list().await[0].exit, Some(Some(3)));
        let details = table.details(id).await.expect("details");
        assert_eq!(details.recent, b"out\n");
        assert_eq!(
            table
                .read(id, Stream::Stdout, 1024, false, Duration::ZERO)
                .await,
            Ok(Output::Data(b"out\n".to_vec())),
            "details took nothing"
        );
        assert_eq!(
            table.details(id).await.expect("details").recent,
            b"out\n",
            "reading keeps the recent output"
        );
    }

    /// A call waiting on the process is not held up by the watcher's pull.
    #[tokio::test]
    async fn a_call_gets_the_process_while_the_watcher_waits_on_it() {
        let table = ProcessTable::default();
        let (notice, _exits) = told();
        let id = start_told(&table, "cat", notice).expect("spawn");
        tokio::time::sleep(Duration::from_millis(100)).await;
        let answered = tokio::time::timeout(Duration::from_secs(5), async {
            table.write(id, b"ping\n").await.expect("write");
            table
                .read(id, Stream::Stdout, 1024, true, Duration::from_secs(5))
                .await
        })
        .await
        .expect("not held up for the watcher's slice");
        assert_eq!(answered, Ok(Output::Data(b"ping\n".to_vec())));
        let details = table.details(id).await.expect("details");
        assert!(details.runtime >= Duration::from_millis(100), "{details:?}");
    }

    /// Many calls from several threads, as a plugin's instances make them, each gets the process
    /// in turn: none waits out the watcher's 30 s pull (the watcher once took the lock again
    /// between a call's wake-up and its place in the queue).
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn calls_from_many_threads_never_wait_out_the_watchers_pull() {
        let table = Arc::new(ProcessTable::default());
        let (notice, _exits) = told();
        let id = start_told(&table, "cat", notice).expect("spawn");
        let mut rounds = tokio::task::JoinSet::new();
        for task in 0..4 {
            let table = table.clone();
            rounds.spawn(async move {
                for round in 0..50 {
                    // Each task's own short line; lines from tasks may interleave, so each
                    // only checks that a whole line came back in time.
                    let line = format!("{task}-{round}\n");
                    table.write(id, line.as_bytes()).await.expect("write");
                    let got = table
                        .read(id, Stream::Stdout, 1024, true, Duration::from_secs(20))
                        .await
                        .expect("read");
                    assert!(matches!(got, Output::Data(d) if d.ends_with(b"\n")));
                    // Let the watcher take the process between calls.
                    tokio::task::yield_now().await;
                }
            });
        }
        tokio::time::timeout(Duration::from_secs(25), async {
            while let Some(done) = rounds.join_next().await {
                done.expect("task");
            }
        })
        .await
        .expect("no call waited out a pull");
    }

    /// A process released while it runs is killed and never told about; so is one whose table
    /// went.
    #[tokio::test]
    async fn a_released_process_or_a_dropped_table_tells_nothing() {
        let table = ProcessTable::default();
        let (notice, mut exits) = told();
        let id = start_told(&table, "sleep 30", notice).expect("spawn");
        table.release(id).await.expect("release");
        let (notice, mut dropped) = told();
        start_told(&table, "sleep 30", notice).expect("spawn");
        drop(table);
        for exits in [&mut exits, &mut dropped] {
            let told = tokio::time::timeout(Duration::from_secs(10), exits.recv())
                .await
                .expect("the watcher stopped, dropping its notice");
            assert_eq!(told, None);
        }
    }

    #[tokio::test]
    async fn an_ungranted_program_is_denied_and_the_budget_holds() {
        let table = ProcessTable::default();
        assert!(matches!(
            start(&table, "sh -c id", &["cat"]),
            Err(ProcessError::Denied(_))
        ));
        let ids: Vec<u64> = (0..MAX_PROCESSES)
            .map(|_| start(&table, "cat", &["cat"]).expect("spawn"))
            .collect();
        assert!(matches!(
            start(&table, "cat", &["cat"]),
            Err(ProcessError::Limit(_))
        ));
        table.release(ids[0]).await.expect("release");
        start(&table, "cat", &["cat"]).expect("a released place is free again");
    }

    #[test]
    fn a_grant_of_many_command_lines_buys_one_process_each_up_to_a_bound() {
        let lines = |n: usize| -> Vec<String> { (0..n).map(|i| format!("server-{i}")).collect() };
        assert_eq!(process_budget(&lines(1)), MAX_PROCESSES);
        assert_eq!(process_budget(&lines(12)), 12);
        assert_eq!(process_budget(&lines(500)), MAX_GRANTED_PROCESSES);
    }

    #[tokio::test]
    async fn a_flood_on_stderr_keeps_the_newest_bytes_and_never_stops_the_program() {
        let table = ProcessTable::default();
        // 2 MiB of stderr, then one line on stdout: reading stdout must get there.
        let id = start(
            &table,
            "sh -c 'head -c 2097152 /dev/zero >&2; echo done'",
            &["**"],
        )
        .expect("spawn");
        let got = table
            .read(id, Stream::Stdout, 1024, true, Duration::from_secs(30))
            .await
            .expect("read");
        assert_eq!(got, Output::Data(b"done\n".to_vec()));
        let dropped = table.stderr_dropped(id).await.expect("dropped");
        assert!(
            dropped >= (2 << 20) - STDERR_KEEP as u64 - 64 * 1024,
            "{dropped}"
        );
    }

    #[tokio::test]
    async fn signals_reach_the_group_and_release_kills_a_running_program() {
        let table = ProcessTable::default();
        let id = start(&table, "sleep 30", &["sleep *"]).expect("spawn");
        assert_eq!(table.wait(id, Duration::from_millis(50)).await, Ok(None));
        table.signal(id, libc::SIGTERM).await.expect("signal");
        assert_eq!(
            table.wait(id, Duration::from_secs(10)).await,
            Ok(Some(None)),
            "a signal ended it"
        );
        let listed = table.list().await;
        assert_eq!(listed.len(), 1);
        assert_eq!(
            listed[0].exit,
            Some(None),
            "an ended process stays until released"
        );
        table.release(id).await.expect("release");
        let id = start(&table, "sleep 30", &["sleep *"]).expect("spawn");
        table.release(id).await.expect("release");
        assert!(table.list().await.is_empty());
    }
}
