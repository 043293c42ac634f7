//! Compaction, tree navigation, forks and Pi imports, driven through the agent with in-process
//! fakes (the provider records every request, so the summary requests can be inspected). The
//! same flows run through real plugins in `host/runtime/tests/compaction.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

#[path = "support/fakes.rs"]
mod fakes;

use std::path::Path;
use std::sync::{Arc, Mutex};

use fakes::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use tack_core::agent::{
    AgentError, CompactDecision, CompactRequest, ExecutionMode, Hooks, MessageQueues,
    ProviderErrorKind, ProviderRequest, RunStatus, StopKind, StreamEvent, TokenUsage,
};
use tack_core::compaction::{
    find_cut_point, prepare_compaction, CompactionError, CompactionSettings,
    SUMMARIZATION_SYSTEM_PROMPT,
};
use tack_core::event::{AgentEvent, CompactionReason};
use tack_core::message::{
    llm_view, AssistantContent, AssistantMessage, Message, StopReason, TextContent, ToolCall,
    ToolResult, Usage,
};
use tack_core::session::{import_pi, Entry, EntryKind, Session, SessionStore};
use tack_test_support::session::{self, tool_result};
use tokio_util::sync::CancellationToken;

// ---- building sessions ---------------------------------------------------------------------

fn assistant_text(text: &str, input_tokens: u64) -> Message {
    Message::Assistant(AssistantMessage {
        content: vec![AssistantContent::Text(TextContent { text: text.into() })],
        provider: "fake".into(),
        model: "fake-1".into(),
        // No usage at all when `input_tokens` is 0, so that estimates count the message.
        usage: Usage {
            input: input_tokens,
            output: if input_tokens == 0 { 0 } else { 10 },
            ..Usage::default()
        },
        stop_reason: StopReason::Stop,
        error_message: None,
        timestamp: 1,
    })
}

fn assistant_calls(calls: &[(&str, &str, Value)]) -> Message {
    Message::Assistant(AssistantMessage {
        content: calls
            .iter()
            .map(|(id, name, arguments)| {
                AssistantContent::ToolCall(ToolCall {
                    id: (*id).into(),
                    name: (*name).into(),
                    arguments: arguments.clone(),
                })
            })
            .collect(),
        provider: "fake".into(),
        model: "fake-1".into(),
        usage: Usage::default(),
        stop_reason: StopReason::ToolUse,
        error_message: None,
        timestamp: 1,
    })
}

fn append(h: &Harness, messages: Vec<Message>) {
    let mut session = h.session.lock();
    for message in messages {
        session.append_message(message).unwrap();
    }
}

/// Three question/answer turns of about 1000 estimated tokens each.
fn three_turns() -> Vec<Message> {
    (1..=3)
        .flat_map(|i| {
            [
                Message::user(format!("question {i} {}", "q".repeat(2000))),
                assistant_text(&format!("answer {i} {}", "a".repeat(2000)), 0),
            ]
        })
        .collect()
}

/// A text response reporting `input` prompt tokens.
fn text_with_usage(text: &str, input: u64) -> Script {
    Script::Stream(vec![
        Step::Event(StreamEvent::TextDelta {
            index: 0,
            delta: text.into(),
        }),
        Step::Event(StreamEvent::Usage(TokenUsage {
            input,
            output: 5,
            ..Default::default()
        })),
        Step::Event(StreamEvent::Stop(StopKind::Stop)),
    ])
}

/// A 10k-token window compacting past 8000 tokens and keeping about 1000.
fn small_window(h: &Harness) {
    h.agent.update_config(|c| {
        c.model.context_window = 10_000;
        c.compaction = CompactionSettings {
            enabled: true,
            reserve_tokens: 2_000,
            keep_recent_tokens: 1_000,
        };
    });
}

fn compactions(h: &Harness) -> Vec<(String, String, Option<Value>)> {
    session::compactions(&h.session.lock())
}

fn compaction_events(h: &Harness) -> Vec<AgentEvent> {
    session::compaction_events(h.events.events())
}

fn request_text(request: &ProviderRequest) -> String {
    match request.messages.first().map(|m| &**m) {
        Some(Message::User(u)) => u.text_content(),
        other => panic!("a summary request holds one user message, got {other:?}"),
    }
}

fn is_summary_request(request: &ProviderRequest) -> bool {
    request.system_prompt == SUMMARIZATION_SYSTEM_PROMPT
}

// ---- automatic compaction ------------------------------------------------------------------

