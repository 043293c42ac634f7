//! Background commands: `bash` with `run_in_background` starts a command that outlives the call
//! (a dev server, a watcher, a slow test suite); `bash_output` reads what it wrote since the
//! last read, `bash_kill` stops it, and `/jobs` lists them for the user.
//!
//! They run through the host's `process` interface, which keeps them for the plugin rather than
//! for one call or instance: in the same command sandbox as any `bash` command, judged by the
//! same policies (the call is a `bash` call), at most 8 at once, each with at most 1 MiB of
//! output waiting to be read (a program that writes more before it is read waits). They stop
//! when tack exits. Standard error is merged into standard output, as for `bash`.

use std::time::Duration;

use serde::Deserialize;
use tack_sdk::process::{self, Output, OutputStream, Process, ProcessError, Signal};
use tack_sdk::serde_json::json;
use tack_sdk::{ToolCall, ToolResult, ToolSpec};

use crate::capture::Capture;
use crate::paths::Workspace;

/// The shell prefix that merges standard error into standard output, so output reads in the
/// order it was written.
const MERGE_STREAMS: &str = "exec 2>&1\n";
/// One read asks for this much.
const READ_CHUNK: u32 = 64 * 1024;
/// What one `bash_output` takes at most, so a command that writes without pause cannot keep
/// the call reading forever; the rest waits for the next call.
const MAX_READ_PER_CALL: usize = 8 << 20;
/// How long `bash_kill` gives a command to exit after SIGTERM before SIGKILL.
const TERMINATE_GRACE: Duration = Duration::from_secs(3);
/// The status-line segment showing how many background commands run.
const STATUS_KEY: &str = "jobs";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputArgs {
    id: u64,
    filter: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KillArgs {
    id: u64,
}

/// The `id` argument both tools take.
fn id_property() -> tack_sdk::serde_json::Value {
    json!({
        "type": "integer",
        "minimum": 0,
        "description": "The id `bash` returned when it started the command."
    })
}

pub fn output_spec() -> ToolSpec {
    ToolSpec::new(
        "bash_output",
        "Read background output",
        "Read what a background command (started with `bash` and `run_in_background: true`) \
         wrote since the last read, and whether it still runs or how it exited. Output that is \
         read is gone from the command's buffer: with `filter`, only lines matching the regular \
         expression are shown and the rest are dropped. Once a command has ended and all its \
         output has been read, its id is released.",
        json!({
            "type": "object",
            "properties": {
                "id": id_property(),
                "filter": {
                    "type": "string",
                    "description": "Only show lines matching this regular expression (Rust regex syntax)."
                }
            },
            "required": ["id"],
            "additionalProperties": false
        }),
    )
    .snippet("bash_output: read new output of a background command")
}

pub fn kill_spec() -> ToolSpec {
    ToolSpec::new(
        "bash_kill",
        "Stop background command",
        "Stop a background command: SIGTERM to it and everything it started, then SIGKILL if it \
         has not exited after 3 seconds. Returns the output it wrote since the last read.",
        json!({
            "type": "object",
            "properties": {
                "id": id_property()
            },
            "required": ["id"],
            "additionalProperties": false
        }),
    )
    .snippet("bash_kill: stop a background command")
}

/// Starts `command` in the background and says how to reach it.
pub fn start(command: &str) -> ToolResult {
    let spawned = match Process::spawn(&format!("{MERGE_STREAMS}{command}")) {
        // A narrowed grant runs commands without a shell, where the redirection is refused; the
        // command then runs as given, its error stream read beside its output.
        Err(ProcessError::Denied(_)) => Process::spawn(command),
        other => other,
    };
    let process = match spawned {
        Ok(process) => process,
        Err(ProcessError::Limit(m)) => {
            return ToolResult::error(format!(
                "The command was not started: {m}. Stop one you no longer need with bash_kill."
            ))
        }
        Err(e) => {
            return ToolResult::error(format!("The command was not started: {}", e.message()))
        }
    };
    refresh_status();
    let id = process.id();
    ToolResult::text(format!(
        "Started background command {id}: {command}\nRead its output with bash_output \
         (id {id}); stop it with bash_kill (id {id})."
    ))
    .with_details(json!({ "backgroundId": id, "command": command }))
}

pub fn output(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: OutputArgs = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    let filter = match args.filter.as_deref().map(regex::Regex::new).transpose() {
        Ok(filter) => filter,
        Err(e) => {
            return ToolResult::error(format!("`filter` is not a valid regular expression: {e}"))
        }
    };
    let process = Process::from_id(args.id);
    let read = match read_new(ws, &call.id, process, filter.as_ref()) {
        Ok(read) => read,
        Err(e) => return unknown_or(args.id, e),
    };
    let exit = match process.wait(Duration::ZERO) {
        Ok(exit) => exit,
        Err(e) => return unknown_or(args.id, e),
    };
    let state = match (&exit, read.closed) {
        (None, _) => "running".to_string(),
        (Some(status), true) => {
            // Ended and read to the end: nothing more to come, so its place is freed.
            let _ = process.release();
            format!("{}; its id is released", ended(status.code))
        }
        (Some(status), false) => format!("{}; more output is waiting", ended(status.code)),
    };
    refresh_status();
    let mut text = read.text;
    if text.is_empty() {
        text = "(no new output)".into();
    }
    text.push_str(&format!("\n\n[Background command {}: {state}]", args.id));
    ToolResult::text(text).with_details(json!({
        "backgroundId": args.id,
        "running": exit.is_none(),
        "exitCode": exit.and_then(|s| s.code),
        "filteredOut": read.filtered_out,
        "truncated": read.truncated,
    }))
}

pub fn kill(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: KillArgs = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    let process = Process::from_id(args.id);
    let how = match stop(process) {
        Ok(how) => how,
        Err(e) => return unknown_or(args.id, e),
    };
    let read = read_new(ws, &call.id, process, None);
    let _ = process.release();
    refresh_status();
    let mut text = format!("Background command {} {how}.", args.id);
    if let Ok(read) = read {
        if !read.text.is_empty() {
            text.push_str(&format!("\nIts last output:\n{}", read.text));
        }
    }
    ToolResult::text(text).with_details(json!({ "backgroundId": args.id }))
}

/// SIGTERM, then SIGKILL after the grace period; says how it ended.
fn stop(process: Process) -> Result<String, ProcessError> {
    if let Some(status) = process.wait(Duration::ZERO)? {
        return Ok(format!("had already {}", ended(status.code)));
    }
    process.signal(Signal::Terminate)?;
    if process.wait(TERMINATE_GRACE)?.is_some() {
        return Ok("was stopped (SIGTERM)".into());
    }
    process.signal(Signal::Kill)?;
    process.wait(Duration::from_secs(2))?;
    Ok(format!(
        "was killed (SIGKILL): it ignored SIGTERM for {} s",
        TERMINATE_GRACE.as_secs()
    ))
}

fn ended(code: Option<i32>) -> String {
    match code {
        Some(code) => format!("exited with code {code}"),
        None => "was ended by a signal".into(),
    }
}

fn unknown_or(id: u64, e: ProcessError) -> ToolResult {
    match e {
        ProcessError::Unknown(_) => ToolResult::error(format!(
            "There is no background command {id}: it was never started, or it ended and its \
             output was read, or it was stopped."
        )),
        other => ToolResult::error(other.message()),
    }
}

struct Read {
    text: String,
    /// Both streams are at their end.
    closed: bool,
    filtered_out: usize,
    truncated: bool,
}

/// Everything waiting in both streams now, within [`MAX_READ_PER_CALL`], kept like `bash`
/// keeps a command's output (the tail shown, the whole saved to a file when long).
fn read_new(
    ws: &Workspace,
    call_id: &str,
    process: Process,
    filter: Option<&regex::Regex>,
) -> Result<Read, ProcessError> {
    let mut bytes = Vec::new();
    let mut closed = true;
    for stream in [OutputStream::Stdout, OutputStream::Stderr] {
        loop {
            if bytes.len() >= MAX_READ_PER_CALL {
                closed = false;
                break;
            }
            match process.read(stream, READ_CHUNK, Duration::ZERO)? {
                Output::Data(data) => bytes.extend_from_slice(&data),
                Output::Idle => {
                    closed = false;
                    break;
                }
                Output::Closed => break,
            }
        }
    }
    let mut filtered_out = 0;
    if let Some(filter) = filter {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut kept = String::new();
        for line in text.split_inclusive('\n') {
            if filter.is_match(line.trim_end_matches('\n')) {
                kept.push_str(line);
            } else {
                filtered_out += 1;
            }
        }
        bytes = kept.into_bytes();
    }
    let mut capture = Capture::for_call(ws, call_id);
    capture.push(&bytes);
    let finished = capture.finish();
    let mut text = finished.text.clone();
    if finished.truncated {
        text.push_str("\n\n");
        text.push_str(&crate::bash::truncation_note(ws, &finished));
    }
    if filtered_out > 0 {
        text.push_str(&format!(
            "\n[{filtered_out} line{} did not match the filter and were dropped]",
            crate::truncate::plural(filtered_out)
        ));
    }
    Ok(Read {
        text,
        closed,
        filtered_out,
        truncated: finished.truncated,
    })
}

/// The footer's count of running background commands.
pub fn refresh_status() {
    let running = running().len();
    let text = match running {
        0 => None,
        1 => Some("1 background command".to_string()),
        n => Some(format!("{n} background commands")),
    };
    tack_sdk::ui::set_status(STATUS_KEY, text.as_deref());
}

fn running() -> Vec<process::ProcessInfo> {
    process::list()
        .into_iter()
        .filter(|p| p.exit.is_none())
        .collect()
}

fn shown_command(command: &str) -> &str {
    command.strip_prefix(MERGE_STREAMS).unwrap_or(command)
}

/// `/jobs` lists the background commands; `/jobs kill <id>` stops one.
pub fn command(args: &str) -> Result<Option<String>, String> {
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.as_slice() {
        [] => Ok(Some(list_text())),
        ["kill", id] => {
            let id: u64 = id
                .parse()
                .map_err(|_| format!("`{id}` is not a background command's id"))?;
            let process = Process::from_id(id);
            let how = stop(process).map_err(|e| match e {
                ProcessError::Unknown(_) => format!("there is no background command {id}"),
                other => other.message(),
            })?;
            let _ = process.release();
            refresh_status();
            Ok(Some(format!("Background command {id} {how}.")))
        }
        _ => Err("usage: /jobs, or /jobs kill <id>".into()),
    }
}

fn list_text() -> String {
    let all = process::list();
    if all.is_empty() {
        return "No background commands.".into();
    }
    let mut out = String::from("**Background commands**\n\n");
    for p in all {
        let state = match p.exit {
            None => "running".to_string(),
            Some(status) => ended(status.code),
        };
        out.push_str(&format!(
            "- `{}` {} — {state}\n",
            p.id,
            shown_command(&p.command).replace('\n', " ")
        ));
    }
    out.push_str("\n`/jobs kill <id>` stops one.");
    out
}
