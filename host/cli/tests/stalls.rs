//! A provider that stops answering never hangs a run (issue 40): through the real binary and the
//! OpenAI provider against a loopback server that stalls before the first byte, stalls midway,
//! sends an event nobody can decode, or never completes a connection. Each run retries and
//! finishes, or fails within its timeouts naming the one that expired, and the session file stays
//! whole JSON lines with no entry twice.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::HashSet;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tack_test_support::http::{MockServer, Reply, Unreachable};
use tack_test_support::json_mode::json_events as events;
use tack_test_support::openai::{stream, text, usage};
use tack_test_support::{stderr, stdout, tack, Env};

/// A project whose `openai` provider gives up after one second of silence at every stage.
fn new_env() -> Env {
    let env = Env::new(tack!());
    env.config(json!({
        "providers": { "openai": {
            "connect_timeout_secs": 1,
            "first_byte_timeout_secs": 1,
            "idle_timeout_secs": 1
        } }
    }));
    env
}

fn run(env: &Env, base_url: &str) -> Output {
    env.run(&[
        "--provider",
        "openai",
        "--model",
        "gpt-4.1",
        "--base-url",
        base_url,
        "--api-key",
        "sk-test",
        "--mode",
        "json",
        "say hello",
    ])
}

fn answer() -> Reply {
    stream(&[text("hello there"), usage()])
}