#[tokio::test]
async fn passing_the_threshold_compacts_after_the_turn() {
    let h = harness(
        vec![
            text_with_usage("answer 4", 9_000),
            text("## Goal\nAnswer questions."),
        ],
        FakeTools::new(),
    );
    small_window(&h);
    append(&h, three_turns());
    let before = h.agent.context_usage();
    assert_eq!(before.context_window, 10_000);
    assert!(before.tokens > 2_900 && before.tokens < 3_200, "{before:?}");

    let outcome = h
        .agent
        .prompt_text("go on", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);

    let kinds = h.events.kinds();
    let tail: Vec<&str> = kinds[kinds.len() - 4..]
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        [
            "turn_end",
            "compaction_start",
            "compaction_end",
            "agent_end"
        ]
    );
    match &compaction_events(&h)[..] {
        [AgentEvent::CompactionStart {
            reason: CompactionReason::Threshold,
            ..
        }, AgentEvent::CompactionEnd {
            reason: CompactionReason::Threshold,
            summary: Some(summary),
            tokens_before: Some(tokens),
            aborted: false,
            error_message: None,
            ..
        }] => {
            assert_eq!(summary, "## Goal\nAnswer questions.");
            assert_eq!(*tokens, 9_005, "the reported usage, nothing after it");
        }
        other => panic!("unexpected compaction events {other:?}"),
    }

    // The summary request: same provider, no tools, a system prompt that forbids continuing,
    // the transcript of what is summarized, and nothing of what is kept.
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 2);
    let summary_request = &requests[1];
    assert!(is_summary_request(summary_request));
    assert!(summary_request.tools.is_empty());
    assert_eq!(summary_request.messages.len(), 1);
    assert_eq!(summary_request.max_tokens, Some(1_600));
    let text = request_text(summary_request);
    assert!(
        text.starts_with("<conversation>\n[User]: question 1 qqq"),
        "{text}"
    );
    assert!(text.contains("[Assistant]: answer 2"));
    assert!(
        !text.contains("question 3"),
        "the kept part is not summarized"
    );
    assert!(text.contains("## Constraints & Preferences"));
    assert!(!text.contains("<previous-summary>"));

    // The file keeps everything; the projection is the summary and the kept entries.
    let (summary, first_kept, details) = compactions(&h).remove(0);
    assert_eq!(summary, "## Goal\nAnswer questions.");
    assert_eq!(details, Some(json!({"readFiles": [], "modifiedFiles": []})));
    let session = h.session.lock();
    let kept = session.entry(&first_kept).unwrap();
    assert!(
        matches!(kept.message().map(|m| &**m), Some(Message::User(u)) if u.text_content().starts_with("question 3"))
    );
    assert_eq!(session.entries().len(), 6 + 2 + 1);
    drop(session);
    let transcript = h.transcript();
    assert_eq!(transcript.len(), 5);
    assert_eq!(
        transcript[0],
        "compaction summary: ## Goal\nAnswer questions."
    );
    assert!(transcript[1].starts_with("user: question 3"));
    assert_eq!(transcript[4], "assistant[stop]: answer 4");
    let after = h.agent.context_usage();
    assert!(after.tokens < 1_200, "{after:?}");
}

#[tokio::test]
async fn below_the_threshold_nothing_happens() {
    let h = harness(vec![text_with_usage("fine", 7_000)], FakeTools::new());
    small_window(&h);
    append(&h, three_turns());
    h.agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert!(compaction_events(&h).is_empty());
    assert_eq!(h.provider.requests().len(), 1);
}

#[tokio::test]
async fn overflow_compacts_and_retries_once() {
    let h = harness(
        vec![
            Script::Fail(error(
                ProviderErrorKind::ContextOverflow,
                "prompt is too long",
            )),
            text("## Goal\nSummarized."),
            text("done after compaction"),
        ],
        FakeTools::new(),
    );
    small_window(&h);
    append(&h, three_turns());
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    match &compaction_events(&h)[..] {
        [AgentEvent::CompactionStart {
            reason: CompactionReason::Overflow,
            ..
        }, AgentEvent::CompactionEnd {
            reason: CompactionReason::Overflow,
            aborted: false,
            ..
        }] => {}
        other => panic!("unexpected compaction events {other:?}"),
    }
    // The failed message stays in the file but not in what the retry sends.
    let failed = h
        .session
        .lock()
        .entries()
        .iter()
        .filter(|e| matches!(e.message().map(|m| &**m), Some(Message::Assistant(a)) if a.stop_reason == StopReason::Error))
        .count();
    assert_eq!(failed, 1);
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 3);
    assert!(is_summary_request(&requests[1]));
    let retry = request_transcript(&requests[2]);
    assert!(retry[0].starts_with("user: The conversation history before this point was compacted"));
    assert!(retry[0].contains("## Goal\nSummarized."));
    assert_eq!(retry.last().map(String::as_str), Some("user: go"));
    assert!(retry.iter().all(|m| !m.contains("question 1")));
    // One agent_start/agent_end pair around the whole recovery.
    let kinds = h.events.kinds();
    assert_eq!(kinds.iter().filter(|k| *k == "agent_end").count(), 1);
}

