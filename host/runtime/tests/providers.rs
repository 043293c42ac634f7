//! The built-in provider plugins (Anthropic, OpenAI Chat Completions, OpenAI Responses, Gemini)
//! as real components behind `PluginProvider`, against a local HTTP server written here. The
//! server records what arrives (path, key header, body) and answers with transcripts written
//! from each API's documentation (`fixtures/sse/<provider>/`), streamed in small uneven pieces
//! so that events, lines and UTF-8 characters arrive split. The unified events each transcript
//! decodes to are snapshotted (`snapshots/`).
//!
//! Scenarios per provider: text, thinking, parallel tool calls with arguments split across many
//! deltas, an error in the middle of the stream, a stream cut before its terminator, a 429 with
//! a retry hint, and a context-overflow error.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_core::agent::{
    ExecutionMode, InputKind, ModelCost, ModelInfo, Provider, ProviderError, ProviderErrorKind,
    ProviderRequest, ReasoningLevel, StreamEvent, ToolSpec,
};
use tack_core::message::Message;
use tack_runtime::bridge::PluginProvider;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{
    Capabilities, HostContext, HostServices, LoadedPlugin, Manifest, PluginSource, PluginSpec,
    Runtime,
};
use tack_test_support::http_tokio::{read_request, Recorded};
use tack_test_support::runtime::cached_runtime;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

const API_KEY: &str = "sk-test-4f1c9a";

/// One provider plugin and what its requests must look like.
struct Case {
    /// Provider id, and the fixture folder.
    id: &'static str,
    /// Name of the built-in plugin.
    plugin: &'static str,
    wasm: &'static str,
    secret: &'static str,
    model: &'static str,
    /// Path appended to the server's address to form the configured base URL.
    base_path: &'static str,
    /// Request path and query the plugin asks for, relative to the base URL.
    path: &'static str,
    /// Header carrying the key, and its expected value.
    auth: (&'static str, &'static str),
    /// Headers of the 429 response, and the retry hint they (or the body) give.
    rate_limit_headers: &'static [(&'static str, &'static str)],
    retry_after_ms: u64,
}

const ANTHROPIC: Case = Case {
    id: "anthropic",
    plugin: "provider-anthropic",
    wasm: artifacts::PROVIDER_ANTHROPIC,
    secret: "ANTHROPIC_API_KEY",
    model: "claude-sonnet-4-5",
    base_path: "",
    path: "/v1/messages",
    auth: ("x-api-key", API_KEY),
    rate_limit_headers: &[("retry-after", "7")],
    retry_after_ms: 7000,
};

const OPENAI: Case = Case {
    id: "openai",
    plugin: "provider-openai",
    wasm: artifacts::PROVIDER_OPENAI,
    secret: "OPENAI_API_KEY",
    model: "gpt-4.1",
    // A proxy mounted below a path prefix, as compatible servers often are.
    base_path: "/proxy/v1",
    path: "/chat/completions",
    auth: ("authorization", "Bearer sk-test-4f1c9a"),
    rate_limit_headers: &[("retry-after-ms", "1500")],
    retry_after_ms: 1500,
};

const OPENAI_RESPONSES: Case = Case {
    id: "openai-responses",
    plugin: "provider-openai-responses",
    wasm: artifacts::PROVIDER_OPENAI_RESPONSES,
    secret: "OPENAI_API_KEY",
    model: "o4-mini",
    base_path: "/v1",
    path: "/responses",
    auth: ("authorization", "Bearer sk-test-4f1c9a"),
    rate_limit_headers: &[("retry-after", "3")],
    retry_after_ms: 3000,
};

const GOOGLE: Case = Case {
    id: "google",
    plugin: "provider-google",
    wasm: artifacts::PROVIDER_GOOGLE,
    secret: "GEMINI_API_KEY",
    model: "gemini-2.5-flash",
    base_path: "",
    path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    auth: ("x-goog-api-key", API_KEY),
    // Gemini's hint is in the body (RetryInfo), not in a header.
    rate_limit_headers: &[],
    retry_after_ms: 26_000,
};

