//! The agent loop driven by in-process fakes of the provider, the tools and the hooks.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

#[path = "support/fakes.rs"]
mod fakes;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fakes::*;
use serde_json::{json, Value};
use tack_core::agent::{
    AgentError, AgentStartPatch, ExecutionMode, Hooks, InjectedMessage, InputAction,
    ProviderErrorKind, RunStatus, StopKind, StreamEvent, ToolDecision, ToolError,
};
use tack_core::event::{AgentEvent, MessageDelta};
use tack_core::message::{Message, StopReason, ToolCall, ToolResult};
use tokio_util::sync::CancellationToken;

fn path_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"]
    })
}

#[tokio::test]
async fn a_text_reply_emits_the_full_event_sequence() {
    let h = harness(vec![text("Hello!")], FakeTools::new());
    let outcome = h
        .agent
        .prompt_text("hi", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(outcome.messages.len(), 2);
    assert_eq!(
        h.events.kinds(),
        [
            "agent_start",
            "turn_start",
            "message_start",
            "message_end",
            "message_start",
            "message_update",
            "message_end",
            "turn_end",
            "agent_end"
        ]
    );
    assert_eq!(h.transcript(), ["user: hi", "assistant[stop]: Hello!"]);
    let request = &h.provider.requests()[0];
    assert_eq!(request.system_prompt, "You are a test.");
    assert_eq!(request_transcript(request), ["user: hi"]);
    let update = h
        .events
        .events()
        .into_iter()
        .find_map(|e| match e {
            AgentEvent::MessageUpdate { delta, .. } => Some(delta),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        update,
        MessageDelta::TextDelta {
            content_index: 0,
            delta: "Hello!".into()
        }
    );
    let Some(Message::Assistant(a)) = h.session.lock().project().last().map(|m| (**m).clone())
    else {
        panic!("no assistant message");
    };
    assert_eq!((a.provider.as_str(), a.model.as_str()), ("fake", "fake-1"));
    assert_eq!(a.usage.input, 10);
}

#[tokio::test]
async fn parallel_results_are_stored_in_the_assistants_order() {
    let tools = FakeTools::new().with_sleep("sleep", ExecutionMode::Parallel);
    let h = harness(
        vec![
            calls(&[
                ("c1", "sleep", r#"{"ms": 300}"#),
                ("c2", "sleep", r#"{"ms": 20}"#),
                ("c3", "sleep", r#"{"ms": 150}"#),
            ]),
            text("done"),
        ],
        tools,
    );
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(h.tools.max_running(), 3, "the calls did not overlap");
    assert_eq!(h.events.tool_end_order(), ["c2", "c3", "c1"]);
    assert_eq!(
        h.transcript(),
        [
            "user: go",
            "assistant[toolUse]:  calls c1,c2,c3",
            "result c1: slept 300",
            "result c2: slept 20",
            "result c3: slept 150",
            "assistant[stop]: done"
        ]
    );
    let second = &h.provider.requests()[1];
    assert_eq!(request_transcript(second)[2..5], h.transcript()[2..5]);
    h.assert_consistent();

    let turn_end = h
        .events
        .events()
        .into_iter()
        .find_map(|e| match e {
            AgentEvent::TurnEnd { tool_results, .. } => Some(tool_results),
            _ => None,
        })
        .unwrap();
    assert_eq!(turn_end.len(), 3);

    // Each turn is numbered from 0 in its run, its end as its start.
    let turns: Vec<(&str, u32)> = h
        .events
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::TurnStart { turn_index, .. } => Some(("start", turn_index)),
            AgentEvent::TurnEnd { turn_index, .. } => Some(("end", turn_index)),
            _ => None,
        })
        .collect();
    assert_eq!(turns, [("start", 0), ("end", 0), ("start", 1), ("end", 1)]);
}

#[tokio::test]
async fn one_sequential_tool_makes_the_batch_run_in_order() {
    let tools = FakeTools::new()
        .with_sleep("par", ExecutionMode::Parallel)
        .with_sleep("seq", ExecutionMode::Sequential);
    let h = harness(
        vec![
            calls(&[
                ("c1", "par", r#"{"ms": 80}"#),
                ("c2", "seq", r#"{"ms": 10}"#),
                ("c3", "par", r#"{"ms": 10}"#),
            ]),
            text("done"),
        ],
        tools,
    );
    h.agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(h.tools.max_running(), 1);
    assert_eq!(
        h.tools.log(),
        ["start c1", "end c1", "start c2", "end c2", "start c3", "end c3"]
    );
    assert_eq!(h.events.tool_end_order(), ["c1", "c2", "c3"]);
    h.assert_consistent();
}

#[tokio::test]
async fn tool_calls_of_a_length_stopped_reply_are_failed_not_run() {
    let tools = FakeTools::new().with_sleep("sleep", ExecutionMode::Parallel);
    let h = harness(
        vec![
            calls_ending(&[("c1", "sleep", r#"{"ms": 1}"#)], StopKind::Length),
            text("retried smaller"),
        ],
        tools,
    );
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    assert!(h.tools.executed().is_empty());
    let transcript = h.transcript();
    assert_eq!(transcript[1], "assistant[length]:  calls c1");
    assert!(transcript[2].starts_with("result c1 (error): This tool call was not run"));
    assert!(transcript[2].contains("output token limit"));
    assert_eq!(transcript[3], "assistant[stop]: retried smaller");
    h.assert_consistent();
}

#[tokio::test]
async fn steering_goes_before_the_next_call_and_follow_ups_wait_for_idle() {
    let queues_slot: Arc<Mutex<Option<tack_core::agent::MessageQueues>>> = Arc::default();
    let slot = queues_slot.clone();
    let tools = FakeTools::new().with(
        "work",
        ExecutionMode::Parallel,
        json!({"type": "object"}),
        move |_call, _cancel, _progress| {
            let queues = slot.lock().unwrap().clone();
            async move {
                if let Some(queues) = queues {
                    queues.follow_up(Message::user("later"));
                    queues.steer(Message::user("steer"));
                }
                Ok(ToolResult::text("worked"))
            }
        },
    );
    let h = harness(
        vec![
            calls(&[("c1", "work", "{}")]),
            text("steered"),
            text("followed up"),
        ],
        tools,
    );
    *queues_slot.lock().unwrap() = Some(h.agent.queues());
    let outcome = h
        .agent
        .prompt_text("start", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);

    let requests = h.provider.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        request_transcript(&requests[1]),
        [
            "user: start",
            "assistant[toolUse]:  calls c1",
            "result c1: worked",
            "user: steer"
        ]
    );
    assert_eq!(
        request_transcript(&requests[2]).last().map(String::as_str),
        Some("user: later")
    );
    assert_eq!(
        request_transcript(&requests[2])[..5],
        [
            "user: start",
            "assistant[toolUse]:  calls c1",
            "result c1: worked",
            "user: steer",
            "assistant[stop]: steered"
        ]
    );
    let queue_updates: Vec<(Vec<String>, Vec<String>)> = h
        .events
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::QueueUpdate {
                steering,
                follow_up,
            } => Some((steering, follow_up)),
            _ => None,
        })
        .collect();
    assert_eq!(
        queue_updates.first(),
        Some(&(vec![], vec!["later".to_owned()]))
    );
    assert_eq!(queue_updates.last(), Some(&(vec![], vec![])));
    assert!(h.agent.queues().is_empty());
}

#[tokio::test]
async fn steering_queued_while_idle_starts_a_run() {
    let h = harness(vec![text("ok")], FakeTools::new());
    h.agent.queues().steer(Message::user("queued"));
    let outcome = h.agent.resume(CancellationToken::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(h.transcript(), ["user: queued", "assistant[stop]: ok"]);
    // Nothing left to answer: continuing is refused.
    assert!(matches!(
        h.agent.resume(CancellationToken::new()).await,
        Err(AgentError::NothingToContinue)
    ));
}

#[tokio::test]
async fn abort_mid_stream_keeps_the_session_consistent() {
    let h = harness(
        vec![Script::Stream(vec![
            Step::Event(StreamEvent::TextDelta {
                index: 0,
                delta: "partial".into(),
            }),
            Step::Event(StreamEvent::ToolCallStart {
                index: 1,
                id: "c1".into(),
                name: "sleep".into(),
            }),
            Step::Event(StreamEvent::ToolCallDelta {
                index: 1,
                delta: "{\"ms\": ".into(),
            }),
            Step::Hang,
        ])],
        FakeTools::new().with_sleep("sleep", ExecutionMode::Parallel),
    );
    let cancel = CancellationToken::new();
    let agent = h.agent.clone();
    let run = tokio::spawn({
        let cancel = cancel.clone();
        async move { agent.prompt_text("go", cancel).await }
    });
    h.events
        .wait_for(|e| {
            matches!(
                e,
                AgentEvent::MessageUpdate {
                    delta: MessageDelta::ToolCallDelta { .. },
                    ..
                }
            )
        })
        .await;
    assert!(h.agent.is_running());
    cancel.cancel();
    let outcome = run.await.unwrap().unwrap();
    assert_eq!(outcome.status, RunStatus::Aborted);
    assert!(h.tools.executed().is_empty());
    let transcript = h.transcript();
    assert_eq!(transcript[1], "assistant[aborted]: partial calls c1");
    assert!(transcript[2].starts_with("result c1 (error): This tool call was not run"));
    h.assert_consistent();
    assert_eq!(
        h.events.kinds().last().map(String::as_str),
        Some("agent_end")
    );
    assert!(!h.agent.is_running());
}

#[tokio::test]
async fn abort_mid_tool_cancels_running_calls_and_skips_unstarted_ones() {
    let stubborn_started = Arc::new(tokio::sync::Notify::new());
    let started = stubborn_started.clone();
    let tools = FakeTools::new()
        .with_sleep("sleep", ExecutionMode::Parallel)
        .with(
            "stubborn",
            ExecutionMode::Parallel,
            json!({"type": "object"}),
            move |_call, _cancel, _progress| {
                let started = started.clone();
                async move {
                    started.notify_one();
                    // Ignores cancellation.
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    Ok(ToolResult::text("never"))
                }
            },
        );
    let h = harness(
        vec![calls(&[
            ("c1", "sleep", r#"{"ms": 60000}"#),
            ("c2", "stubborn", "{}"),
        ])],
        tools,
    );
    let cancel = CancellationToken::new();
    let agent = h.agent.clone();
    let run = tokio::spawn({
        let cancel = cancel.clone();
        async move { agent.prompt_text("go", cancel).await }
    });
    stubborn_started.notified().await;
    cancel.cancel();
    let outcome = tokio::time::timeout(Duration::from_secs(5), run)
        .await
        .expect("abort did not end the run")
        .unwrap()
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Aborted);
    let transcript = h.transcript();
    assert_eq!(transcript[1], "assistant[toolUse]:  calls c1,c2");
    assert_eq!(
        transcript[2],
        "result c1 (error): Tool `sleep` failed: the tool was cancelled"
    );
    assert!(
        transcript[3].contains("did not stop within 100 ms"),
        "{}",
        transcript[3]
    );
    h.assert_consistent();
}

#[tokio::test]
async fn abort_in_a_sequential_batch_fails_the_calls_not_yet_started() {
    let first_started = Arc::new(tokio::sync::Notify::new());
    let started = first_started.clone();
    let tools = FakeTools::new()
        .with_sleep("sleep", ExecutionMode::Sequential)
        .with(
            "wait",
            ExecutionMode::Parallel,
            json!({"type": "object"}),
            move |_call, cancel, _progress| {
                let started = started.clone();
                async move {
                    started.notify_one();
                    cancel.cancelled().await;
                    Ok(ToolResult::error("stopped early"))
                }
            },
        );
    let h = harness(
        vec![calls(&[
            ("c1", "wait", "{}"),
            ("c2", "sleep", r#"{"ms": 1}"#),
        ])],
        tools,
    );
    let cancel = CancellationToken::new();
    let agent = h.agent.clone();
    let run = tokio::spawn({
        let cancel = cancel.clone();
        async move { agent.prompt_text("go", cancel).await }
    });
    first_started.notified().await;
    cancel.cancel();
    let outcome = run.await.unwrap().unwrap();
    assert_eq!(outcome.status, RunStatus::Aborted);
    assert_eq!(h.tools.executed(), ["c1"]);
    let transcript = h.transcript();
    assert_eq!(transcript[2], "result c1 (error): stopped early");
    assert_eq!(
        transcript[3],
        "result c2 (error): Tool call aborted by the user before it started."
    );
    h.assert_consistent();
}

struct Gatekeeper {
    before_calls: AtomicUsize,
}

#[async_trait::async_trait]
impl Hooks for Gatekeeper {
    async fn before_tool_call(&self, call: &ToolCall) -> ToolDecision {
        self.before_calls.fetch_add(1, Ordering::SeqCst);
        match call.arguments["path"].as_str() {
            Some("secret") => ToolDecision::Block("secrets are off limits".into()),
            Some("rewrite-bad") => ToolDecision::Rewrite {
                arguments: json!({"path": 42}),
                by: vec!["fake".into()],
            },
            Some("rewrite-good") => ToolDecision::Rewrite {
                arguments: json!({"path": "rewritten"}),
                by: vec!["fake".into()],
            },
            _ => ToolDecision::Allow,
        }
    }
}

#[tokio::test]
async fn invalid_blocked_and_unknown_calls_become_error_results() {
    let tools = FakeTools::new().with(
        "read",
        ExecutionMode::Parallel,
        path_schema(),
        |call, _cancel, _progress| async move {
            Ok(ToolResult::text(format!(
                "read {}",
                call.arguments["path"].as_str().unwrap_or("?")
            )))
        },
    );
    let hooks = Arc::new(Gatekeeper {
        before_calls: AtomicUsize::new(0),
    });
    let h = harness_with(
        vec![
            calls(&[
                ("c1", "read", r#"{"path": 5}"#),
                ("c2", "read", r#"{}"#),
                ("c3", "read", r#"{"path": "secret"}"#),
                ("c4", "read", r#"{"path": "rewrite-bad"}"#),
                ("c5", "read", r#"{"path": "rewrite-good"}"#),
                ("c6", "nope", r#"{}"#),
                ("c7", "read", r#"{"path": "#),
                ("c8", "read", r#"{"path": "ok"}"#),
            ]),
            text("done"),
        ],
        tools,
        |agent| agent.with_hooks(hooks.clone()),
    );
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    let t = h.transcript();
    assert!(
        t[2].starts_with("result c1 (error): Invalid arguments for tool `read`:"),
        "{}",
        t[2]
    );
    assert!(t[2].contains("at /path:"), "{}", t[2]);
    assert!(t[3].contains("\"path\" is a required property"), "{}", t[3]);
    assert_eq!(
        t[4],
        "result c3 (error): Tool call blocked: secrets are off limits"
    );
    assert!(
        t[5].contains("rewrote the arguments") && t[5].contains("/path"),
        "{}",
        t[5]
    );
    assert_eq!(t[6], "result c5: read rewritten");
    assert_eq!(
        t[7],
        "result c6 (error): Tool `nope` does not exist. Available tools: read."
    );
    assert!(t[8].contains("not valid JSON"), "{}", t[8]);
    assert_eq!(t[9], "result c8: read ok");
    assert_eq!(h.tools.executed(), ["c5", "c8"]);
    // Invalid, unknown and garbled calls never reach the hook.
    assert_eq!(hooks.before_calls.load(Ordering::SeqCst), 4);
    h.assert_consistent();
}

#[tokio::test]
async fn failing_and_panicking_tools_become_error_results() {
    let tools = FakeTools::new()
        .with(
            "trap",
            ExecutionMode::Parallel,
            json!({"type": "object"}),
            |_call, _cancel, _progress| async move {
                Err(ToolError::Crashed("wasm trap: unreachable".into()))
            },
        )
        .with(
            "panic",
            ExecutionMode::Parallel,
            json!({"type": "object"}),
            |_call, _cancel, _progress| async move {
                if true {
                    panic!("tool bug");
                }
                Ok(ToolResult::text("unreachable"))
            },
        )
        .with(
            "soft",
            ExecutionMode::Parallel,
            json!({"type": "object"}),
            |_call, _cancel, progress| async move {
                progress.update(ToolResult::text("halfway"));
                Ok(ToolResult::error("file not found"))
            },
        );
    let h = harness(
        vec![
            calls(&[
                ("c1", "trap", "{}"),
                ("c2", "panic", "{}"),
                ("c3", "soft", "{}"),
            ]),
            text("recovered"),
        ],
        tools,
    );
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    let t = h.transcript();
    assert_eq!(
        t[2],
        "result c1 (error): Tool `trap` failed: the tool crashed: wasm trap: unreachable"
    );
    assert!(
        t[3].starts_with("result c2 (error): Tool `panic` crashed:"),
        "{}",
        t[3]
    );
    assert_eq!(t[4], "result c3 (error): file not found");
    assert_eq!(t[5], "assistant[stop]: recovered");
    assert!(h.events.events().iter().any(|e| matches!(
        e,
        AgentEvent::ToolExecutionUpdate { tool_call_id, partial, .. }
            if tool_call_id == "c3" && partial.text_content() == "halfway"
    )));
    h.assert_consistent();
}

#[tokio::test]
async fn retryable_errors_are_retried_then_succeed() {
    let h = harness(
        vec![
            Script::Fail(error(ProviderErrorKind::Overloaded, "busy")),
            Script::Stream(vec![
                Step::Event(StreamEvent::TextDelta {
                    index: 0,
                    delta: "half".into(),
                }),
                Step::Event(StreamEvent::Error(error(
                    ProviderErrorKind::Network,
                    "reset",
                ))),
            ]),
            text("finally"),
        ],
        FakeTools::new(),
    );
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.status, RunStatus::Completed);
    let retries: Vec<AgentEvent> = h
        .events
        .events()
        .into_iter()
        .filter(|e| {
            matches!(
                e,
                AgentEvent::AutoRetryStart { .. } | AgentEvent::AutoRetryEnd { .. }
            )
        })
        .collect();
    assert_eq!(retries.len(), 3, "{retries:?}");
    assert!(
        matches!(&retries[0], AgentEvent::AutoRetryStart { attempt: 1, max_attempts: 3, delay_ms: 1, error_message } if error_message == "provider overloaded: busy")
    );
    assert!(matches!(
        &retries[1],
        AgentEvent::AutoRetryStart {
            attempt: 2,
            delay_ms: 2,
            ..
        }
    ));
    assert!(matches!(
        &retries[2],
        AgentEvent::AutoRetryEnd {
            success: true,
            attempt: 3,
            final_error: None
        }
    ));
    // The attempt that streamed is kept in the session, but never sent to the model again.
    assert_eq!(
        h.transcript(),
        [
            "user: go",
            "assistant[error]: half",
            "assistant[stop]: finally"
        ]
    );
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(request_transcript(&requests[2]), ["user: go"]);
}

#[tokio::test]
async fn retries_are_bounded_and_honour_retry_after() {
    let mut limited = error(ProviderErrorKind::RateLimited, "slow down");
    limited.retry_after_ms = Some(30);
    let h = harness(
        vec![
            Script::Fail(limited),
            Script::Fail(error(ProviderErrorKind::Server, "500")),
            Script::Fail(error(ProviderErrorKind::Server, "502")),
            text("never reached"),
        ],
        FakeTools::new(),
    );
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        outcome.status,
        RunStatus::Failed("provider server error: 502".into())
    );
    assert_eq!(h.provider.remaining(), 1);
    let events = h.events.events();
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::AutoRetryStart {
            attempt: 1,
            delay_ms: 30,
            ..
        }
    )));
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::AutoRetryEnd { success: false, attempt: 3, final_error: Some(m) } if m == "provider server error: 502"
    )));
    assert_eq!(h.transcript(), ["user: go", "assistant[error]: "]);
}

#[tokio::test]
async fn other_errors_end_the_run_with_an_error_message() {
    let h = harness(
        vec![Script::Fail(error(ProviderErrorKind::Auth, "bad key"))],
        FakeTools::new(),
    );
    let outcome = h
        .agent
        .prompt_text("go", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        outcome.status,
        RunStatus::Failed("authentication failed: bad key".into())
    );
    assert_eq!(h.provider.requests().len(), 1);
    let last = h.session.lock().project().last().cloned().unwrap();
    let Message::Assistant(a) = &*last else {
        panic!("not an assistant message")
    };
    assert_eq!(a.stop_reason, StopReason::Error);
    assert_eq!(
        a.error_message.as_deref(),
        Some("authentication failed: bad key")
    );
    // The user can continue after fixing the key.
    assert!(h.agent.resume(CancellationToken::new()).await.is_ok());
}

#[tokio::test]
async fn context_overflow_is_a_distinct_error() {
    let h = harness(
        vec![Script::Fail(error(
            ProviderErrorKind::ContextOverflow,
            "too long",
        ))],
        FakeTools::new(),
    );
    let result = h.agent.prompt_text("go", CancellationToken::new()).await;
    match result {
        Err(AgentError::ContextOverflow(e)) => assert_eq!(e.message, "too long"),
        other => panic!("expected an overflow, got {other:?}"),
    }
    assert_eq!(
        h.events.kinds().last().map(String::as_str),
        Some("agent_end")
    );
    assert_eq!(h.provider.requests().len(), 1);
}

#[tokio::test]
async fn a_second_run_while_running_is_refused() {
    let h = harness(vec![Script::Stream(vec![Step::Hang])], FakeTools::new());
    let cancel = CancellationToken::new();
    let agent = h.agent.clone();
    let run = tokio::spawn({
        let cancel = cancel.clone();
        async move { agent.prompt_text("go", cancel).await }
    });
    h.events
        .wait_for(|e| matches!(e, AgentEvent::MessageStart { message } if matches!(**message, Message::Assistant(_))))
        .await;
    assert!(matches!(
        h.agent.prompt_text("again", CancellationToken::new()).await,
        Err(AgentError::Busy)
    ));
    cancel.cancel();
    assert_eq!(run.await.unwrap().unwrap().status, RunStatus::Aborted);
    assert_eq!(h.transcript(), ["user: go", "assistant[aborted]: "]);
}

#[derive(Default)]
struct Plugins {
    observed: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl Hooks for Plugins {
    async fn input(&self, text: &str) -> InputAction {
        match text {
            "/handled" => InputAction::Handled,
            other => InputAction::Transform(format!("{other} (expanded)")),
        }
    }

    async fn before_agent_start(&self, prompt: &str, system_prompt: &str) -> AgentStartPatch {
        AgentStartPatch {
            system_prompt: Some(format!("{system_prompt} Patched.")),
            append_system_prompt: Some("Appended.".into()),
            inject: vec![InjectedMessage {
                plugin: "fake".into(),
                custom_type: "plan-mode".into(),
                text: format!("plan for: {prompt}"),
                display: false,
            }],
        }
    }

    async fn context(&self, messages: &[Arc<Message>]) -> Option<Vec<Arc<Message>>> {
        let mut messages = messages.to_vec();
        messages.push(Arc::new(Message::user("from the context hook")));
        Some(messages)
    }

    async fn after_tool_call(&self, call: &ToolCall, result: &ToolResult) -> Option<ToolResult> {
        (call.name == "echo")
            .then(|| ToolResult::text(format!("{} (checked)", result.text_content())))
    }

    async fn on_event(&self, event: &AgentEvent) {
        let kind = serde_json::to_value(event).unwrap()["type"]
            .as_str()
            .unwrap()
            .to_owned();
        self.observed.lock().unwrap().push(kind);
    }
}

#[tokio::test]
async fn hooks_shape_input_prompt_context_and_results() {
    let plugins = Arc::new(Plugins::default());
    let tools = FakeTools::new().with(
        "echo",
        ExecutionMode::Parallel,
        json!({"type": "object"}),
        |_call, _cancel, _progress| async move { Ok(ToolResult::text("echoed")) },
    );
    let h = harness_with(
        vec![calls(&[("c1", "echo", "{}")]), text("done")],
        tools,
        |agent| agent.with_hooks(plugins.clone()),
    );
    let handled = h
        .agent
        .prompt_text("/handled", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(handled.status, RunStatus::Handled);
    assert!(h.provider.requests().is_empty());

    h.agent
        .prompt_text("task", CancellationToken::new())
        .await
        .unwrap();
    let requests = h.provider.requests();
    assert_eq!(
        requests[0].system_prompt,
        "You are a test. Patched.\n\nAppended."
    );
    assert_eq!(
        request_transcript(&requests[0]),
        [
            "user: task (expanded)",
            "user: plan for: task (expanded)",
            "user: from the context hook"
        ]
    );
    // The context hook's change is not stored.
    assert_eq!(
        h.transcript(),
        [
            "user: task (expanded)",
            "custom plan-mode: plan for: task (expanded)",
            "assistant[toolUse]:  calls c1",
            "result c1: echoed (checked)",
            "assistant[stop]: done"
        ]
    );
    let observed = plugins.observed.lock().unwrap().clone();
    assert_eq!(observed.first().map(String::as_str), Some("agent_start"));
    assert_eq!(observed.last().map(String::as_str), Some("agent_end"));
    assert!(observed.contains(&"tool_execution_end".to_owned()));
    assert!(!observed.contains(&"message_update".to_owned()));
}

#[tokio::test]
async fn runs_continue_a_persisted_session() {
    let dir = tempfile::tempdir().unwrap();
    let store = tack_core::session::SessionStore::new(dir.path());
    let session = store.create(std::path::Path::new("/work")).unwrap();
    let path = session.path().unwrap().to_owned();
    let h = harness_with(vec![text("one"), text("two")], FakeTools::new(), |agent| {
        agent.session().replace(session);
        agent
    });
    h.agent
        .prompt_text("first", CancellationToken::new())
        .await
        .unwrap();
    h.agent
        .prompt_text("second", CancellationToken::new())
        .await
        .unwrap();
    let (reloaded, warnings) = store.open(&path).unwrap();
    assert!(warnings.is_empty());
    let texts: Vec<String> = reloaded.project().iter().map(|m| describe(m)).collect();
    assert_eq!(
        texts,
        [
            "user: first",
            "assistant[stop]: one",
            "user: second",
            "assistant[stop]: two"
        ]
    );
    assert_eq!(
        request_transcript(&h.provider.requests()[1])[..2],
        texts[..2]
    );
}

#[tokio::test]
async fn a_run_aborted_before_it_starts_still_stores_the_prompt() {
    let h = harness(vec![text("unused")], FakeTools::new());
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = h.agent.prompt_text("hello", cancel).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Aborted);
    assert_eq!(h.transcript(), ["user: hello", "assistant[aborted]: "]);
    assert!(h.provider.requests().is_empty());
}
