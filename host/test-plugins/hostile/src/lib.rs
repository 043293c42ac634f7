//! A plugin that misbehaves on purpose, for the host's sandbox and limit tests.
//!
//! Each tool attempts one escape or resource abuse. Tools that come back report what happened:
//! an attempt that worked returns a plain result whose text starts with `ok: `, one the sandbox
//! stopped returns an error result whose text starts with `failed: `; both carry details
//! `{"ok": bool}`. `spin`, `membomb`, `recurse` and `trap` never return: the host must stop them.
//! `echo` answers normally, to show the plugin still works after a call failed. `fan_out` starts
//! tasks (see `run_task` for what each input asks) and reports each outcome as JSON.

use std::hint::black_box;
use std::io::Write;

use serde::Deserialize;
use serde_json::{json, Value};
use tack_sdk::{
    exec, export_plugin, files, log, tasks, HookKind, InitContext, Plugin, Registration, ToolCall,
    ToolDecision, ToolResult, ToolSpec,
};

#[derive(Default)]
struct Hostile {
    workspace: String,
}

#[derive(Deserialize)]
struct PathArgs {
    path: String,
}

#[derive(Deserialize)]
struct PortArgs {
    port: u16,
}

#[derive(Deserialize)]
struct CommandArgs {
    command: String,
}

#[derive(Deserialize)]
struct ChmodArgs {
    path: String,
    mode: u32,
}

#[derive(Deserialize)]
struct FanOutArgs {
    tasks: Vec<String>,
    /// Sends the list this many times over (to ask for more tasks than allowed).
    #[serde(default)]
    repeat: Option<usize>,
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

fn one_arg(name: &str, kind: &str) -> Value {
    json!({
        "type": "object",
        "properties": { name: { "type": kind } },
        "required": [name]
    })
}

fn outcome<E: std::fmt::Display>(result: Result<String, E>) -> ToolResult {
    match result {
        Ok(text) => ToolResult::text(format!("ok: {text}")).with_details(json!({ "ok": true })),
        Err(e) => ToolResult::error(format!("failed: {e}")).with_details(json!({ "ok": false })),
    }
}

fn read(path: &str) -> ToolResult {
    outcome(std::fs::read_to_string(path))
}

fn spin() -> ! {
    let mut n: u64 = 0;
    loop {
        n = black_box(n.wrapping_add(1));
    }
}

fn membomb() -> ! {
    const CHUNK: usize = 16 * 1024 * 1024;
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        // Non-zero bytes so every page is written, not just reserved.
        let chunk = vec![0xA5u8; CHUNK];
        hoard.push(black_box(chunk));
        log::debug(format!("membomb holds {} MiB", hoard.len() * 16));
    }
}

// Runs out of the engine's call stack rather than Rust's in-memory shadow stack: only scalars
// live in the frame, so nothing is spilled to linear memory. The unreachable-in-practice base
// case (its limit comes through `black_box`) keeps the compiler from proving that the function
// never returns, and rotating the callee's result before combining it keeps the call out of tail
// position, so it cannot become a loop.
#[inline(never)]
fn recurse(depth: u64, limit: u64) -> u64 {
    if depth >= limit {
        return depth;
    }
    let deeper = recurse(depth + 1, limit);
    deeper.rotate_left((depth & 63) as u32) ^ depth
}

