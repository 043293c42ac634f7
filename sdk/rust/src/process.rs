//! Long-lived programs a plugin writes to and reads from (`tack:plugin/process`, new in 0.2.0;
//! needs the `process` grant): an MCP server, a language server, an interactive shell.
//!
//! A [`Process`] is a number the host gave the plugin. The host runs a plugin in several
//! instances, and a process belongs to the plugin, not to the instance: keep its id where the
//! next call can find it (plugin state in the session, or a file in the data directory) and
//! [`Process::from_id`] reaches it from any instance. So dropping a `Process` does nothing; the
//! program runs until it exits, the plugin calls [`Process::release`], or tack exits.
//!
//! To hear when one of its processes ends, also between runs when no call of the plugin runs,
//! a plugin subscribes to `process_exit` ([`crate::events::subscribe`]); the event's data
//! carry the process's `id` and its exit `code` (`null` for a signal).
//!
//! ```rust,no_run
//! use std::time::Duration;
//! use tack_sdk::process::Process;
//!
//! let server = Process::spawn("cat")?;
//! server.write_line("{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}")?;
//! if let Some(line) = server.read_line(Duration::from_secs(5))? {
//!     tack_sdk::log::info(line);
//! }
//! # Ok::<(), tack_sdk::process::ProcessError>(())
//! ```

use std::time::Duration;

use crate::additions::tack::plugin0_2_0::process as host;
pub use crate::additions::tack::plugin0_2_0::process::{
    ExitStatus, KeptProcess, Output, OutputStream, ProcessDetails, ProcessError, ProcessInfo,
    Signal, SpawnRequest,
};

impl ProcessError {
    /// The host's explanation, without the variant name.
    pub fn message(&self) -> String {
        match self {
            ProcessError::Denied(m)
            | ProcessError::Invalid(m)
            | ProcessError::Failed(m)
            | ProcessError::Limit(m) => m.clone(),
            ProcessError::Unknown(id) => format!("no process {id}"),
        }
    }
}

fn millis(wait: Duration) -> u32 {
    u32::try_from(wait.as_millis()).unwrap_or(u32::MAX)
}

/// A program the plugin started, by its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Process {
    id: u64,
}

impl Process {
    /// Starts `command` in the workspace (matched against the `process` grant as `exec`
    /// matches its own).
    pub fn spawn(command: &str) -> Result<Self, ProcessError> {
        Self::spawn_in(command, None)
    }

    /// Starts `command` in `cwd`, relative to the workspace or absolute inside it.
    pub fn spawn_in(command: &str, cwd: Option<&str>) -> Result<Self, ProcessError> {
        let id = host::spawn(&SpawnRequest {
            command: command.to_string(),
            cwd: cwd.map(str::to_string),
        })?;
        Ok(Self { id })
    }

    /// A process this plugin started earlier, possibly in another instance.
    pub fn from_id(id: u64) -> Self {
        Self { id }
    }

    /// Its id, to keep for the next call.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Writes to its standard input.
    pub fn write(&self, data: &[u8]) -> Result<(), ProcessError> {
        host::write(self.id, data)
    }

    /// Writes `line` and a newline to its standard input.
    pub fn write_line(&self, line: &str) -> Result<(), ProcessError> {
        let mut data = Vec::with_capacity(line.len() + 1);
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
        host::write(self.id, &data)
    }

    /// Closes its standard input.
    pub fn close_stdin(&self) -> Result<(), ProcessError> {
        host::close_stdin(self.id)
    }

    /// One line of standard output without its newline (invalid UTF-8 replaced), waiting up to
    /// `wait`; `None` when no whole line arrived in time or the output has ended (see
    /// [`Process::read_line_from`] to tell the two apart).
    pub fn read_line(&self, wait: Duration) -> Result<Option<String>, ProcessError> {
        Ok(match self.read_line_from(OutputStream::Stdout, wait)? {
            Output::Data(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                Some(text.strip_suffix('\n').unwrap_or(&text).to_string())
            }
            Output::Idle | Output::Closed => None,
        })
    }

    /// One line (with its newline) of `stream`, waiting up to `wait`.
    pub fn read_line_from(
        &self,
        stream: OutputStream,
        wait: Duration,
    ) -> Result<Output, ProcessError> {
        host::read_line(self.id, stream, millis(wait))
    }

    /// Up to `max` bytes of `stream`, waiting up to `wait`.
    pub fn read(
        &self,
        stream: OutputStream,
        max: u32,
        wait: Duration,
    ) -> Result<Output, ProcessError> {
        host::read(self.id, stream, max, millis(wait))
    }

    /// How many bytes of standard error the host dropped, unread, to keep the newest.
    pub fn stderr_dropped(&self) -> Result<u64, ProcessError> {
        host::stderr_dropped(self.id)
    }

    /// Sends `signal` to its process group.
    pub fn signal(&self, signal: Signal) -> Result<(), ProcessError> {
        host::send_signal(self.id, signal)
    }

    /// Waits up to `wait` for it to end; `None` while it runs.
    pub fn wait(&self, wait: Duration) -> Result<Option<ExitStatus>, ProcessError> {
        host::wait(self.id, millis(wait))
    }

    /// How long it has run and the newest output it wrote (at most 4 KiB of both streams),
    /// without reading it: the next [`Process::read`] still gets everything. For showing the
    /// process to the user.
    pub fn details(&self) -> Result<ProcessDetails, ProcessError> {
        host::details(self.id)
    }

    /// Keeps it running after tack exits, if the user says yes in tack's own dialog; only from
    /// a command the user ran. Says where its process group and its output are.
    pub fn keep(&self) -> Result<KeptProcess, ProcessError> {
        host::keep(self.id)
    }

    /// Kills it if it still runs and frees its place in the plugin's budget.
    pub fn release(self) -> Result<(), ProcessError> {
        host::release(self.id)
    }
}

/// This plugin's processes, running or ended and not yet released.
pub fn list() -> Vec<ProcessInfo> {
    host::list()
}