#[tokio::test]
async fn a_second_overflow_in_a_row_is_returned() {
    let h = harness(
        vec![
            Script::Fail(error(ProviderErrorKind::ContextOverflow, "too long")),
            text("summary"),
            Script::Fail(error(ProviderErrorKind::ContextOverflow, "still too long")),
        ],
        FakeTools::new(),
    );
    small_window(&h);
    append(&h, three_turns());
    match h.agent.prompt_text("go", CancellationToken::new()).await {
        Err(AgentError::ContextOverflow(e)) => assert_eq!(e.message, "still too long"),
        other => panic!("expected an overflow, got {other:?}"),
    }
    assert_eq!(h.provider.requests().len(), 3);
    assert_eq!(compactions(&h).len(), 1);
}

#[tokio::test]
async fn overflow_with_automatic_compaction_off_is_returned_at_once() {
    let h = harness(
        vec![Script::Fail(error(
            ProviderErrorKind::ContextOverflow,
            "too long",
        ))],
        FakeTools::new(),
    );
    small_window(&h);
    h.agent.update_config(|c| c.compaction.enabled = false);
    append(&h, three_turns());
    assert!(matches!(
        h.agent.prompt_text("go", CancellationToken::new()).await,
        Err(AgentError::ContextOverflow(_))
    ));
    assert!(compaction_events(&h).is_empty());
    assert_eq!(h.provider.requests().len(), 1);
}

#[tokio::test]
async fn queued_messages_survive_a_compaction() {
    let queues: Arc<Mutex<Option<MessageQueues>>> = Arc::default();
    let tools = FakeTools::new().with(
        "note",
        ExecutionMode::Parallel,
        json!({"type": "object"}),
        {
            let queues = queues.clone();
            move |_call, _cancel, _progress| {
                let queues = queues.lock().unwrap().clone();
                async move {
                    if let Some(q) = queues {
                        q.steer(Message::user("steered during the tool"));
                    }
                    Ok(ToolResult::text("noted"))
                }
            }
        },
    );
    let h = harness(
        vec![
            Script::Stream(vec![
                Step::Event(StreamEvent::ToolCallStart {
                    index: 0,
                    id: "n1".into(),
                    name: "note".into(),
                }),
                Step::Event(StreamEvent::ToolCallDelta {
                    index: 0,
                    delta: "{}".into(),
                }),
                Step::Event(StreamEvent::Usage(TokenUsage {
                    input: 9_500,
                    output: 5,
                    ..Default::default()
                })),
                Step::Event(StreamEvent::Stop(StopKind::ToolUse)),
            ]),
            text("summary of the start"),
            text_with_usage("saw the steering", 2_000),
            text_with_usage("saw the follow-up", 2_100),
        ],
        tools,
    );
    *queues.lock().unwrap() = Some(h.agent.queues());
    small_window(&h);
    append(&h, three_turns());
    h.agent
        .queues()
        .follow_up(Message::user("a follow-up queued before"));
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(compactions(&h).len(), 1);
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 4);
    assert!(is_summary_request(&requests[1]));
    let after_compaction = request_transcript(&requests[2]);
    assert!(after_compaction[0].starts_with("user: The conversation history"));
    assert_eq!(
        after_compaction.last().map(String::as_str),
        Some("user: steered during the tool")
    );
    let last = request_transcript(&requests[3]);
    assert_eq!(
        last.last().map(String::as_str),
        Some("user: a follow-up queued before")
    );
    assert!(h.agent.queues().is_empty());
}

// ---- cut points and summaries ---------------------------------------------------------------

#[tokio::test]
async fn a_turn_larger_than_the_budget_is_split_and_summarized_in_two_parts() {
    let h = harness(
        vec![text("HISTORY SUMMARY"), text("PREFIX SUMMARY")],
        FakeTools::new(),
    );
    small_window(&h);
    let mut messages = vec![
        Message::user("small question"),
        assistant_text("small answer", 50),
        Message::user("read everything"),
    ];
    for i in 1..=4 {
        let id = format!("r{i}");
        messages.push(assistant_calls(&[(
            id.as_str(),
            "read",
            json!({"path": format!("src/f{i}.rs")}),
        )]));
        messages.push(tool_result(&id, "read", &"x".repeat(2000)));
    }
    append(&h, messages);

    let done = h
        .agent
        .compact(None, CancellationToken::new())
        .await
        .unwrap();
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 2);
    let history = request_text(&requests[0]);
    assert!(history.contains("[User]: small question"));
    assert!(!history.contains("read everything"));
    let prefix = request_text(&requests[1]);
    assert!(prefix.starts_with("<conversation>\n[User]: read everything"));
    assert!(prefix.contains("read(path=\"src/f3.rs\")"));
    assert!(
        !prefix.contains("src/f4.rs"),
        "the kept part is not in the prefix"
    );
    assert!(prefix.contains("beginning of a single turn"));
    assert_eq!(requests[1].max_tokens, Some(1_000));

    assert_eq!(
        done.summary,
        "HISTORY SUMMARY\n\n---\n\n**Earlier part of the current turn:**\n\nPREFIX SUMMARY\n\n\
         <read-files>\nsrc/f1.rs\nsrc/f2.rs\nsrc/f3.rs\n</read-files>"
    );
    assert!(!done.from_hook);
    assert!(done.tokens_after < done.tokens_before);
    // The kept part starts at the assistant message of the last call: mid-turn, never at a
    // tool result.
    let transcript = h.transcript();
    assert_eq!(transcript.len(), 3, "{transcript:?}");
    assert!(transcript[0].starts_with("compaction summary: HISTORY SUMMARY"));
    assert_eq!(transcript[1], "assistant[toolUse]:  calls r4");
    assert!(transcript[2].starts_with("result r4: xxx"));
    h.assert_consistent();
}

