//! Every program in Pi's `examples/extensions/` (pi-coding-agent 0.73.1, installed by
//! `scripts/install-pi`), loaded unchanged with `tack -e` into tack's Pi runtime and driven
//! through the real binary by a scripted model, one scenario each
//! (`tests/pi-extensions/scenarios.toml`). Each scenario says what it expects: that the
//! extension runs (as it is, or with the grant it names), or that tack refuses it, or stops it
//! at the Pi method it lacks, with the reason a user reads. The table of outcomes is a snapshot
//! (`snapshots/pi_extensions__examples.snap`).
//!
//! Skipped, saying why, without Node, Pi's package or sdk/pi's toolchain, unless
//! `TACK_REQUIRE_PI=1` / `TACK_REQUIRE_SDKS=1` (set by `.ci/run`) make that a failure.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_test_support::http::MockServer;
use tack_test_support::json_mode::{call_turn, json_events, tool_result};
use tack_test_support::pi::pi_peer;
use tack_test_support::pty::Tui;
use tack_test_support::{stderr, stdout, tack, Env};

/// One example's scenario.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    /// The file (without `.ts`) or folder in `examples/extensions/`.
    name: String,
    /// `runs`, `grant` (runs with `grant`), `refused` (at load) or `not-yet` (stopped at use).
    outcome: String,
    /// What the scenario does, or why the extension cannot run, for the table.
    what: String,
    /// grants.toml lines for the extension's plugin (`pi-<name>`).
    #[serde(default)]
    grant: String,
    /// tack's arguments after `-e <extension>` (print mode by default).
    #[serde(default = "default_args")]
    args: Vec<String>,
    /// The scripted model's turns.
    #[serde(default)]
    script: Vec<Value>,
    /// The scripted model's other conversations: a request whose first user message holds a
    /// key plays its turns (an extension's own model call, say).
    #[serde(default)]
    branches: toml::Table,
    /// More of config.toml (`[compaction]`, say).
    #[serde(default)]
    config: toml::Table,
    /// Makes the workspace a git repository with `files` committed, then writes `dirty` (a tree
    /// with changes to commit).
    #[serde(default)]
    git: bool,
    /// With `git`: the `origin` remote's URL.
    #[serde(default)]
    git_remote: Option<String>,
    /// With `git`: files written after the first commit.
    #[serde(default)]
    dirty: toml::Table,
    /// With `git`: text the newest commit's subject must hold afterwards.
    #[serde(default)]
    committed: Option<String>,
    /// Other plugins' configuration (`[plugins.<name>]` of config.toml).
    #[serde(default)]
    plugins: toml::Table,
    /// Files written into the workspace first (path → text).
    #[serde(default)]
    files: toml::Table,
    /// Stand-ins for programs that talk to the world outside the machine (`gh`): name → shell
    /// script, put first on tack's `PATH`.
    #[serde(default)]
    bin: toml::Table,
    /// tack's arguments for a run before the scenario's (in the same home: `-c` continues it).
    #[serde(default)]
    before: Vec<String>,
    /// Written to tack's standard input, then closed (RPC mode's commands).
    #[serde(default)]
    stdin: Option<String>,
    /// With `stdin`: standard input stays open until this appears on standard output (an RPC
    /// client waiting for an answer), or tack ends.
    #[serde(default)]
    until: Option<String>,
    /// Instead of the scripted model: Anthropic's API on a local server, answering this text
    /// (provider hooks see real HTTP requests only).
    #[serde(default)]
    anthropic: Option<String>,
    /// Beside the session's model: a provider's API on a local server, for an extension that
    /// calls a model of it itself.
    #[serde(default)]
    own_model: Option<OwnModel>,
    /// With `anthropic` or `own_model`: text each of which must appear in a request the model was
    /// sent (the system prompt an extension changed, say).
    #[serde(default)]
    sent: Vec<String>,
    /// Workspace files that must exist afterwards, each holding the text given.
    #[serde(default)]
    written: toml::Table,
    /// Text each of which must appear in tack's output or the session.
    #[serde(default)]
    expect: Vec<String>,
    /// Text none of which may appear there.
    #[serde(default)]
    reject: Vec<String>,
    /// Instead of print mode: tack's terminal UI in a pseudo-terminal, driven by these steps
    /// (with `args = []`); every screen a step waited for counts as output.
    #[serde(default)]
    tui: Vec<TuiStep>,
}