fn retry_messages(out: &Output) -> Vec<String> {
    events(out)
        .iter()
        .filter(|e| e["type"] == "auto_retry_start")
        .map(|e| e["errorMessage"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Every line of every session file is JSON, and no entry id comes twice.
fn assert_sessions_whole(env: &Env) {
    for file in env.session_files() {
        let mut ids = HashSet::new();
        for line in std::fs::read_to_string(&file).expect("read").lines() {
            let entry: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if let Some(id) = entry["id"].as_str() {
                if entry["type"] != "session" {
                    assert!(ids.insert(id.to_string()), "entry {id} twice in {file:?}");
                }
            }
        }
    }
}

/// The assistant messages the session kept that finished normally.
fn answers(env: &Env) -> Vec<Value> {
    env.session_lines()
        .into_iter()
        .filter(|l| l["type"] == "message" && l["message"]["role"] == "assistant")
        .filter(|l| l["message"]["stopReason"] == "stop")
        .collect()
}

#[test]
fn a_stall_before_the_first_byte_is_retried() {
    let env = new_env();
    let server = MockServer::replies(vec![Reply::silent(Duration::from_secs(20)), answer()]);
    let out = run(&env, &format!("{}/v1", server.url()));
    assert!(out.status.success(), "{}", stderr(&out));
    let retries = retry_messages(&out);
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert!(
        retries[0].contains("first-byte timeout") && retries[0].contains("first_byte_timeout_secs"),
        "{retries:?}"
    );
    assert_eq!(server.requests().len(), 2);
    assert_eq!(answers(&env).len(), 1);
    assert_sessions_whole(&env);
}

#[test]
fn a_stall_mid_stream_is_retried() {
    let env = new_env();
    // The first event, then silence.
    let first = format!("data: {}\n\n", text("hel"));
    let stalled = Reply::sse(format!("{first}data: {}\n\ndata: [DONE]\n\n", usage()))
        .stall_after(first.len(), Duration::from_secs(20));
    let server = MockServer::replies(vec![stalled, answer()]);
    let out = run(&env, &format!("{}/v1", server.url()));
    assert!(out.status.success(), "{}", stderr(&out));
    let retries = retry_messages(&out);
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert!(retries[0].contains("idle timeout"), "{retries:?}");
    assert_eq!(answers(&env).len(), 1);
    assert_sessions_whole(&env);
}

#[test]
fn a_malformed_event_is_retried_once() {
    let env = new_env();
    let broken = Reply::sse("data: {\"choices\": [ not json\n\ndata: [DONE]\n\n");
    let server = MockServer::replies(vec![broken.clone(), answer()]);
    let out = run(&env, &format!("{}/v1", server.url()));
    assert!(out.status.success(), "{}", stderr(&out));
    let retries = retry_messages(&out);
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert!(retries[0].contains("malformed"), "{retries:?}");
    assert_eq!(answers(&env).len(), 1);
    assert_sessions_whole(&env);

    // Malformed again on the retry: that is the answer, not a fluke; no third request.
    let env = new_env();
    let server = MockServer::always(broken);
    let out = run(&env, &format!("{}/v1", server.url()));
    assert!(!out.status.success());
    assert_eq!(server.requests().len(), 2, "retried once, not more");
    assert!(
        stdout(&out).contains("malformed"),
        "the error names it: {}",
        stdout(&out)
    );
    assert_sessions_whole(&env);
}

#[test]
fn a_server_that_never_accepts_fails_within_the_connect_timeout() {
    let env = new_env();
    let unreachable = Unreachable::new();
    let started = Instant::now();
    let out = run(&env, &format!("{}/v1", unreachable.url()));
    let took = started.elapsed();
    assert!(!out.status.success(), "{}", stdout(&out));
    let retries = retry_messages(&out);
    assert_eq!(retries.len(), 2, "three tries in all: {retries:?}");
    assert!(
        retries.iter().all(|m| m.contains("connect timeout")),
        "{retries:?}"
    );
    // Three one-second connects and the backoff between them, far from hanging.
    assert!(took < Duration::from_secs(60), "{took:?}");
    assert_sessions_whole(&env);
}

#[test]
fn a_session_that_took_huge_tool_arguments_still_gets_answers() {
    let env = new_env();
    let cwd = env.workspace().display().to_string();
    let huge = "x".repeat(40 << 20);
    let lines = [
        json!({"type":"session","version":3,"id":"0194517a-5c3e-7000-8000-0000000b16b1","timestamp":"2026-01-10T09:00:00.000Z","cwd":cwd}),
        json!({"type":"message","id":"b0000001","parentId":null,"timestamp":"2026-01-10T09:00:01.000Z","message":{"role":"user","content":"write two big files","timestamp":1}}),
        json!({"type":"message","id":"b0000002","parentId":"b0000001","timestamp":"2026-01-10T09:00:02.000Z","message":{"role":"assistant","content":[
            {"type":"toolCall","id":"c1","name":"write","arguments":{"path":"a.txt","content":huge}},
            {"type":"toolCall","id":"c2","name":"write","arguments":{"path":"b.txt","content":huge}}
        ],"provider":"openai","model":"gpt-4.1","usage":{"input":10,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":20,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}),
        json!({"type":"message","id":"b0000003","parentId":"b0000002","timestamp":"2026-01-10T09:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"write","content":[{"type":"text","text":"wrote a.txt"}],"isError":false,"timestamp":3}}),
        json!({"type":"message","id":"b0000004","parentId":"b0000003","timestamp":"2026-01-10T09:00:04.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"write","content":[{"type":"text","text":"wrote b.txt"}],"isError":false,"timestamp":4}}),
    ];
    drop(huge);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = env.root().join("huge.jsonl");
    std::fs::write(&file, text).expect("write the session");
    let server = MockServer::always(answer());
    let out = env.run(&[
        "--provider",
        "openai",
        "--model",
        "gpt-4.1",
        "--base-url",
        &format!("{}/v1", server.url()),
        "--api-key",
        "sk-test",
        "--session",
        file.to_str().expect("utf8"),
        "-p",
        "what did you write?",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = server.requests();
    assert!(!requests.is_empty());
    for request in &requests {
        assert!(
            request.body.len() < 2 << 20,
            "a request of {} bytes",
            request.body.len()
        );
    }
    let last = requests.last().expect("a request").body_text();
    assert!(
        last.contains("bytes left out of this request by tack"),
        "the cut is marked"
    );
    // The session keeps the arguments whole.
    let kept = std::fs::read_to_string(&file).expect("read");
    assert!(kept.len() > 80 << 20);
    assert_sessions_whole(&env);
}