#[tokio::test]
async fn a_second_compaction_updates_the_first_summary_and_keeps_the_file_lists() {
    let h = harness(
        vec![text("SUMMARY ONE"), text("SUMMARY TWO")],
        FakeTools::new(),
    );
    small_window(&h);
    let padding = "p".repeat(2400);
    append(
        &h,
        vec![
            Message::user("fix the parser"),
            assistant_calls(&[
                ("c1", "read", json!({"path": "src/parser.rs"})),
                ("c2", "read", json!({"path": "src/lexer.rs"})),
            ]),
            tool_result("c1", "read", "fn parse() {}"),
            tool_result("c2", "read", "fn lex() {}"),
            assistant_calls(&[(
                "c3",
                "edit",
                json!({"path": "src/parser.rs", "old_text": "a", "new_text": "b"}),
            )]),
            tool_result("c3", "edit", "edited"),
            assistant_text("Fixed the parser.", 500),
            Message::user(format!("now the docs {padding}")),
            assistant_text(&format!("Docs are fine. {padding}"), 600),
        ],
    );
    let first = h
        .agent
        .compact(Some("the parser fix"), CancellationToken::new())
        .await
        .unwrap();
    assert!(first.summary.starts_with("SUMMARY ONE\n\n<read-files>\nsrc/lexer.rs\n</read-files>\n\n<modified-files>\nsrc/parser.rs\n</modified-files>"));
    let first_request = request_text(&h.provider.requests()[0]);
    assert!(first_request.ends_with("The user asks the summary to focus on: the parser fix"));

    append(
        &h,
        vec![
            Message::user("and the README"),
            assistant_calls(&[("c4", "read", json!({"path": "README.md"}))]),
            tool_result("c4", "read", "# Project"),
            assistant_calls(&[("c5", "write", json!({"path": "NOTES.md", "content": "n"}))]),
            tool_result("c5", "write", "written"),
            assistant_text(&format!("Done. {padding}"), 700),
            Message::user(format!("thanks {padding}")),
            assistant_text(&format!("You're welcome. {padding}"), 800),
        ],
    );
    let second = h
        .agent
        .compact(None, CancellationToken::new())
        .await
        .unwrap();
    let update = request_text(&h.provider.requests()[1]);
    assert!(
        update.starts_with(&format!(
            "<previous-summary>\n{}\n</previous-summary>",
            first.summary
        )),
        "{update}"
    );
    assert!(update.contains("Update that summary rather than starting over"));
    assert!(update.contains("[Assistant tool calls]: read(path=\"README.md\")"));
    // The entries kept by the first compaction are summarized by the second.
    assert!(update.contains("now the docs"));
    assert_eq!(
        second.summary,
        "SUMMARY TWO\n\n<read-files>\nREADME.md\nsrc/lexer.rs\n</read-files>\n\n\
         <modified-files>\nNOTES.md\nsrc/parser.rs\n</modified-files>"
    );
    let all = compactions(&h);
    assert_eq!(all.len(), 2);
    assert_eq!(
        all[1].2,
        Some(json!({
            "readFiles": ["README.md", "src/lexer.rs"],
            "modifiedFiles": ["NOTES.md", "src/parser.rs"]
        }))
    );
    let transcript = h.transcript();
    assert!(transcript[0].starts_with("compaction summary: SUMMARY TWO"));
    assert!(transcript[1].starts_with("user: thanks"));
    assert_eq!(transcript.len(), 3);
}