const STREAMED: &[&str] = &["text", "thinking", "tools", "error", "cut"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic() {
    exercise(&ANTHROPIC).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai() {
    exercise(&OPENAI).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_responses() {
    exercise(&OPENAI_RESPONSES).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn google() {
    exercise(&GOOGLE).await;
}

/// Every scenario of one provider, then what the server received.
async fn exercise(case: &Case) {
    let env = Env::new().await;
    let server = Server::start().await;
    let provider = env
        .provider(case, Some(format!("{}{}", server.url, case.base_path)))
        .await;

    for scenario in STREAMED {
        server.reply(Reply::Stream(fixture(case.id, &format!("{scenario}.sse"))));
        let outcome = run(&provider, case).await;
        insta::assert_snapshot!(format!("{}__{scenario}", case.id), render(&outcome));
    }

    server.reply(Reply::Status {
        status: 429,
        headers: case.rate_limit_headers,
        body: fixture(case.id, "rate_limited.json"),
    });
    let limited = run(&provider, case).await;
    insta::assert_snapshot!(format!("{}__rate_limited", case.id), render(&limited));
    let limited = limited.expect_err("a 429 starts no stream");
    assert_eq!(limited.kind, ProviderErrorKind::RateLimited);
    assert_eq!(limited.retry_after_ms, Some(case.retry_after_ms));

    server.reply(Reply::Status {
        status: 400,
        headers: &[],
        body: fixture(case.id, "overflow.json"),
    });
    let overflow = run(&provider, case).await;
    insta::assert_snapshot!(format!("{}__overflow", case.id), render(&overflow));
    let overflow = overflow.expect_err("an overflow starts no stream");
    assert_eq!(overflow.kind, ProviderErrorKind::ContextOverflow);

    let requests = server.requests();
    assert_eq!(
        requests.len(),
        STREAMED.len() + 2,
        "one request per scenario"
    );
    for request in &requests {
        assert_eq!(request.method, "POST");
        assert_eq!(request.target, format!("{}{}", case.base_path, case.path));
        assert_eq!(
            request.header(case.auth.0),
            Some(case.auth.1),
            "the host attached the key"
        );
        assert_eq!(request.header("content-type"), Some("application/json"));
        // The body is the guest's work: the key cannot be in it, the guest never saw it.
        let body = String::from_utf8_lossy(&request.body);
        assert!(!body.contains(API_KEY), "{body}");
        let body: Value = serde_json::from_str(&body).expect("a JSON body");
        if case.id != "google" {
            assert_eq!(body["model"], case.model, "{body}");
            assert_eq!(body["stream"], true, "{body}");
        }
        let text = body.to_string();
        assert!(text.contains("Read src/main.rs and Cargo.toml"), "{text}");
        assert!(text.contains("Reads a file"), "the tool is offered: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_serving_a_whole_session_sends_the_bytes_of_a_fresh_one() {
    for case in [&ANTHROPIC, &OPENAI, &OPENAI_RESPONSES, &GOOGLE] {
        // Whole conversations every turn, then only what the instance does not hold.
        same_bytes_as_fresh(case, false).await;
        same_bytes_as_fresh(case, true).await;
    }
}

/// The exact request each provider sends for representative requests (method, target, the
/// headers the guest chose, body bytes), so that a change to how a plugin is put together
/// cannot change what goes on the wire unnoticed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wire_requests() {
    let env = Env::new().await;
    let server = Server::start().await;
    for case in [&ANTHROPIC, &OPENAI, &OPENAI_RESPONSES, &GOOGLE] {
        let provider = env
            .provider(case, Some(format!("{}{}", server.url, case.base_path)))
            .await;
        for (scenario, request) in wire_scenarios(case) {
            server.reply(Reply::Stream(fixture(case.id, "text.sse")));
            let outcome = match provider.stream(request).await {
                Ok(stream) => {
                    stream.collect::<Vec<_>>().await;
                    None
                }
                Err(error) => Some(format!("refused: {}", self::error(&error))),
            };
            let requests = server.requests();
            let rendered = match (outcome, requests.as_slice()) {
                (None, [recorded]) => wire(case, recorded),
                (refused, recorded) => format!("{refused:?}, {} requests", recorded.len()),
            };
            insta::assert_snapshot!(format!("wire__{}__{scenario}", case.id), rendered);
            // A refused request leaves its reply queued; the next scenario must not get it.
            server.replies.lock().expect("replies").clear();
        }
    }
}

/// The requests `wire_requests` sends to each provider.
fn wire_scenarios(case: &Case) -> Vec<(&'static str, ProviderRequest)> {
    let plain = {
        let mut request = request(case);
        request.tools.clear();
        request.system_prompt.clear();
        request.max_tokens = None;
        request.reasoning = ReasoningLevel::Off;
        request
    };
    let tools = request(case);
    let thinking = {
        let mut request = request(case);
        request.reasoning = ReasoningLevel::High;
        let mut messages = request.messages.to_vec();
        messages.push(session_message(json!({
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Both files, in parallel.", "signature": wire_signature(case)},
                {"type": "text", "text": "Reading both."},
                {"type": "toolCall", "id": "call_a", "name": "read", "arguments": {"path": "src/main.rs"}},
                {"type": "toolCall", "id": "call_b", "name": "read", "arguments": {"path": "Cargo.toml", "limit": 40}},
            ],
            "api": "test", "provider": case.id, "model": case.model,
            "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110},
            "stopReason": "toolUse",
            "timestamp": 1_733_011_200_100_i64,
        })));
        for (id, text) in [("call_a", "fn main() {}\n"), ("call_b", "[package]\n")] {
            messages.push(session_message(json!({
                "role": "toolResult", "toolCallId": id, "toolName": "read",
                "content": [{"type": "text", "text": text}],
                "isError": false,
                "timestamp": 1_733_011_200_200_i64,
            })));
        }
        messages.push(session_message(json!({
            "role": "user",
            "content": [{"type": "text", "text": "Now explain them."}],
            "timestamp": 1_733_011_200_300_i64,
        })));
        request.messages = Arc::new(messages);
        request
    };
    let images = {
        let mut request = request(case);
        request.reasoning = ReasoningLevel::Off;
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        request.messages = Arc::new(vec![
            session_message(json!({
                "role": "user",
                "content": [
                    {"type": "text", "text": "Read src/main.rs and Cargo.toml, and look at this."},
                    {"type": "image", "data": png, "mimeType": "image/png"},
                ],
                "timestamp": 1_733_011_200_000_i64,
            })),
            session_message(json!({
                "role": "assistant",
                "content": [
                    {"type": "toolCall", "id": "call_shot", "name": "read", "arguments": {"path": "shot.png"}},
                ],
                "api": "test", "provider": case.id, "model": case.model,
                "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110},
                "stopReason": "toolUse",
                "timestamp": 1_733_011_200_100_i64,
            })),
            session_message(json!({
                "role": "toolResult", "toolCallId": "call_shot", "toolName": "read",
                "content": [
                    {"type": "text", "text": "Read image file [image/png]"},
                    {"type": "image", "data": png, "mimeType": "image/png"},
                ],
                "isError": false,
                "timestamp": 1_733_011_200_200_i64,
            })),
        ]);
        request
    };
    let mut scenarios = vec![
        ("plain", plain),
        ("tools", tools),
        ("thinking", thinking),
        ("images", images),
    ];
    let options = match case.id {
        "openai" => Some(json!({
            "max_tokens_field": "max_tokens",
            "supports_usage_in_stream": false,
            "supports_developer_role": true,
            "supports_reasoning_effort": true,
        })),
        "openai-responses" => Some(json!({ "supports_reasoning_effort": false })),
        _ => None,
    };
    if let Some(options) = options {
        let mut request = request(case);
        request.options = options;
        scenarios.push(("options", request));
    }
    scenarios
}

/// A signature each API would accept back on its thinking.
fn wire_signature(case: &Case) -> String {
    match case.id {
        // The Responses API's signature is the whole encrypted reasoning item.
        "openai-responses" => json!({
            "type": "reasoning", "id": "rs_1", "summary": [],
            "encrypted_content": "gAAAAB-encrypted"
        })
        .to_string(),
        _ => "c2lnbmF0dXJl".to_string(),
    }
}

/// A recorded request as the snapshot holds it: the headers the transport or the host adds
/// (host, length, the key) are left out, the body is the exact bytes.
fn wire(case: &Case, recorded: &Recorded) -> String {
    let mut out = format!("{} {}\n", recorded.method, recorded.target);
    for (name, value) in &recorded.headers {
        if !matches!(name.as_str(), "host" | "content-length") && name != case.auth.0 {
            out.push_str(&format!("{name}: {value}\n"));
        }
    }
    out.push('\n');
    out.push_str(&String::from_utf8_lossy(&recorded.body));
    out
}

/// One message of a scripted session, as the session file holds it.
fn session_message(value: Value) -> Arc<Message> {
    Arc::new(serde_json::from_value(value).expect("a message"))
}

/// Turn `turn` of a scripted session: an assistant's tool call and its result (every third
/// turn the user says something first).
fn session_turn(case: &Case, turn: usize) -> Vec<Arc<Message>> {
    let mut turn_messages = Vec::new();
    if turn.is_multiple_of(3) {
        turn_messages.push(session_message(json!({
            "role": "user",
            "content": [{"type": "text", "text": format!("Turn {turn}: go on \"carefully\" é")}],
            "timestamp": 1_733_011_200_000_i64 + turn as i64,
        })));
    }
    let id = format!("call_{turn}");
    turn_messages.push(session_message(json!({
        "role": "assistant",
        "content": [
            {"type": "text", "text": format!("Reading file {turn}.")},
            {"type": "toolCall", "id": id, "name": "read", "arguments": {"path": format!("src/f{turn}.rs")}},
        ],
        "api": "test", "provider": case.id, "model": case.model,
        "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110},
        "stopReason": "toolUse",
        "timestamp": 1_733_011_200_100_i64 + turn as i64,
    })));
    turn_messages.push(session_message(json!({
        "role": "toolResult", "toolCallId": id, "toolName": "read",
        "content": [{"type": "text", "text": format!("fn f{turn}() {{\n    \"text\"\n}}\n")}],
        "isError": false,
        "timestamp": 1_733_011_200_200_i64 + turn as i64,
    })));
    turn_messages
}

/// Each request of a session goes through one provider (the host's kept messages JSON and the
/// guest's kept conversions both in play) and through a provider loaded afresh; the bodies must
/// be the same bytes, turn after turn and after what changes the history: a `context` hook's
/// rewrite, a compaction, a branch switch and a model switch. With `incremental`, the kept
/// provider sends its instance only the messages it does not hold (`tack:provider`), and must
/// have left messages out on the turns that only add to the conversation.
async fn same_bytes_as_fresh(case: &Case, incremental: bool) {
    let env = Env::new().await;
    let server = Server::start().await;
    let base_url = Some(format!("{}{}", server.url, case.base_path));
    let kept = env
        .provider(case, base_url.clone())
        .await
        .with_incremental(incremental);
    let text = fixture(case.id, "text.sse");
    let check = async |label: &str, messages: &[Arc<Message>], model: &str| {
        let mut request = request(case);
        request.messages = Arc::new(messages.to_vec());
        request.model.id = model.to_string();
        server.reply(Reply::Stream(text.clone()));
        let held = messages.len().saturating_sub(3);
        let stream = kept.stream(request.clone()).await.expect("kept provider");
        stream.collect::<Vec<_>>().await;
        if label.starts_with("turn ") && label != "turn 0" {
            let left_out = kept.messages_left_out();
            let repeated = kept.body_bytes_repeated();
            if incremental {
                assert!(
                    left_out >= held,
                    "{}: {label}: left out {left_out}",
                    case.id
                );
                // Most of the body, once the conversation outweighs the tools that follow it.
                let body = server.requests.lock().expect("requests")[0].body.len();
                let most = if messages.len() > 24 { body / 2 } else { 0 };
                assert!(
                    repeated > most,
                    "{}: {label}: repeated {repeated} of {body} bytes",
                    case.id
                );
            } else {
                assert_eq!((left_out, repeated), (0, 0), "{}: {label}", case.id);
            }
        }
        let fresh = env.provider(case, base_url.clone()).await;
        server.reply(Reply::Stream(text.clone()));
        let stream = fresh.stream(request).await.expect("fresh provider");
        stream.collect::<Vec<_>>().await;
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{}: {label}", case.id);
        assert!(
            requests[0].body == requests[1].body,
            "{}: {label}: the body differs from a fresh one:\n{}\n{}",
            case.id,
            String::from_utf8_lossy(&requests[0].body),
            String::from_utf8_lossy(&requests[1].body)
        );
    };
    let mut messages = request(case).messages.to_vec();
    for turn in 0..12 {
        messages.extend(session_turn(case, turn));
        check(&format!("turn {turn}"), &messages, case.model).await;
    }
    let mut rewritten = messages.clone();
    rewritten[4] = session_message(json!({
        "role": "user",
        "content": [{"type": "text", "text": "[elided by a context hook]"}],
        "timestamp": 1,
    }));
    check("context hook rewrite", &rewritten, case.model).await;
    check("the turn after the rewrite", &messages, case.model).await;
    let mut compacted = vec![session_message(json!({
        "role": "user",
        "content": [{"type": "text", "text": "Summary of the session so far."}],
        "timestamp": 2,
    }))];
    compacted.extend(messages[messages.len() - 6..].iter().cloned());
    check("compaction", &compacted, case.model).await;
    compacted.extend(session_turn(case, 12));
    check("the turn after compaction", &compacted, case.model).await;
    let mut branch = messages[..messages.len() / 2].to_vec();
    check("branch switch", &branch, case.model).await;
    branch.extend(session_turn(case, 13));
    check("the turn after the branch switch", &branch, case.model).await;
    let other_model = match case.id {
        "anthropic" => "claude-opus-4-1",
        "google" => "gemini-2.5-pro",
        _ => "gpt-4o",
    };
    check("model switch", &branch, other_model).await;
    check("switch back", &branch, case.model).await;
}

/// The configured base URL is where requests go: a provider configured with a path prefix on one
/// server sends everything there, below the prefix, and nothing to any other server. The bridge
/// also refuses, before any I/O, a plugin path that would leave the base URL (one containing
/// `..` or not starting with `/`); testing that needs a plugin asking for such a path, which the
/// provider plugins cannot be made to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_go_only_to_the_configured_base_url() {
    let env = Env::new().await;
    let configured = Server::start().await;
    let other = Server::start().await;
    let provider = env
        .provider(
            &ANTHROPIC,
            Some(format!("{}/gateway/anthropic", configured.url)),
        )
        .await;
    configured.reply(Reply::Stream(fixture("anthropic", "text.sse")));
    let events = run(&provider, &ANTHROPIC).await.expect("streams");
    assert!(
        matches!(events.last(), Some(StreamEvent::Stop(_))),
        "{events:?}"
    );
    let requests = configured.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].target, "/gateway/anthropic/v1/messages");
    assert!(other.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_its_grants_a_provider_sends_nothing() {
    let env = Env::new().await;
    let server = Server::start().await;
    // The user chose the URL, so the endpoint needs no grant; the key still does.
    let provider = env
        .provider_granted(&ANTHROPIC, Some(server.url.clone()), false)
        .await;
    server.reply(Reply::Stream(fixture("anthropic", "text.sse")));
    let error = run(&provider, &ANTHROPIC)
        .await
        .expect_err("refused without the secret grant");
    assert!(
        error
            .message
            .contains("names the secret ANTHROPIC_API_KEY, which the plugin was not granted"),
        "{error:?}"
    );
    assert!(server.requests().is_empty());
}

/// A provider speaking `tack:provider` says how much of its previous body the host repeats
/// before what it returns. It cannot make the host repeat bytes the host does not hold, nor
/// build a body larger than the plugin's memory limit, more than it could return whole; each
/// refusal names the plugin, and the next request starts afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_cannot_make_the_host_repeat_what_it_does_not_hold() {
    const MEMORY: usize = 24 << 20;
    let dir = tempfile::tempdir().expect("temp dir");
    let runtime = Runtime::new(tack_runtime::RuntimeConfig {
        cache_dir: Some(dir.path().join("cache")),
        memory_limit: MEMORY,
        ..tack_runtime::RuntimeConfig::default()
    })
    .expect("runtime");
    let server = Server::start().await;
    let host = HostContext {
        workspace: dir.path().to_path_buf(),
        data_root: None,
        services: HostServices::headless(),
        secrets: SecretStore::new(None),
        project_trusted: false,
    };
    let hostile = async |incremental: Value| {
        let manifest = Manifest::parse(&format!(
            "[plugin]\nname = \"hostile\"\nversion = \"0.0.1\"\napi = \"0.1\"\n\
             component = \"hostile.wasm\"\n\n[capabilities]\nsecrets = [\"HOSTILE_KEY\"]\n\
             http = [\"{}\"]\n",
            server.url
        ))
        .expect("manifest");
        let spec = PluginSpec {
            granted: manifest.capabilities.clone(),
            manifest,
            wasm: std::fs::read(artifacts::TEST_HOSTILE)
                .expect("hostile component")
                .into(),
            wasm_label: "hostile".into(),
            source: PluginSource::Path(PathBuf::from(artifacts::TEST_HOSTILE)),
            config: json!({
                "provider": { "id": "hostile", "secret": "HOSTILE_KEY", "base_url": server.url },
                "incremental": incremental,
            }),
        };
        let plugin = LoadedPlugin::load(&runtime, spec, &host)
            .await
            .expect("hostile plugin loads");
        let spec = plugin.registration.providers[0].clone();
        let secrets = SecretStore::new(None).with_override("HOSTILE_KEY", API_KEY.to_string());
        PluginProvider::new(plugin, spec, None, secrets, reqwest::Client::new())
    };
    let send = async |provider: &PluginProvider| {
        let mut request = request(&ANTHROPIC);
        request.model.id = "m".into();
        server.reply(Reply::Stream(b"data: {}\n\n".to_vec()));
        match provider.stream(request).await {
            Ok(stream) => {
                stream.collect::<Vec<_>>().await;
                Ok(server.requests().pop().expect("a request").body.len())
            }
            Err(error) => Err(error.message),
        }
    };

    // More than it holds: refused, naming the plugin, and nothing is sent.
    let provider = hostile(json!({ "body_bytes": 2, "prefix": 1u64 << 40 })).await;
    assert_eq!(send(&provider).await, Ok(2), "the first body is whole");
    let refused = send(&provider).await.expect_err("refused");
    assert!(
        refused.contains("provider plugin 'hostile' repeats 1099511627776 bytes of its previous request body, which has 2"),
        "{refused}"
    );
    assert!(server.requests().is_empty(), "nothing sent");
    // The host forgot what it held, so the next body is whole again.
    assert_eq!(send(&provider).await, Ok(2));

    // All it holds, again and again: the body grows by what the plugin returns, up to its
    // memory limit.
    let part = 10 << 20;
    let provider = hostile(json!({ "body_bytes": part })).await;
    assert_eq!(send(&provider).await, Ok(part));
    assert_eq!(send(&provider).await, Ok(2 * part));
    let refused = send(&provider).await.expect_err("refused");
    assert!(
        refused.contains(&format!(
            "provider plugin 'hostile' built a request body of {} bytes, more than its memory limit of {MEMORY}",
            3 * part
        )),
        "{refused}"
    );
    assert!(server.requests().is_empty(), "nothing sent");
}

// ---- harness -------------------------------------------------------------------------------

struct Env {
    runtime: Arc<Runtime>,
    host: HostContext,
    _dir: tempfile::TempDir,
}

impl Env {
    async fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let runtime = cached_runtime(dir.path().join("cache"));
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&workspace).expect("workspace");
        let host = HostContext {
            workspace,
            data_root: None,
            services: HostServices::headless(),
            secrets: SecretStore::new(None),
            project_trusted: false,
        };
        Env {
            runtime,
            host,
            _dir: dir,
        }
    }

    /// The case's plugin, granted what it declares (its key and endpoint, as first-party plugins
    /// are), as a provider whose key is `API_KEY`.
    async fn provider(&self, case: &Case, base_url: Option<String>) -> PluginProvider {
        self.provider_granted(case, base_url, true).await
    }

    async fn provider_granted(
        &self,
        case: &Case,
        base_url: Option<String>,
        granted: bool,
    ) -> PluginProvider {
        let builtin = tack_builtin::builtin(case.plugin).expect("a built-in plugin");
        let manifest = Manifest::parse(builtin.manifest).expect("manifest");
        assert_eq!(
            manifest.capabilities.secrets,
            vec![case.secret.to_string()],
            "the manifest declares the key it sends"
        );
        assert_eq!(manifest.capabilities.http.len(), 1, "and where it sends it");
        assert!(
            manifest.capabilities.fs.is_empty() && manifest.capabilities.exec.is_empty(),
            "and nothing else"
        );
        let spec = PluginSpec {
            granted: if granted {
                manifest.capabilities.clone()
            } else {
                Capabilities::default()
            },
            manifest,
            wasm: std::fs::read(case.wasm)
                .expect("component built by tack-builtin")
                .into(),
            wasm_label: case.wasm.to_string(),
            source: PluginSource::Path(PathBuf::from(case.wasm)),
            config: json!({}),
        };
        let plugin = LoadedPlugin::load(&self.runtime, spec, &self.host)
            .await
            .expect("provider plugin loads");
        let providers = &plugin.registration.providers;
        assert_eq!(providers.len(), 1);
        let spec = providers[0].clone();
        assert_eq!(spec.id, case.id);
        assert_eq!(spec.secret.as_deref(), Some(case.secret));
        assert!(
            spec.models.iter().any(|m| m.id == case.model),
            "{} lists {}",
            case.id,
            case.model
        );
        let secrets = SecretStore::new(None).with_override(case.secret, API_KEY.to_string());
        PluginProvider::new(plugin, spec, base_url, secrets, reqwest::Client::new())
    }
}

