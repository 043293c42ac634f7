//! `tack:plugin/process` (0.2.0) through the real binary: a plugin keeps a program running across
//! turns and tool calls, talks to it over its standard input and output, and the program ends
//! with tack.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_test_support::http::MockServer;
use tack_test_support::json_mode::{call_turn as call, json_events, tool_result};
use tack_test_support::{stderr, stdout, tack, Env};

/// Pids of the `cat` processes whose working directory is `dir`.
fn cats_in(dir: &Path) -> Vec<u32> {
    let Ok(dir) = dir.canonicalize() else {
        return Vec::new();
    };
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir)
                && std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|comm| comm.trim() == "cat")
        })
        .collect()
}

/// The process test plugin asking for `capabilities`, beside the scripted provider playing
/// `script`; returns the `--plugin` arguments.
fn process_run(env: &Env, script: Value, capabilities: &str) -> Vec<String> {
    let scripted = env.package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
    let plugin = env.package("talker", artifacts::TEST_PROCESS, capabilities);
    env.config(json!({
        "provider": "scripted",
        "plugins": { "scripted": { "script": script }, "talker": { "command": "cat" } }
    }));
    vec![
        "--plugin".into(),
        scripted.display().to_string(),
        "--plugin".into(),
        plugin.display().to_string(),
    ]
}

