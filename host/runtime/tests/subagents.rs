//! Sub-agents (`tack:agents`) end to end in process: the first-party `subagents` plugin's `task`
//! tool starts children through the real agent loop, the scripted provider plays parent and
//! children (each child's prompt carries a marker that picks its script), core-tools does the
//! work in a temporary workspace, and permission-gate judges the children's calls.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_core::message::Message;
use tack_core::session::{EntryKind, SessionHandle};
use tack_core::{Agent, RunOutcome, RunStatus};
use tack_runtime::bridge::PluginTools;
use tack_runtime::children::{ChildLimits, ChildRuns, TRANSCRIPT_ENTRY_TYPE};
use tack_runtime::{Access, Capabilities, FsGrant, PluginSpec};
use tack_test_support::runtime::{
    builtin_spec, manifest_spec, scripted_provider, wire_agent, AgentOptions, Scene, Services,
};
use tokio_util::sync::CancellationToken;

struct Harness {
    agent: Agent,
    children: Arc<ChildRuns>,
    session: SessionHandle,
    workspace: PathBuf,
    _scene: Scene,
}

#[derive(Default)]
struct Setup {
    /// The parent's turns.
    script: Vec<Value>,
    /// Children's turns by a marker in their prompt.
    branches: Value,
    /// Plugins loaded before subagents (policies).
    extras: Vec<PluginSpec>,
    limits: ChildLimits,
    /// A folder of agent definitions.
    agents: Vec<(&'static str, &'static str)>,
    /// The subagents plugin is granted `agents`.
    no_grant: bool,
    /// Every tool call runs on a task of its own (as an executor that hands work to another
    /// task would), outside anything task-local to the agent that made it.
    calls_on_other_tasks: bool,
}

/// Runs each call of `inner` on a new tokio task.
struct OnOtherTasks {
    inner: Arc<PluginTools>,
}

#[async_trait::async_trait]
impl tack_core::ToolExecutor for OnOtherTasks {
    fn tools(&self) -> Vec<tack_core::agent::ToolSpec> {
        self.inner.tools()
    }

    async fn execute(
        &self,
        call: tack_core::message::ToolCall,
        cancel: CancellationToken,
        progress: tack_core::agent::ToolProgress,
    ) -> Result<tack_core::message::ToolResult, tack_core::agent::ToolError> {
        let inner = self.inner.clone();
        tokio::spawn(async move { inner.execute(call, cancel, progress).await })
            .await
            .map_err(|e| tack_core::agent::ToolError::Crashed(e.to_string()))?
    }
}

/// The scripted provider, core-tools, `extras`, then the subagents plugin (enabled).
async fn harness(setup: Setup) -> Harness {
    let scene = Scene::new();
    scene.write("README.md", "# Demo\n");
    let agents_dir = scene.home.path().join("agents");
    std::fs::create_dir_all(&agents_dir).expect("agents dir");
    for (name, text) in &setup.agents {
        std::fs::write(agents_dir.join(format!("{name}.md")), text).expect("definition");
    }
    let agents_dir = agents_dir.canonicalize().expect("canonical");
    let services = Services::new(Arc::new(tack_runtime::HeadlessUi));
    let host = scene.host(services.host(), true);
    let mut specs = vec![
        scripted_provider(json!({
            "script": setup.script,
            "branches": if setup.branches.is_null() { json!({}) } else { setup.branches },
        })),
        builtin_spec("core-tools", json!({})),
    ];
    specs.extend(setup.extras);
    let mut subagents = builtin_spec(
        "subagents",
        json!({ "enabled": true, "dirs": [{ "path": agents_dir, "scope": "user" }] }),
    );
    // What the CLI's [[paths]] lookup grants: read on the definition folder.
    let read = FsGrant {
        path: agents_dir.display().to_string(),
        access: Access::Read,
    };
    subagents.manifest.capabilities.fs.push(read.clone());
    subagents.granted.fs.push(read);
    if setup.no_grant {
        subagents.granted.agents = false;
    }
    specs.push(subagents);
    let set = scene.load(specs, &host).await;
    let (_store, session) = scene.session();
    let on_other_tasks = setup.calls_on_other_tasks;
    let wired = wire_agent(
        &scene,
        &set,
        &session,
        &services,
        AgentOptions {
            executor: Box::new(move |tools| -> Arc<dyn tack_core::ToolExecutor> {
                if on_other_tasks {
                    Arc::new(OnOtherTasks { inner: tools })
                } else {
                    tools
                }
            }),
            ..AgentOptions::default()
        },
    );
    let children = Arc::new(ChildRuns::new(setup.limits));
    children.attach(
        wired.agent.child_factory(),
        session.clone(),
        vec![wired.model],
    );
    services.agent.attach_children(children.clone());
    Harness {
        agent: wired.agent,
        children,
        session,
        workspace: scene.workspace.clone(),
        _scene: scene,
    }
}

fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({ "id": id, "name": name, "arguments": arguments })
}

/// A `task` call whose child plays the branch `marker`.
fn task(id: &str, marker: &str) -> Value {
    call(
        id,
        "task",
        json!({ "description": format!("job {marker}"), "prompt": format!("{marker}: do it") }),
    )
}

fn turn(calls: Vec<Value>) -> Value {
    json!({ "text": "working", "tool_calls": calls })
}

fn said(text: &str) -> Value {
    json!({ "text": text })
}

/// The parent's tool results (call id, text, is-error) in the order they were recorded.
fn tool_results(outcome: &RunOutcome) -> Vec<(String, String, bool)> {
    outcome
        .messages
        .iter()
        .filter_map(|m| match m.as_ref() {
            Message::ToolResult(r) => Some((
                r.tool_call_id.clone(),
                r.content
                    .iter()
                    .filter_map(|c| match c {
                        tack_core::message::Content::Text(t) => Some(t.text.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                r.is_error,
            )),
            _ => None,
        })
        .collect()
}

fn transcripts(session: &SessionHandle) -> Vec<Value> {
    session
        .lock()
        .entries()
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Custom {
                custom_type, data, ..
            } if custom_type == TRANSCRIPT_ENTRY_TYPE => Some(data.clone()),
            _ => None,
        })
        .collect()
}

async fn run(h: &Harness, prompt: &str) -> RunOutcome {
    h.agent
        .prompt_text(prompt, CancellationToken::new())
        .await
        .expect("the run")
}

/// The child's own tool result for `call_id`, from its transcript.
fn child_result(transcript: &Value, call_id: &str) -> Value {
    transcript["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "toolResult" && m["toolCallId"] == call_id)
        .unwrap_or_else(|| panic!("no result for {call_id} in {transcript:#}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_agent_cannot_write() {
    let h = harness(Setup {
        script: vec![
            turn(vec![call(
                "t1",
                "task",
                json!({ "description": "look", "prompt": "RO-CHILD: look", "agent": "scout" }),
            )]),
            said("parent done"),
        ],
        branches: json!({
            "RO-CHILD": [
                turn(vec![call("w1", "write", json!({ "path": "pwned.txt", "content": "x" }))]),
                turn(vec![call("r1", "read", json!({ "path": "README.md" }))]),
                said("the readme says Demo"),
            ]
        }),
        agents: vec![(
            "scout",
            "---\nname: scout\ndescription: Looks, never touches\ntools: read, ls\n---\nYou only look.",
        )],
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    assert_eq!(outcome.status, RunStatus::Completed, "{outcome:?}");
    let results = tool_results(&outcome);
    assert_eq!(results.len(), 1, "{results:?}");
    let (_, text, is_error) = &results[0];
    assert!(!is_error, "{text}");
    assert!(text.contains("the readme says Demo"), "{text}");
    assert!(
        !h.workspace.join("pwned.txt").exists(),
        "the read-only child wrote"
    );
    let runs = transcripts(&h.session);
    assert_eq!(runs.len(), 1);
    let refused = child_result(&runs[0], "w1");
    assert_eq!(refused["isError"], true, "{refused}");
    let read = child_result(&runs[0], "r1");
    assert_eq!(read["isError"], false, "{read}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_children_run_in_parallel_and_answer_in_call_order() {
    // Each child runs a command that takes a while; run one after the other they would take
    // three times as long.
    let slow = |marker: &str, answer: &str| {
        json!([
            turn(vec![call("s1", "bash", json!({ "command": "sleep 1" }))]),
            said(&format!("{marker} says {answer}")),
        ])
    };
    let h = harness(Setup {
        script: vec![
            turn(vec![
                task("a", "CHILD-A"),
                task("b", "CHILD-B"),
                task("c", "CHILD-C"),
            ]),
            said("parent done"),
        ],
        branches: json!({
            "CHILD-A": slow("CHILD-A", "alpha"),
            "CHILD-B": slow("CHILD-B", "beta"),
            "CHILD-C": slow("CHILD-C", "gamma"),
        }),
        extras: vec![builtin_spec("permission-gate", json!({ "mode": "yolo" }))],
        ..Setup::default()
    })
    .await;
    let started = Instant::now();
    let outcome = run(&h, "go").await;
    let took = started.elapsed();
    assert_eq!(outcome.status, RunStatus::Completed, "{outcome:?}");
    let results = tool_results(&outcome);
    let ids: Vec<&str> = results.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    for ((_, text, is_error), answer) in results.iter().zip(["alpha", "beta", "gamma"]) {
        assert!(!is_error, "{text}");
        assert!(text.contains(answer), "{text}");
    }
    assert!(
        took < Duration::from_millis(2900),
        "children ran one at a time: {took:?}"
    );
    assert_eq!(transcripts(&h.session).len(), 3);
    assert_eq!(h.children.started(), 3);
    assert!(h.children.totals().turns >= 6, "{:?}", h.children.totals());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_blocked_by_permission_gate_reports_the_block() {
    let h = harness(Setup {
        script: vec![turn(vec![task("t1", "GATED")]), said("parent done")],
        branches: json!({
            "GATED": [
                turn(vec![call("b1", "bash", json!({ "command": "touch gated.txt" }))]),
                said("I could not run it"),
            ]
        }),
        extras: vec![builtin_spec(
            "permission-gate",
            json!({ "mode": "read-only" }),
        )],
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    assert_eq!(outcome.status, RunStatus::Completed, "{outcome:?}");
    assert!(
        !h.workspace.join("gated.txt").exists(),
        "the gate let the child write"
    );
    let runs = transcripts(&h.session);
    let blocked = child_result(&runs[0], "b1");
    assert_eq!(blocked["isError"], true, "{blocked}");
    let results = tool_results(&outcome);
    assert!(results[0].1.contains("I could not run it"), "{results:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborting_the_parent_stops_every_child() {
    let long = json!([
        turn(vec![call("s1", "bash", json!({ "command": "sleep 30" }))]),
        said("never reached"),
    ]);
    let h = harness(Setup {
        script: vec![
            turn(vec![task("a", "LONG-A"), task("b", "LONG-B")]),
            said("parent done"),
        ],
        branches: json!({ "LONG-A": long, "LONG-B": long }),
        extras: vec![builtin_spec("permission-gate", json!({ "mode": "yolo" }))],
        ..Setup::default()
    })
    .await;
    let cancel = CancellationToken::new();
    let abort = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            cancel.cancel();
        })
    };
    let started = Instant::now();
    let outcome = h.agent.prompt_text("go", cancel).await.expect("the run");
    abort.await.expect("abort task");
    assert_eq!(outcome.status, RunStatus::Aborted, "{outcome:?}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the children kept running"
    );
    let runs = transcripts(&h.session);
    assert_eq!(runs.len(), 2, "{runs:#?}");
    for run in runs {
        assert_eq!(run["status"], "aborted", "{run:#}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_grant_no_child_starts() {
    let h = harness(Setup {
        script: vec![turn(vec![task("t1", "NOPE")]), said("parent done")],
        branches: json!({ "NOPE": [said("should not run")] }),
        no_grant: true,
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    let results = tool_results(&outcome);
    assert!(results[0].2, "{results:?}");
    assert!(results[0].1.contains("no `agents` grant"), "{results:?}");
    assert_eq!(h.children.started(), 0);
    assert!(transcripts(&h.session).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_cannot_name_a_tool_the_parent_lacks_or_start_children() {
    let h = harness(Setup {
        script: vec![
            turn(vec![call(
                "t1",
                "task",
                json!({ "description": "x", "prompt": "WIDE: go", "agent": "wide" }),
            )]),
            turn(vec![call(
                "t2",
                "task",
                json!({ "description": "y", "prompt": "NESTER: go", "agent": "nester" }),
            )]),
            said("parent done"),
        ],
        branches: json!({
            "NESTER": [
                turn(vec![task("n1", "GRANDCHILD")]),
                said("nester done"),
            ],
            "GRANDCHILD": [said("grandchild ran")],
        }),
        agents: vec![
            (
                "wide",
                "---\nname: wide\ndescription: asks for too much\ntools: read, launch-missiles\n---\nx",
            ),
            (
                "nester",
                "---\nname: nester\ndescription: would delegate further\ntools: task, read\n---\nx",
            ),
        ],
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    let results = tool_results(&outcome);
    assert!(results[0].2, "{results:?}");
    assert!(results[0].1.contains("launch-missiles"), "{results:?}");
    // The nester has the task tool, but at depth 1 the host refuses to start a grandchild.
    assert!(!results[1].2, "{results:?}");
    assert_eq!(h.children.started(), 1, "a grandchild started");
    let runs = transcripts(&h.session);
    let nested = child_result(&runs[0], "n1");
    assert_eq!(nested["isError"], true, "{nested}");
    assert!(nested.to_string().contains("depth 1"), "{nested}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_stop_a_child_that_goes_on() {
    let h = harness(Setup {
        script: vec![turn(vec![task("t1", "LOOPER")]), said("parent done")],
        branches: json!({
            "LOOPER": [
                turn(vec![call("r1", "read", json!({ "path": "README.md" }))]),
                turn(vec![call("r2", "read", json!({ "path": "README.md" }))]),
                turn(vec![call("r3", "read", json!({ "path": "README.md" }))]),
                said("finally"),
            ]
        }),
        limits: ChildLimits {
            max_turns: 2,
            ..ChildLimits::default()
        },
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    let results = tool_results(&outcome);
    assert!(results[0].1.contains("limit of 2 turns"), "{results:?}");
    let runs = transcripts(&h.session);
    assert_eq!(runs[0]["status"], "limit-reached");
    assert_eq!(runs[0]["usage"]["turns"], 2);
}

// ---- the hostile plugin ---------------------------------------------------------------------

/// The hostile test plugin, asking for `agents`; granted it when `granted`.
fn hostile(granted: bool) -> PluginSpec {
    let manifest = "[plugin]\nname = \"hostile\"\nversion = \"0.0.1\"\napi = \"0.1\"\n\
                    component = \"x.wasm\"\n\n[capabilities]\nagents = true\n";
    let granted = Capabilities {
        agents: granted,
        ..Capabilities::default()
    };
    manifest_spec(manifest, artifacts::TEST_HOSTILE, granted, json!({}))
}

fn spawn(id: &str, prompt: &str, tools: Option<Vec<&str>>) -> Value {
    let mut arguments = json!({ "prompt": prompt });
    if let Some(tools) = tools {
        arguments["tools"] = json!(tools);
    }
    call(id, "spawn_agent", arguments)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_plugin_without_the_grant_is_refused() {
    let h = harness(Setup {
        script: vec![turn(vec![spawn("h1", "EVIL: go", None)]), said("done")],
        branches: json!({ "EVIL": [said("the child ran")] }),
        extras: vec![hostile(false)],
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    let results = tool_results(&outcome);
    assert!(results[0].2, "{results:?}");
    assert!(results[0].1.contains("no `agents` grant"), "{results:?}");
    assert_eq!(h.children.started(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_a_child_gets_no_tool_the_parent_lacks_nor_a_grandchild() {
    let h = harness(Setup {
        script: vec![
            turn(vec![spawn(
                "h1",
                "EVIL: go",
                Some(vec!["read", "steal_keys"]),
            )]),
            turn(vec![spawn(
                "h2",
                "NEST: go",
                Some(vec!["spawn_agent", "read"]),
            )]),
            said("done"),
        ],
        branches: json!({
            "NEST": [
                turn(vec![spawn("n1", "DEEPER: go", Some(vec!["read"]))]),
                said("nest done"),
            ],
            "DEEPER": [said("a grandchild ran")],
        }),
        extras: vec![hostile(true)],
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    let results = tool_results(&outcome);
    assert!(results[0].2, "{results:?}");
    assert!(results[0].1.contains("steal_keys"), "{results:?}");
    assert!(!results[1].2, "{results:?}");
    assert!(results[1].1.contains("nest done"), "{results:?}");
    assert_eq!(h.children.started(), 1, "a grandchild started");
    let runs = transcripts(&h.session);
    let nested = child_result(&runs[0], "n1");
    assert_eq!(nested["isError"], true, "{nested}");
    assert!(nested.to_string().contains("depth 1"), "{nested}");
}

/// The depth travels with each call, not with the task running it: with every tool call on a
/// task of its own, a child still cannot start a grandchild.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_no_grandchild_even_when_calls_run_on_other_tasks() {
    let h = harness(Setup {
        script: vec![
            turn(vec![spawn(
                "h1",
                "NEST: go",
                Some(vec!["spawn_agent", "read"]),
            )]),
            said("done"),
        ],
        branches: json!({
            "NEST": [
                turn(vec![spawn("n1", "DEEPER: go", Some(vec!["read"]))]),
                said("nest done"),
            ],
            "DEEPER": [said("a grandchild ran")],
        }),
        extras: vec![hostile(true)],
        calls_on_other_tasks: true,
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    let results = tool_results(&outcome);
    assert!(!results[0].2, "{results:?}");
    assert!(results[0].1.contains("nest done"), "{results:?}");
    assert_eq!(h.children.started(), 1, "a grandchild started");
    let runs = transcripts(&h.session);
    let nested = child_result(&runs[0], "n1");
    assert_eq!(nested["isError"], true, "{nested}");
    assert!(nested.to_string().contains("depth 1"), "{nested}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_cannot_forge_a_transcript_entry() {
    let h = harness(Setup {
        script: vec![
            turn(vec![call(
                "f1",
                "forge_state",
                json!({ "custom_type": TRANSCRIPT_ENTRY_TYPE,
                        "data": { "usage": { "input": 1000000000, "cost": 1000.0 } } }),
            )]),
            said("done"),
        ],
        extras: vec![hostile(false)],
        ..Setup::default()
    })
    .await;
    let outcome = run(&h, "go").await;
    let results = tool_results(&outcome);
    assert!(results[0].2, "{results:?}");
    assert!(results[0].1.contains("reserved"), "{results:?}");
    assert!(transcripts(&h.session).is_empty());
}

/// A plugin's own model call (`tack:plugin/models`): refused without the `agents` grant; with
/// it, the session's model answers, the call is recorded as the plugin's `subagent-run` entry
/// with no tools (so the session's stats count it), and a malformed request (an unknown model,
/// a prompt over the cap) is refused, naming what was wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_model_calls_need_the_grant_and_are_recorded() {
    for granted in [false, true] {
        let h = harness(Setup {
            script: vec![
                turn(vec![call(
                    "m1",
                    "ask_model",
                    json!({ "prompt": "ASK: the questions" }),
                )]),
                turn(vec![call(
                    "m2",
                    "ask_model",
                    json!({ "prompt": "ASK: again", "model": "nowhere/none" }),
                )]),
                turn(vec![call(
                    "m3",
                    "ask_model",
                    json!({ "prompt": "ASK: big", "huge": true }),
                )]),
                said("done"),
            ],
            branches: json!({ "ASK": [said("Which parser?")] }),
            extras: vec![hostile(granted)],
            ..Setup::default()
        })
        .await;
        let outcome = run(&h, "go").await;
        let results = tool_results(&outcome);
        assert_eq!(results.len(), 3, "{results:?}");
        if !granted {
            for result in &results {
                assert!(result.2, "{results:?}");
                assert!(result.1.contains("no `agents` grant"), "{results:?}");
            }
            assert!(transcripts(&h.session).is_empty());
            continue;
        }
        assert!(!results[0].2, "{results:?}");
        assert!(results[0].1.contains("Which parser?"), "{results:?}");
        assert!(results[1].2, "{results:?}");
        assert!(
            results[1].1.contains("unknown model 'nowhere/none'"),
            "{results:?}"
        );
        assert!(results[2].2, "{results:?}");
        assert!(results[2].1.contains("at most 4 MiB"), "{results:?}");
        let runs = transcripts(&h.session);
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert_eq!(runs[0]["description"], "model call", "{}", runs[0]);
        assert_eq!(runs[0]["status"], "completed", "{}", runs[0]);
        assert_eq!(runs[0]["text"], "Which parser?", "{}", runs[0]);
        assert_eq!(runs[0]["usage"]["toolCalls"], 0, "{}", runs[0]);
        assert_eq!(h.children.started(), 1);
    }
}
