//! Plugins hear `session_start` and `session_end` exactly once per session, in every mode and on
//! every way out of it: one start-up path (`host/cli/src/start.rs`) sends both. A user's Claude
//! Code hooks (run by the built-in hooks plugin) write each event they hear to a log; the real
//! binary runs on the offline demo provider.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::io::Write;
use std::process::{Output, Stdio};

use serde_json::json;
use tack_test_support::{stderr, stdout, tack, Env};

/// A project whose user has SessionStart and SessionEnd hooks that append to `lifecycle.log`.
fn env_with_hooks() -> Env {
    let env = Env::new(tack!());
    let user = env.root().join("user");
    std::fs::create_dir_all(user.join(".claude")).expect("user home");
    let log = |event: &str| {
        json!([{"hooks": [{"type": "command",
            "command": format!("echo {event} >> \"$CLAUDE_PROJECT_DIR/lifecycle.log\"")}]}])
    };
    std::fs::write(
        user.join(".claude/settings.json"),
        json!({"hooks": {"SessionStart": log("start"), "SessionEnd": log("end")}}).to_string(),
    )
    .expect("settings");
    let env = env.with_var("HOME", user);
    std::fs::create_dir(env.workspace().join(".git")).expect("git");
    env
}

fn heard(env: &Env) -> Vec<String> {
    std::fs::read_to_string(env.workspace().join("lifecycle.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "tack failed\nstdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
}

#[test]
fn print_mode_starts_and_ends_the_session_once_whatever_the_prompt_is() {
    // A prompt the model answers, a host command, and a line that is neither (an unknown
    // command goes to the model as text): three ways out of print mode.
    for prompt in ["hello", "/session", "/name lifecycle"] {
        let env = env_with_hooks();
        let out = env.run(&["--provider", "demo", "-p", prompt]);
        ok(&out);
        assert_eq!(heard(&env), ["start", "end"], "for -p {prompt:?}");
    }
    let env = env_with_hooks();
    let out = env.run(&["--provider", "demo", "--mode", "json", "hello"]);
    ok(&out);
    assert_eq!(heard(&env), ["start", "end"], "for --mode json");
}

#[test]
fn rpc_mode_ends_each_session_it_leaves_once() {
    let env = env_with_hooks();
    let mut child = env
        .command()
        .args(["--provider", "demo", "--mode", "rpc"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tack starts");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(stdin, r#"{{"id":"1","type":"new_session"}}"#).expect("write");
        writeln!(stdin, r#"{{"id":"2","type":"get_state"}}"#).expect("write");
    }
    let out = child.wait_with_output().expect("tack ends");
    ok(&out);
    assert!(
        stdout(&out).contains(r#""id":"2""#),
        "every command is answered before exit: {}",
        stdout(&out)
    );
    assert_eq!(heard(&env), ["start", "end", "start", "end"]);
}
