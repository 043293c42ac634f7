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