#[test]
fn a_plugins_program_lives_across_turns_answers_on_stdout_and_ends_with_tack() {
    let env = Env::new(tack!());
    let base = process_run(
        &env,
        json!([
            call("c1", "converse", json!({ "line": "hello" })),
            call("c2", "converse", json!({ "line": "hello again" })),
            call("l1", "processes", json!({})),
            call("k1", "keep_server", json!({})),
            call("b1", "bash", json!({ "command": "sleep 3" })),
            { "text": "all done" }
        ]),
        "process = [\"cat\"]",
    );
    env.grant("talker", "process = [\"cat\"]");
    let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
    args.extend(["--mode", "json", "talk to it"]);
    let run = env
        .command()
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tack starts");
    // While the last turn's command sleeps, the program is running in the workspace.
    let mut seen = false;
    for _ in 0..300 {
        if !cats_in(env.workspace()).is_empty() {
            seen = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = run.wait_with_output().expect("tack ends");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(seen, "the program ran in the workspace while tack did");
    let events = json_events(&out);
    assert_eq!(
        tool_result(&events, "c1"),
        (false, "reply: hello (process 1)".into())
    );
    // The same program, started by an earlier call (possibly in another instance), still runs.
    assert_eq!(
        tool_result(&events, "c2"),
        (false, "reply: hello again (process 1)".into())
    );
    let (failed, listed) = tool_result(&events, "l1");
    assert!(!failed, "{listed}");
    assert_eq!(
        serde_json::from_str::<Value>(&listed).expect("json"),
        json!([{ "id": 1, "command": "cat", "ended": false }])
    );
    // Only the user keeps a program past tack's exit, from a command they ran: a tool may not.
    let (failed, text) = tool_result(&events, "k1");
    assert!(
        failed && text.contains("Denied(\"only a command the user runs may keep"),
        "{text}"
    );
    // Killed as tack exits; a signal is delivered asynchronously, so allow it a moment.
    for _ in 0..100 {
        if cats_in(env.workspace()).is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        cats_in(env.workspace()).is_empty(),
        "the program ended with tack: {:?}",
        cats_in(env.workspace())
    );

    // `tack plugins` names the API version the component speaks.
    let listing = env.run(
        &base
            .iter()
            .map(String::as_str)
            .chain(["plugins"])
            .collect::<Vec<_>>(),
    );
    let text = String::from_utf8_lossy(&listing.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("talker") && l.contains("0.2.0")),
        "{text}"
    );
}

#[test]
fn without_the_process_grant_nothing_starts_and_the_grant_is_named() {
    let env = Env::new(tack!());
    let base = process_run(
        &env,
        json!([
            call("c1", "converse", json!({ "line": "hello" })),
            { "text": "all done" }
        ]),
        "process = [\"cat\"]",
    );
    let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
    args.extend(["--mode", "json", "talk to it"]);
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let (failed, text) = tool_result(&json_events(&out), "c1");
    assert!(failed, "{text}");
    assert!(
        text.contains("Denied") && text.contains("`process` grant"),
        "{text}"
    );
    assert!(cats_in(env.workspace()).is_empty());
}

#[test]
fn a_tool_registered_while_running_is_offered_from_the_next_turn_and_can_be_removed() {
    let env = Env::new(tack!());
    let base = process_run(
        &env,
        json!([
            call("a1", "add_tool", json!({ "name": "weather" })),
            call("w1", "weather", json!({ "say": "sunny?" })),
            call("l1", "list_tools", json!({})),
            call("a2", "add_tool", json!({ "name": "read" })),
            call("r1", "remove_tool", json!({ "name": "weather" })),
            call("w2", "weather", json!({ "say": "still there?" })),
            { "text": "all done" }
        ]),
        "",
    );
    let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
    args.extend(["--mode", "json", "add a tool"]);
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_events(&out);
    assert_eq!(
        tool_result(&events, "a1"),
        (false, "registered weather".into())
    );
    assert_eq!(
        tool_result(&events, "w1"),
        (false, "dynamic weather: {\"say\":\"sunny?\"}".into())
    );
    let (_, listed) = tool_result(&events, "l1");
    let listed: Vec<Value> = serde_json::from_str(&listed).expect("json");
    assert!(
        listed.contains(&json!(["weather", "talker", true])),
        "{listed:?}"
    );
    assert!(
        listed.contains(&json!(["read", "core-tools", true])),
        "{listed:?}"
    );
    // A name another plugin registered at start is not for the taking.
    let (failed, taken) = tool_result(&events, "a2");
    assert!(
        failed && taken.starts_with("RegisterError::Taken") && taken.contains("core-tools"),
        "{taken}"
    );
    assert_eq!(
        tool_result(&events, "r1"),
        (false, "removed weather: true".into())
    );
    // The agent checks each call against the tools it offers: after removal, none is offered.
    let (failed, gone) = tool_result(&events, "w2");
    assert!(
        failed && gone.contains("weather"),
        "a removed tool is not called: {gone}"
    );
}

#[test]
fn events_subscribed_by_name_arrive_streamed_deltas_included_and_no_others() {
    let env = Env::new(tack!());
    let scripted = env.package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
    let plugin = env.package("talker", artifacts::TEST_PROCESS, "");
    env.config(json!({
        "provider": "scripted",
        "plugins": {
            "scripted": { "script": [
                call("p1", "processes", json!({})),
                call("o1", "observed", json!({})),
                { "text": "all done" }
            ] },
            "talker": { "command": "cat", "observe": ["turn_end", "message_update", "tool_execution_end"] }
        }
    }));
    let out = env.run(&[
        "--plugin",
        scripted.to_str().expect("utf8"),
        "--plugin",
        plugin.to_str().expect("utf8"),
        "--mode",
        "json",
        "watch",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_events(&out);
    let count = |kind: &str| events.iter().filter(|e| e["type"] == kind).count() as u64;
    let (failed, observed) = tool_result(&events, "o1");
    assert!(!failed, "{observed}");
    let observed: Value = serde_json::from_str(&observed).expect("json");
    // By the second tool call: one turn ended, one tool ran, and every streamed delta so far
    // reached the plugin, named and shaped as JSON mode prints them.
    assert_eq!(observed["turn_end"], 1, "{observed}");
    assert_eq!(observed["tool_execution_end"], 1, "{observed}");
    let deltas = observed["message_update"].as_u64().unwrap_or(0);
    assert!(
        deltas >= 1 && deltas <= count("message_update"),
        "{observed}"
    );
    assert!(observed.get("mismatch turn_end").is_none(), "{observed}");
    assert!(
        observed.get("turn_start").is_none(),
        "only what it subscribed to: {observed}"
    );
}

/// `tack:plugin/control` (0.2.0): a plugin reads the agent as Pi's `ctx` does, and labels
/// entries as `/label` does, with bad ids and over-long labels refused.
#[test]
fn a_plugin_reads_the_agent_and_labels_entries_through_control() {
    let env = Env::new(tack!());
    let base = process_run(
        &env,
        json!([
            call("s1", "agent_state", json!({})),
            call("l1", "label", json!({ "entry_id": "nope", "label": "x" })),
            call("l2", "label", json!({ "entry_id": "first", "label": "x".repeat(201) })),
            call("l3", "label", json!({ "entry_id": "first", "label": "where it began" })),
            { "text": "all done" }
        ]),
        "",
    );
    let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
    args.extend(["--mode", "json", "look around"]);
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_events(&out);

    let (failed, state) = tool_result(&events, "s1");
    assert!(!failed, "{state}");
    let state: Value = serde_json::from_str(&state).expect("json");
    assert_eq!(state["model"]["provider"], "scripted", "{state}");
    assert_eq!(state["thinking_level"], "off");
    assert_eq!(state["idle"], false, "asked from inside a run: {state}");
    assert_eq!(state["pending"], false);
    assert!(state["usage"]["tokens"].as_u64() > Some(0), "{state}");
    assert_eq!(
        state["usage"]["context_window"],
        state["model"]["context_window"]
    );
    assert!(state["system_prompt_chars"].as_u64() > Some(100), "{state}");
    assert_eq!(state["session_name"], Value::Null);

    let (failed, error) = tool_result(&events, "l1");
    assert!(failed && error.contains("no entry 'nope'"), "{error}");
    let (failed, error) = tool_result(&events, "l2");
    assert!(failed && error.contains("at most 200"), "{error}");
    assert!(
        !tool_result(&events, "l3").0,
        "labelling the first entry works"
    );
    let lines = env.session_lines();
    let first = lines
        .iter()
        .find(|l| l["type"] != "session")
        .expect("an entry");
    let label = lines
        .iter()
        .find(|l| l["type"] == "label")
        .expect("a label entry");
    assert_eq!(label["targetId"], first["id"]);
    assert_eq!(label["label"], "where it began");
}

/// Pi's `session-name.ts`, ported: `/session-name <name>` names the session and a later run on
/// it shows the name.
#[test]
fn pi_session_name_names_the_session_and_shows_the_name() {
    session_name_behaves_as_pi("pi-session-name", artifacts::PI_SESSION_NAME);
}

/// The same port in JavaScript on 0.2.0 (`examples/pi-js/session-name`, componentize-js),
/// held to the same scenario. Skipped without the JS SDK toolchain, unless
/// `TACK_REQUIRE_SDKS` is set.
#[test]
fn pi_session_name_in_javascript_behaves_as_the_rust_port() {
    let name = "pi-session-name-js";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-js/session-name");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    if let Some(wasm) = tack_sdk_examples::built_or_skipped(
        name,
        tack_sdk_examples::build_js_package(&toolchains, &dir, name),
    ) {
        session_name_behaves_as_pi(name, &wasm);
    }
}

/// The same port in C on 0.2.0 (`examples/pi-c/session-name`, the C SDK's control helpers),
/// held to the same scenario. Skipped without zig, unless `TACK_REQUIRE_SDKS` is set.
#[test]
fn pi_session_name_in_c_behaves_as_the_rust_port() {
    let name = "pi-session-name-c";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-c/session-name");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    if let Some(wasm) = tack_sdk_examples::built_or_skipped(
        name,
        tack_sdk_examples::build_c_example(&toolchains, &dir, name),
    ) {
        session_name_behaves_as_pi(name, &wasm);
    }
}

/// `/session-name` shows there is none, names the session, and shows the name, over three runs
/// of one session.
fn session_name_behaves_as_pi(name: &str, wasm: &str) {
    let env = Env::new(tack!());
    let plugin = env.package(name, wasm, "");
    let plugin = plugin.display().to_string();
    let out = env.run(&["--plugin", &plugin, "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let out = env.run(&["--plugin", &plugin, "-c", "/session-name"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "No session name set");

    let out = env.run(&["--plugin", &plugin, "-c", "/session-name parser rewrite"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Session named: parser rewrite");

    let out = env.run(&["--plugin", &plugin, "-c", "/session-name"]);
    assert_eq!(stdout(&out).trim(), "Session: parser rewrite");
    assert!(
        env.session_lines()
            .iter()
            .any(|l| l["type"] == "session_info" && l["name"] == "parser rewrite"),
        "{:?}",
        env.session_lines()
    );
    assert_eq!(env.session_files().len(), 1, "one session, continued");
}

/// Pi's `trigger-compact.ts`, ported: `/trigger-compact <instructions>` in print mode asks for a
/// compaction, which runs before tack exits; the plugin hears how it went from `compaction_end`.
#[test]
fn pi_trigger_compact_compacts_on_command_in_print_mode() {
    let env = Env::new(tack!());
    let scripted = env.package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
    let plugin = env.package("pi-trigger-compact", artifacts::PI_TRIGGER_COMPACT, "");
    // A small window, so that two long prompts are worth compacting; the summary request has no
    // assistant messages, so the scripted provider answers it with turn 0.
    env.config(json!({
        "provider": "scripted",
        "compaction": { "enabled": false },
        "plugins": { "scripted": {
            "context_window": 4000,
            "script": [
                { "text": "The user asked two long questions about the project." },
                { "text": "second answer" },
                { "text": "third answer" }
            ]
        } }
    }));
    let scripted = scripted.display().to_string();
    let plugin = plugin.display().to_string();
    let base = ["--plugin", scripted.as_str(), "--plugin", plugin.as_str()];
    for (i, continued) in [(0, false), (1, true)] {
        let prompt = format!("question {i}: {}", "tell me more about it ".repeat(200));
        let mut args = base.to_vec();
        if continued {
            args.push("-c");
        }
        args.push(&prompt);
        let out = env.run(&args);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let mut args = base.to_vec();
    args.extend(["-c", "--mode", "json", "/trigger-compact keep the numbers"]);
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_events(&out);
    let end = events
        .iter()
        .find(|e| e["type"] == "compaction_end")
        .unwrap_or_else(|| panic!("no compaction_end in {events:#?}"));
    assert_eq!(end["reason"], "manual", "{end}");
    assert_eq!(end["aborted"], false, "{end}");
    assert!(
        end["result"]["summary"]
            .as_str()
            .is_some_and(|s| s.contains("two long questions")),
        "{end}"
    );
    assert!(
        env.session_lines()
            .iter()
            .any(|l| l["type"] == "compaction"),
        "the compaction is in the session"
    );
}

/// Pi's `input-transform.ts`, ported to Rust (a 0.1.0 plugin, the `input` hook).
#[test]
fn pi_input_transform_rewrites_quick_questions_and_answers_ping_itself() {
    input_transform_behaves_as_pi("pi-input-transform", artifacts::PI_INPUT_TRANSFORM);
}

/// The same port in Python (`examples/pi-python/input-transform`, componentize-py), held to the
/// same scenario. Skipped without the Python SDK toolchain, unless `TACK_REQUIRE_SDKS` is set.
#[test]
fn pi_input_transform_in_python_behaves_as_the_rust_port() {
    let name = "pi-input-transform-python";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-python/input-transform");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    if let Some(wasm) = tack_sdk_examples::built_or_skipped(
        name,
        tack_sdk_examples::build_python_package(&toolchains, &dir, name),
    ) {
        input_transform_behaves_as_pi(name, &wasm);
    }
}

/// And in JavaScript (`examples/pi-js/input-transform`, componentize-js).
#[test]
fn pi_input_transform_in_javascript_behaves_as_the_rust_port() {
    let name = "pi-input-transform-js";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-js/input-transform");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    if let Some(wasm) = tack_sdk_examples::built_or_skipped(
        name,
        tack_sdk_examples::build_js_package(&toolchains, &dir, name),
    ) {
        input_transform_behaves_as_pi(name, &wasm);
    }
}

/// `?quick …` reaches the model rewritten; `ping` and `time` are answered by the plugin with no
/// model call.
fn input_transform_behaves_as_pi(name: &str, wasm: &str) {
    let env = Env::new(tack!());
    let scripted = env.package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "");
    let plugin = env.package(name, wasm, "");
    env.config(json!({
        "provider": "scripted",
        "plugins": { "scripted": { "script": [{ "text": "Rust is a language." }] } }
    }));
    let scripted = scripted.display().to_string();
    let plugin = plugin.display().to_string();
    let out = env.run(&[
        "--plugin",
        &scripted,
        "--plugin",
        &plugin,
        "?quick what is rust",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Rust is a language.");
    let user = env
        .session_lines()
        .into_iter()
        .find(|l| l["type"] == "message" && l["message"]["role"] == "user")
        .expect("the user's message is in the session");
    assert!(
        user.to_string()
            .contains("Respond briefly in 1-2 sentences: what is rust"),
        "{user}"
    );

    for (input, answer) in [("ping", None), ("TIME", Some(" UTC"))] {
        let out = env.run(&[
            "--plugin", &scripted, "--plugin", &plugin, "--mode", "json", input,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let events = json_events(&out);
        let prefix = format!("[{name}] ");
        let shown = events
            .iter()
            .filter_map(|e| e["message"].as_str())
            .find_map(|m| m.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("{input}: no notification in {events:#?}"));
        match answer {
            None => assert_eq!(shown, "pong"),
            // 2026-12-02 23:10:00 UTC
            Some(zone) => assert!(
                shown.len() == 23 && shown.ends_with(zone) && shown.as_bytes()[4] == b'-',
                "{shown:?}"
            ),
        }
        assert!(
            !events.iter().any(|e| e["type"] == "turn_start"),
            "{input}: no model call: {events:#?}"
        );
    }
}

/// Pi's `provider-payload.ts`, ported: each request to the model provider (the real Anthropic
/// plugin, against a loopback server) is logged pretty-printed to `.pi/provider-payload.log`,
/// followed by the status and headers of its answer, credentials left out.
#[test]
fn pi_provider_payload_logs_each_request_and_the_head_of_its_answer() {
    let env = Env::new(tack!()).with_var("ANTHROPIC_API_KEY", "sk-ant-log-canary");
    let server = MockServer::always(
        tack_test_support::anthropic::text_reply("logged")
            .with_header("set-cookie", "session=cookie-canary")
            .with_header("request-id", "req_log_1"),
    );
    // The plugin's one fs grant, as in Pi, where the log's folder must exist too.
    std::fs::create_dir_all(env.workspace().join(".pi")).expect(".pi");
    let dir = env.example_package("pi/provider-payload", artifacts::PI_PROVIDER_PAYLOAD);
    env.grant(
        "pi-provider-payload",
        "provider_payload = \"read\"\nfs = [{ path = \"$WORKSPACE/.pi\", access = \"read-write\" }]",
    );
    let out = env.run(&[
        "--plugin",
        &dir.display().to_string(),
        "--provider",
        "anthropic",
        "--base-url",
        server.url(),
        "-p",
        "what is in the payload?",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "logged");

    let log = std::fs::read_to_string(env.workspace().join(".pi/provider-payload.log"))
        .unwrap_or_else(|e| panic!("the log was written ({e}): {}", stderr(&out)));
    let (request, response) = log.split_once("\n\n[").expect("a request, then a response");
    let payload: Value = serde_json::from_str(request).expect("the payload, as JSON");
    assert_eq!(
        payload,
        serde_json::from_slice::<Value>(&server.requests()[0].body).expect("the body sent"),
        "the body as sent"
    );
    assert!(request.contains("\n  \""), "pretty-printed: {request}");
    assert!(response.starts_with("200] {"), "{response}");
    assert!(response.contains("req_log_1"), "{response}");
    assert!(!log.contains("cookie-canary"), "{log}");
    assert!(!log.contains("sk-ant-log-canary"), "{log}");
}

/// Pi's `send-user-message.ts`, ported to Python on `tack:plugin@0.2.0`
/// (`examples/pi-python/send-user-message`): `/ask` and `/askwith` send a message that starts a
/// turn, stored as the plugin's; an empty argument shows the usage and sends nothing.
#[test]
fn pi_send_user_message_in_python_sends_messages_that_start_turns() {
    let name = "pi-send-user-message-python";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-python/send-user-message");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    let Some(wasm) = tack_sdk_examples::built_or_skipped(
        name,
        tack_sdk_examples::build_python_package(&toolchains, &dir, name),
    ) else {
        return;
    };
    let env = Env::new(tack!());
    let scripted = env.scripted_provider(json!([{ "text": "4" }, { "text": "Paris." }]));
    let plugin = env.package(name, &wasm, "");
    let base = [
        "--plugin".to_string(),
        scripted.display().to_string(),
        "--plugin".to_string(),
        plugin.display().to_string(),
    ];
    let run = |more: &[&str]| {
        let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
        args.extend_from_slice(more);
        env.run(&args)
    };

    let out = run(&["-p", "/ask"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Usage: /ask <message>"),
        "{}",
        stderr(&out)
    );
    assert!(
        !env.session_lines().iter().any(|l| l["type"] == "message"),
        "nothing was sent: {:?}",
        env.session_lines()
    );

    let out = run(&["-p", "/ask What is 2+2?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "4");

    let out = run(&["-c", "-p", "/askwith the capital of France"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Paris.");
    let lines = env.session_lines();
    let sent: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "message" && l["message"]["role"] == "custom")
        .map(|l| &l["message"])
        .collect();
    assert_eq!(sent.len(), 2, "{lines:?}");
    assert!(
        sent.iter().all(|m| m["plugin"] == name),
        "the plugin's, not the user's: {sent:?}"
    );
    assert_eq!(sent[0]["content"], "What is 2+2?");
    assert_eq!(
        sent[1]["content"],
        "User request: the capital of France\n\nPlease respond concisely."
    );
}

/// Pi's `tool-override.ts`, ported (`examples/pi/tool-override`): with the `replace_tools`
/// grant its audited `read` takes the place of tack's, logs each access, refuses sensitive
/// paths, and `/read-log` shows the log; without the grant tack refuses the plugin, naming the
/// clash, and the built-in `read` stays.
#[test]
fn pi_tool_override_replaces_read_only_with_the_grant() {
    let env = Env::new(tack!());
    env.write("README.md", "# Demo\nline two\n");
    env.write(".env", "API_KEY=hunter2\n");
    let scripted = env.scripted_provider(json!([
        {
            "text": "reading",
            "tool_calls": [
                { "id": "r1", "name": "read", "arguments": { "path": "README.md", "offset": 2 } },
                { "id": "r2", "name": "read", "arguments": { "path": ".env" } }
            ]
        },
        { "text": "done" }
    ]));
    let dir = env.example_package("pi/tool-override", artifacts::PI_TOOL_OVERRIDE);
    let scripted = scripted.display().to_string();
    let plugin = dir.display().to_string();
    let base = ["--plugin", scripted.as_str(), "--plugin", plugin.as_str()];

    // Not granted: the plugin is left out, naming the clash; the built-in reads .env.
    let mut args = base.to_vec();
    args.extend(["--mode", "json", "read them"]);
    let out = env.run(&args);
    assert!(
        stderr(&out).contains("tool 'read' is already provided by plugin 'core-tools'"),
        "{}",
        stderr(&out)
    );
    let events = json_events(&out);
    let (_, text) = tool_result(&events, "r2");
    assert!(text.contains("API_KEY"), "the built-in read: {text}");

    env.grant(
        "pi-tool-override",
        "replace_tools = [\"read\"]\nfs = [{ path = \"$WORKSPACE\", access = \"read\" }]",
    );
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_events(&out);
    let (error, text) = tool_result(&events, "r1");
    assert!(!error, "{text}");
    assert_eq!(text, "line two\n", "from line 2");
    let (_, text) = tool_result(&events, "r2");
    assert!(
        text.starts_with("Access denied: \".env\" matches a blocked pattern"),
        "{text}"
    );
    assert!(!text.contains("hunter2"), "{text}");

    let mut args = base.to_vec();
    args.extend(["-p", "/read-log"]);
    let out = env.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("Recent file access:"), "{err}");
    assert!(
        err.contains("ALLOWED: ") && err.contains("README.md"),
        "{err}"
    );
    assert!(
        err.contains("BLOCKED: ") && err.contains(".env (matches blocked pattern)"),
        "{err}"
    );
}
