//! Running programs on the user's machine (needs an `exec` grant).
//!
//! [`spawn`] and [`Process::next`] are the streaming API the host provides; [`run`] and
//! [`run_streaming`] drive them to completion and collect the output.

pub use crate::bindings::tack::plugin::exec::*;

use std::time::Duration;

/// How long one `next` call may wait in the host. The host answers as soon as output arrives,
/// so this only bounds how often an idle loop wakes up.
const POLL_MS: u32 = 500;

impl ExecRequest {
    /// Runs `command` in the workspace without a timeout.
    pub fn new(command: impl Into<String>) -> Self {
        ExecRequest {
            command: command.into(),
            cwd: None,
            timeout_ms: None,
        }
    }

    /// Sets the working directory.
    pub fn cwd(mut self, dir: impl Into<String>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Kills the process group after `timeout`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout_ms = Some(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        self
    }
}

impl ExecError {
    /// The host's explanation, without the variant name.
    pub fn message(&self) -> &str {
        match self {
            ExecError::Denied(m) | ExecError::Invalid(m) | ExecError::Failed(m) => m,
        }
    }
}

/// A piece of output as it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chunk<'a> {
    Stdout(&'a [u8]),
    Stderr(&'a [u8]),
}

/// What a finished process produced.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Output {
    /// Standard output, decoded as UTF-8 (invalid sequences replaced).
    pub stdout: String,
    /// Standard error, decoded as UTF-8 (invalid sequences replaced).
    pub stderr: String,
    /// Exit code; `None` when a signal, the timeout or a cancellation ended it.
    pub code: Option<i32>,
    /// Killed because the timeout elapsed.
    pub timed_out: bool,
    /// Killed because the user aborted the tool call.
    pub cancelled: bool,
}

impl Output {
    /// Whether the process exited with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs `command` to completion and collects its output.
pub fn run(command: &str, timeout: Option<Duration>) -> Result<Output, ExecError> {
    let mut request = ExecRequest::new(command);
    if let Some(timeout) = timeout {
        request = request.timeout(timeout);
    }
    run_streaming(&request, |_| {})
}

/// Runs a request to completion, handing each piece of output to `on_output` as it arrives
/// (to forward it with [`crate::progress`], say) and collecting it all.
pub fn run_streaming(
    request: &ExecRequest,
    mut on_output: impl FnMut(Chunk<'_>),
) -> Result<Output, ExecError> {
    let process = spawn(request)?;
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut output = Output::default();
    loop {
        match process.next(POLL_MS) {
            ProcessEvent::Stdout(bytes) => {
                on_output(Chunk::Stdout(&bytes));
                stdout.extend_from_slice(&bytes);
            }
            ProcessEvent::Stderr(bytes) => {
                on_output(Chunk::Stderr(&bytes));
                stderr.extend_from_slice(&bytes);
            }
            ProcessEvent::Idle => {}
            ProcessEvent::Exited(code) => {
                output.code = code;
                break;
            }
            ProcessEvent::TimedOut => {
                output.timed_out = true;
                break;
            }
            ProcessEvent::Cancelled => {
                output.cancelled = true;
                break;
            }
        }
    }
    // Decoding once at the end keeps multi-byte characters split across chunks intact.
    output.stdout = String::from_utf8_lossy(&stdout).into_owned();
    output.stderr = String::from_utf8_lossy(&stderr).into_owned();
    Ok(output)
}