/// A provider an extension calls a model of itself (`complete` of pi-ai), on a local server.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OwnModel {
    /// `openai` or `google`: its key is set and its base URL is the server's.
    provider: String,
    /// The text the server answers.
    reply: String,
    /// Models added to the provider's own (one its catalog lacks).
    #[serde(default)]
    models: Vec<String>,
}

/// One step of a terminal UI scenario.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TuiStep {
    /// Types this and presses Enter (a prompt or a slash command).
    #[serde(default)]
    submit: Option<String>,
    /// Types these bytes as they are (`"\u001b[A"` is the up arrow).
    #[serde(default)]
    keys: Option<String>,
    /// Tack ends on its own after this step (an extension ended it): waits for it to exit.
    #[serde(default)]
    exits: bool,
    /// Waits until the screen shows this.
    #[serde(default)]
    wait: Option<String>,
    /// Waits until the screen no longer shows this.
    #[serde(default)]
    gone: Option<String>,
}

fn default_args() -> Vec<String> {
    vec!["-p".into(), "hello".into()]
}

#[derive(Debug, Deserialize)]
struct Scenarios {
    example: Vec<Scenario>,
}

/// The folder of Pi's examples, or `None` when the test cannot run (see the module's doc).
fn examples() -> Option<PathBuf> {
    pi_peer()?;
    if !tack_sdk_examples::pi_sdk_ready() {
        return None;
    }
    Some(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/pi-peer/node_modules/@mariozechner/pi-coding-agent/examples/extensions"),
    )
}

fn extension_path(examples: &Path, name: &str) -> PathBuf {
    let file = examples.join(format!("{name}.ts"));
    if file.is_file() {
        file
    } else {
        examples.join(name)
    }
}

