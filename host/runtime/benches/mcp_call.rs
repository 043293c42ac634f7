//! What tack adds to an MCP tool call over stdio: the built-in `mcp` plugin, loaded by the real
//! runtime, calls a tiny Python server's `echo` tool; the same server is then driven directly
//! over its pipes with the same JSON-RPC lines. The difference of the medians is tack's part
//! (the WebAssembly call, the process table, the command sandbox's pipes, JSON both ways).
//! Target: at most 1 ms. `TACK_BENCH_RUNS` sets the timed calls (default 300).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a bench reports a failed setup.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use tack_runtime::api::ToolCall;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{HostContext, HostServices, LoadedPlugin};
use tack_test_support::runtime::{bench_tokio, builtin_spec, cached_runtime};
use tokio_util::sync::CancellationToken;

const SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    rid, method = m.get("id"), m.get("method")
    if rid is None:
        continue
    if method == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}
    else:
        r = {"content": [{"type": "text", "text": m["params"]["arguments"]["text"]}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": r}) + "\n")
    sys.stdout.flush()
"#;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

/// The server's own round trip: the same lines, written and read by this process.
fn direct(script: &Path, runs: usize) -> Duration {
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut round = |id: u64, method: &str, params: serde_json::Value| {
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        writeln!(input, "{request}").expect("write");
        input.flush().expect("flush");
        line.clear();
        output.read_line(&mut line).expect("read");
    };
    round(1, "initialize", json!({}));
    let times = (0..runs + 20)
        .map(|i| {
            let started = Instant::now();
            round(
                i as u64 + 2,
                "tools/call",
                json!({ "name": "echo", "arguments": { "text": "hello" } }),
            );
            started.elapsed()
        })
        .skip(20)
        .collect();
    drop(input);
    let _ = child.wait();
    median(times)
}

fn main() {
    let runs: usize = std::env::var("TACK_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(300);
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("echo_server.py");
    std::fs::write(&script, SERVER).expect("server script");
    let command = format!("python3 {}", script.display());

    let tokio = bench_tokio();
    let runtime = cached_runtime(concat!(env!("CARGO_TARGET_TMPDIR"), "/mcp-bench-cache"));
    let mut spec = builtin_spec(
        "mcp",
        json!({
            "servers": [{
                "name": "bench", "scope": "user", "command": command, "shown": command
            }]
        }),
    );
    spec.manifest.capabilities.process = vec![command.clone()];
    spec.granted.process = vec![command];
    let host = HostContext {
        workspace: dir.path().to_path_buf(),
        data_root: None,
        services: HostServices::headless(),
        secrets: SecretStore::new(None),
        project_trusted: false,
    };
    let plugin = tokio
        .block_on(LoadedPlugin::load(&runtime, spec, &host))
        .expect("mcp loads");
    let call = ToolCall {
        id: "bench".into(),
        name: "bench_echo".into(),
        arguments: json!({ "text": "hello" }).to_string(),
    };
    let through_tack = median(
        (0..runs + 20)
            .map(|_| {
                let started = Instant::now();
                let result = tokio
                    .block_on(plugin.call_tool(call.clone(), CancellationToken::new(), None))
                    .expect("tool call");
                assert!(!result.is_error, "the call failed: {result:?}");
                started.elapsed()
            })
            .skip(20)
            .collect(),
    );
    let own = direct(&script, runs);
    // Signed: on a busy machine the two medians' noise can put tack's below the server's own.
    let added_us = (through_tack.as_secs_f64() - own.as_secs_f64()) * 1e6;
    println!("MCP tool call over stdio ({runs} calls, medians)");
    println!("  the server's own round trip:   {}", us(own));
    println!("  through tack's mcp plugin:     {}", us(through_tack));
    println!(
        "  added by tack:                 {added_us:.0} µs (target ≤ 1000 µs: {})",
        if added_us <= 1000.0 { "met" } else { "NOT met" }
    );
}
