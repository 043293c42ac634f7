//! Sub-agents through the real binary: `--subagents` gives the model the built-in subagents
//! plugin's `task` tool; the child's transcript lands in the session file, survives a resume,
//! and its usage counts in `/session`; `/agents` lists the definitions in `<tack home>/agents/`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::process::Output;

use serde_json::{json, Value};
use tack_test_support::{tack, Env};

fn new_env(script: Value, branches: Value) -> Env {
    let env = Env::new(tack!());
    env.scripted_provider_with(json!({ "script": script, "branches": branches }), json!({}));
    env.write("README.md", "# Demo\n");
    env
}

fn run(env: &Env, args: &[&str]) -> Output {
    let plugin = env.package_dir("scripted");
    let mut all = vec!["--plugin", plugin.to_str().expect("utf8")];
    all.extend_from_slice(args);
    env.run(&all)
}

fn ok(env: &Env, args: &[&str]) -> String {
    let out = run(env, args);
    assert!(
        out.status.success(),
        "tack {args:?} failed:\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn transcripts(env: &Env) -> Vec<Value> {
    env.session_lines()
        .into_iter()
        .filter(|l| l["type"] == "custom" && l["customType"] == "subagent-run")
        .collect()
}

#[test]
fn a_childs_transcript_is_in_the_session_after_resume_and_its_usage_counts() {
    let env = new_env(
        json!([
            { "tool_calls": [{ "id": "t1", "name": "task",
                "arguments": { "description": "read the readme", "prompt": "KID: read README.md" } }],
              "usage": { "input": 100, "output": 10 } },
            { "text": "The child says Demo.", "usage": { "input": 100, "output": 10 } },
            { "text": "Still here.", "usage": { "input": 100, "output": 10 } }
        ]),
        json!({
            "KID": [
                { "tool_calls": [{ "id": "k1", "name": "read", "arguments": { "path": "README.md" } }],
                  "usage": { "input": 1000, "output": 50 } },
                { "text": "README says Demo", "usage": { "input": 1000, "output": 50 } }
            ]
        }),
    );
    let out = ok(&env, &["--subagents", "-p", "delegate"]);
    assert!(out.contains("The child says Demo."), "{out}");
    let runs = transcripts(&env);
    assert_eq!(runs.len(), 1, "{runs:#?}");
    let data = &runs[0]["data"];
    assert_eq!(data["status"], "completed", "{data:#}");
    assert_eq!(data["text"], "README says Demo");
    assert_eq!(data["usage"]["input"], 2000);
    let messages = data["messages"].as_array().expect("messages");
    assert!(
        messages
            .iter()
            .any(|m| m["role"] == "toolResult" && m["toolCallId"] == "k1"),
        "{data:#}"
    );

    // Resumed: the entry is still there, a new turn adds to the same file, and the session's
    // stats count the child's tokens with the parent's.
    let out = ok(&env, &["--subagents", "-c", "-p", "and now?"]);
    assert!(out.contains("Still here."), "{out}");
    assert_eq!(env.session_files().len(), 1);
    assert_eq!(transcripts(&env).len(), 1);
    let info = ok(&env, &["-c", "-p", "/session"]);
    assert!(
        info.contains("- Tokens: 2300 input, 130 output"),
        "the child's usage is missing: {info}"
    );
}

#[test]
fn without_the_flag_there_is_no_task_tool_and_agents_lists_definitions() {
    let env = new_env(
        json!([
            { "tool_calls": [{ "id": "t1", "name": "task",
                "arguments": { "description": "x", "prompt": "KID: x" } }] },
            { "text": "done" }
        ]),
        json!({ "KID": [{ "text": "should not run" }] }),
    );
    let out = run(&env, &["--mode", "json", "-p", "delegate"]);
    let end = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "tool_execution_end" && e["toolCallId"] == "t1")
        .expect("the task call ends");
    assert_eq!(end["isError"], true, "{end}");
    assert!(transcripts(&env).is_empty());

    std::fs::create_dir_all(env.home().join("agents")).expect("agents dir");
    std::fs::write(
        env.home().join("agents/scout.md"),
        "---\nname: scout\ndescription: Finds things, read-only\ntools: read, ls\n---\nLook only.",
    )
    .expect("definition");
    let listed = ok(&env, &["--subagents", "-p", "/agents"]);
    assert!(
        listed.contains("scout (user): Finds things, read-only"),
        "{listed}"
    );
    assert!(listed.contains("tools: read, ls"), "{listed}");
}

