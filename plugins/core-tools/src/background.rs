//! Background commands: `bash` with `run_in_background` starts a command that outlives the call
//! (a dev server, a watcher, a slow test suite); `bash_output` reads what it wrote since the
//! last read, `bash_kill` stops it, and `/jobs` shows them to the user: a picker where one is
//! chosen to see its latest output and be stopped.
//!
//! They run through the host's `process` interface, which keeps them for the plugin rather than
//! for one call or instance: in the same command sandbox as any `bash` command, judged by the
//! same policies (the call is a `bash` call), at most 8 at once, each with at most 1 MiB of
//! output waiting to be read (a program that writes more before it is read waits). They stop
//! when tack exits, unless the user keeps one (`/jobs keep <id>`, confirmed in tack's own
//! dialog): it then runs on, its output going to a file in this plugin's data folder. Standard
//! error is merged into standard output, as for `bash`.

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
/// The host's event for one of this plugin's processes ending (`tack:plugin/events`).
pub const EXIT_EVENT: &str = "process_exit";
/// Lines of a command's latest output `/jobs` shows.
const RECENT_LINES: usize = 20;
/// A command longer than this is cut in the `/jobs` picker.
const PICKER_COMMAND_CHARS: usize = 48;

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

/// `/jobs` opens a picker of the background commands where someone can answer it (the terminal
/// UI, an RPC client) and lists them elsewhere; `/jobs list` lists them; `/jobs kill <id>`
/// stops one; `/jobs keep <id>` keeps one running after tack exits.
pub fn command(args: &str) -> Result<Option<String>, String> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let id_of = |id: &str| -> Result<u64, String> {
        id.parse()
            .map_err(|_| format!("`{id}` is not a background command's id"))
    };
    match words.as_slice() {
        [] if tack_sdk::control::has_ui() => view(),
        [] | ["list"] => Ok(Some(list_text())),
        ["kill", id] => stop_and_release(id_of(id)?).map(Some),
        ["keep", id] => keep(id_of(id)?).map(Some),
        _ => Err("usage: /jobs, /jobs list, /jobs kill <id>, or /jobs keep <id>".into()),
    }
}

/// Keeps a command running after tack exits, once the user said yes in tack's own dialog.
fn keep(id: u64) -> Result<String, String> {
    let kept = Process::from_id(id).keep().map_err(|e| match e {
        ProcessError::Unknown(_) => format!("there is no background command {id}"),
        other => format!("background command {id} is not kept: {}", other.message()),
    })?;
    refresh_status();
    Ok(format!(
        "Background command {id} keeps running after tack exits. Its output goes to `{}`; stop \
         it with `kill -- -{}` (its process group).",
        kept.log, kept.group
    ))
}

/// Stops a command and forgets it; says how it ended.
fn stop_and_release(id: u64) -> Result<String, String> {
    let process = Process::from_id(id);
    let how = stop(process).map_err(|e| match e {
        ProcessError::Unknown(_) => format!("there is no background command {id}"),
        other => other.message(),
    })?;
    let _ = process.release();
    refresh_status();
    Ok(format!("Background command {id} {how}."))
}

/// The picker: every command with its state and runtime; the one chosen is shown with its
/// latest output, and a running one is offered to be stopped. Nothing is read from it, so
/// `bash_output` still gets all its output.
fn view() -> Result<Option<String>, String> {
    let all = process::list();
    if all.is_empty() {
        return Ok(Some("No background commands.".into()));
    }
    let options: Vec<String> = all.iter().map(picker_line).collect();
    let Some(chosen) = tack_sdk::ui::select("Background commands", &options, None) else {
        return Ok(None);
    };
    let Some(info) = usize::try_from(chosen).ok().and_then(|i| all.get(i)) else {
        return Ok(None);
    };
    let process = Process::from_id(info.id);
    let gone = |e: ProcessError| match e {
        ProcessError::Unknown(_) => format!(
            "background command {} is gone: it was stopped, or its output was read to the end",
            info.id
        ),
        other => other.message(),
    };
    // Its state now: it may have ended while the picker was open.
    let exit = process.wait(Duration::ZERO).map_err(gone)?;
    let details = process.details().map_err(gone)?;
    let command = shown_command(&info.command);
    let runtime = Duration::from_millis(details.runtime_ms);
    let recent = last_lines(&details.recent_output, RECENT_LINES);
    let Some(status) = exit else {
        let message = format!(
            "{command}\nrunning for {}\n\n{}",
            duration_text(runtime),
            if recent.is_empty() {
                "(no output yet)"
            } else {
                &recent
            }
        );
        if tack_sdk::ui::confirm(
            &format!("Stop background command {}?", info.id),
            &message,
            None,
        ) {
            return stop_and_release(info.id).map(Some);
        }
        return Ok(Some(details_text(
            info.id,
            command,
            &format!("running for {}", duration_text(runtime)),
            &recent,
        )));
    };
    Ok(Some(details_text(
        info.id,
        command,
        &format!("{} after {}", ended(status.code), duration_text(runtime)),
        &recent,
    )))
}

