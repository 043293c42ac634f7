//! Compaction, tree navigation, forks and Pi imports through real components: the scripted
//! provider plays the model (with a small context window) and writes the summaries, core-tools
//! does the reads and edits in a temporary workspace, and the compact-hook test plugin answers
//! before-compact. Sessions are real files.
//!
//! The scripted provider answers a request with the script entry numbered by the count of
//! assistant messages in it. A summary request holds one user message (the transcript), so it
//! always gets entry 0: every script below starts with the summary text, and the sessions start
//! with earlier exchanges so that the conversation's own requests use later entries.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_core::compaction::CompactionSettings;
use tack_core::event::{AgentEvent, CompactionReason};
use tack_core::message::{
    AssistantContent, AssistantMessage, Message, StopReason, TextContent, ToolCall, Usage,
};
use tack_core::session::{import_pi, EntryKind, Session, SessionHandle, SessionStore};
use tack_core::{Agent, RunOutcome, RunStatus};
use tack_runtime::api::Level;
use tack_runtime::{Capabilities, PluginUi};
use tack_test_support::runtime::{
    builtin_spec, scripted_provider, spec, wire_agent, AgentOptions, Events, Scene, Services,
};
use tack_test_support::session::{compactions, tool_result};
use tokio_util::sync::CancellationToken;

const SUMMARY: &str = "## Goal\nSummary by the scripted model.";

/// Records plugin log lines (hook failures are reported there).
#[derive(Default)]
struct Logs(Mutex<Vec<String>>);

impl PluginUi for Logs {
    fn log(&self, plugin: &str, _level: Level, message: &str) {
        self.0
            .lock()
            .expect("logs")
            .push(format!("{plugin}: {message}"));
    }
}

struct Harness {
    agent: Agent,
    session: SessionHandle,
    store: SessionStore,
    events: Arc<Events>,
    logs: Arc<Logs>,
    workspace: PathBuf,
    _scene: Scene,
}

impl Harness {
    /// The scripted provider with a 6000-token window (compaction past 5000 tokens, about 800
    /// kept), core-tools, then `hooks`: (name, compact-hook config) in load order.
    async fn new(script: Vec<Value>, hooks: &[(&str, Value)]) -> Harness {
        let scene = Scene::new();
        scene
            .write("a.txt", "alpha\n")
            .write("notes.md", "# Notes\n");
        let logs = Arc::new(Logs::default());
        let services = Services::new(logs.clone());
        let host = scene.host(services.host(), false);
        let mut specs = vec![
            scripted_provider(json!({ "script": script, "context_window": 6000 })),
            builtin_spec("core-tools", json!({})),
        ];
        for (name, config) in hooks {
            specs.push(spec(
                name,
                artifacts::TEST_COMPACT_HOOK,
                Capabilities::default(),
                config.clone(),
            ));
        }
        let set = scene.load(specs, &host).await;
        let (store, session) = scene.session();
        let events = Arc::new(Events::default());
        let wired = wire_agent(
            &scene,
            &set,
            &session,
            &services,
            AgentOptions {
                configure: Box::new(|config| {
                    config.compaction = CompactionSettings {
                        enabled: true,
                        reserve_tokens: 1_000,
                        keep_recent_tokens: 800,
                    };
                }),
                ..AgentOptions::default()
            },
        );
        assert_eq!(wired.model.context_window, 6000);
        Harness {
            agent: wired.agent.with_events(events.clone()),
            session,
            store,
            events,
            logs,
            workspace: scene.workspace.clone(),
            _scene: scene,
        }
    }

    fn append(&self, messages: Vec<Message>) {
        let mut session = self.session.lock();
        for message in messages {
            session.append_message(message).expect("append");
        }
    }

    async fn prompt(&self, text: &str) -> RunOutcome {
        let outcome = self
            .agent
            .prompt_text(text, CancellationToken::new())
            .await
            .expect("the run");
        assert_eq!(outcome.status, RunStatus::Completed, "{outcome:?}");
        outcome
    }

    fn compactions(&self) -> Vec<(String, String, Option<Value>)> {
        compactions(&self.session.lock())
    }

    /// The projection, one short line a message.
    fn projection(&self) -> Vec<String> {
        describe_all(&self.session.lock())
    }

    /// The session as written, reloaded from its file.
    fn reloaded(&self) -> Session {
        let path = self.session.lock().path().expect("a file").to_owned();
        let (session, warnings) = self.store.open(&path).expect("reopen");
        assert!(warnings.is_empty(), "{warnings:?}");
        session
    }
}

fn describe_all(session: &Session) -> Vec<String> {
    session.project().iter().map(|m| describe(m)).collect()
}