/// A child's run in the session's outline and its exports: `/tree` names it with its task and
/// outcome; the HTML page (from `/export` and from `tack export`) shows its transcript as
/// messages, not as the entry's JSON.
#[test]
fn a_childs_run_shows_in_the_tree_and_in_exports() {
    let env = new_env(
        json!([
            { "tool_calls": [{ "id": "t1", "name": "task",
                "arguments": { "description": "read the readme", "prompt": "KID: read README.md" } }] },
            { "text": "The child says Demo." }
        ]),
        json!({
            "KID": [
                { "tool_calls": [{ "id": "k1", "name": "read", "arguments": { "path": "README.md" } }] },
                { "text": "README says <Demo>" }
            ]
        }),
    );
    ok(&env, &["--subagents", "-p", "delegate"]);

    let tree = ok(&env, &["-c", "-p", "/tree"]);
    let line = tree
        .lines()
        .find(|l| l.contains("sub-agent run of plugin subagents"))
        .unwrap_or_else(|| panic!("no sub-agent run in the tree:\n{tree}"));
    assert!(
        line.starts_with('*') && line.contains("read the readme · completed · 2 turns"),
        "{line}"
    );
    assert!(line.contains("README says <Demo>"), "{line}");

    let out = ok(&env, &["-c", "-p", "/export page.html"]);
    assert!(out.contains("page.html"), "{out}");
    let by_command = std::fs::read_to_string(env.workspace().join("page.html")).expect("page");
    let file = env.session_files().pop().expect("a session file");
    let exported = env.run(&["export", file.to_str().expect("utf8"), "exported.html"]);
    assert!(exported.status.success(), "{exported:?}");
    let by_subcommand =
        std::fs::read_to_string(env.workspace().join("exported.html")).expect("page");
    for page in [&by_command, &by_subcommand] {
        let child = page
            .split("<span class=\"role\">sub-agent</span>")
            .nth(1)
            .unwrap_or_else(|| panic!("no sub-agent section:\n{page}"));
        let child = &child[..child.find("</div>\n").expect("the entry ends")];
        assert!(child.contains("read the readme"), "{child}");
        assert!(child.contains("plugin subagents"), "{child}");
        assert!(child.contains("completed"), "{child}");
        // The child's own messages: its prompt, its read call and result, its answer.
        assert!(child.contains("KID: read README.md"), "{child}");
        assert!(child.contains("→ read"), "{child}");
        assert!(child.contains("read result"), "{child}");
        assert!(child.contains("# Demo"), "{child}");
        assert!(child.contains("README says &lt;Demo&gt;"), "{child}");
        assert!(
            !child.contains("&quot;role&quot;") && !child.contains("toolCallId"),
            "the transcript is shown as messages, not JSON: {child}"
        );
    }
}

