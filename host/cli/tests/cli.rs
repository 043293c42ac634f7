//! The real `tack` binary, end to end: real plugins built from source, real files in temp dirs,
//! real session files.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_test_support::http::{MockServer, Reply};
use tack_test_support::{stderr, stdout, tack, Env};

/// A small Rust project.
fn new_env() -> Env {
    let env = Env::new(tack!());
    env.write("README.md", "# Demo project\nA tiny project for tack.\n");
    env.write("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    env
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("session")
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn demo_provider_completes_a_tool_using_turn() {
    let env = new_env();
    let out = env.run(&["-p", "list the files here and read README.md"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let answer = stdout(&out);
    assert!(answer.starts_with("[demo]"), "{answer}");
    assert!(answer.contains("README.md"), "{answer}");
    let err = stderr(&out);
    assert!(err.contains("offline demo provider"), "{err}");
    assert!(err.contains("→ ls") && err.contains("→ read"), "{err}");

    let sessions = env.session_files();
    assert_eq!(sessions.len(), 1);
    let entries = lines(&sessions[0]);
    let header: Value = serde_json::from_str(&entries[0]).expect("header");
    assert_eq!(header["type"], "session");
    let roles: Vec<String> = entries[1..]
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| e["message"]["role"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "toolResult", "toolResult", "assistant"]
    );
}

#[test]
fn a_fresh_home_runs_precompiled_builtins_and_defers_the_providers_it_does_not_use() {
    let cache = tempfile::tempdir().expect("cache");
    let env = Env::new(tack!().with_cache(cache.path())).with_var("TACK_LOG", "tack_runtime=debug");
    let ready = |err: &str, plugin: &str| {
        err.lines()
            .find(|l| l.contains("component ready") && l.contains(&format!("plugin={plugin} ")))
            .map(|l| l.rsplit("origin=").next().unwrap_or("").trim().to_string())
    };

    // Nothing compiles: every built-in comes from the artifacts the build precompiled.
    let first = env.run(&["-p", "hello"]);
    assert!(first.status.success(), "stderr: {}", stderr(&first));
    let err = stderr(&first);
    for builtin in tack_builtin::BUILTINS {
        if builtin.name == "mcp" {
            // The MCP client loads only once a server is configured.
            assert_eq!(ready(&err, "mcp"), None, "{err}");
            continue;
        }
        assert_eq!(
            ready(&err, builtin.name).as_deref(),
            Some("Precompiled"),
            "{}: {err}",
            builtin.name
        );
    }

    // The next run lists the providers without loading them; the one it uses (the offline demo)
    // loads on its first call, from the cache.
    let second = env.run(&["-p", "hello"]);
    assert!(second.status.success(), "stderr: {}", stderr(&second));
    assert!(stdout(&second).starts_with("[demo]"), "{}", stdout(&second));
    let err = stderr(&second);
    for provider in ["provider-anthropic", "provider-openai", "provider-google"] {
        assert!(
            err.contains(&format!(
                "plugin deferred until first use plugin={provider}"
            )),
            "{provider}: {err}"
        );
        assert_eq!(ready(&err, provider), None, "{provider} loaded: {err}");
    }
    assert_eq!(
        ready(&err, "provider-demo").as_deref(),
        Some("Cache"),
        "{err}"
    );
    assert_eq!(ready(&err, "core-tools").as_deref(), Some("Cache"), "{err}");

    // `tack models` still lists every provider's models from what was remembered.
    let models = env.run(&["models"]);
    assert!(models.status.success(), "stderr: {}", stderr(&models));
    let listed = stdout(&models);
    assert!(
        listed.contains("demo-1") && listed.contains("openai"),
        "{listed}"
    );
}

#[test]
fn json_mode_streams_every_event_as_a_line() {
    let env = new_env();
    let out = env.run(&["--mode", "json", "search for hello"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    // As in Pi, the session's header comes first.
    assert_eq!(types[..2], ["session", "agent_start"]);
    assert_eq!(events[0]["version"], 3);
    assert_eq!(types.last(), Some(&"agent_end"));
    let start = types
        .iter()
        .position(|t| *t == "tool_execution_start")
        .expect("a tool ran");
    let end = types
        .iter()
        .position(|t| *t == "tool_execution_end")
        .expect("it ended");
    assert!(start < end);
    let grep_end = events
        .iter()
        .find(|e| e["type"] == "tool_execution_end")
        .expect("end");
    assert_eq!(grep_end["toolName"], "grep");
    assert!(
        grep_end["result"].to_string().contains("src/main.rs"),
        "{grep_end}"
    );
    assert!(
        types.contains(&"message_update"),
        "assistant text streams as deltas"
    );
}

#[test]
fn stdin_is_the_prompt_and_continue_appends_to_the_same_session() {
    let env = new_env();
    let mut child = env
        .command()
        .arg("-p")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(b"read src/main.rs").expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("main.rs"), "{}", stdout(&out));
    let before = lines(&env.session_files()[0]).len();

    let out = env.run(&["-c", "-p", "list files"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let sessions = env.session_files();
    assert_eq!(sessions.len(), 1, "-c continued the same session");
    assert!(lines(&sessions[0]).len() > before);

    let out = env.run(&["--no-session", "-p", "list files"]);
    assert!(out.status.success());
    assert_eq!(env.session_files().len(), 1, "--no-session writes nothing");
}

#[test]
fn plugins_command_lists_what_each_plugin_provides_and_may_do() {
    let env = new_env();
    let out = env.run(&["plugins"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("core-tools 0.1.0 (api 0.2.0, built-in)"),
        "{text}"
    );
    assert!(
        text.contains("tools: bash, bash_kill, bash_output, edit, find, grep, ls, read, write")
            || text.contains("tools: read"),
        "{text}"
    );
    assert!(text.contains("run any command as you"), "{text}");
    assert!(text.contains("provider demo"), "{text}");
}

#[test]
fn a_trapping_tool_becomes_an_error_result_and_the_turn_goes_on() {
    let env = new_env();
    let hostile_dir = env.package("hostile", artifacts::TEST_HOSTILE, "");
    let scripted = env.scripted_provider(json!([
        { "tool_calls": [{ "id": "t1", "name": "trap", "arguments": {} }] },
        { "text": "the tool crashed, moving on" }
    ]));
    let out = env.run(&[
        "--plugin",
        scripted.to_str().expect("utf8"),
        "--plugin",
        hostile_dir.to_str().expect("utf8"),
        "-p",
        "go",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "the tool crashed, moving on");
    let session = lines(&env.session_files()[0]).join("\n");
    assert!(
        session.contains("deliberate trap"),
        "the error result names the cause: {session}"
    );
}

/// kill -9 at chosen points of a long scripted run: each round kills the run once its session
/// file holds a given number of complete lines (a different number each round), so every kill
/// lands mid-run whatever the machine's load; every complete line survives, and `-c` resumes the
/// session.
#[test]
fn kill_nine_mid_run_loses_at_most_the_line_being_written() {
    let env = new_env();
    // 80 turns of about three lines each: longer than any kill point below.
    let turns: Vec<Value> = (0..80)
        .map(|i| json!({ "text": format!("step {i}"), "tool_calls": [{ "id": format!("c{i}"), "name": "bash", "arguments": { "command": format!("echo step {i}") } }] }))
        .chain(std::iter::once(json!({ "text": "all done" })))
        .collect();
    let scripted = env.scripted_provider(Value::Array(turns));
    let plugin = scripted.to_str().expect("utf8").to_string();

    let complete_lines = |path: &Path| {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter(|l| serde_json::from_str::<Value>(l).is_ok())
            .count()
    };
    for round in 0..12 {
        let kill_at = 4 + round * 11;
        let existing = env.session_files();
        let mut child = env
            .command()
            .args(["--plugin", &plugin, "-p", "run the long script"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let started = std::time::Instant::now();
        loop {
            let file = env
                .session_files()
                .into_iter()
                .find(|p| !existing.contains(p));
            if file.is_some_and(|f| complete_lines(&f) >= kill_at) {
                break;
            }
            assert!(
                matches!(child.try_wait(), Ok(None)),
                "round {round}: the run ended before line {kill_at}"
            );
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "round {round}: no line {kill_at} after two minutes"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(
            matches!(child.try_wait(), Ok(None)),
            "round {round}: killed mid-run"
        );
        let _ = child.kill();
        let _ = child.wait();

        for path in env.session_files() {
            let text = std::fs::read_to_string(&path).expect("read");
            let all: Vec<&str> = text.split('\n').collect();
            let (complete, last) = all.split_at(all.len() - 1);
            for (i, line) in complete.iter().enumerate() {
                assert!(
                    serde_json::from_str::<Value>(line).is_ok(),
                    "round {round}: complete line {i} of {} is corrupt: {line}",
                    path.display()
                );
            }
            // The final segment is empty (clean end) or the torn line being written.
            let _ = last;
        }
    }

    // `-c` continues the most recently modified session, names breaking ties between equal
    // mtimes (several kills can land within one clock tick when the machine is busy).
    let before: Vec<(PathBuf, usize)> = env
        .session_files()
        .into_iter()
        .map(|p| {
            let n = complete_lines(&p);
            (p, n)
        })
        .collect();
    let newest = before
        .iter()
        .map(|(p, _)| p.clone())
        .max_by_key(|p| {
            let modified = std::fs::metadata(p).and_then(|m| m.modified()).ok();
            (modified, p.file_name().map(|n| n.to_owned()))
        })
        .expect("a session");
    let out = env.run(&["--plugin", &plugin, "-c", "-p", "continue"]);
    assert!(out.status.success(), "resume failed: {}", stderr(&out));
    let grown: Vec<&PathBuf> = before
        .iter()
        .filter(|(p, n)| complete_lines(p) > *n)
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        grown,
        vec![&newest],
        "resuming appended to the newest session file, and to no other"
    );
    assert_eq!(
        env.session_files().len(),
        before.len(),
        "resuming created no new session file"
    );
    let after: Vec<String> = lines(&newest);
    assert!(
        after
            .last()
            .is_some_and(|l| serde_json::from_str::<Value>(l).is_ok()),
        "the resumed file ends cleanly"
    );
}

#[test]
fn slash_commands_run_in_their_plugin_and_keep_state_in_the_session() {
    let env = new_env();
    let hello = Path::new(artifacts::HELLO_RUST_MANIFEST)
        .parent()
        .expect("dir")
        .to_path_buf();
    let package = env.home().join("hello");
    std::fs::create_dir_all(&package).expect("dir");
    std::fs::copy(hello.join("tack.toml"), package.join("tack.toml")).expect("manifest");
    std::fs::copy(artifacts::HELLO_RUST, package.join("hello_rust.wasm")).expect("component");
    let plugin = package.to_str().expect("utf8");

    let out = env.run(&["--plugin", plugin, "-p", "/hello tack"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "Hello, tack! (greeting 1 in this session)"
    );
    let out = env.run(&["--plugin", plugin, "-c", "-p", "/hello"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let session = lines(&env.session_files()[0]).join("\n");
    assert!(session.contains("hello-counter"), "{session}");
    assert!(
        session.contains("\"count\":2") || session.contains("\"count\": 2"),
        "the counter followed the session: {session}"
    );

    let out = env.run(&["--plugin", plugin, "-p", "/nope"]);
    assert!(
        out.status.success(),
        "an unknown /word is a prompt for the model: {}",
        stderr(&out)
    );
}

fn json_events(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn ended_tools(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "tool_execution_end")
        .map(|e| e["toolCallId"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn stored_results(env: &Env) -> Vec<(String, bool, String)> {
    lines(&env.session_files()[0])
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["message"]["role"] == "toolResult")
        .map(|e| {
            let m = &e["message"];
            (
                m["toolCallId"].as_str().unwrap_or_default().to_string(),
                m["isError"].as_bool().unwrap_or(false),
                m["content"].to_string(),
            )
        })
        .collect()
}

#[test]
fn parallel_calls_finish_out_of_order_but_results_keep_the_assistants_order() {
    let env = new_env();
    let scripted = env.scripted_provider(json!([
        { "tool_calls": [
            { "id": "slow", "name": "bash", "arguments": { "command": "sleep 0.6; echo slow" } },
            { "id": "fast", "name": "bash", "arguments": { "command": "echo fast" } },
            { "id": "mid", "name": "bash", "arguments": { "command": "sleep 0.3; echo mid" } }
        ] },
        { "text": "done" }
    ]));
    let out = env.run(&[
        "--plugin",
        scripted.to_str().expect("utf8"),
        "--mode",
        "json",
        "go",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(
        ended_tools(&json_events(&out)),
        ["fast", "mid", "slow"],
        "completion events as tools finish"
    );
    let stored: Vec<String> = stored_results(&env)
        .into_iter()
        .map(|(id, _, _)| id)
        .collect();
    assert_eq!(
        stored,
        ["slow", "fast", "mid"],
        "results stored in the assistant's order"
    );
}

#[test]
fn a_sequential_tool_makes_the_whole_batch_run_in_order() {
    let env = new_env();
    // `write` is sequential in core-tools, so the slow bash call must finish before it starts.
    let scripted = env.scripted_provider(json!([
        { "tool_calls": [
            { "id": "first", "name": "bash", "arguments": { "command": "sleep 0.4; echo first > order.txt" } },
            { "id": "second", "name": "write", "arguments": { "path": "second.txt", "content": "written second\n" } }
        ] },
        { "text": "done" }
    ]));
    let out = env.run(&[
        "--plugin",
        scripted.to_str().expect("utf8"),
        "--mode",
        "json",
        "go",
    ]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(ended_tools(&json_events(&out)), ["first", "second"]);
    assert!(
        env.workspace().join("order.txt").exists() && env.workspace().join("second.txt").exists()
    );
}

#[test]
fn tool_calls_of_a_truncated_message_are_failed_not_run() {
    let env = new_env();
    let scripted = env.scripted_provider(json!([
        { "tool_calls": [{ "id": "t", "name": "bash", "arguments": { "command": "touch must-not-exist" } }], "stop": "length" },
        { "text": "ok" }
    ]));
    let out = env.run(&["--plugin", scripted.to_str().expect("utf8"), "-p", "go"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        !env.workspace().join("must-not-exist").exists(),
        "the call was executed"
    );
    let results = stored_results(&env);
    assert_eq!(results.len(), 1);
    assert!(results[0].1, "an error result");
    assert!(
        results[0].2.to_lowercase().contains("length") || results[0].2.contains("limit"),
        "{}",
        results[0].2
    );
}

#[test]
fn schema_invalid_arguments_become_an_error_naming_the_field() {
    let env = new_env();
    let scripted = env.scripted_provider(json!([
        { "tool_calls": [{ "id": "bad", "name": "read", "arguments": { "path": 5 } }] },
        { "text": "recovered" }
    ]));
    let out = env.run(&["--plugin", scripted.to_str().expect("utf8"), "-p", "go"]);
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "recovered");
    let results = stored_results(&env);
    assert!(results[0].1);
    assert!(
        results[0].2.contains("path"),
        "names the field: {}",
        results[0].2
    );
}

#[test]
fn ctrl_c_aborts_a_running_tool_and_leaves_the_session_consistent() {
    let env = new_env();
    let scripted = env.scripted_provider(json!([
        { "tool_calls": [
            { "id": "long", "name": "bash", "arguments": { "command": "sleep 30" } },
            { "id": "later", "name": "write", "arguments": { "path": "never.txt", "content": "x" } }
        ] },
        { "text": "unreachable" }
    ]));
    let child = env
        .command()
        .args(["--plugin", scripted.to_str().expect("utf8"), "-p", "go"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Wait until the tool is running (the session has the assistant message with its calls).
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        let assistant_stored = env
            .session_files()
            .first()
            .map(|p| {
                std::fs::read_to_string(p)
                    .unwrap_or_default()
                    .contains("\"role\":\"assistant\"")
            })
            .unwrap_or(false);
        if assistant_stored {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let pid = child.id().to_string();
    let sent = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(sent.success());
    let begun = std::time::Instant::now();
    let out = child.wait_with_output().expect("wait");
    assert!(
        begun.elapsed() < Duration::from_secs(10),
        "abort took {:?}",
        begun.elapsed()
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "print mode exits 1 on abort; stderr: {}",
        stderr(&out)
    );
    assert!(
        !env.workspace().join("never.txt").exists(),
        "an unstarted call ran after abort"
    );
    let results = stored_results(&env);
    let ids: Vec<&str> = results.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, ["long", "later"], "every call has a result");
    assert!(results.iter().all(|(_, is_error, _)| *is_error));
}

fn fixture(provider: &str, name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../runtime/tests/fixtures/sse/{provider}/{name}.sse",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_provider_completes_a_multi_tool_task_against_a_local_mock() {
    for (provider, base_path) in [
        ("anthropic", ""),
        ("openai", "/v1"),
        ("openai-responses", "/v1"),
        ("google", ""),
    ] {
        let env = new_env();
        std::fs::write(
            env.workspace().join("Cargo.toml"),
            "[package]\nname = \"demo\"\n",
        )
        .expect("cargo toml");
        // The n-th request gets the n-th reply, as an SSE stream written in small pieces.
        let replies = [fixture(provider, "tools"), fixture(provider, "text")];
        let mock = MockServer::start(move |n| {
            Reply::sse(replies.get(n).cloned().unwrap_or_default()).in_pieces(37)
        });
        let base = format!("{}{base_path}", mock.url());
        let out = env.run(&[
            "--provider",
            provider,
            "--base-url",
            &base,
            "--api-key",
            "sk-test-key",
            "-p",
            "read src/main.rs and Cargo.toml",
        ]);
        assert!(out.status.success(), "{provider}: stderr: {}", stderr(&out));
        assert!(!stdout(&out).trim().is_empty(), "{provider}: no answer");
        let results = stored_results(&env);
        assert!(results.len() >= 2, "{provider}: {results:?}");
        assert!(
            results.iter().all(|(_, is_error, _)| !is_error),
            "{provider}: {results:?}"
        );
        assert!(
            results.iter().any(|(_, _, c)| c.contains("println")),
            "{provider}: src/main.rs was read: {results:?}"
        );
        let requests: Vec<String> = mock.requests().iter().map(|r| r.text()).collect();
        assert_eq!(requests.len(), 2, "{provider}: one request per turn");
        assert!(
            requests.iter().all(|r| r.contains("sk-test-key")),
            "{provider}: the host attached the key"
        );
        assert!(
            requests[1].contains("fn main"),
            "{provider}: the second request carries the tool results"
        );
    }
}

#[test]
fn policy_plugins_apply_in_print_mode() {
    let env = new_env();
    let write_call = |path: &str| {
        json!([
            { "tool_calls": [{ "id": "w", "name": "write", "arguments": { "path": path, "content": "x\n" } }] },
            { "text": "done" }
        ])
    };
    // Headless runs default to `auto`: writing inside the workspace is allowed...
    let plugin = env.scripted_provider(write_call("notes.txt"));
    let out = env.run(&[
        "--plugin",
        plugin.to_str().expect("utf8"),
        "--no-session",
        "-p",
        "go",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.workspace().join("notes.txt").exists());
    // ...but not to a protected path,
    let out = env.run(&["--plugin", plugin.to_str().expect("utf8"), "-p", "go"]);
    assert!(out.status.success());
    let plugin = env.scripted_provider(write_call(".env"));
    let out = env.run(&["--plugin", plugin.to_str().expect("utf8"), "-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !env.workspace().join(".env").exists(),
        "protected-paths let .env through"
    );
    // ...nor in plan mode, nor with read-only permissions.
    let plugin = env.scripted_provider(write_call("plan.txt"));
    for flags in [["--plan", "-p"], ["--permissions", "read-only"]] {
        let mut args = vec!["--plugin", plugin.to_str().expect("utf8")];
        args.extend(flags);
        if args.last() != Some(&"-p") {
            args.push("-p");
        }
        args.push("go");
        let out = env.run(&args);
        assert!(out.status.success(), "{flags:?}: {}", stderr(&out));
        assert!(
            !env.workspace().join("plan.txt").exists(),
            "{flags:?} let a write through"
        );
    }
}

#[test]
fn completions_pass_the_shells_own_syntax_check_and_a_typo_is_not_a_prompt() {
    let env = new_env();
    let out = env.run(&["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = env.write("tack.bash", &out.stdout);
    let checked = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .expect("bash runs");
    assert!(checked.status.success(), "{}", stderr(&checked));
    assert!(stdout(&out).contains("install"), "{}", stdout(&out));

    let out = env.run(&["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with(".ie") || stdout(&out).contains(".TH tack"));

    // A near miss of a subcommand is caught before any provider is asked, and no session is
    // written; quoted, or after `--`, it is a prompt.
    let out = env.run(&["instal", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("did you mean `tack install`?"),
        "{}",
        stderr(&out)
    );
    assert!(env.session_files().is_empty());
    for args in [&["-p", "--", "instal", "x"][..], &["-p", "instal x"][..]] {
        let out = env.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).starts_with("[demo]"), "{}", stdout(&out));
    }
}