#[tokio::test]
async fn manual_compaction_with_nothing_to_summarize_says_so() {
    let h = harness(vec![], FakeTools::new());
    append(&h, vec![Message::user("hi"), assistant_text("hello", 10)]);
    assert!(matches!(
        h.agent.compact(None, CancellationToken::new()).await,
        Err(CompactionError::NothingToCompact)
    ));
    match &compaction_events(&h)[..] {
        [AgentEvent::CompactionStart {
            reason: CompactionReason::Manual,
            ..
        }, AgentEvent::CompactionEnd {
            aborted: true,
            error_message: Some(_),
            ..
        }] => {}
        other => panic!("unexpected events {other:?}"),
    }
    assert!(h.provider.requests().is_empty());
}

#[tokio::test]
async fn a_failed_summary_leaves_the_session_alone() {
    let h = harness(
        vec![Script::Fail(error(ProviderErrorKind::Auth, "bad key"))],
        FakeTools::new(),
    );
    small_window(&h);
    append(&h, three_turns());
    let entries = h.session.lock().entries().len();
    match h.agent.compact(None, CancellationToken::new()).await {
        Err(CompactionError::Provider(e)) => assert_eq!(e.message, "bad key"),
        other => panic!("expected a provider error, got {other:?}"),
    }
    assert_eq!(h.session.lock().entries().len(), entries);
}

// ---- before-compact hook -------------------------------------------------------------------

struct CompactHook {
    decision: CompactDecision,
    seen: Mutex<Vec<CompactRequest>>,
}

#[async_trait::async_trait]
impl Hooks for CompactHook {
    async fn before_compact(&self, request: &CompactRequest) -> CompactDecision {
        self.seen.lock().unwrap().push(request.clone());
        self.decision.clone()
    }
}

fn with_hook(decision: CompactDecision, scripts: Vec<Script>) -> (Harness, Arc<CompactHook>) {
    let hook = Arc::new(CompactHook {
        decision,
        seen: Mutex::default(),
    });
    let h = harness_with(scripts, FakeTools::new(), {
        let hook = hook.clone();
        move |agent| agent.with_hooks(hook)
    });
    small_window(&h);
    append(&h, three_turns());
    (h, hook)
}

#[tokio::test]
async fn a_hook_may_supply_the_summary() {
    let (h, hook) = with_hook(CompactDecision::Summary("from the plugin".into()), vec![]);
    let done = h
        .agent
        .compact(Some("tests"), CancellationToken::new())
        .await
        .unwrap();
    assert!(done.from_hook);
    assert_eq!(done.summary, "from the plugin");
    assert!(h.provider.requests().is_empty());
    let seen = hook.seen.lock().unwrap();
    assert_eq!(seen[0].messages.len(), 4);
    assert_eq!(seen[0].focus.as_deref(), Some("tests"));
    assert_eq!(seen[0].previous_summary, None);
    assert!(seen[0].tokens_before > 2_900);
    assert_eq!(compactions(&h)[0].0, "from the plugin");
}

#[tokio::test]
async fn a_hook_may_cancel_the_compaction() {
    let (h, _hook) = with_hook(
        CompactDecision::Cancel,
        vec![text_with_usage("over the threshold", 9_000)],
    );
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    assert!(compactions(&h).is_empty());
    match &compaction_events(&h)[..] {
        [AgentEvent::CompactionStart { .. }, AgentEvent::CompactionEnd {
            aborted: true,
            error_message: Some(message),
            ..
        }] => assert_eq!(message, "a plugin cancelled the compaction"),
        other => panic!("unexpected events {other:?}"),
    }
    assert_eq!(h.provider.requests().len(), 1);
}

// ---- tree navigation and forks -------------------------------------------------------------