fn request(case: &Case) -> ProviderRequest {
    let user: Message = serde_json::from_value(json!({
        "role": "user",
        "content": [{"type": "text", "text": "Read src/main.rs and Cargo.toml"}],
        "timestamp": 1_733_011_200_000_i64,
    }))
    .expect("a user message");
    ProviderRequest {
        model: ModelInfo {
            provider: case.id.to_string(),
            id: case.model.to_string(),
            name: case.model.to_string(),
            context_window: 200_000,
            max_output_tokens: 8192,
            reasoning: true,
            input: vec![InputKind::Text, InputKind::Image],
            cost: ModelCost::default(),
        },
        system_prompt: "You are a test.".to_string(),
        messages: Arc::new(vec![Arc::new(user)]),
        tools: vec![ToolSpec {
            name: "read".to_string(),
            label: "Read".to_string(),
            description: "Reads a file".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"],
            }),
            mode: ExecutionMode::Parallel,
            prompt_snippet: None,
        }],
        max_tokens: Some(4096),
        reasoning: ReasoningLevel::Medium,
        options: json!({}),
        cancel: CancellationToken::new(),
    }
}

async fn run(provider: &PluginProvider, case: &Case) -> Result<Vec<StreamEvent>, ProviderError> {
    let stream = provider.stream(request(case)).await?;
    Ok(
        tokio::time::timeout(Duration::from_secs(30), stream.collect::<Vec<_>>())
            .await
            .expect("the stream ends"),
    )
}