/// Runs one scenario; `Err` says how the outcome differs from the one expected.
fn run(examples: &Path, scenario: &Scenario) -> Result<(), String> {
    let env = Env::new(tack!());
    let script = if scenario.script.is_empty() {
        vec![json!({ "text": "ok" })]
    } else {
        scenario.script.clone()
    };
    let mut config = serde_json::to_value(&scenario.config).expect("configuration as JSON");
    config["provider"] = json!("scripted");
    config["plugins"] = serde_json::to_value(&scenario.plugins).expect("plugin configuration");
    config["plugins"]["scripted"] = json!({
        "script": script,
        "branches": serde_json::to_value(&scenario.branches).expect("branches as JSON"),
    });
    let own = match &scenario.own_model {
        None => None,
        Some(own) => {
            let (reply, path, key) = match own.provider.as_str() {
                "openai" => (
                    tack_test_support::openai::text_reply(&own.reply),
                    "/v1",
                    "OPENAI_API_KEY",
                ),
                "google" => (
                    tack_test_support::google::text_reply(&own.reply),
                    "",
                    "GEMINI_API_KEY",
                ),
                other => return Err(format!("own_model: no local server for `{other}`")),
            };
            let server = MockServer::always(reply);
            let models: Vec<Value> = own
                .models
                .iter()
                .map(|id| json!({ "id": id, "reasoning": true }))
                .collect();
            config["providers"][&own.provider] =
                json!({ "base_url": format!("{}{path}", server.url()), "models": models });
            Some((server, key))
        }
    };
    env.config(config);
    let env = match &own {
        Some((_, key)) => env.with_var(*key, "sk-own-model-test"),
        None => env,
    };
    let own_server = own.as_ref().map(|(server, _)| server);
    let env = if scenario.bin.is_empty() {
        env
    } else {
        use std::os::unix::fs::PermissionsExt as _;
        let bin = env.root().join("bin");
        std::fs::create_dir_all(&bin).map_err(|e| format!("bin: {e}"))?;
        for (name, script) in &scenario.bin {
            let path = bin.join(name);
            std::fs::write(&path, script.as_str().unwrap_or_default())
                .and_then(|()| {
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                })
                .map_err(|e| format!("bin/{name}: {e}"))?;
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![bin];
        dirs.extend(std::env::split_paths(&path));
        let joined = std::env::join_paths(dirs).map_err(|e| format!("PATH: {e}"))?;
        env.with_var("PATH", joined)
    };
    let scripted = env.package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
    if !scenario.grant.is_empty() {
        env.grant(&format!("pi-{}", scenario.name), &scenario.grant);
    }
    for (path, text) in &scenario.files {
        env.write(path, text.as_str().unwrap_or_default());
    }
    let workspace = env.workspace().to_path_buf();
    let git = move |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(&workspace)
            .output()
            .expect("git runs")
    };
    if scenario.git {
        for args in [
            &["init", "-q"][..],
            &["config", "user.email", "test@example.com"],
            &["config", "user.name", "Test"],
            &["add", "-A"],
            &["commit", "-q", "--allow-empty", "-m", "first"],
        ] {
            assert!(git(args).status.success(), "git {args:?}");
        }
        if let Some(url) = &scenario.git_remote {
            assert!(git(&["remote", "add", "origin", url]).status.success());
        }
        for (path, text) in &scenario.dirty {
            env.write(path, text.as_str().unwrap_or_default());
        }
    }
    let extension = extension_path(examples, &scenario.name);
    let mut args = vec![
        "--plugin".to_string(),
        scripted.display().to_string(),
        "-e".to_string(),
        extension.display().to_string(),
    ];
    let server = scenario
        .anthropic
        .as_ref()
        .map(|reply| MockServer::always(tack_test_support::anthropic::text_reply(reply)));
    let env = match &server {
        Some(server) => {
            args.extend(["--provider", "anthropic", "--base-url", server.url()].map(String::from));
            env.with_var("ANTHROPIC_API_KEY", "sk-ant-test")
        }
        None => env,
    };
    args.extend(scenario.args.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if !scenario.before.is_empty() {
        let mut earlier: Vec<&str> = args[..4].to_vec();
        earlier.extend(scenario.before.iter().map(String::as_str));
        let out = env.run(&earlier);
        if !out.status.success() {
            return Err(format!("the run before failed:\n{}", stderr(&out)));
        }
    }
    if !scenario.tui.is_empty() {
        let seen = drive_tui(&env, &args, &scenario.tui).map_err(|e| {
            let log =
                std::fs::read_to_string(env.home().join("tui-stderr.log")).unwrap_or_default();
            format!("{e}\ntack's log (tui-stderr.log):\n{log}")
        })?;
        let seen = format!("{seen}\n{}", env.sessions_text());
        return check(&env, scenario, &seen, server.as_ref().or(own_server), &git);
    }
    let out = match &scenario.stdin {
        None => env.run(&args),
        Some(input) => {
            let mut child = env
                .command()
                .args(&args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("tack starts");
            let mut stdin = child.stdin.take().expect("stdin");
            stdin
                .write_all(format!("{input}\n").as_bytes())
                .expect("tack reads its input");
            // Standard output is read on a thread of its own, line by line, so that the input
            // can stay open until the awaited text arrives (an RPC client waiting for an
            // answer), but never longer than a minute: then it closes, and the expectations
            // say what was missing.
            let stdout = child.stdout.take().expect("stdout");
            let (lines, received) = std::sync::mpsc::channel::<String>();
            let reader = std::thread::spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                    if lines.send(std::mem::take(&mut line)).is_err() {
                        break;
                    }
                }
            });
            let mut seen = String::new();
            if let Some(until) = &scenario.until {
                let give_up = std::time::Instant::now() + Duration::from_secs(60);
                while !seen.contains(until.as_str()) {
                    let left = give_up.saturating_duration_since(std::time::Instant::now());
                    match received.recv_timeout(left) {
                        Ok(line) => seen.push_str(&line),
                        Err(_) => {
                            eprintln!("{}: `{until}` did not come within a minute", scenario.name);
                            break;
                        }
                    }
                }
            }
            drop(stdin);
            let mut out = child.wait_with_output().expect("tack ends");
            reader.join().expect("the reader ends");
            seen.extend(received.try_iter());
            out.stdout = seen.into_bytes();
            out
        }
    };
    let seen = format!(
        "{}\n{}\n{}",
        stdout(&out),
        stderr(&out),
        env.sessions_text()
    );
    // A command that stops at a missing Pi method fails as a command does; only the status of
    // the other outcomes is certain.
    let expected_success = match scenario.outcome.as_str() {
        "runs" | "grant" => Some(true),
        "refused" => Some(false),
        _ => None,
    };
    if expected_success.is_some_and(|success| success != out.status.success()) {
        return Err(format!(
            "exit status {} where outcome `{}` was expected:\n{seen}",
            out.status, scenario.outcome
        ));
    }
    check(&env, scenario, &seen, server.as_ref().or(own_server), &git)
}

