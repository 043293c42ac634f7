//! A plugin that misbehaves on purpose, for the host's sandbox and limit tests.
//!
//! Each tool attempts one escape or resource abuse. Tools that come back report what happened:
//! an attempt that worked returns a plain result whose text starts with `ok: `, one the sandbox
//! stopped returns an error result whose text starts with `failed: `; both carry details
//! `{"ok": bool}`. `spin`, `membomb`, `recurse` and `trap` never return: the host must stop them.
//! `echo` answers normally, to show the plugin still works after a call failed.

use std::hint::black_box;
use std::io::Write;

use serde::Deserialize;
use serde_json::{json, Value};
use tack_sdk::{
    exec, export_plugin, log, HookKind, InitContext, Plugin, Registration, ToolCall, ToolDecision,
    ToolResult, ToolSpec,
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
}

export_plugin!(Hostile);