fn describe(message: &Message) -> String {
    let first = |text: &str| {
        text.lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(40)
            .collect::<String>()
    };
    match message {
        Message::User(u) => format!("user: {}", first(&u.text_content())),
        Message::Assistant(a) => {
            let calls: Vec<&str> = a.tool_calls().map(|c| c.name.as_str()).collect();
            if calls.is_empty() {
                format!("assistant: {}", first(&a.text_content()))
            } else {
                format!("assistant calls {}", calls.join(","))
            }
        }
        Message::ToolResult(r) => format!("result {}", r.tool_name),
        Message::Custom(c) => format!("custom {}", c.custom_type),
        Message::BranchSummary(b) => format!("branch summary: {}", first(&b.summary)),
        Message::CompactionSummary(c) => format!("summary: {}", first(&c.summary)),
    }
}

fn assistant(content: Vec<AssistantContent>, stop: StopReason) -> Message {
    Message::Assistant(AssistantMessage {
        content,
        provider: "scripted".into(),
        model: "scripted-1".into(),
        usage: Usage::default(),
        stop_reason: stop,
        error_message: None,
        timestamp: 1,
    })
}

fn text(text: &str) -> Message {
    assistant(
        vec![AssistantContent::Text(TextContent { text: text.into() })],
        StopReason::Stop,
    )
}

fn call(id: &str, name: &str, arguments: Value) -> Message {
    assistant(
        vec![AssistantContent::ToolCall(ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        })],
        StopReason::ToolUse,
    )
}

/// An earlier exchange with two assistant messages, one of which read notes.md.
fn earlier() -> Vec<Message> {
    vec![
        Message::user("look at the notes"),
        call("p1", "read", json!({"path": "notes.md"})),
        tool_result("p1", "read", "# Notes"),
        text("The notes are empty."),
    ]
}

/// A prompt of about 900 estimated tokens: on its own more than the 800 kept.
fn big_prompt(what: &str) -> String {
    format!("{what}\n{}", "Some context for the task. ".repeat(133))
}

fn read_a() -> Value {
    json!({"tool_calls": [{"id": "r_a", "name": "read", "arguments": {"path": "a.txt"}}]})
}

// ---- automatic compaction --------------------------------------------------------------------

#[tokio::test]
async fn threshold_compaction_then_a_second_one_that_keeps_the_file_lists() {
    let script = vec![
        json!({ "text": SUMMARY }),
        json!({ "text": "unused" }),
        read_a(),
        json!({ "text": "Read a.txt.", "usage": {"input": 5200, "output": 10} }),
    ];
    let h = Harness::new(script, &[]).await;
    h.append(earlier());

    h.prompt(&big_prompt("read a.txt")).await;
    match &h.events.compaction()[..] {
        [AgentEvent::CompactionStart {
            reason: CompactionReason::Threshold,
            custom_instructions: None,
        }, AgentEvent::CompactionEnd {
            reason: CompactionReason::Threshold,
            aborted: false,
            tokens_before: Some(5210),
            ..
        }] => {}
        other => panic!("unexpected compaction events {other:?}"),
    }
    let first = h.compactions();
    assert_eq!(first.len(), 1);
    assert_eq!(
        first[0].0,
        format!("{SUMMARY}\n\n<read-files>\nnotes.md\n</read-files>")
    );
    assert_eq!(
        first[0].2,
        Some(json!({"readFiles": ["notes.md"], "modifiedFiles": []}))
    );
    let projection = h.projection();
    assert_eq!(
        projection,
        [
            "summary: ## Goal",
            "user: read a.txt",
            "assistant calls read",
            "result read",
            "assistant: Read a.txt.",
        ]
    );
    // History stays in the file.
    assert_eq!(describe_all(&h.reloaded()), projection);
    assert_eq!(h.reloaded().entries().len(), 4 + 4 + 1);

    // The same again: the second compaction summarizes what the first kept and carries its
    // file lists over.
    h.prompt(&big_prompt("read a.txt again")).await;
    let all = h.compactions();
    assert_eq!(all.len(), 2);
    assert_eq!(
        all[1].2,
        Some(json!({"readFiles": ["a.txt", "notes.md"], "modifiedFiles": []}))
    );
    assert!(all[1]
        .0
        .ends_with("<read-files>\na.txt\nnotes.md\n</read-files>"));
    assert_eq!(
        h.projection(),
        [
            "summary: ## Goal",
            "user: read a.txt again",
            "assistant calls read",
            "result read",
            "assistant: Read a.txt.",
        ]
    );
    let usage = h.agent.context_usage();
    assert!(usage.tokens < 1_200, "{usage:?}");
    assert_eq!(usage.context_window, 6000);
}

