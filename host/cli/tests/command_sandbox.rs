//! The command sandbox, end to end (SECURITY.md, "The command sandbox"): the scripted provider
//! makes the model call core-tools' `bash` with real commands, through the real `tack` binary,
//! with the sandbox on and then in `full`; permission-gate is in `yolo` so the sandbox is all that
//! stands in the way. Each run has a fake `$HOME` with a `.ssh` key, its own `$TMPDIR`, and a
//! folder beside the workspace that no command should be able to write to.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_test_support::http::{MockServer, Reply};
use tack_test_support::{stderr, stdout, tack, Env};

const SSH_KEY: &str = "SSH-PRIVATE-KEY-5d1e";
const NOTES: &str = "HOME-NOTES-91ab";
const SERVED: &str = "SERVED-BY-LOOPBACK-77c0";
const NOTE: &str = "the command may have been blocked by the sandbox";

/// A workspace (a git repository) beside a fake home and temp dir and an `outside` folder.
struct Fixture {
    env: Env,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let env = Env::new(tack!());
    let user = env.root().join("user");
    std::fs::create_dir_all(user.join(".ssh")).expect(".ssh");
    std::fs::write(user.join(".ssh/id_rsa"), SSH_KEY).expect("key");
    std::fs::write(user.join("notes.txt"), NOTES).expect("notes");
    let tmp = env.root().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let outside = env.root().join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    let env = env.with_var("HOME", &user).with_var("TMPDIR", &tmp);
    env.write("README.md", "# Demo\n");
    let git = Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(env.workspace())
        .status()
        .expect("git runs");
    assert!(git.success(), "git init");
    Fixture { env, outside }
}

impl Fixture {
    /// Runs one prompt in JSON mode, the model calling `bash` once per `(id, command)` in one
    /// turn, with `[sandbox]` set to `sandbox` and `args` added; returns each call's result.
    fn run(
        &self,
        commands: &[(&str, String)],
        sandbox: Value,
        args: &[&str],
    ) -> BTreeMap<String, String> {
        let calls: Vec<Value> = commands
            .iter()
            .map(|(id, command)| {
                json!({ "id": id, "name": "bash",
                        "arguments": { "command": command, "timeout": 20 } })
            })
            .collect();
        let script = json!([{ "text": "working", "tool_calls": calls }, { "text": "done" }]);
        let scripted = self
            .env
            .package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
        self.env.config(json!({
            "provider": "scripted",
            "plugins": { "scripted": { "script": script } },
            "sandbox": sandbox,
        }));
        let mut all = vec![
            "--plugin",
            scripted.to_str().expect("utf8"),
            "--permissions",
            "yolo",
            "--mode",
            "json",
        ];
        all.extend_from_slice(args);
        all.push("go");
        let out = self.env.run(&all);
        assert!(out.status.success(), "{}", stderr(&out));
        tool_results(&stdout(&out))
    }

    fn outside(&self, name: &str) -> PathBuf {
        self.outside.join(name)
    }
}

/// `tool_execution_end` results of a JSON-mode run, by call id, as text.
fn tool_results(json_lines: &str) -> BTreeMap<String, String> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_execution_end")
        .map(|e| {
            (
                e["toolCallId"].as_str().unwrap_or_default().to_string(),
                e["result"].to_string(),
            )
        })
        .collect()
}

fn filesystem_commands(f: &Fixture) -> Vec<(&'static str, String)> {
    vec![
        (
            "inside",
            "echo made > made-here.txt && cat made-here.txt".into(),
        ),
        (
            "tmp",
            "echo t > \"$TMPDIR/t.txt\" && cat \"$TMPDIR/t.txt\"".into(),
        ),
        (
            "outside",
            format!("echo pwned > {}", f.outside("pwned.txt").display()),
        ),
        ("ssh", "cat \"$HOME/.ssh/id_rsa\"".into()),
        ("notes", "cat \"$HOME/notes.txt\"".into()),
        // Scripts, as a build would run them: protected-paths judges the command line it sees
        // and cannot judge what a script does.
        ("hook", "sh scripts/hook.sh".into()),
        ("config", "git config core.pager 'sh -c evil'".into()),
        (
            "allowed",
            format!("echo ok > {}", f.outside("allowed/ok.txt").display()),
        ),
        ("rename", "sh scripts/rename.sh".into()),
    ]
}

