//! A 100-tool-call run through the real agent loop, a real provider plugin (the scripted one,
//! decoding its SSE stream) and a real tool plugin (a no-op echo), with the session written to a
//! real file: the host's cost per tool round trip. Prints, per variant, the median run and that
//! divided by 100 (host time per tool round trip), and peak RSS once at the end.
//!
//! `cargo bench -p tack-runtime --bench agent_run` (append `-- over_http` for the HTTP variants)
//!
//! The `_with_policy_plugins` variant loads plan-mode, protected-paths, permission-gate and todo;
//! `TACK_BENCH_POLICY=permission-gate` (a comma-separated list, possibly empty) loads only those,
//! to tell which plugin a difference comes from.
//!
//! The `_over_http_anthropic` variants swap the scripted provider for the real Anthropic provider
//! plugin talking HTTP/1.1 over 127.0.0.1, through the host's own reqwest client, to a mock of the
//! Messages API in this file: each turn costs a real request (the whole conversation encoded by
//! the plugin, sent, parsed by the mock) and a chunked SSE answer decoded by the plugin, so the
//! figures include everything but the network and the model. The mock runs on the bench's own
//! tokio runtime; its share of each round trip is printed separately.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use tack_builtin::artifacts;
use tack_core::agent::{
    AgentStartPatch, CompactDecision, CompactRequest, Hooks, InputAction, ToolDecision,
};
use tack_core::message::Message;
use tack_core::session::{SessionHandle, SessionStore};
use tack_core::{Agent, AgentConfig, AgentEvent};
use tack_runtime::bridge::{PluginHooks, PluginProvider, PluginTools};
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{Capabilities, HostContext, HostServices, PluginSet, Runtime};
use tack_test_support::http_tokio::read_request;
use tack_test_support::runtime::{bench_tokio, builtin_spec, cached_runtime, spec};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

const TOOL_CALLS: usize = 100;

/// Where the provider's answers come from.
enum Wire {
    /// The scripted provider plugin: the answers are local bytes, no HTTP.
    Scripted(Vec<serde_json::Value>),
    /// The Anthropic provider plugin against a [`MockAnthropic`].
    AnthropicHttp(MockAnthropic),
}

/// Passes every hook through to the plugins and adds up the wall time spent in them: the host
/// time the policy plugins add per tool call, measured directly rather than as the difference of
/// two noisy run times.
struct TimedHooks {
    inner: Arc<PluginHooks>,
    nanos: AtomicU64,
}

impl TimedHooks {
    async fn timed<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        let start = Instant::now();
        let out = work.await;
        let spent = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(spent, Ordering::Relaxed);
        out
    }
}

#[async_trait::async_trait]
impl Hooks for TimedHooks {
    async fn before_tool_call(&self, call: &tack_core::message::ToolCall) -> ToolDecision {
        self.timed(self.inner.before_tool_call(call)).await
    }
    async fn after_tool_call(
        &self,
        call: &tack_core::message::ToolCall,
        result: &tack_core::message::ToolResult,
    ) -> Option<tack_core::message::ToolResult> {
        self.timed(self.inner.after_tool_call(call, result)).await
    }
    async fn context(&self, messages: &[Arc<Message>]) -> Option<Vec<Arc<Message>>> {
        self.timed(self.inner.context(messages)).await
    }