#[tokio::test]
async fn overflow_compacts_and_the_turn_is_retried() {
    let script = vec![
        json!({ "text": SUMMARY }),
        json!({ "text": "Recovered after compaction." }),
        read_a(),
        json!({ "error": {"kind": "context_overflow", "message": "prompt is too long"} }),
    ];
    let h = Harness::new(script, &[]).await;
    h.append(earlier());
    let outcome = h.prompt(&big_prompt("read a.txt")).await;
    let last = outcome.messages.last().expect("a message");
    assert_eq!(describe(last), "assistant: Recovered after compaction.");
    match &h.events.compaction()[..] {
        [AgentEvent::CompactionStart {
            reason: CompactionReason::Overflow,
            custom_instructions: None,
        }, AgentEvent::CompactionEnd {
            reason: CompactionReason::Overflow,
            aborted: false,
            ..
        }] => {}
        other => panic!("unexpected compaction events {other:?}"),
    }
    // The failed message is in the file, after the compaction's first kept entry, and out of
    // what the model saw on the retry.
    let session = h.reloaded();
    let failed: Vec<_> = session
        .entries()
        .iter()
        .filter(|e| matches!(e.message().map(|m| &**m), Some(Message::Assistant(a)) if a.stop_reason == StopReason::Error))
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(
        describe_all(&session),
        [
            "summary: ## Goal",
            "user: read a.txt",
            "assistant calls read",
            "result read",
            "assistant: ",
            "assistant: Recovered after compaction.",
        ]
    );
}

#[tokio::test]
async fn a_turn_larger_than_the_kept_budget_is_split() {
    let h = Harness::new(vec![json!({ "text": SUMMARY })], &[]).await;
    h.append(earlier());
    h.append(vec![
        Message::user("read everything"),
        call("c1", "read", json!({"path": "a.txt"})),
        tool_result("c1", "read", &"x".repeat(2400)),
        call("c2", "read", json!({"path": "b.txt"})),
        tool_result("c2", "read", &"y".repeat(2400)),
    ]);
    let done = h
        .agent
        .compact(None, CancellationToken::new())
        .await
        .expect("compacted");
    assert_eq!(
        done.summary,
        format!(
            "{SUMMARY}\n\n---\n\n**Earlier part of the current turn:**\n\n{SUMMARY}\n\n\
             <read-files>\na.txt\nnotes.md\n</read-files>"
        )
    );
    assert_eq!(
        h.projection(),
        ["summary: ## Goal", "assistant calls read", "result read"]
    );
}

// ---- before-compact from plugins -----------------------------------------------------------

#[tokio::test]
async fn a_plugin_supplies_the_summary_and_sees_the_previous_one() {
    let script = vec![
        json!({ "text": "never used: the plugin writes the summary" }),
        json!({ "text": "unused" }),
        read_a(),
        json!({ "text": "Read a.txt.", "usage": {"input": 5200, "output": 10} }),
    ];
    let h = Harness::new(
        script,
        &[
            ("first", json!({"do": "proceed"})),
            ("second", json!({"do": "summary", "tag": "B"})),
            ("third", json!({"do": "cancel"})),
        ],
    )
    .await;
    h.append(earlier());
    h.prompt(&big_prompt("read a.txt")).await;
    let first = h.compactions();
    assert_eq!(first.len(), 1);
    assert!(
        first[0]
            .0
            .starts_with("[B] 4 messages; previous: none; focus: none; tokens before: 5210"),
        "{}",
        first[0].0
    );
    // The host still tracks the files for the next compaction.
    assert_eq!(
        first[0].2,
        Some(json!({"readFiles": ["notes.md"], "modifiedFiles": []}))
    );

    h.append(vec![Message::user(big_prompt("more")), text("More done.")]);
    let done = h
        .agent
        .compact(Some("the tests"), CancellationToken::new())
        .await
        .expect("compacted");
    assert!(done.from_hook);
    assert!(
        done.summary
            .starts_with("[B] 4 messages; previous: [B] 4 messages; previous: none;"),
        "{}",
        done.summary
    );
    assert!(done.summary.contains("focus: the tests"));
}

