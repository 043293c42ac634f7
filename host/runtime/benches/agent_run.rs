//! A 100-tool-call run through the real agent loop, a real provider plugin (the scripted one,
//! decoding its SSE stream) and a real tool plugin (a no-op echo), with the session written to a
//! real file: the host's cost per tool round trip. Prints peak RSS once at the end.
//!
//! `cargo bench -p tack-runtime --bench agent_run`
//!
//! The `_with_policy_plugins` variant loads plan-mode, protected-paths, permission-gate and todo;
//! `TACK_BENCH_POLICY=permission-gate` (a comma-separated list, possibly empty) loads only those,
//! to tell which plugin a difference comes from.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

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
use tack_runtime::{
    Capabilities, HostContext, Manifest, NullServices, PluginSet, PluginSource, PluginSpec,
    Runtime, RuntimeConfig,
};
use tokio_util::sync::CancellationToken;

const TOOL_CALLS: usize = 100;

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

fn spec(name: &str, path: &str, config: serde_json::Value) -> PluginSpec {
    let manifest = format!(
        "[plugin]\nname = \"{name}\"\nversion = \"0.0.1\"\napi = \"0.1\"\ncomponent = \"x.wasm\"\n"
    );
    PluginSpec {
        manifest: Manifest::parse(&manifest).expect("manifest"),
        wasm: std::fs::read(path).expect("component"),
        wasm_label: name.into(),
        source: PluginSource::Builtin,
        granted: Capabilities::default(),
        config,
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
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio");
    let runtime = Runtime::new(RuntimeConfig {
        cache_dir: Some(home.path().join("cache")),
        ..RuntimeConfig::default()
    })
    .expect("runtime");
    let host = HostContext {
        workspace: workspace.path().to_path_buf(),
        data_root: None,
        services: Arc::new(NullServices),
        secrets: SecretStore::new(None),
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
                script.clone(),
                per_turn,
                policy,
            );
        }
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
    script: Vec<serde_json::Value>,
    per_turn: usize,
    policy: bool,
) {
    let turns = script.len() - 1;
    let mut specs = vec![
        spec(
            "scripted",
            artifacts::TEST_SCRIPTED_PROVIDER,
            json!({ "script": script }),
        ),
        spec("hostile", artifacts::TEST_HOSTILE, json!({})),
    ];
    if policy {
        let chosen = std::env::var("TACK_BENCH_POLICY")
            .unwrap_or_else(|_| "plan-mode,protected-paths,permission-gate,todo".into());
        for name in chosen.split(',').filter(|n| !n.is_empty()) {
            let builtin = tack_builtin::builtin(name).expect("built-in policy plugin");
            let manifest = Manifest::parse(builtin.manifest).expect("manifest");
            specs.push(PluginSpec {
                granted: manifest.capabilities.clone(),
                manifest,
                wasm: builtin.wasm.to_vec(),
                wasm_label: name.into(),
                source: PluginSource::Builtin,
                config: if name == "permission-gate" {
                    json!({ "mode": "auto" })
                } else {
                    json!({})
                },
            });
        }
    }
    let set = tokio.block_on(PluginSet::load(runtime, specs, host));
    assert!(
        set.errors.is_empty(),
        "{:?}",
        set.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>()
    );
    let set = Arc::new(set);
    let (plugin, provider_spec) = set.provider("scripted").expect("scripted provider");
    let model = provider_spec.models.first().expect("model");
    let model = tack_core::ModelInfo {
        provider: "scripted".into(),
        id: model.id.clone(),
        name: model.name.clone(),
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
        reasoning: false,
        input: Vec::new(),
        cost: Default::default(),
    };
    let provider = Arc::new(PluginProvider::new(
        plugin.clone(),
        provider_spec.clone(),
        None,
        SecretStore::new(None),
        runtime.http().clone(),
    ));
    let tools = Arc::new(PluginTools::new(set.clone()));
    let hooks = Arc::new(TimedHooks {
        inner: Arc::new(PluginHooks::new(set.clone())),
        nanos: AtomicU64::new(0),
    });
    let runs = AtomicU64::new(0);
    let store = SessionStore::new(home);
    let label = if policy { "_with_policy_plugins" } else { "" };
    group.bench_function(
        format!("run_100_tool_calls/{per_turn}_per_turn{label}"),
        |b| {
            b.iter(|| {
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
                runs.fetch_add(1, Ordering::Relaxed);
            })
        },
    );
    let runs = runs.load(Ordering::Relaxed);
    if policy && runs > 0 {
        let per_call =
            hooks.nanos.load(Ordering::Relaxed) as f64 / (runs * TOOL_CALLS as u64) as f64;
        println!(
            "time in plugin hooks per tool call (all hooks and events, host and guest): {:.1} us",
            per_call / 1000.0
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