    fn rewrites_context(&self) -> bool {
        self.inner.rewrites_context()
    }
    async fn input(&self, text: &str) -> InputAction {
        self.timed(self.inner.input(text)).await
    }
    async fn before_agent_start(&self, prompt: &str, system_prompt: &str) -> AgentStartPatch {
        self.timed(self.inner.before_agent_start(prompt, system_prompt))
            .await
    }
    async fn before_compact(&self, request: &CompactRequest) -> CompactDecision {
        self.timed(self.inner.before_compact(request)).await
    }
    async fn on_event(&self, event: &AgentEvent) {
        self.timed(self.inner.on_event(event)).await
    }
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn bench(c: &mut Criterion) {
    let home = tempfile::tempdir().expect("home");
    let workspace = tempfile::tempdir().expect("workspace");
    let tokio = bench_tokio();
    let runtime = cached_runtime(home.path().join("cache"));
    let host = HostContext {
        workspace: workspace.path().to_path_buf(),
        data_root: None,
        services: HostServices::headless(),
        secrets: SecretStore::new(None),
        project_trusted: false,
    };
    let mut group = c.benchmark_group("agent");
    group.sample_size(10);
    // One call per turn (every call costs a provider round trip), then ten parallel calls per
    // turn (separates the per-call cost from the per-turn cost).
    for per_turn in [1usize, 10] {
        let script: Vec<serde_json::Value> = (0..TOOL_CALLS / per_turn)
            .map(|t| {
                let calls: Vec<serde_json::Value> = (0..per_turn)
                    .map(|i| json!({ "id": format!("c{t}_{i}"), "name": "echo", "arguments": { "i": i } }))
                    .collect();
                json!({ "tool_calls": calls })
            })
            .chain(std::iter::once(json!({ "text": "done" })))
            .collect();
        let policy_variants: &[bool] = if per_turn == 1 {
            &[false, true]
        } else {
            &[false]
        };
        for &policy in policy_variants {
            // With plan-mode, permission-gate, protected-paths and todo loaded, the difference
            // is what the policy plugins add per tool call.
            run_bench(
                &mut group,
                &tokio,
                &runtime,
                &host,
                (home.path(), workspace.path()),
                Wire::Scripted(script.clone()),
                per_turn,
                policy,
            );
        }
    }
    // A run over HTTP takes a few times longer: more time for criterion's 10 samples.
    group.measurement_time(Duration::from_secs(15));
    for per_turn in [1usize, 10] {
        let mock = tokio
            .block_on(MockAnthropic::start(per_turn))
            .expect("mock server");
        run_bench(
            &mut group,
            &tokio,
            &runtime,
            &host,
            (home.path(), workspace.path()),
            Wire::AnthropicHttp(mock),
            per_turn,
            false,
        );
    }
    group.finish();
    if let Some(kib) = peak_rss_kib() {
        println!("peak RSS: {:.1} MiB", kib as f64 / 1024.0);
    }
}

#[allow(clippy::too_many_arguments)]
fn run_bench(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    tokio: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    host: &HostContext,
    (home, workspace): (&std::path::Path, &std::path::Path),
    wire: Wire,
    per_turn: usize,
    policy: bool,
) {
    let turns = TOOL_CALLS / per_turn;
    let mut specs = vec![spec(
        "hostile",
        artifacts::TEST_HOSTILE,
        Capabilities::default(),
        json!({}),
    )];
    let provider_id = match &wire {
        Wire::Scripted(script) => {
            specs.push(spec(
                "scripted",
                artifacts::TEST_SCRIPTED_PROVIDER,
                Capabilities::default(),
                json!({ "script": script }),
            ));
            "scripted"
        }
        Wire::AnthropicHttp(_) => {
            specs.push(builtin_spec("provider-anthropic", json!({})));
            "anthropic"
        }
    };
    if policy {
        let chosen = std::env::var("TACK_BENCH_POLICY")
            .unwrap_or_else(|_| "plan-mode,protected-paths,permission-gate,todo".into());
        for name in chosen.split(',').filter(|n| !n.is_empty()) {
            let config = if name == "permission-gate" {
                json!({ "mode": "auto" })
            } else {
                json!({})
            };
            specs.push(builtin_spec(name, config));
        }
    }
    let set = tokio.block_on(PluginSet::load(runtime, specs, host));
    assert!(
        set.errors.is_empty(),
        "{:?}",
        set.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>()
    );
    let set = Arc::new(set);
    let (plugin, provider_spec) = set.provider(provider_id).expect("provider");
    let model = provider_spec.models.first().expect("model");
    let model = tack_core::ModelInfo {
        provider: provider_id.into(),
        id: model.id.clone(),
        name: model.name.clone(),
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
        reasoning: false,
        input: Vec::new(),
        cost: Default::default(),
    };
    let (base_url, secrets) = match &wire {
        Wire::Scripted(_) => (None, SecretStore::new(None)),
        Wire::AnthropicHttp(mock) => {
            let secret = provider_spec.secret.clone().expect("a key secret");
            (
                Some(mock.url.clone()),
                SecretStore::new(None).with_override(&secret, "sk-bench".to_string()),
            )
        }
    };
    let provider = Arc::new(PluginProvider::new(
        plugin.clone(),
        provider_spec.clone(),
        base_url,
        secrets,
        runtime.http().clone(),
    ));
    let tools = Arc::new(PluginTools::new(set.clone()));
    let hooks = Arc::new(TimedHooks {
        inner: Arc::new(PluginHooks::new(set.clone())),
        nanos: AtomicU64::new(0),
    });
    let mut times: Vec<Duration> = Vec::new();
    let store = SessionStore::new(home);
    let label = match (&wire, policy) {
        (Wire::AnthropicHttp(_), _) => "_over_http_anthropic",
        (Wire::Scripted(_), true) => "_with_policy_plugins",
        (Wire::Scripted(_), false) => "",
    };
    let name = format!("run_100_tool_calls/{per_turn}_per_turn{label}");
    group.bench_function(&name, |b| {
        b.iter(|| {
            let start = Instant::now();
            let session = SessionHandle::new(store.create(workspace).expect("session"));
            let agent = Agent::new(
                AgentConfig::new(model.clone(), "bench"),
                provider.clone(),
                tools.clone(),
                session,
            )
            .with_hooks(hooks.clone());
            let outcome = tokio
                .block_on(agent.prompt_text("go", CancellationToken::new()))
                .expect("run");
            assert_eq!(outcome.messages.len(), TOOL_CALLS + turns + 2);
            times.push(start.elapsed());
        })
    });
    let runs = times.len() as u64;
    if runs == 0 {
        // Filtered out.
        return;
    }
    // Criterion's own estimate is a mean over samples of differing iteration counts; a median of
    // whole runs is the figure "per tool round trip" is meant to divide.
    times.sort();
    let median = times[times.len() / 2];
    let per_call = median.as_secs_f64() * 1e6 / TOOL_CALLS as f64;
    let mock_share = match &wire {
        Wire::AnthropicHttp(mock) => format!(
            ", of which {:.1} us (mean) in the mock server; {} requests over {} connections",
            mock.nanos.load(Ordering::Relaxed) as f64 / (runs * TOOL_CALLS as u64) as f64 / 1000.0,
            runs * (turns as u64 + 1),
            mock.connections.load(Ordering::Relaxed)
        ),
        Wire::Scripted(_) => String::new(),
    };
    println!(
        "{name}: median run {:.2} ms over {runs} runs, {per_call:.1} us per tool round trip{mock_share}",
        median.as_secs_f64() * 1e3
    );
    if policy {
        let per_call =
            hooks.nanos.load(Ordering::Relaxed) as f64 / (runs * TOOL_CALLS as u64) as f64;
        println!(
            "time in plugin hooks per tool call (all hooks and events, host and guest): {:.1} us",
            per_call / 1000.0
        );
    }
}

// ---- a mock of the Anthropic Messages API ----------------------------------------------------

/// Answers `POST /v1/messages` on 127.0.0.1 with `per_turn` calls to `echo` until the request
/// carries [`TOOL_CALLS`] tool results, then with a final text. The answer depends only on the
/// request, never on what was served before, so criterion can repeat runs against one server.
/// Keep-alive and chunked, as the real API answers, so the host's connection pool is exercised
/// the way it is in use.
struct MockAnthropic {
    url: String,
    /// Time spent building and writing answers, to tell the mock's share of a round trip.
    nanos: Arc<AtomicU64>,
    /// Connections accepted: far fewer than requests when the host's pool keeps them alive.
    connections: Arc<AtomicU64>,
}

impl MockAnthropic {
    async fn start(per_turn: usize) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let nanos = Arc::new(AtomicU64::new(0));
        let connections = Arc::new(AtomicU64::new(0));
        let (spent, accepted) = (nanos.clone(), connections.clone());
        tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                accepted.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(serve(conn, per_turn, spent.clone()));
            }
        });
        Ok(MockAnthropic {
            url,
            nanos,
            connections,
        })
    }
}