/// A child may run on another provider's model (`provider/id`, as `--model` takes it): the
/// parent runs on the scripted provider, the `offline` agent on the built-in demo provider.
/// A model no provider lists is refused, by name, and nothing runs.
#[test]
fn a_child_runs_on_another_providers_model_and_an_unknown_model_is_refused() {
    let env = new_env(
        json!([
            { "tool_calls": [
                { "id": "t1", "name": "task",
                  "arguments": { "description": "ask the demo", "prompt": "hello there",
                                 "agent": "offline" } },
                { "id": "t2", "name": "task",
                  "arguments": { "description": "ask nobody", "prompt": "hello",
                                 "agent": "ghost" } }] },
            { "text": "Parent done." }
        ]),
        json!({}),
    );
    std::fs::create_dir_all(env.home().join("agents")).expect("agents dir");
    std::fs::write(
        env.home().join("agents/offline.md"),
        "---\nname: offline\ndescription: Runs on the demo\nmodel: demo/demo-1\n---\nBe brief.",
    )
    .expect("definition");
    std::fs::write(
        env.home().join("agents/ghost.md"),
        "---\nname: ghost\ndescription: Names a model nobody serves\nmodel: demo/nope-9\n---\nBoo.",
    )
    .expect("definition");

    let out = run(&env, &["--subagents", "--mode", "json", "-p", "delegate"]);
    assert!(out.status.success(), "{out:?}");
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let end = |id: &str| {
        events
            .iter()
            .find(|e| e["type"] == "tool_execution_end" && e["toolCallId"] == id)
            .unwrap_or_else(|| panic!("the call {id} ends: {events:#?}"))
            .clone()
    };
    let demo = end("t1");
    assert_eq!(demo["isError"], false, "{demo}");
    let answer = demo["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        answer.starts_with("[demo]"),
        "the demo provider answered: {demo}"
    );
    assert_eq!(
        demo["result"]["details"]["subagent"]["model"],
        "demo/demo-1"
    );
    let runs = transcripts(&env);
    assert_eq!(runs.len(), 1, "only the first child ran: {runs:#?}");
    assert_eq!(runs[0]["data"]["model"], "demo/demo-1");
    let child_messages = runs[0]["data"]["messages"].as_array().expect("messages");
    assert!(
        child_messages
            .iter()
            .any(|m| m["role"] == "assistant" && m["provider"] == "demo"),
        "{child_messages:#?}"
    );

    // JSON mode streams the child's progress as the call's updates; the last one says how it
    // ended, what it was asked and how long it took.
    let updates: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_execution_update" && e["toolCallId"] == "t1")
        .collect();
    let last = updates
        .last()
        .unwrap_or_else(|| panic!("no progress: {events:#?}"));
    let progress = &last["partialResult"]["details"]["subagent"];
    assert_eq!(progress["status"], "completed", "{last}");
    assert_eq!(progress["description"], "ask the demo", "{last}");
    assert!(progress["elapsedMs"].is_u64(), "{last}");
    assert!(progress["usage"]["turns"].as_u64() >= Some(1), "{last}");

    let ghost = end("t2");
    assert_eq!(ghost["isError"], true, "{ghost}");
    let why = ghost["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        why.contains("unknown model 'demo/nope-9'") && why.contains("demo-1"),
        "{why}"
    );
}

/// Claude Code's SubagentStop hook runs when a sub-agent's task ends, with its documented input.
#[test]
fn a_claude_code_subagent_stop_hook_hears_of_the_end_of_a_task() {
    let env = new_env(
        json!([
            { "tool_calls": [{ "id": "t1", "name": "task",
                "arguments": { "description": "look", "prompt": "KID: look" } }] },
            { "text": "Parent done." }
        ]),
        json!({ "KID": [{ "text": "Child done." }] }),
    );
    let user = env.root().join("user");
    std::fs::create_dir_all(user.join(".claude")).expect(".claude");
    let heard = env.root().join("subagent-stop.json");
    std::fs::write(
        user.join(".claude/settings.json"),
        json!({"hooks": {"SubagentStop": [{"hooks": [{"type": "command",
            "command": format!("cat > {}", heard.display())}]}]}})
        .to_string(),
    )
    .expect("settings");
    let env = env.with_var("HOME", &user);
    let out = ok(&env, &["--subagents", "-p", "delegate"]);
    assert!(out.contains("Parent done."), "{out}");
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(&heard).expect("the SubagentStop hook ran"))
            .expect("its input is JSON");
    assert_eq!(input["hook_event_name"], "SubagentStop");
    assert_eq!(input["stop_hook_active"], false);
}
