//! Sub-agents: the host's cost of a child run, beyond the provider's own.
//!
//! - `parallel`: 8 children at once, each making 10 tool calls (core-tools' `read`) through the
//!   real agent loop, the scripted provider plugin and a real session file; the wall time.
//! - `start`: children that answer at once, one after the other, against the same one-turn run
//!   of a fresh agent on the same provider (what any run costs). The difference is the host's
//!   overhead per child start: narrowing the tools, the limit watch, the
//!   transcript entry. Memory is counted by a counting allocator: the peak of bytes in use while
//!   one child runs, above what was in use before it, and what stays after it (the transcript).
//!
//! `cargo bench -p tack-runtime --bench subagents`

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a bench reports a failed setup.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_core::session::{Session, SessionHandle, SessionStore};
use tack_core::{Agent, AgentConfig};
use tack_runtime::bridge::{PluginHooks, PluginTools};
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::children::{ChildLimits, ChildRequest, ChildRuns, ChildStatus};
use tack_runtime::{
    AgentServices, Capabilities, HostContext, HostServices, PluginSet, SessionServices,
};
use tack_test_support::runtime::{bench_tokio, builtin_spec, cached_runtime, provider, spec};
use tokio_util::sync::CancellationToken;

/// Counts the bytes in use, and their peak since the last reset.
struct Counting;

static IN_USE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size() as isize, Ordering::Relaxed)
                + layout.size() as isize;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const CHILDREN: usize = 8;
const CALLS_PER_CHILD: usize = 10;
const STARTS: usize = 200;

struct Setup {
    children: Arc<ChildRuns>,
    model: tack_core::ModelInfo,
    provider: Arc<dyn tack_core::Provider>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

fn read_turn(i: usize) -> Value {
    json!({ "tool_calls": [{ "id": format!("r{i}"), "name": "read", "arguments": { "path": "README.md" } }] })
}

async fn setup() -> Setup {
    let home = tempfile::tempdir().expect("home");
    let workspace = tempfile::tempdir().expect("workspace");
    std::fs::write(workspace.path().join("README.md"), "# Demo\n").expect("readme");
    let mut branches = serde_json::Map::new();
    for c in 0..CHILDREN {
        let mut turns: Vec<Value> = (0..CALLS_PER_CHILD).map(read_turn).collect();
        turns.push(json!({ "text": format!("child {c} done") }));
        branches.insert(format!("WORKER-{c}:"), Value::Array(turns));
    }
    branches.insert("QUICK:".into(), json!([{ "text": "ok" }]));
    let runtime = cached_runtime(home.path().join("cache"));
    let sessions = Arc::new(SessionServices::default());
    let agents = Arc::new(AgentServices::default());
    let host = HostContext {
        workspace: workspace.path().to_path_buf(),
        data_root: Some(home.path().join("data")),
        services: HostServices {
            ui: Arc::new(tack_runtime::HeadlessUi),
            session: sessions.clone(),
            agent: agents.clone(),
        },
        secrets: SecretStore::new(None),
        project_trusted: true,
    };
    let specs = vec![
        spec(
            "scripted",
            artifacts::TEST_SCRIPTED_PROVIDER,
            Capabilities::default(),
            json!({ "script": [], "branches": branches }),
        ),
        builtin_spec("core-tools", json!({})),
    ];
    let set = Arc::new(PluginSet::load(&runtime, specs, &host).await);
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    let (model, provider) = provider(&set, &runtime, "scripted");
    let tools = Arc::new(PluginTools::new(set.clone()));
    let hooks = Arc::new(PluginHooks::new(set.clone()));
    let session = SessionHandle::new(
        SessionStore::new(home.path())
            .create(workspace.path())
            .expect("session"),
    );
    sessions.attach(session.clone());
    agents.attach_tools(tools.clone());
    let provider: Arc<dyn tack_core::Provider> = provider;
    let agent = Agent::new(
        AgentConfig::new(model.clone(), "You are a bench."),
        provider.clone(),
        tools,
        session.clone(),
    )
    .with_hooks(hooks);
    let children = Arc::new(ChildRuns::new(ChildLimits {
        max_concurrent: CHILDREN,
        ..ChildLimits::default()
    }));
    children.attach(agent.child_factory(), session, vec![model.clone()]);
    Setup {
        children,
        model,
        provider,
        _dirs: (home, workspace),
    }
}

fn request(prompt: String) -> ChildRequest {
    ChildRequest {
        description: "bench".into(),
        prompt,
        ..ChildRequest::default()
    }
}

async fn parallel(setup: &Setup) -> Duration {
    let started = Instant::now();
    let runs: Vec<_> = (0..CHILDREN)
        .map(|c| {
            let children = setup.children.clone();
            tokio::spawn(async move {
                children
                    .run(
                        "bench",
                        request(format!("WORKER-{c}: work")),
                        CancellationToken::new(),
                        None,
                    )
                    .await
            })
        })
        .collect();
    for run in runs {
        let outcome = run.await.expect("joined").expect("child ran");
        assert_eq!(outcome.status, ChildStatus::Completed, "{outcome:?}");
        assert_eq!(outcome.usage.tool_calls as usize, CALLS_PER_CHILD);
    }
    started.elapsed()
}

/// One child that answers at once; its time and its memory (peak above the start, retained).
async fn one_child(setup: &Setup) -> (Duration, isize, isize) {
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = Instant::now();
    let outcome = setup
        .children
        .run(
            "bench",
            request("QUICK: go".into()),
            CancellationToken::new(),
            None,
        )
        .await
        .expect("child ran");
    let took = started.elapsed();
    assert_eq!(outcome.status, ChildStatus::Completed);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let retained = IN_USE.load(Ordering::Relaxed) - before;
    (took, peak, retained)
}

/// The same one-turn answer from a fresh agent with an in-memory session: the provider's cost
/// and the agent loop's, which every run pays.
async fn one_plain_run(setup: &Setup) -> Duration {
    let started = Instant::now();
    let agent = Agent::new(
        AgentConfig::new(setup.model.clone(), "You are a bench."),
        setup.provider.clone(),
        Arc::new(NoTools),
        SessionHandle::new(Session::in_memory(std::path::Path::new("/"))),
    );
    agent
        .prompt_text("QUICK: go", CancellationToken::new())
        .await
        .expect("plain run");
    started.elapsed()
}

struct NoTools;

#[async_trait::async_trait]
impl tack_core::ToolExecutor for NoTools {
    fn tools(&self) -> Vec<tack_core::ToolSpec> {
        Vec::new()
    }

