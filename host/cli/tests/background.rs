//! Background commands through the real binary: `bash` with `run_in_background` starts a small
//! Python HTTP server in one turn, a later turn reads its log with `bash_output`, and
//! `bash_kill` stops it; the command sandbox and the permission policies apply to it as to any
//! `bash` call.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::net::TcpListener;

use serde_json::{json, Value};
use tack_test_support::json_mode::{call_turn, json_events, tool_result};
use tack_test_support::{stderr, tack, Env};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn server_command(port: u16) -> String {
    format!("python3 -u -m http.server {port} --bind 127.0.0.1")
}

/// A client that waits for the server to come up, then fetches `/`.
fn client_command(port: u16) -> String {
    format!(
        "python3 -c \"import time, urllib.request\nfor _ in range(100):\n    try:\n        \
         print(urllib.request.urlopen('http://127.0.0.1:{port}/').status); break\n    \
         except OSError: time.sleep(0.1)\""
    )
}

fn run(env: &Env, script: Value, extra: &[&str]) -> Vec<Value> {
    let plugin = env.scripted_provider(script);
    let mut args = vec!["--plugin", plugin.to_str().expect("utf8")];
    args.extend(extra);
    args.extend(["--mode", "json", "-p", "go"]);
    let out = env.run(&args);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    json_events(&out)
}

#[test]
fn a_background_server_is_started_read_later_and_stopped() {
    let env = Env::new(tack!());
    let port = free_port();
    let script = json!([
        { "tool_calls": [{ "id": "start", "name": "bash", "arguments": {
            "command": server_command(port), "run_in_background": true } }] },
        call_turn("fetch", "bash", json!({ "command": client_command(port) })),
        call_turn("log", "bash_output", json!({ "id": 1, "filter": "GET /" })),
        call_turn("stop", "bash_kill", json!({ "id": 1 })),
        call_turn("again", "bash_output", json!({ "id": 1 })),
        { "text": "done" }
    ]);
    // The server listens, so the user's sandbox settings let commands use the network.
    let config = |env: &Env| {
        let text = std::fs::read_to_string(env.home().join("config.toml")).expect("config");
        std::fs::write(
            env.home().join("config.toml"),
            format!("{text}\n[sandbox]\nnetwork = true\n"),
        )
        .expect("config");
    };
    let plugin = env.scripted_provider(script);
    config(&env);
    let out = env.run(&[
        "--plugin",
        plugin.to_str().expect("utf8"),
        "--mode",
        "json",
        "-p",
        "go",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let events = json_events(&out);

    let (failed, started) = tool_result(&events, "start");
    assert!(!failed, "{started}");
    assert!(
        started.contains("Started background command 1"),
        "{started}"
    );
    let (failed, fetched) = tool_result(&events, "fetch");
    assert!(!failed && fetched.trim() == "200", "{fetched}");
    let (failed, log) = tool_result(&events, "log");
    assert!(!failed, "{log}");
    assert!(log.contains("\"GET / HTTP/1.1\" 200"), "{log}");
    assert!(log.contains("did not match the filter"), "{log}");
    assert!(log.contains("[Background command 1: running]"), "{log}");
    let (failed, stopped) = tool_result(&events, "stop");
    assert!(!failed, "{stopped}");
    assert!(
        stopped.contains("Background command 1 was stopped"),
        "{stopped}"
    );
    let (failed, gone) = tool_result(&events, "again");
    assert!(
        failed && gone.contains("There is no background command 1"),
        "{gone}"
    );
    assert!(
        TcpListener::bind(("127.0.0.1", port)).is_ok(),
        "the server's port is free again"
    );
}

#[test]
fn background_commands_obey_the_sandbox_and_the_policies() {
    let env = Env::new(tack!());
    let port = free_port();
    // With the network off (the default), the server cannot even listen.
    let events = run(
        &env,
        json!([
            { "tool_calls": [{ "id": "start", "name": "bash", "arguments": {
                "command": format!("{}; echo exited", server_command(port)),
                "run_in_background": true } }] },
            call_turn("wait", "bash", json!({ "command": "sleep 2" })),
            call_turn("log", "bash_output", json!({ "id": 1 })),
            { "text": "done" }
        ]),
        &[],
    );
    let (_, log) = tool_result(&events, "log");
    assert!(
        log.contains("PermissionError") || log.contains("Permission denied"),
        "{log}"
    );
    assert!(
        log.contains("exited; its id is released") || log.contains("exited with code"),
        "{log}"
    );

    // Read-only permissions refuse a background command that is not read-only, as any bash call.
    let marker = env.workspace().join("made-in-background");
    let events = run(
        &env,
        json!([
            { "tool_calls": [{ "id": "start", "name": "bash", "arguments": {
                "command": format!("touch {}", marker.display()), "run_in_background": true } }] },
            { "text": "done" }
        ]),
        &["--permissions", "read-only"],
    );
    let (failed, refused) = tool_result(&events, "start");
    assert!(failed, "{refused}");
    assert!(!refused.contains("Started background command"), "{refused}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!marker.exists(), "the refused command never ran");

    // And a background command cannot ask to leave the sandbox.
    let events = run(
        &env,
        json!([
            { "tool_calls": [{ "id": "start", "name": "bash", "arguments": {
                "command": "true", "run_in_background": true, "unsandboxed": true } }] },
            { "text": "done" }
        ]),
        &[],
    );
    let (failed, refused) = tool_result(&events, "start");
    assert!(failed, "{refused}");
    assert!(!refused.contains("Started background command"), "{refused}");
}

/// Whether process `pid` is gone (a zombie waiting for its new parent counts as gone).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// Commands end with tack even when tack is killed with SIGKILL and drops nothing: a
/// background command, a program its shell started, and the foreground command of the turn
/// all die (tack's keeper process kills their groups).
#[cfg(target_os = "linux")]
#[test]
fn commands_die_with_a_tack_killed_by_sigkill() {
    use std::time::{Duration, Instant};

    let env = Env::new(tack!());
    let plugin = env.scripted_provider(json!([
        { "tool_calls": [{ "id": "bg", "name": "bash", "arguments": {
            "command": "echo $$ > bg.pid; sleep 300 & echo $! > grandchild.pid; wait",
            "run_in_background": true } }] },
        call_turn("fg", "bash", json!({ "command": "echo $$ > fg.pid; sleep 300" })),
        { "text": "done" }
    ]));
    let mut tack = env
        .command()
        .args([
            "--plugin",
            plugin.to_str().expect("utf8"),
            "--mode",
            "json",
            "-p",
            "go",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("tack starts");
    let files = ["bg.pid", "grandchild.pid", "fg.pid"];
    let read = |name: &str| {
        std::fs::read_to_string(env.workspace().join(name))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let started = Instant::now();
    while files.iter().any(|f| read(f).is_none()) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the commands never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let pids: Vec<String> = files.iter().filter_map(|f| read(f)).collect();
    assert!(pids.iter().all(|pid| !gone(pid)), "all running: {pids:?}");

    tack.kill().expect("SIGKILL");
    tack.wait().expect("reaped");
    let killed = Instant::now();
    while !pids.iter().all(|pid| gone(pid)) {
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "still running after tack was killed: {:?}",
            pids.iter().filter(|pid| !gone(pid)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