/// One line per unified event, or the error that refused the request.
fn render(outcome: &Result<Vec<StreamEvent>, ProviderError>) -> String {
    let events = match outcome {
        Ok(events) => events,
        Err(e) => return format!("refused: {}", error(e)),
    };
    let lines: Vec<String> = events
        .iter()
        .map(|event| match event {
            StreamEvent::TextDelta { index, delta } => format!("text #{index} {delta:?}"),
            StreamEvent::ThinkingDelta { index, delta } => format!("thinking #{index} {delta:?}"),
            StreamEvent::ThinkingSignature { index, delta } => {
                format!("signature #{index} {delta:?}")
            }
            StreamEvent::ToolCallStart { index, id, name } => {
                format!("call #{index} {name} id={id}")
            }
            StreamEvent::ToolCallDelta { index, delta } => format!("args #{index} {delta:?}"),
            StreamEvent::Usage(u) => format!(
                "usage input={} output={} cache_read={} cache_write={}",
                u.input, u.output, u.cache_read, u.cache_write
            ),
            StreamEvent::Stop(kind) => format!("stop {kind:?}"),
            StreamEvent::Error(e) => format!("error {}", error(e)),
        })
        .collect();
    lines.join("\n")
}

fn error(e: &ProviderError) -> String {
    format!(
        "{:?} {:?} retry_after_ms={:?}",
        e.kind, e.message, e.retry_after_ms
    )
}