fn write_scripts(f: &Fixture) {
    f.env.write(
        "scripts/hook.sh",
        format!(
            "printf '#!/bin/sh\\ntouch {}\\n' > .git/hooks/pre-commit\n",
            f.outside("hooked").display()
        ),
    );
    f.env.write("scripts/rename.sh", "mv .git .git-moved\n");
}

#[test]
fn workspace_write_keeps_writes_in_the_workspace_and_git_hooks_and_config_read_only() {
    let f = fixture();
    let ws = f.env.workspace().to_path_buf();
    write_scripts(&f);
    std::fs::create_dir_all(f.outside("allowed")).expect("allowed");
    let allowed = json!({ "writable": [f.outside("allowed")] });
    let results = f.run(&filesystem_commands(&f), allowed, &[]);
    assert!(
        f.outside("allowed/ok.txt").exists(),
        "[sandbox] writable: {results:?}"
    );
    assert!(results["inside"].contains("made"), "{results:?}");
    assert!(results["tmp"].contains('t'), "{results:?}");
    assert!(!f.outside("pwned.txt").exists(), "{results:?}");
    assert!(results["outside"].contains(NOTE), "{results:?}");
    assert!(!results["ssh"].contains(SSH_KEY), "{results:?}");
    assert!(results["ssh"].contains(NOTE), "{results:?}");
    assert!(results["notes"].contains(NOTES), "{results:?}");
    assert!(!ws.join(".git/hooks/pre-commit").exists(), "{results:?}");
    assert!(
        results["hook"].contains("Read-only file system"),
        "{results:?}"
    );
    let config = std::fs::read_to_string(ws.join(".git/config")).expect("config");
    assert!(!config.contains("evil"), "{config}");
    assert!(results["config"].contains(NOTE), "{results:?}");
    assert!(ws.join(".git").is_dir() && !ws.join(".git-moved").exists());

    // The same commands in `full` do all of it; the rename last, as the calls of one turn run
    // side by side.
    let mut commands = filesystem_commands(&f);
    let rename = commands.pop().expect("rename");
    let results = f.run(&commands, json!({}), &["--sandbox", "full"]);
    assert!(f.outside("pwned.txt").exists(), "{results:?}");
    assert!(results["ssh"].contains(SSH_KEY), "{results:?}");
    assert!(ws.join(".git/hooks/pre-commit").exists(), "{results:?}");
    let config = std::fs::read_to_string(ws.join(".git/config")).expect("config");
    assert!(config.contains("evil"), "{config}");
    assert!(!results.values().any(|r| r.contains(NOTE)), "{results:?}");
    let results = f.run(&[rename], json!({}), &["--sandbox", "full"]);
    assert!(ws.join(".git-moved").is_dir(), "{results:?}");
}