#[tokio::test]
async fn a_plugin_cancels_and_a_failing_one_is_skipped() {
    let script = vec![
        json!({ "text": SUMMARY }),
        json!({ "text": "unused" }),
        read_a(),
        json!({ "text": "Read a.txt.", "usage": {"input": 5200, "output": 10} }),
    ];
    let h = Harness::new(
        script,
        &[
            ("broken", json!({"do": "trap"})),
            ("veto", json!({"do": "cancel"})),
        ],
    )
    .await;
    h.append(earlier());
    h.prompt(&big_prompt("read a.txt")).await;
    assert!(h.compactions().is_empty());
    match &h.events.compaction()[..] {
        [AgentEvent::CompactionStart { .. }, AgentEvent::CompactionEnd {
            aborted: true,
            error_message: Some(message),
            ..
        }] => assert_eq!(message, "a plugin cancelled the compaction"),
        other => panic!("unexpected compaction events {other:?}"),
    }
    let logs = h.logs.0.lock().expect("logs").clone();
    assert!(
        logs.iter()
            .any(|l| l.starts_with("broken: before-compact hook failed; compaction goes on")),
        "{logs:?}"
    );
}

// ---- /tree, forks, Pi imports ----------------------------------------------------------------

#[tokio::test]
async fn tree_navigation_with_a_branch_summary_then_a_fork() {
    let h = Harness::new(vec![json!({ "text": "The edit broke the build." })], &[]).await;
    h.append(earlier());
    let fork_point = h.session.lock().leaf_id().expect("leaf").to_owned();
    h.append(vec![
        Message::user("change a.txt"),
        call(
            "e1",
            "edit",
            json!({"path": "a.txt", "old_text": "alpha", "new_text": "beta"}),
        ),
        tool_result("e1", "edit", "Edited a.txt"),
        text("Changed it; the build fails now."),
    ]);
    let left = h.session.lock().leaf_id().expect("leaf").to_owned();

    let moved = h
        .agent
        .navigate(&fork_point, true, None, CancellationToken::new())
        .await
        .expect("moved");
    assert_eq!(moved.from.as_deref(), Some(left.as_str()));
    let summary_id = moved.summary_entry_id.expect("a branch summary");
    let expected = [
        "user: look at the notes",
        "assistant calls read",
        "result read",
        "assistant: The notes are empty.",
        "branch summary: The edit broke the build.",
    ];
    assert_eq!(h.projection(), expected);
    // The file's last entry is the summary, so a reload continues from there.
    let reloaded = h.reloaded();
    assert_eq!(reloaded.leaf_id(), Some(summary_id.as_str()));
    assert_eq!(describe_all(&reloaded), expected);
    match &reloaded.entry(&summary_id).expect("entry").kind {
        EntryKind::BranchSummary {
            from_id, details, ..
        } => {
            assert_eq!(from_id, &left);
            assert_eq!(
                details,
                &Some(json!({"readFiles": [], "modifiedFiles": ["a.txt"]}))
            );
        }
        other => panic!("not a branch summary: {other:?}"),
    }
    // Both branches are in the tree.
    assert_eq!(
        reloaded
            .children(Some(&fork_point))
            .expect("children")
            .len(),
        2
    );

    // A fork at the point where the branches part: a new file pointing back to this one.
    let fork = {
        let session = h.session.lock();
        h.store.fork(&session, &fork_point).expect("fork")
    };
    assert_eq!(
        fork.header().parent_session.as_deref(),
        h.session
            .lock()
            .path()
            .map(|p| p.display().to_string())
            .as_deref()
    );
    assert_eq!(describe_all(&fork), expected[..4]);
    let (reopened, _) = h.store.open(fork.path().expect("file")).expect("open fork");
    assert_eq!(describe_all(&reopened), expected[..4]);
}

#[tokio::test]
async fn an_imported_pi_session_is_continued() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/pi-v3-session.jsonl");
    // Three assistant messages in the imported context: the next answer is entry 3.
    let script = vec![
        json!({ "text": SUMMARY }),
        json!({ "text": "unused" }),
        json!({ "text": "unused" }),
        read_a(),
        json!({ "text": "The tests pass." }),
    ];
    let h = Harness::new(script, &[]).await;
    let imported = import_pi(&fixture, &h.store, &h.workspace).expect("import");
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    let id = imported.session.id().to_owned();
    // `tack -r <id prefix>` resolves it from any directory.
    let path = h.store.resolve(&h.workspace, &id[..13]).expect("resolve");
    let (session, warnings) = h.store.open(&path).expect("open");
    assert!(warnings.is_empty());
    h.session.replace(session);

    let outcome = h.prompt("Run the tests").await;
    assert_eq!(
        outcome
            .messages
            .iter()
            .map(|m| describe(m))
            .collect::<Vec<_>>(),
        [
            "user: Run the tests",
            "assistant calls read",
            "result read",
            "assistant: The tests pass.",
        ]
    );
    let reloaded = h.reloaded();
    assert_eq!(reloaded.id(), id);
    let projection = describe_all(&reloaded);
    assert_eq!(projection.len(), 14);
    assert_eq!(projection[0], "summary: ## Goal");
    assert_eq!(projection[2], "custom bashExecution");
}