/// One line of the picker: id, state and runtime, command (cut).
fn picker_line(info: &process::ProcessInfo) -> String {
    let command = one_line(shown_command(&info.command));
    let command = match command.char_indices().nth(PICKER_COMMAND_CHARS) {
        Some((at, _)) => format!("{}…", &command[..at]),
        None => command,
    };
    let runtime = Process::from_id(info.id)
        .details()
        .map(|d| duration_text(Duration::from_millis(d.runtime_ms)))
        .unwrap_or_default();
    let state = match info.exit {
        None => format!("running {runtime}"),
        Some(status) => format!("{} after {runtime}", ended(status.code)),
    };
    // The state first: a narrow dialog cuts the end of a line, and a command's tail matters less.
    format!("{}  {state} · {command}", info.id)
}

/// A command as shown in a line of text.
fn one_line(command: &str) -> String {
    command.replace('\n', " ")
}

/// `/jobs`'s answer about one command, in markdown.
fn details_text(id: u64, command: &str, state: &str, recent: &str) -> String {
    let mut out = format!(
        "**Background command {id}** `{}` — {state}\n\n",
        one_line(command).replace('`', "'")
    );
    if recent.is_empty() {
        out.push_str("No output yet.");
    } else {
        out.push_str("Latest output:\n\n");
        out.push_str(&fenced(recent));
    }
    if state.starts_with("running") {
        out.push_str(&format!(
            "\n\nIt stops when tack exits; `/jobs keep {id}` keeps it running."
        ));
    }
    out
}

/// `text` in a code fence longer than any run of backticks inside it.
fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{}\n{fence}", text.trim_end_matches('\n'))
}

/// The last `n` lines of `bytes` (output kept from its newest end, so its first line may be cut).
fn last_lines(bytes: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.trim_end_matches('\n').lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// `5s`, `2m 05s`, `1h 02m`.
fn duration_text(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

fn list_text() -> String {
    let all = process::list();
    if all.is_empty() {
        return "No background commands.".into();
    }
    let mut out = String::from("**Background commands**\n\n");
    for p in all {
        let state = match (p.exit, p.kept) {
            (None, false) => "running".to_string(),
            (None, true) => "running, kept after tack exits".to_string(),
            (Some(status), _) => ended(status.code),
        };
        out.push_str(&format!(
            "- `{}` {} — {state}\n",
            p.id,
            one_line(shown_command(&p.command))
        ));
    }
    out.push_str(
        "\n`/jobs kill <id>` stops one; `/jobs keep <id>` keeps one running after tack exits.",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration_text(Duration::from_millis(5_400)), "5s");
        assert_eq!(duration_text(Duration::from_secs(125)), "2m 05s");
        assert_eq!(duration_text(Duration::from_secs(3720)), "1h 02m");
    }

    #[test]
    fn output_is_fenced_past_its_own_backticks_and_cut_to_its_last_lines() {
        assert_eq!(fenced("a ```b``` c\n"), "````\na ```b``` c\n````");
        assert_eq!(fenced("plain"), "```\nplain\n```");
        assert_eq!(last_lines(b"1\n2\n3\n", 2), "2\n3");
        assert_eq!(last_lines(b"", 2), "");
    }
}
