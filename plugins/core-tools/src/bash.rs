//! `bash`: a shell command on the user's machine, through the host's `exec` capability (the
//! guest cannot start processes itself).

use std::time::{Duration, Instant};

use serde::Deserialize;
use tack_sdk::exec::{self, ExecError, ExecRequest, ProcessEvent};
use tack_sdk::serde_json::json;
use tack_sdk::{ToolCall, ToolResult, ToolSpec};

use crate::capture::{Capture, Finished};
use crate::paths::Workspace;
use crate::truncate::{format_size, plural};

/// Applied when the model gives no timeout, so a forgotten server or watcher cannot hold the
/// agent forever; the model can ask for more.
const DEFAULT_TIMEOUT_SECS: f64 = 600.0;
/// How long one `next` may block in the host; it returns as soon as output arrives, so this only
/// bounds how late a progress update can be.
const WAIT_MS: u32 = 250;
/// Minimum time between progress updates, so fast output does not flood front ends.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
const PROGRESS_LINES: usize = 100;
const PROGRESS_BYTES: usize = 8 * 1024;

#[derive(Deserialize)]
struct Args {
    command: String,
    timeout: Option<f64>,
    #[serde(default)]
    run_in_background: bool,
    #[serde(default)]
    unsandboxed: bool,
}

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "bash",
        "Run command",
        "Run a shell command (`sh -c`) in the workspace root and return its output, stdout and \
         stderr together in the order they were written. Each call starts a fresh shell: `cd` and exported \
         variables do not carry over, so chain dependent steps with `&&`. There is no terminal \
         and no input: use non-interactive flags (`-y`, `--no-pager`, `CI=1`). The command is \
         killed after `timeout` seconds (default 600). The result shows the last 2000 lines or \
         50 KB of output, whichever is less; when more was produced, the full output is saved \
         to a file named in the result, which you can page through with read. A non-zero exit \
         code, a timeout or a cancellation makes the result an error that says which. Prefer \
         read, write, edit, ls, find and grep over shell equivalents for files. For a command \
         that keeps running (a dev server, a watcher) or a slow one you want to check on later, \
         pass `run_in_background: true`: the call returns at once with an id for bash_output \
         and bash_kill, and the command has no timeout.",
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "description": "The command line to run with `sh -c` in the workspace root."
                },
                "timeout": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "Seconds before the command is killed (default 600). Raise it for long builds or test suites."
                },
                "run_in_background": {
                    "type": "boolean",
                    "description": "Start the command and return at once; read its output later with bash_output and stop it with bash_kill."
                },
                "unsandboxed": {
                    "type": "boolean",
                    "description": "Run outside the command sandbox (which keeps commands to the workspace and off the network). Only when the sandbox blocked this very command, as its result says; the user is asked first, and may refuse."
                }
            },
            "required": ["command"],
            "additionalProperties": false
        }),
    )
    .snippet("bash: run shell commands in the workspace (build, test, git, package managers)")
}