#[test]
fn read_only_writes_nowhere_and_reads_no_credentials() {
    let f = fixture();
    let commands = [
        ("inside", "echo made > made-here.txt".to_string()),
        ("tmp", "echo t > \"$TMPDIR/t.txt\"".into()),
        ("ssh", "cat \"$HOME/.ssh/id_rsa\"".into()),
        ("list", "ls -a \"$HOME/.ssh\"".into()),
        ("notes", "cat \"$HOME/notes.txt\" README.md".into()),
        ("null", "echo gone > /dev/null && echo fine".into()),
    ];
    // From the config file, the command line not saying otherwise.
    let results = f.run(&commands, json!({ "mode": "read-only" }), &[]);
    assert!(
        !f.env.workspace().join("made-here.txt").exists(),
        "{results:?}"
    );
    assert!(!f.env.root().join("tmp/t.txt").exists(), "{results:?}");
    assert!(!results["ssh"].contains(SSH_KEY), "{results:?}");
    assert!(results["ssh"].contains("Permission denied"), "{results:?}");
    assert!(!results["list"].contains("id_rsa"), "{results:?}");
    assert!(
        results["notes"].contains(NOTES) && results["notes"].contains("# Demo"),
        "{results:?}"
    );
    assert!(results["null"].contains("fine"), "{results:?}");
    assert!(results["inside"].contains("[tack sandbox: read-only, network off"));

    // The command line beats the config file.
    let results = f.run(
        &commands,
        json!({ "mode": "read-only" }),
        &["--sandbox", "full"],
    );
    assert!(
        f.env.workspace().join("made-here.txt").exists(),
        "{results:?}"
    );
    assert!(results["ssh"].contains(SSH_KEY), "{results:?}");
}

#[test]
fn the_network_is_off_in_the_sandbox_unless_the_config_or_full_mode_turns_it_on() {
    let f = fixture();
    let server = MockServer::always(Reply::bytes(SERVED));
    let commands = [("curl", format!("curl -sS --max-time 10 {}/", server.url()))];
    let results = f.run(&commands, json!({}), &[]);
    assert!(!results["curl"].contains(SERVED), "{results:?}");
    assert!(results["curl"].contains(NOTE), "{results:?}");
    assert!(
        results["curl"].contains("network off"),
        "the note names the switch: {results:?}"
    );
    assert!(server.requests().is_empty());

    let results = f.run(&commands, json!({ "network": true }), &[]);
    assert!(results["curl"].contains(SERVED), "{results:?}");
    let results = f.run(&commands, json!({}), &["--sandbox", "full"]);
    assert!(results["curl"].contains(SERVED), "{results:?}");
}

#[test]
fn a_fork_bomb_is_held_by_the_process_limit_and_tack_keeps_working() {
    let f = fixture();
    // A name in every bomb process's command line, to find any left behind.
    let marker = format!("tack-bomb-{}", std::process::id());
    // The sleep starts before the bomb, so its own fork cannot be the one that fails. The bomb
    // runs in a subshell: dash exits with "Cannot fork" when a fork of its own fails, and the
    // outer shell must outlive the bomb to be stopped by the timeout; `wait` forks nothing.
    let bomb = format!("sh -c 'sleep 30 & (b() {{ b | b & }}; b); wait' {marker}");
    let calls = json!([
        { "text": "bomb", "tool_calls": [
            { "id": "bomb", "name": "bash", "arguments": { "command": bomb, "timeout": 3 } } ] },
        { "text": "next", "tool_calls": [
            { "id": "alive", "name": "bash", "arguments": { "command": "echo still-alive" } } ] },
        { "text": "done" }
    ]);
    let scripted = f
        .env
        .package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
    f.env.config(json!({
        "provider": "scripted",
        "plugins": { "scripted": { "script": calls } },
        "sandbox": { "max_processes": 64 },
    }));
    let started = Instant::now();
    let out = f.env.run(&[
        "--plugin",
        scripted.to_str().expect("utf8"),
        "--permissions",
        "yolo",
        "--mode",
        "json",
        "go",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_results(&stdout(&out));
    assert!(results["bomb"].contains("timed out"), "{results:?}");
    assert!(
        results["bomb"].to_lowercase().contains("fork"),
        "the shell says it cannot fork: {results:?}"
    );
    assert!(results["alive"].contains("still-alive"), "{results:?}");
    assert!(started.elapsed() < Duration::from_secs(60));
    // Nothing of the bomb outlives the call.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = processes_named(&marker);
        if left == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "{left} bomb processes left");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Processes whose command line holds `marker`.
fn processes_named(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
        })
        .count()
}