/// What a scenario expects of what it saw, the model was sent, and the workspace holds.
fn check(
    env: &Env,
    scenario: &Scenario,
    seen: &str,
    server: Option<&MockServer>,
    git: &dyn Fn(&[&str]) -> std::process::Output,
) -> Result<(), String> {
    for expected in &scenario.expect {
        if !seen.contains(expected.as_str()) {
            return Err(format!("`{expected}` not seen in:\n{seen}"));
        }
    }
    if let Some(server) = server {
        let bodies = server.bodies().join("\n");
        for expected in &scenario.sent {
            if !bodies.contains(expected.as_str()) {
                return Err(format!("`{expected}` was not sent to the model:\n{bodies}"));
            }
        }
    }
    if let Some(subject) = &scenario.committed {
        let log = String::from_utf8_lossy(&git(&["log", "-1", "--format=%s"]).stdout).into_owned();
        if !log.contains(subject.as_str()) {
            return Err(format!(
                "the newest commit is `{log}`, not `{subject}`:\n{seen}"
            ));
        }
    }
    for (path, text) in &scenario.written {
        let written = std::fs::read_to_string(env.workspace().join(path)).unwrap_or_default();
        if !written.contains(text.as_str().unwrap_or_default()) {
            return Err(format!(
                "{path} does not hold `{text}`: `{written}`\n{seen}"
            ));
        }
    }
    for rejected in &scenario.reject {
        if seen.contains(rejected.as_str()) {
            return Err(format!("`{rejected}` seen in:\n{seen}"));
        }
    }
    Ok(())
}