#[tokio::test]
async fn navigating_with_a_summary_writes_a_branch_summary_at_the_target() {
    let h = harness(vec![text("BRANCH SUMMARY")], FakeTools::new());
    let (root, fork_point) = {
        let mut s = h.session.lock();
        let root = s.append_message(Message::user("start")).unwrap().id.clone();
        let fork_point = s
            .append_message(assistant_text("Two ways to go.", 10))
            .unwrap()
            .id
            .clone();
        s.append_message(Message::user("try way A")).unwrap();
        s.append_message(assistant_calls(&[(
            "a1",
            "edit",
            json!({"path": "a.rs", "old_text": "x", "new_text": "y"}),
        )]))
        .unwrap();
        s.append_message(tool_result("a1", "edit", "edited"))
            .unwrap();
        s.append_message(assistant_text("Way A fails its tests.", 20))
            .unwrap();
        (root, fork_point)
    };
    let old_leaf = h.session.lock().leaf_id().unwrap().to_owned();

    let moved = h
        .agent
        .navigate(&fork_point, true, None, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(moved.from.as_deref(), Some(old_leaf.as_str()));
    assert_eq!(moved.to, fork_point);
    let summary_id = moved.summary_entry_id.expect("a summary entry");

    let request = &h.provider.requests()[0];
    assert!(is_summary_request(request));
    let text = request_text(request);
    assert!(text.contains("[User]: try way A"));
    assert!(text.contains("[Assistant]: Way A fails its tests."));
    assert!(
        !text.contains("[User]: start"),
        "the shared part is not summarized"
    );
    assert!(text.contains("branch of the session that the user is now leaving"));

    {
        let session = h.session.lock();
        let entry = session.entry(&summary_id).unwrap();
        assert_eq!(entry.parent_id.as_deref(), Some(fork_point.as_str()));
        match &entry.kind {
            EntryKind::BranchSummary {
                from_id,
                summary,
                details,
            } => {
                assert_eq!(from_id, &old_leaf);
                assert_eq!(
                    summary,
                    "BRANCH SUMMARY\n\n<modified-files>\na.rs\n</modified-files>"
                );
                assert_eq!(
                    details,
                    &Some(json!({"readFiles": [], "modifiedFiles": ["a.rs"]}))
                );
            }
            other => panic!("not a branch summary: {other:?}"),
        }
        assert_eq!(session.leaf_id(), Some(summary_id.as_str()));
    }
    assert_eq!(
        h.transcript(),
        [
            "user: start",
            "assistant[stop]: Two ways to go.",
            "branch summary: BRANCH SUMMARY\n\n<modified-files>\na.rs\n</modified-files>"
        ]
    );
    let view = llm_view(&h.session.lock().project());
    assert_eq!(view.len(), 3);

    // Without a summary only the leaf moves.
    h.agent
        .navigate(&root, false, None, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(h.transcript(), ["user: start"]);
    assert_eq!(h.provider.requests().len(), 1);
}

#[test]
fn a_fork_copies_the_branch_and_points_back() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(home.path());
    let mut session = store.create(Path::new("/work")).unwrap();
    let first = session
        .append_message(Message::user("one"))
        .unwrap()
        .id
        .clone();
    session.append_message(assistant_text("two", 5)).unwrap();
    let fork = store.fork(&session, &first).unwrap();
    assert_eq!(
        fork.header().parent_session.as_deref(),
        session.path().map(|p| p.display().to_string()).as_deref()
    );
    assert_eq!(fork.entries().len(), 1);
    assert_eq!(fork.project().len(), 1);
    let (reopened, warnings) = store.open(fork.path().unwrap()).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(reopened.project(), fork.project());
    assert_ne!(reopened.id(), session.id());
}

// ---- Pi import ------------------------------------------------------------------------------

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[test]
fn a_pi_v3_session_imports_with_its_tree_and_projection() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(home.path());
    let imported = import_pi(
        &fixture("pi-v3-session.jsonl"),
        &store,
        Path::new("/elsewhere"),
    )
    .unwrap();
    assert_eq!(imported.pi_version, 3);
    assert_eq!(imported.entries, 23);
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    let session = &imported.session;
    assert_eq!(session.header().cwd, "/home/me/project");
    assert_eq!(session.header().version, 3);
    assert!(session
        .path()
        .unwrap()
        .starts_with(store.dir_for(Path::new("/home/me/project"))));
    assert_eq!(session.name(), Some("Build failure"));
    assert_eq!(session.label("a0000003"), Some("start"));
    assert_eq!(session.model(), Some(("anthropic", "claude-sonnet-4-5")));
    assert_eq!(session.thinking_level(), Some("medium"));
    // The abandoned branch is still in the tree.
    assert_eq!(session.children(Some("a0000006")).unwrap().len(), 2);
    // The last entry records the import and continues Pi's leaf.
    let leaf = session.leaf().unwrap();
    assert_eq!(leaf.parent_id.as_deref(), Some("a0000013"));
    assert!(
        matches!(&leaf.kind, EntryKind::Custom { custom_type, data, .. }
        if custom_type == "tack-import" && data["version"] == json!(3))
    );
    let excluded = session.entry("a0000008").unwrap();
    assert!(
        matches!(&excluded.kind, EntryKind::Custom { custom_type, .. } if custom_type == "pi-bash-execution")
    );

    let projected: Vec<String> = session.project().iter().map(|m| describe(m)).collect();
    assert_eq!(
        projected,
        [
            "compaction summary: ## Goal\nFix the build.",
            "assistant[stop]: build.rs calls missing_dep(), which does not exist.",
            "custom bashExecution: Ran `cargo build`\n```\nerror[E0425]: cannot find function `missing_dep`\n```\n\nCommand exited with code 101",
            "custom plan-mode: Plan mode is off.",
            "branch summary: Removing the call made the build pass but lost a feature.",
            "custom note: Remember to run the tests.",
            "user: Add the missing function.",
            "assistant[toolUse]:  calls toolu_02",
            "result toolu_02: Edited build.rs",
            "assistant[stop]: Added missing_dep(); the build passes now.",
        ]
    );
    let Some(Message::Assistant(first)) = session
        .entry("a0000004")
        .and_then(|e| e.message())
        .map(|m| (**m).clone())
    else {
        panic!("a0000004 is an assistant message");
    };
    assert_eq!(first.usage.cost.total, 0.0048);
    assert!(
        matches!(&first.content[0], AssistantContent::Thinking(t) if t.signature.as_deref() == Some("sig1"))
    );
}