pub fn run(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: Args = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    match bash(ws, &call.id, &args) {
        Ok(result) => result,
        Err(message) => ToolResult::error(message),
    }
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ending {
    Exited(Option<i32>),
    TimedOut(f64),
    Cancelled,
}

fn bash(ws: &Workspace, call_id: &str, args: &Args) -> Result<ToolResult, String> {
    if args.command.trim().is_empty() {
        return Err("The command is empty.".to_string());
    }
    if args.run_in_background {
        if args.unsandboxed {
            return Err(
                "A background command runs in the command sandbox only; run it \
                        without `run_in_background` to run it unsandboxed."
                    .to_string(),
            );
        }
        return Ok(crate::background::start(&args.command));
    }
    let timeout_secs = args
        .timeout
        .filter(|t| t.is_finite() && *t > 0.0)
        .unwrap_or(DEFAULT_TIMEOUT_SECS);
    // Float-to-int `as` saturates, so an absurd timeout becomes "practically never".
    let timeout_ms = (timeout_secs * 1000.0).ceil() as u64;
    let mut request = ExecRequest {
        // stderr into stdout's pipe, so the output reads in the order it was written, as in a
        // terminal; two pipes can only be merged chunk by chunk, in whatever order they are read.
        command: format!("exec 2>&1\n{}", args.command),
        // The host's default is the workspace root, where the guest's paths also point.
        cwd: None,
        timeout_ms: Some(timeout_ms),
    };
    let spawned = match exec::spawn(&request) {
        // A narrowed exec grant runs commands without a shell, where the redirection is not
        // allowed; the command then runs as given, its streams merged chunk by chunk.
        Err(ExecError::Denied(_)) => {
            request.command = args.command.clone();
            exec::spawn(&request)
        }
        other => other,
    };
    let process = spawned.map_err(|e| match e {
        ExecError::Denied(m) => format!("The command was not run: {m}"),
        ExecError::Invalid(m) => format!("The command is invalid: {m}"),
        ExecError::Failed(m) => format!("The command could not be started: {m}"),
    })?;

    let mut capture = Capture::for_call(ws, call_id);
    // `None` until the first update, so the first output shows at once.
    let mut last_progress: Option<Instant> = None;
    let mut progress_pending = false;
    let ending = loop {
        match process.next(WAIT_MS) {
            ProcessEvent::Stdout(bytes) | ProcessEvent::Stderr(bytes) => {
                capture.push(&bytes);
                progress_pending = true;
            }
            ProcessEvent::Idle => {}
            ProcessEvent::Exited(code) => break Ending::Exited(code),
            ProcessEvent::TimedOut => break Ending::TimedOut(timeout_secs),
            ProcessEvent::Cancelled => break Ending::Cancelled,
        }
        let due = last_progress.is_none_or(|at| at.elapsed() >= PROGRESS_EVERY);
        if progress_pending && due {
            tack_sdk::progress(call_id, capture.preview(PROGRESS_LINES, PROGRESS_BYTES));
            last_progress = Some(Instant::now());
            progress_pending = false;
        }
    };
    drop(process);
    let finished = capture.finish();
    Ok(result(ws, ending, finished))
}

fn result(ws: &Workspace, ending: Ending, out: Finished) -> ToolResult {
    let mut text = out.text.clone();
    let mut notes = Vec::new();
    if out.truncated {
        notes.push(truncation_note(ws, &out));
    }
    let (is_error, status) = match ending {
        Ending::Exited(Some(0)) => (false, None),
        Ending::Exited(Some(code)) => (true, Some(format!("[Command exited with code {code}]"))),
        Ending::Exited(None) => (true, Some("[Command was killed by a signal]".to_string())),
        Ending::TimedOut(secs) => (
            true,
            Some(format!(
                "[Command timed out after {} and was killed. Pass a larger timeout if it needs \
                 longer.]",
                format_secs(secs)
            )),
        ),
        Ending::Cancelled => (true, Some("[Command cancelled by the user]".to_string())),
    };
    notes.extend(status);
    if text.is_empty() {
        text = "(no output)".to_string();
    }
    if !notes.is_empty() {
        text.push_str("\n\n");
        text.push_str(&notes.join("\n"));
    }
    let result = if is_error {
        ToolResult::error(text)
    } else {
        ToolResult::text(text)
    };
    let (exit_code, timed_out, cancelled) = match ending {
        Ending::Exited(code) => (code, false, false),
        Ending::TimedOut(_) => (None, true, false),
        Ending::Cancelled => (None, false, true),
    };
    result.with_details(json!({
        "exitCode": exit_code,
        "timedOut": timed_out,
        "cancelled": cancelled,
        "truncated": out.truncated,
        "totalLines": out.total_lines,
        "totalBytes": out.total_bytes,
        "fullOutputPath": out.full_output.as_ref().map(|p| ws.display(p)),
    }))
}

pub(crate) fn truncation_note(ws: &Workspace, out: &Finished) -> String {
    let shown = if out.last_line_cut {
        format!(
            "[Showing the last 50 KB of the output's last line ({} of output in {} line{} in \
             all).",
            format_size(out.total_bytes),
            out.total_lines,
            plural(out.total_lines)
        )
    } else {
        format!(
            "[Showing the last {} of {} lines ({} in all).",
            out.shown_lines,
            out.total_lines,
            format_size(out.total_bytes)
        )
    };
    match (&out.full_output, &out.spill_error) {
        (Some(path), _) => format!(
            "{shown} Full output: {} (page through it with read, using offset and limit).]",
            ws.display(path)
        ),
        (None, Some(err)) => format!("{shown} The full output could not be saved: {err}.]"),
        (None, None) => format!("{shown}]"),
    }
}

fn format_secs(secs: f64) -> String {
    if secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> Workspace {
        Workspace::new("/w", None).expect("absolute")
    }

    fn finished(text: &str) -> Finished {
        Finished {
            text: text.to_string(),
            shown_lines: 1,
            total_lines: 1,
            total_bytes: text.len() as u64,
            truncated: false,
            last_line_cut: false,
            full_output: None,
            spill_error: None,
        }
    }

    #[test]
    fn success_is_plain_output() {
        let r = result(&ws(), Ending::Exited(Some(0)), finished("ok"));
        assert!(!r.is_error);
        assert_eq!(r.text_content(), "ok");
        let r = result(&ws(), Ending::Exited(Some(0)), finished(""));
        assert_eq!(r.text_content(), "(no output)");
    }

    #[test]
    fn failures_say_why() {
        let r = result(&ws(), Ending::Exited(Some(2)), finished("boom"));
        assert!(r.is_error);
        assert_eq!(r.text_content(), "boom\n\n[Command exited with code 2]");
        let r = result(&ws(), Ending::TimedOut(30.0), finished(""));
        assert!(r.text_content().contains("timed out after 30 s"));
        let r = result(&ws(), Ending::Cancelled, finished("x"));
        assert!(r.is_error && r.text_content().contains("cancelled"));
    }

    #[test]
    fn truncation_names_the_saved_file() {
        let mut out = finished("tail");
        out.truncated = true;
        out.total_lines = 9000;
        out.shown_lines = 2000;
        out.full_output = Some("/w/.tack/tmp/bash-1.log".into());
        let r = result(&ws(), Ending::Exited(Some(0)), out);
        let text = r.text_content();
        assert!(text.contains("last 2000 of 9000 lines"), "{text}");
        assert!(text.contains("Full output: .tack/tmp/bash-1.log"), "{text}");
    }
}