#[test]
fn start_up_names_the_sandbox_in_verbose_and_plugins_output() {
    let f = fixture();
    let out = f.env.run(&["plugins"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("commands run in: workspace-write, network off, at most 512"),
        "{}",
        stdout(&out)
    );
    let out = f.env.run(&["--sandbox", "read-only", "plugins"]);
    assert!(
        stdout(&out).contains("commands run in: read-only"),
        "{}",
        stdout(&out)
    );
    // This machine has every protection: nothing is said missing.
    assert!(!stdout(&out).contains("missing:"), "{}", stdout(&out));
}

/// Runs one prompt in JSON mode under `permissions`, the model calling `bash` with `arguments`;
/// returns the call's result.
fn escalation_run(f: &Fixture, arguments: Value, permissions: &str) -> String {
    let script = json!([
        { "text": "working", "tool_calls": [{ "id": "e1", "name": "bash", "arguments": arguments }] },
        { "text": "done" }
    ]);
    let scripted = f
        .env
        .package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
    f.env.config(json!({
        "provider": "scripted",
        "plugins": { "scripted": { "script": script } },
    }));
    let out = f.env.run(&[
        "--plugin",
        scripted.to_str().expect("utf8"),
        "--permissions",
        permissions,
        "--mode",
        "json",
        "go",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    tool_results(&stdout(&out))
        .remove("e1")
        .expect("the call's result")
}

#[test]
fn leaving_the_sandbox_takes_a_policys_approval() {
    let f = fixture();
    let target = f.outside("escaped.txt");
    let command = format!("echo out > {}", target.display());
    // Confined, the write fails and the result says the sandbox may be why.
    let result = escalation_run(&f, json!({ "command": command }), "yolo");
    assert!(!target.exists(), "{result}");
    assert!(result.contains(NOTE), "{result}");
    // Asking to leave: read-only never lets it, and with nobody to answer (print and JSON
    // modes) the ask is a refusal.
    let asking = json!({ "command": command, "unsandboxed": true });
    let result = escalation_run(&f, asking.clone(), "read-only");
    assert!(!target.exists(), "{result}");
    assert!(
        result.contains("read-only mode never runs a command outside the command sandbox"),
        "{result}"
    );
    let result = escalation_run(&f, asking.clone(), "ask");
    assert!(!target.exists(), "{result}");
    assert!(
        result.contains("outside the command sandbox needs the user's approval"),
        "{result}"
    );
    // In yolo mode the policy approves, and the command runs unconfined.
    let result = escalation_run(&f, asking, "yolo");
    assert!(target.exists(), "{result}");
}

/// A descriptor tack inherited without close-on-exec (here the SSH key, opened by the test as a
/// parent process might hold a file open) never reaches a command: an open descriptor would
/// reach past the sandbox's filesystem rules.
#[test]
fn a_descriptor_tack_inherited_does_not_reach_a_command() {
    let f = fixture();
    let key = std::ffi::CString::new(
        f.env
            .root()
            .join("user/.ssh/id_rsa")
            .to_str()
            .expect("utf8"),
    )
    .expect("no NUL");
    // SAFETY: opening a file by a NUL-terminated path; without O_CLOEXEC on purpose.
    let fd = unsafe { libc::open(key.as_ptr(), libc::O_RDONLY) };
    assert!(fd > 2, "open: {}", std::io::Error::last_os_error());
    let command = format!("cat <&{fd} 2>&1 || echo closed");
    let results = f.run(&[("inherited", command)], json!({}), &[]);
    // SAFETY: the descriptor opened above, closed once.
    unsafe { libc::close(fd) };
    assert!(!results["inherited"].contains(SSH_KEY), "{results:?}");
    assert!(results["inherited"].contains("closed"), "{results:?}");
}