async fn serve(mut conn: TcpStream, per_turn: usize, nanos: Arc<AtomicU64>) {
    let _ = conn.set_nodelay(true);
    let mut buf = Vec::new();
    while let Some(request) = read_request(&mut conn, &mut buf).await {
        if request.method != "POST" {
            break;
        }
        let (target, body) = (request.target, request.body);
        let start = Instant::now();
        let events = (target == "/v1/messages")
            .then(|| answer(&body, per_turn))
            .flatten();
        let Some(events) = events else {
            // Something the plugin should never send: fail the run loudly rather than hang it.
            let _ = conn
                .write_all(
                    b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
            return;
        };
        if write_stream(&mut conn, &events).await.is_err() {
            return;
        }
        let spent = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        nanos.fetch_add(spent, Ordering::Relaxed);
    }
}

/// One chunk per event: the decoder sees events arrive apart, as from the real API.
async fn write_stream(conn: &mut TcpStream, events: &[String]) -> std::io::Result<()> {
    conn.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n",
    )
    .await?;
    for event in events {
        let chunk = format!("{:x}\r\n{event}\r\n", event.len());
        conn.write_all(chunk.as_bytes()).await?;
    }
    conn.write_all(b"0\r\n\r\n").await?;
    conn.flush().await
}

/// The SSE events answering a request, following the transcripts in
/// `tests/fixtures/sse/anthropic/`.
fn answer(body: &[u8], per_turn: usize) -> Option<Vec<String>> {
    let request: serde_json::Value = serde_json::from_slice(body).ok()?;
    let done = request["messages"]
        .as_array()?
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|block| block["type"] == "tool_result")
        .count();
    let event = |name: &str, data: serde_json::Value| format!("event: {name}\ndata: {data}\n\n");
    let mut events = vec![event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_bench_{done}"), "type": "message", "role": "assistant",
            "content": [], "model": request["model"], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": body.len() / 4, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": 1},
        }}),
    )];
    let calls = per_turn.min(TOOL_CALLS.saturating_sub(done));
    for index in 0..calls {
        let id = format!("toolu_bench_{:04}", done + index);
        events.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
                   "content_block": {"type": "tool_use", "id": id, "name": "echo", "input": {}}}),
        ));
        // The arguments split across deltas, as the API streams them.
        for piece in ["", "{\"i\"", &format!(": {index}}}")] {
            events.push(event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": piece}}),
            ));
        }
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    let stop_reason = if calls == 0 {
        events.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "text", "text": ""}}),
        ));
        events.push(event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": "done"}}),
        ));
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ));
        "end_turn"
    } else {
        "tool_use"
    };
    events.push(event(
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 20 * calls.max(1)}}),
    ));
    events.push(event("message_stop", json!({"type": "message_stop"})));
    Some(events)
}

criterion_group!(benches, bench);
criterion_main!(benches);