/// Runs tack's terminal UI with `args` and takes `steps`, then quits (Ctrl+C clears the
/// editor, Ctrl+D on an empty one quits). Returns every screen a step waited for, and the last.
fn drive_tui(env: &Env, args: &[&str], steps: &[TuiStep]) -> Result<String, String> {
    let mut tui = Tui::spawn(env, args);
    let mut seen = String::new();
    let wait = |tui: &Tui, what: &str, present: bool| -> Result<String, String> {
        let give_up = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let screen = tui.screen();
            if screen.contains(what) == present {
                return Ok(screen);
            }
            if std::time::Instant::now() > give_up {
                let how = if present {
                    "never showed"
                } else {
                    "still shows"
                };
                return Err(format!("the screen {how} `{what}`:\n{screen}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    // Ready: tack's editor, or an extension's in its place (`setEditorComponent`). The first
    // run after the Pi runtime changed compiles it, beside another scenario doing the same.
    let give_up = std::time::Instant::now() + Duration::from_secs(90);
    while !["Ask anything", "'s editor ─"]
        .iter()
        .any(|ready| tui.screen().contains(ready))
    {
        if std::time::Instant::now() > give_up {
            return Err(format!("no editor showed:\n{}", tui.screen()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    for step in steps {
        if let Some(text) = &step.submit {
            tui.submit(text);
        }
        if let Some(keys) = &step.keys {
            tui.type_keys(keys);
            // An escape byte followed at once by more input reads as Alt+key.
            std::thread::sleep(Duration::from_millis(150));
        }
        if let Some(what) = &step.wait {
            seen.push_str(&wait(&tui, what, true)?);
        }
        if let Some(what) = &step.gone {
            seen.push_str(&wait(&tui, what, false)?);
        }
        if step.exits {
            let give_up = std::time::Instant::now() + Duration::from_secs(30);
            loop {
                match tui.child.try_wait() {
                    Ok(Some(status)) if status.success() => {
                        seen.push_str(&tui.screen());
                        return Ok(seen);
                    }
                    Ok(Some(status)) => {
                        return Err(format!("tack ended with {status}:\n{}", tui.screen()))
                    }
                    _ if std::time::Instant::now() > give_up => {
                        return Err(format!("tack did not end:\n{}", tui.screen()))
                    }
                    _ => std::thread::sleep(Duration::from_millis(50)),
                }
            }
        }
    }
    seen.push_str(&tui.screen());
    tui.type_keys("\x03");
    std::thread::sleep(Duration::from_millis(200));
    tui.type_keys("\x04");
    let give_up = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        match tui.child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(seen),
            Ok(Some(status)) => return Err(format!("tack ended with {status}:\n{seen}")),
            _ if std::time::Instant::now() > give_up => {
                return Err(format!("tack did not quit:\n{}", tui.screen()))
            }
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

#[test]
fn every_pi_example_extension_runs_or_says_why_not() {
    let Some(examples) = examples() else {
        return;
    };
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/scenarios.toml"),
    )
    .expect("scenarios.toml");
    let scenarios: Scenarios = toml::from_str(&text).expect("scenarios.toml parses");

    // Every example has a scenario, and every scenario an example.
    let mut on_disk: Vec<String> = std::fs::read_dir(&examples)
        .expect("Pi's examples")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                Some(name)
            } else {
                name.strip_suffix(".ts").map(str::to_owned)
            }
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = scenarios.example.iter().map(|s| s.name.clone()).collect();
    listed.sort();
    assert_eq!(listed, on_disk, "scenarios.toml lists each example once");

    // `TACK_PI_EXAMPLE=a,b` runs only those scenarios (and checks no table): for chasing one.
    let only = std::env::var("TACK_PI_EXAMPLE").ok();
    let chosen: Vec<&Scenario> = scenarios
        .example
        .iter()
        .filter(|s| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|n| n == s.name))
        })
        .collect();

    // Two at a time: each run is a tack process of its own.
    let failures = Mutex::new(Vec::new());
    let next = Mutex::new(chosen.into_iter());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some(scenario) = next.lock().unwrap().next() else {
                    break;
                };
                if let Err(why) = run(&examples, scenario) {
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("{}: {why}", scenario.name));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if only.is_some() {
        return;
    }

    let count = |outcome: &str| {
        scenarios
            .example
            .iter()
            .filter(|s| s.outcome == outcome)
            .count()
    };
    let mut table = format!(
        "{} examples: {} run unchanged, {} run with a grant, {} stop at a Pi method tack lacks, {} not shown here, {} refused\n\n\
         | example | outcome | scenario, or why not |\n|---|---|---|\n",
        scenarios.example.len(),
        count("runs"),
        count("grant"),
        count("not-yet"),
        count("unshown"),
        count("refused"),
    );
    for s in &scenarios.example {
        let outcome = match s.outcome.as_str() {
            "runs" => "runs unchanged".to_string(),
            "grant" => format!("runs with `{}`", s.grant.trim().replace('\n', "; ")),
            "not-yet" => "stops at a Pi method tack lacks".to_string(),
            "unshown" => "loads; what it is for is not shown here".to_string(),
            "refused" => "refused".to_string(),
            other => panic!("{}: unknown outcome `{other}`", s.name),
        };
        table.push_str(&format!("| `{}` | {outcome} | {} |\n", s.name, s.what));
    }
    insta::assert_snapshot!("examples", table);
}

/// The hostile test plugin's attacks, as a Pi extension in TypeScript
/// (`tests/pi-extensions/hostile.ts`), with no grant: each is contained as it is for
/// a native plugin, and tack goes on.
#[test]
fn a_hostile_pi_extension_is_contained_as_a_native_plugin_is() {
    let Some(_examples) = examples() else {
        return;
    };
    let env = Env::new(tack!()).with_var("ANTHROPIC_API_KEY", "sk-ant-hostile-canary");
    let server = MockServer::always(tack_test_support::anthropic::text_reply("fetched"));
    std::fs::write(env.root().join("secret.txt"), "outside-canary").expect("secret");
    let attacks = [
        "read_outside",
        "read_absolute",
        "write_workspace",
        "env",
        "exec",
        "fetch",
        "escape",
        "forge_state",
        "read_state",
        "takeover",
        "pi_tools",
        "new_session",
    ];
    let mut script: Vec<Value> = attacks
        .iter()
        .map(|what| {
            let mut args = json!({ "what": what });
            if *what == "fetch" {
                args["url"] = json!(server.url());
            }
            call_turn(what, "attack", args)
        })
        .collect();
    script.push(call_turn("bash", "bash", json!({ "command": "ls" })));
    script.push(call_turn("find", "find", json!({ "pattern": "*.rs" })));
    script.push(call_turn("membomb", "attack", json!({ "what": "membomb" })));
    script.push(call_turn("after", "attack", json!({ "what": "after" })));
    script.push(json!({ "text": "done" }));
    let scripted = env.scripted_provider(Value::Array(script));
    let hostile = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/hostile.ts");
    let out = env.run(&[
        "--plugin",
        &scripted.display().to_string(),
        "-e",
        &hostile.display().to_string(),
        "--permissions",
        "auto",
        "--mode",
        "json",
        "-p",
        "attack",
    ]);
    assert!(out.status.success(), "tack goes on: {}", stderr(&out));
    let events = json_events(&out);

    for what in attacks
        .iter()
        .filter(|w| !["escape", "forge_state"].contains(w))
    {
        let (_, text) = tool_result(&events, what);
        assert!(text.starts_with("failed: "), "{what} was contained: {text}");
    }
    let (_, read) = tool_result(&events, "read_outside");
    assert!(
        read.contains("outside this extension's `fs` grants"),
        "{read}"
    );
    let (_, exec) = tool_result(&events, "exec");
    assert!(exec.contains("no exec grant"), "{exec}");
    let (_, fetch) = tool_result(&events, "fetch");
    assert!(fetch.contains("denied"), "{fetch}");
    assert!(
        server.requests().is_empty(),
        "no request reached the server"
    );
    assert!(!env.workspace().join("pwned.txt").exists());
    // Pi's own tools (createReadTool, …) hold the extension to its grants as node:fs does.
    let (_, tools) = tool_result(&events, "pi_tools");
    assert_eq!(tools.matches("failed: ").count(), 4, "{tools}");
    assert!(tools.contains("no exec grant"), "{tools}");
    assert!(!env.workspace().join("pwned-by-tool.txt").exists());
    let (_, moved) = tool_result(&events, "new_session");
    assert!(moved.contains("only a command the user runs"), "{moved}");

    // Escape sequences reach neither the terminal nor the session.
    let everything = format!("{}{}{}", stdout(&out), stderr(&out), env.sessions_text());
    assert!(!everything.contains("\u{1b}]0;pwned-title"), "{everything}");
    assert!(!everything.contains("sk-ant-hostile-canary"));
    assert!(!everything.contains("outside-canary"));

    // A forged entry of another plugin's type is the extension's own, which that plugin ignores.
    let forged: Vec<Value> = env
        .session_lines()
        .into_iter()
        .filter(|l| l["customType"] == "permission-gate" && l["data"]["mode"] == "yolo")
        .collect();
    assert!(
        !forged.is_empty() && forged.iter().all(|l| l["owner"] == "pi-hostile"),
        "{forged:?}"
    );
    assert!(
        env.session_lines()
            .iter()
            .any(|l| l["owner"] == "permission-gate"),
        "permission-gate's own state is in the session, out of the extension's sight"
    );

    // The bash tool stays tack's, and the rewrite of its arguments is refused.
    let (_, bash) = tool_result(&events, "bash");
    assert!(!bash.contains("captured"), "{bash}");
    assert!(!env.workspace().join("rewritten.txt").exists(), "{bash}");
    let (_, takeover) = tool_result(&events, "takeover");
    assert!(
        takeover.contains("core-tools"),
        "the owner is named: {takeover}"
    );

    // A spinning hook and an allocation without end are stopped, and the plugin answers after.
    let (find_error, find) = tool_result(&events, "find");
    assert!(find_error, "{find}");
    let (bomb_error, bomb) = tool_result(&events, "membomb");
    assert!(bomb_error, "{bomb}");
    assert!(bomb.contains("memory"), "{bomb}");
    let (_, after) = tool_result(&events, "after");
    assert!(after.contains("ok: echo after"), "{after}");
}

/// With `pi_extensions = true` in the user's config, Pi's own extension folders load as Pi loads
/// them: the user's `~/.pi/agent/extensions/`, and a project's `.pi/extensions/` only once the
/// project is trusted.
#[test]
fn pi_extension_folders_load_when_the_user_opts_in() {
    let Some(examples) = examples() else {
        return;
    };
    let user_home = tempfile::tempdir().expect("home");
    let env = Env::new(tack!()).with_var("HOME", user_home.path());
    let user_extensions = user_home.path().join(".pi/agent/extensions");
    std::fs::create_dir_all(&user_extensions).expect("user extensions");
    std::fs::copy(examples.join("hello.ts"), user_extensions.join("hello.ts")).expect("hello.ts");
    let project_extensions = env.workspace().join(".pi/extensions");
    std::fs::create_dir_all(&project_extensions).expect("project extensions");
    std::fs::copy(
        examples.join("session-name.ts"),
        project_extensions.join("session-name.ts"),
    )
    .expect("session-name.ts");
    let script = json!([
        { "tool_calls": [{ "id": "c1", "name": "hello", "arguments": { "name": "folders" } }] },
        { "text": "done" },
    ]);
    let scripted = env.package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
    let scripted = scripted.display().to_string();
    let configure = |opt_in: bool| {
        env.config(json!({
            "provider": "scripted",
            "pi_extensions": opt_in,
            "plugins": { "scripted": { "script": script } },
        }));
    };

    configure(false);
    let out = env.run(&["--plugin", &scripted, "--mode", "json", "-p", "greet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (failed, text) = tool_result(&json_events(&out), "c1");
    assert!(failed, "no extension without the opt-in: {text}");

    configure(true);
    let out = env.run(&["--plugin", &scripted, "--mode", "json", "-p", "greet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (_, text) = tool_result(&json_events(&out), "c1");
    assert_eq!(text, "Hello, folders!", "the user's folder loads");
    let out = env.run(&["--plugin", &scripted, "-p", "/session-name x"]);
    assert!(
        !stderr(&out).contains("Session named"),
        "an untrusted project's folder does not load: {}",
        stderr(&out)
    );

    let out = env.run(&[
        "--plugin",
        &scripted,
        "--trust",
        "-p",
        "/session-name parser",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("[pi-session-name] Session named: parser"),
        "a trusted project's folder loads: {}",
        stderr(&out)
    );
}

/// A Pi package folder (`package.json`'s `pi` key naming its extension, skills and prompt
/// templates) loaded with `-e`: the extension runs, and its skills and templates are found as a
/// tack package's are.
#[test]
fn a_pi_package_folder_brings_its_skills_and_prompt_templates() {
    let Some(_examples) = examples() else {
        return;
    };
    let env = Env::new(tack!());
    let scripted = env.scripted_provider(json!([{ "text": "ok" }, { "text": "ok" }]));
    let scripted = scripted.display().to_string();
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/package");
    let package = package.display().to_string();
    let run = |prompt: &str| {
        let out = env.run(&[
            "--plugin", &scripted, "-e", &package, "--mode", "json", "-p", prompt,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };

    let out = run("/demo");
    assert!(stdout(&out).contains("demo ran"), "{}", stdout(&out));
    let out = run("/greet Ana");
    assert!(
        stdout(&out).contains("Say hello to Ana warmly."),
        "the template expands: {}",
        stdout(&out)
    );
    let out = run("/skill:release-notes");
    assert!(
        stdout(&out).contains("Read the log and write notes."),
        "the skill loads: {}",
        stdout(&out)
    );
}

/// Node's modules in tack's Pi runtime answer as Node does (`tests/pi-extensions/node-apis.ts`,
/// with a read-write `fs` grant on the workspace and an `exec` grant for `echo`).
/// Pi's `tool_execution_update` carries the running call's `args` and its `partialResult`:
/// tack's event has the partial result only, and the Pi runtime adds the arguments it heard with
/// the call's start (`tests/pi-extensions/tool-updates.ts`), here of `bash` streaming its output.
/// And a turn's events carry the host's `turnIndex` (from 0 in each run) and `timestamp`, and a
/// streamed delta arrives as Pi's `assistantMessageEvent` with the partial message.
#[test]
fn pi_tool_updates_carry_the_calls_args_and_partial_result() {
    let Some(_examples) = examples() else {
        return;
    };
    let env = Env::new(tack!());
    let command = "echo first; sleep 1; echo second";
    let scripted = env.scripted_provider(json!([
        call_turn("b1", "bash", json!({ "command": command })),
        { "text": "done" },
    ]));
    let extension =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/tool-updates.ts");
    let out = env.run(&[
        "--plugin",
        &scripted.display().to_string(),
        "-e",
        &extension.display().to_string(),
        "-p",
        "run it",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("update of bash: `{command}` so far \"first\"")),
        "{err}"
    );
    assert!(
        err.contains("turns: start 0, end 0, start 1, end 1"),
        "{err}"
    );
    assert!(
        err.contains("streamed: text_delta at 0 with the partial answer"),
        "{err}"
    );
}

/// Pi's `session_compact` carries the compaction entry as the session holds it (read back by
/// the id `compaction_end` names) and `fromExtension`: whether an extension's
/// `session_before_compact` wrote the summary (`tests/pi-extensions/compact-watch.ts`).
#[test]
fn pi_session_compact_carries_the_entry_and_who_summarized() {
    let Some(_examples) = examples() else {
        return;
    };
    let env = Env::new(tack!());
    let scripted = env.scripted_provider(json!([
        { "text": "an earlier answer" },
        { "text": "tack's summary" },
        { "text": "tack's summary" },
        { "text": "a later answer" },
        { "text": "a later answer" },
    ]));
    env.edit_config(|config| config["compaction"] = json!({ "keep_recent_tokens": 1 }));
    let extension =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/compact-watch.ts");
    let (scripted, extension) = (
        scripted.display().to_string(),
        extension.display().to_string(),
    );
    let run = |args: &[&str]| {
        let mut all = vec!["--plugin", scripted.as_str(), "-e", extension.as_str()];
        all.extend(args);
        let out = env.run(&all);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    run(&["-p", "hello"]);
    let err = run(&["-c", "-p", "/compact"]);
    assert!(
        err.contains("compacted: compaction with an id, a parent, summary \"")
            && err.contains("fromExtension false"),
        "{err}"
    );
    run(&["-c", "-p", "again"]);
    let err = run(&["-c", "-p", "/compact mine"]);
    assert!(
        err.contains(
            "compacted: compaction with an id, a parent, summary \"the extension's summary\", \
             fromExtension true"
        ),
        "{err}"
    );
}

#[test]
fn node_modules_in_the_pi_runtime_answer_as_node_does() {
    let Some(_examples) = examples() else {
        return;
    };
    let env = Env::new(tack!()).with_var("PI_CANARY", "kept-out");
    env.grant(
        "pi-node-apis",
        "fs = [{ path = \"$WORKSPACE\", access = \"read-write\" }]\nexec = [\"echo **\"]",
    );
    let scripted = env.scripted_provider(json!([
        call_turn("c1", "node_apis", json!({})),
        { "text": "done" },
    ]));
    let extension = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/node-apis.ts");
    let out = env.run(&[
        "--plugin",
        &scripted.display().to_string(),
        "-e",
        &extension.display().to_string(),
        "--mode",
        "json",
        "-p",
        "check",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (failed, text) = tool_result(&json_events(&out), "c1");
    assert!(!failed, "{text}");
    let expected = "\
base64: aMOpbGxv
from base64: héllo
hex: 2
concat: ab
join: b/c.ts
relative: ../c/d
extname: .gz
resolve: true
format: n=3
fileURLToPath: /tmp/x y
events: pong 0
platform: linux
env: 0
write: first second
readdir: deep
stat: true 12
exists: true false
readFile: first second
rm: false
execFileSync: hi there
promisify(exec): promised";
    assert_eq!(text, expected);
}

/// Pi's `pi.events` across extensions: with `bus = ["x"]` granted to both, what `bus-a` emits
/// reaches `bus-b`, which keeps it as session state; without the grant on either side nothing
/// arrives and the sender's refusal is logged once (Pi's emit never throws). The sender's own
/// listener hears its emit either way, as in Pi.
#[test]
fn pi_events_reach_another_extension_only_on_a_channel_granted_to_both() {
    let Some(_examples) = examples() else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions");
    for granted in [
        &["pi-bus-a", "pi-bus-b"][..],
        &["pi-bus-a"],
        &["pi-bus-b"],
        &[],
    ] {
        let env = Env::new(tack!());
        let grants: String = granted
            .iter()
            .map(|name| format!("[plugins.{name}]\nbus = [\"x\"]\n"))
            .collect();
        std::fs::write(env.home().join("grants.toml"), grants).expect("grants");
        let scripted = env.scripted_provider(json!([
            call_turn("a1", "announce", json!({ "text": "first" })),
            call_turn("a2", "announce", json!({ "text": "second" })),
            { "text": "done" },
        ]));
        let out = env.run(&[
            "--plugin",
            &scripted.display().to_string(),
            "-e",
            &dir.join("bus-a.ts").display().to_string(),
            "-e",
            &dir.join("bus-b.ts").display().to_string(),
            "--mode",
            "json",
            "-p",
            "go",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let events = json_events(&out);
        let (failed, first) = tool_result(&events, "a1");
        assert!(!failed, "{first}");
        assert!(first.contains("heard myself 1 time"), "{first}");
        let heard: Vec<Value> = env
            .session_lines()
            .into_iter()
            .filter(|l| l["customType"] == "heard" && l["owner"] == "pi-bus-b")
            .map(|l| l["data"]["text"].clone())
            .collect();
        let err = stderr(&out);
        if granted.len() == 2 {
            // The first message is surely delivered: the second call starts after a turn.
            assert!(
                heard.first() == Some(&json!("first")),
                "bus-b heard bus-a, in order: {heard:?}\n{err}"
            );
            assert!(!err.contains("reaches this extension only"), "{err}");
        } else {
            assert!(heard.is_empty(), "granted {granted:?}: {heard:?}");
            if !granted.contains(&"pi-bus-a") {
                assert_eq!(
                    err.matches("pi.events.emit(\"x\") reaches this extension only")
                        .count(),
                    1,
                    "the refusal is logged once: {err}"
                );
            }
        }
    }
}