fn fixture(provider: &str, name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sse")
        .join(provider)
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

// ---- a minimal HTTP/1.1 server -------------------------------------------------------------

enum Reply {
    /// 200 with an event stream, closed after the body.
    Stream(Vec<u8>),
    Status {
        status: u16,
        headers: &'static [(&'static str, &'static str)],
        body: Vec<u8>,
    },
}

/// Answers each connection's one request with the next queued reply, and records the request.
#[derive(Clone)]
struct Server {
    url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
}

impl Server {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let server = Server {
            url,
            requests: Arc::default(),
            replies: Arc::default(),
        };
        let serving = server.clone();
        tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                let server = serving.clone();
                tokio::spawn(async move { server.handle(conn).await });
            }
        });
        server
    }

    fn reply(&self, reply: Reply) {
        self.replies.lock().expect("replies").push_back(reply);
    }

    fn requests(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.requests.lock().expect("requests"))
    }

    async fn handle(&self, mut conn: TcpStream) {
        let Some(request) = read_request(&mut conn, &mut Vec::new()).await else {
            return;
        };
        self.requests.lock().expect("requests").push(request);
        let reply = self.replies.lock().expect("replies").pop_front();
        let _ = conn.set_nodelay(true);
        let written = match reply {
            Some(Reply::Stream(body)) => stream(&mut conn, &body).await,
            Some(Reply::Status {
                status,
                headers,
                body,
            }) => {
                let mut head = format!(
                    "HTTP/1.1 {status} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (name, value) in headers {
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                head.push_str("\r\n");
                write_all(&mut conn, &[head.as_bytes(), &body].concat()).await
            }
            None => {
                let body = b"no reply queued";
                let head = format!(
                    "HTTP/1.1 500 Error\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                write_all(&mut conn, &[head.as_bytes(), body].concat()).await
            }
        };
        if written.is_ok() {
            let _ = conn.shutdown().await;
        }
    }
}

async fn write_all(conn: &mut TcpStream, bytes: &[u8]) -> std::io::Result<()> {
    conn.write_all(bytes).await?;
    conn.flush().await
}

/// Sends the body in small uneven pieces, pausing now and then so they arrive apart. Without a
/// length or chunking, the body ends where the connection closes.
async fn stream(conn: &mut TcpStream, body: &[u8]) -> std::io::Result<()> {
    const HEAD: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    const PIECES: [usize; 5] = [1, 7, 3, 29, 11];
    write_all(conn, HEAD).await?;
    let mut at = 0;
    for (n, size) in PIECES.iter().cycle().enumerate() {
        if at >= body.len() {
            break;
        }
        let end = (at + size).min(body.len());
        write_all(conn, &body[at..end]).await?;
        at = end;
        if n % 16 == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    Ok(())
}