#[tokio::test]
async fn an_imported_pi_session_continues() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(home.path());
    let imported = import_pi(&fixture("pi-v3-session.jsonl"), &store, Path::new("/w")).unwrap();
    let path = imported.session.path().unwrap().to_owned();
    let id = imported.session.id().to_owned();
    // `tack -r <id>` finds it by id prefix from any directory.
    assert_eq!(store.resolve(Path::new("/other"), &id[..8]).unwrap(), path);
    let (session, _) = store.open(&path).unwrap();

    let h = harness(vec![text("The tests pass.")], FakeTools::new());
    h.session.replace(session);
    let outcome = h
        .agent
        .prompt_text("Run the tests", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    let request = request_transcript(&h.provider.requests()[0]);
    assert_eq!(request.len(), 11);
    assert!(
        request[0].starts_with("user: The conversation history before this point was compacted")
    );
    assert!(request[2].starts_with("user: Ran `cargo build`"));
    assert_eq!(request[10], "user: Run the tests");
    // Written to the imported file.
    let (reopened, warnings) = store.open(&path).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(reopened.project().len(), 12);
}

#[test]
fn pi_v1_and_v2_files_are_migrated_and_bad_files_refused() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(home.path());
    let dir = tempfile::tempdir().unwrap();
    let v1 = dir.path().join("v1.jsonl");
    std::fs::write(
        &v1,
        [
            r#"{"type":"session","id":"old","timestamp":"2024-12-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","timestamp":"2024-12-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}"#,
            r#"{"type":"message","timestamp":"2024-12-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"reply"}],"provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":2}}"#,
            r#"{"type":"message","timestamp":"2024-12-01T00:00:03.000Z","message":{"role":"user","content":"second","timestamp":3}}"#,
            r#"{"type":"compaction","timestamp":"2024-12-01T00:00:04.000Z","summary":"S","firstKeptEntryIndex":3,"tokensBefore":9}"#,
            r#"{"type":"message","timestamp":1733011205000,"message":{"role":"hookMessage","customType":"h","content":"hooked","display":true}}"#,
            "not json",
        ]
        .join("\n"),
    )
    .unwrap();
    let imported = import_pi(&v1, &store, Path::new("/w")).unwrap();
    assert_eq!(imported.pi_version, 1);
    assert_eq!(imported.entries, 5);
    assert_eq!(imported.warnings.len(), 1);
    assert_eq!(imported.warnings[0].line, 7);
    let projected: Vec<String> = imported
        .session
        .project()
        .iter()
        .map(|m| describe(m))
        .collect();
    assert_eq!(
        projected,
        ["compaction summary: S", "user: second", "custom h: hooked"]
    );
    let hooked = imported.session.entries()[4].message().unwrap().timestamp();
    assert_eq!(hooked, 1_733_011_205_000);

    // A tack file (also version 1, but with ids) keeps its tree.
    let mut own = store.create(Path::new("/p")).unwrap();
    let first = own
        .append_message(Message::user("mine"))
        .unwrap()
        .id
        .clone();
    own.append_message(assistant_text("ok", 0)).unwrap();
    let copy = import_pi(own.path().unwrap(), &store, Path::new("/w")).unwrap();
    assert_eq!(copy.session.entries()[0].id, first);
    assert_eq!(copy.session.project(), own.project());

    let not_pi = dir.path().join("x.jsonl");
    std::fs::write(&not_pi, "{\"type\":\"message\"}\n").unwrap();
    assert!(import_pi(&not_pi, &store, Path::new("/w")).is_err());
    let future = dir.path().join("v9.jsonl");
    std::fs::write(
        &future,
        r#"{"type":"session","version":9,"id":"x","cwd":"/p"}"#,
    )
    .unwrap();
    assert!(matches!(
        import_pi(&future, &store, Path::new("/w")),
        Err(tack_core::session::ImportError::UnsupportedVersion { version: 9, .. })
    ));
}

// ---- property: the cut never lands on a tool result -----------------------------------------

#[derive(Debug, Clone)]
enum Step2 {
    User(usize),
    Text(usize),
    /// An assistant message with this many calls, each answered by a result of the given size.
    Calls(Vec<usize>),
    /// A failed assistant message whose one call was answered with an error.
    Failed,
    CustomMessage(usize),
    State,
    Compact(u64),
}