impl Plugin for Hostile {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        self.workspace = ctx.workspace.clone();
        let path = || one_arg("path", "string");
        Ok(Registration::new()
            .tool(ToolSpec::new(
                "read_dotdot",
                "Read ../secret.txt",
                "Reads secret.txt in the parent of the workspace.",
                no_args(),
            ))
            .tool(ToolSpec::new(
                "read_absolute",
                "Read absolute path",
                "Reads a file by absolute path.",
                path(),
            ))
            .tool(ToolSpec::new(
                "read_symlink",
                "Read through symlink",
                "Reads a file through a symlink inside the workspace.",
                path(),
            ))
            .tool(ToolSpec::new(
                "read_env",
                "Read environment",
                "Reports HOME and how many environment variables are visible.",
                no_args(),
            ))
            .tool(ToolSpec::new(
                "open_socket",
                "Open socket",
                "Connects to 127.0.0.1 on the given port.",
                one_arg("port", "integer"),
            ))
            .tool(ToolSpec::new(
                "exec",
                "Exec",
                "Runs a command through the host's exec capability.",
                one_arg("command", "string"),
            ))
            .tool(ToolSpec::new("spin", "Spin", "Loops forever.", no_args()))
            .tool(ToolSpec::new(
                "membomb",
                "Memory bomb",
                "Allocates memory until something stops it.",
                no_args(),
            ))
            .tool(ToolSpec::new(
                "recurse",
                "Recurse",
                "Recurses without bound.",
                no_args(),
            ))
            .tool(ToolSpec::new(
                "trap",
                "Trap",
                "Panics halfway through.",
                no_args(),
            ))
            .tool(ToolSpec::new(
                "echo",
                "Echo",
                "Returns its arguments.",
                json!({ "type": "object" }),
            ))
            .tool(ToolSpec::new(
                "mode",
                "Read mode",
                "Reads a file's permission bits through the host's files interface.",
                path(),
            ))
            .tool(ToolSpec::new(
                "chmod",
                "Set mode",
                "Sets a file's permission bits through the host's files interface.",
                json!({
                    "type": "object",
                    "properties": { "path": { "type": "string" }, "mode": { "type": "integer" } },
                    "required": ["path", "mode"]
                }),
            ))
            .tool(ToolSpec::new(
                "fan_out",
                "Fan out",
                "Runs each of `tasks` as a task on another instance.",
                json!({
                    "type": "object",
                    "properties": {
                        "tasks": { "type": "array", "items": { "type": "string" } },
                        "repeat": { "type": "integer" }
                    },
                    "required": ["tasks"]
                }),
            ))
            .command("ping", "Answers pong")
            .hook(HookKind::BeforeToolCall))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        match call.name.as_str() {
            "read_dotdot" => read(&format!("{}/../secret.txt", self.workspace)),
            "read_absolute" | "read_symlink" => match call.args::<PathArgs>() {
                Ok(args) => read(&args.path),
                Err(e) => ToolResult::error(e),
            },
            "read_env" => {
                let home = std::env::var("HOME").unwrap_or_else(|e| format!("<{e}>"));
                let count = std::env::vars().count();
                ToolResult::text(format!("HOME={home}; vars={count}"))
                    .with_details(json!({ "home": std::env::var("HOME").ok(), "vars": count }))
            }
            "open_socket" => match call.args::<PortArgs>() {
                Ok(args) => outcome(
                    std::net::TcpStream::connect(("127.0.0.1", args.port)).and_then(|mut s| {
                        s.write_all(b"hostile\n")?;
                        Ok(format!("connected to 127.0.0.1:{}", args.port))
                    }),
                ),
                Err(e) => ToolResult::error(e),
            },
            "exec" => match call.args::<CommandArgs>() {
                Ok(args) => outcome(
                    exec::run(&args.command, None)
                        .map(|out| out.stdout)
                        .map_err(|e| format!("{e:?}")),
                ),
                Err(e) => ToolResult::error(e),
            },
            "spin" => spin(),
            "membomb" => membomb(),
            "recurse" => ToolResult::text(format!(
                "ok: recursion ended at {}",
                recurse(0, black_box(u64::MAX))
            )),
            "trap" => {
                log::info("hostile: about to trap");
                panic!("deliberate trap");
            }
            "echo" => ToolResult::text(call.arguments.clone()),
            "mode" => match call.args::<PathArgs>() {
                Ok(args) => outcome(files::permissions(&args.path).map(|m| format!("{m:o}"))),
                Err(e) => ToolResult::error(e),
            },
            "chmod" => match call.args::<ChmodArgs>() {
                Ok(args) => outcome(
                    files::set_permissions(&args.path, args.mode).map(|()| "changed".to_string()),
                ),
                Err(e) => ToolResult::error(e),
            },
            "fan_out" => match call.args::<FanOutArgs>() {
                Ok(args) => fan_out(&args),
                Err(e) => ToolResult::error(e),
            },
            other => ToolResult::error(format!("unknown tool `{other}`")),
        }
    }

    fn run_command(&mut self, name: &str, _args: &str) -> Result<Option<String>, String> {
        match name {
            "ping" => Ok(Some("pong".into())),
            other => Err(format!("unknown command `/{other}`")),
        }
    }

    fn before_tool_call(&mut self, _call: &ToolCall) -> ToolDecision {
        ToolDecision::Allow
    }

    /// `echo:X` returns X; `read:PATH` reads a file; `trap` panics; `spin` never returns; `nest`
    /// tries to start a task from inside this one; `meet:MINE:THEIRS` creates the workspace file
    /// MINE and waits for THEIRS, so two such tasks finish only if they run at the same time.
    fn run_task(&mut self, input: Vec<u8>) -> Result<Vec<u8>, String> {
        let input = String::from_utf8(input).map_err(|e| e.to_string())?;
        let (verb, rest) = input.split_once(':').unwrap_or((input.as_str(), ""));
        let text = match verb {
            "echo" => rest.to_string(),
            "read" => std::fs::read_to_string(rest).map_err(|e| format!("read {rest}: {e}"))?,
            "trap" => panic!("deliberate trap in a task"),
            "spin" => spin(),
            "nest" => match tasks::run(&[b"echo:inner".to_vec()]) {
                Ok(_) => "nested tasks ran".to_string(),
                Err(e) => format!("refused: {e}"),
            },
            "meet" => {
                let (mine, theirs) = rest.split_once(':').ok_or("meet:MINE:THEIRS")?;
                let dir = std::path::Path::new(&self.workspace);
                std::fs::write(dir.join(mine), b"here").map_err(|e| e.to_string())?;
                while !dir.join(theirs).exists() {
                    std::hint::spin_loop();
                }
                format!("{mine} met {theirs}")
            }
            other => return Err(format!("unknown task `{other}`")),
        };
        Ok(text.into_bytes())
    }
}

fn fan_out(args: &FanOutArgs) -> ToolResult {
    let mut inputs = Vec::new();
    for _ in 0..args.repeat.unwrap_or(1) {
        inputs.extend(args.tasks.iter().map(|t| t.as_bytes().to_vec()));
    }
    match tasks::run(&inputs) {
        Ok(results) => {
            let shown: Vec<Value> = results
                .iter()
                .map(|r| match r {
                    Ok(bytes) => json!({ "ok": String::from_utf8_lossy(bytes) }),
                    Err(e) => json!({ "err": e }),
                })
                .collect();
            ToolResult::text(Value::Array(shown).to_string())
        }
        Err(e) => ToolResult::error(format!("failed: {e}")),
    }
}

export_plugin!(Hostile);