    async fn execute(
        &self,
        _call: tack_core::ToolCall,
        _cancel: CancellationToken,
        _progress: tack_core::agent::ToolProgress,
    ) -> Result<tack_core::ToolResult, tack_core::agent::ToolError> {
        Err(tack_core::agent::ToolError::Failed("no tools".into()))
    }
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs it once, quickly.
    let quick = !std::env::args().any(|a| a == "--bench");
    let rt = bench_tokio();
    rt.block_on(async {
        let setup = setup().await;
        // Warm up: instances pooled, components compiled.
        parallel(&setup).await;
        let rounds = if quick { 1 } else { 10 };
        let mut walls = Vec::new();
        for _ in 0..rounds {
            walls.push(parallel(&setup).await);
        }
        let wall = median(walls);
        println!(
            "parallel: {CHILDREN} children x {CALLS_PER_CHILD} tool calls: median {:.1} ms \
             ({:.2} ms per tool round trip)",
            wall.as_secs_f64() * 1e3,
            wall.as_secs_f64() * 1e3 / (CHILDREN * CALLS_PER_CHILD) as f64
        );

        let starts = if quick { 5 } else { STARTS };
        let mut child_times = Vec::new();
        let mut plain_times = Vec::new();
        let mut peaks = Vec::new();
        let mut retained = Vec::new();
        for _ in 0..starts {
            plain_times.push(one_plain_run(&setup).await);
            let (took, peak, kept) = one_child(&setup).await;
            child_times.push(took);
            peaks.push(peak);
            retained.push(kept);
        }
        let child = median(child_times);
        let plain = median(plain_times);
        peaks.sort();
        retained.sort();
        let peak = peaks[peaks.len() / 2];
        let kept = retained[retained.len() / 2];
        println!(
            "start: child run median {:.3} ms, plain one-turn run {:.3} ms: host overhead per \
             child {:.3} ms",
            child.as_secs_f64() * 1e3,
            plain.as_secs_f64() * 1e3,
            child.saturating_sub(plain).as_secs_f64() * 1e3
        );
        println!(
            "start: memory per child: peak {:.1} KiB above the start, {:.1} KiB retained \
             (its transcript entry in the parent's session)",
            peak as f64 / 1024.0,
            kept as f64 / 1024.0
        );
    });
}