fn step() -> impl Strategy<Value = Step2> {
    prop_oneof![
        3 => (1usize..3000).prop_map(Step2::User),
        3 => (1usize..3000).prop_map(Step2::Text),
        4 => prop::collection::vec(1usize..5000, 1..4).prop_map(Step2::Calls),
        1 => Just(Step2::Failed),
        1 => (1usize..500).prop_map(Step2::CustomMessage),
        1 => Just(Step2::State),
        1 => (1u64..3000).prop_map(Step2::Compact),
    ]
}

/// Applies the steps; `Compact` writes a compaction the way the agent does, checking the cut.
fn build(steps: &[Step2]) -> Session {
    let mut s = Session::in_memory(Path::new("/p"));
    let mut call = 0;
    for step in steps {
        match step {
            Step2::User(n) => {
                s.append_message(Message::user("u".repeat(*n))).unwrap();
            }
            Step2::Text(n) => {
                s.append_message(assistant_text(&"t".repeat(*n), 0))
                    .unwrap();
            }
            Step2::Calls(sizes) => {
                let ids: Vec<String> = sizes
                    .iter()
                    .map(|_| {
                        call += 1;
                        format!("call{call}")
                    })
                    .collect();
                let calls: Vec<(&str, &str, Value)> = ids
                    .iter()
                    .map(|id| (id.as_str(), "read", json!({"path": id})))
                    .collect();
                s.append_message(assistant_calls(&calls)).unwrap();
                for (id, size) in ids.iter().zip(sizes) {
                    s.append_message(tool_result(id, "read", &"r".repeat(*size)))
                        .unwrap();
                }
            }
            Step2::Failed => {
                call += 1;
                let id = format!("call{call}");
                let mut failed = assistant_calls(&[(id.as_str(), "read", json!({}))]);
                if let Message::Assistant(a) = &mut failed {
                    a.stop_reason = StopReason::Error;
                }
                s.append_message(failed).unwrap();
                s.append_message(tool_result(&id, "read", "not run"))
                    .unwrap();
            }
            Step2::CustomMessage(n) => {
                s.append(EntryKind::CustomMessage {
                    custom_type: "x".into(),
                    content: "c".repeat(*n),
                    display: false,
                    details: None,
                })
                .unwrap();
            }
            Step2::State => {
                s.append(EntryKind::Custom {
                    custom_type: "state".into(),
                    data: json!({}),
                    owner: None,
                })
                .unwrap();
            }
            Step2::Compact(keep) => {
                let Some(prep) = prepare_compaction(&s, *keep) else {
                    continue;
                };
                let first_kept = s.entry(&prep.first_kept_entry_id).unwrap().clone();
                assert!(
                    !matches!(
                        first_kept.message().map(|m| &**m),
                        Some(Message::ToolResult(_))
                    ),
                    "cut at a tool result"
                );
                s.append(EntryKind::Compaction {
                    summary: "summary".into(),
                    first_kept_entry_id: prep.first_kept_entry_id,
                    tokens_before: prep.tokens_before,
                    details: Some(prep.file_ops.to_details()),
                })
                .unwrap();
                check_projection(&s);
            }
        }
    }
    s
}

/// Every tool result the provider would receive follows the assistant message that made its
/// call, and the projection starts with the summary.
fn check_projection(s: &Session) {
    let projected = s.project();
    assert!(matches!(
        projected.first().map(|m| &**m),
        Some(Message::CompactionSummary(_))
    ));
    let view = llm_view(&projected);
    let mut open: Vec<String> = Vec::new();
    for message in &view {
        match &**message {
            Message::Assistant(a) => open = a.tool_calls().map(|c| c.id.clone()).collect(),
            Message::ToolResult(r) => assert!(
                open.contains(&r.tool_call_id),
                "result {} without its call in {view:?}",
                r.tool_call_id
            ),
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_cut_never_orphans_a_tool_result(
        steps in prop::collection::vec(step(), 1..60),
        keep in 1u64..4000,
    ) {
        let s = build(&steps);
        let branch = s.branch();
        let region: Vec<&Entry> = branch
            .iter()
            .copied()
            .filter(|e| !matches!(e.kind, EntryKind::Compaction { .. }))
            .collect();
        if let Some(cut) = find_cut_point(&region, keep) {
            let first = region[cut.first_kept];
            prop_assert!(!matches!(first.message().map(|m| &**m), Some(Message::ToolResult(_))));
            if let Some(start) = cut.turn_start {
                prop_assert!(start < cut.first_kept);
            }
        }
        if let Some(prep) = prepare_compaction(&s, keep) {
            let mut s = s;
            s.append(EntryKind::Compaction {
                summary: "final".into(),
                first_kept_entry_id: prep.first_kept_entry_id,
                tokens_before: prep.tokens_before,
                details: None,
            })
            .unwrap();
            check_projection(&s);
        }
    }
}
