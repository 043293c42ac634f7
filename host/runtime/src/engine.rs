//! The process-wide wasmtime engine and the thread that drives epoch deadlines.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use wasmtime::component::{HasSelf, Linker};
use wasmtime::Engine;

use crate::bindings::latest::extensions::Extensions;
use crate::bindings::latest::Plugin;
use crate::cache::ComponentCache;
use crate::state::PluginState;

/// How often the epoch advances. Deadlines are checked at this granularity; the tick itself is an
/// atomic increment, so a short period costs nothing measurable.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Wall-clock budgets for one call into a plugin, by kind. Time the guest spends blocked in a
/// host import (a running command, a dialog, an HTTP request) does not count: the budget bounds
/// the guest's own work.
#[derive(Debug, Clone)]
pub struct CallLimits {
    pub init: Duration,
    pub tool: Duration,
    pub command: Duration,
    pub hook: Duration,
    pub provider: Duration,
}

impl Default for CallLimits {
    fn default() -> Self {
        Self {
            init: Duration::from_secs(10),
            tool: Duration::from_secs(120),
            command: Duration::from_secs(30),
            hook: Duration::from_secs(5),
            provider: Duration::from_secs(10),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// Where compiled components are cached; `None` compiles every time.
    pub cache_dir: Option<PathBuf>,
    /// Linear-memory limit per plugin instance.
    pub memory_limit: usize,
    /// Table-element limit per plugin instance.
    pub table_limit: usize,
    pub limits: CallLimits,
    /// Faults (traps, timeouts) after which a plugin is disabled for the rest of the process.
    pub max_faults: u32,
    /// Instances kept per plugin so parallel tool calls into one plugin do not queue.
    pub max_instances: usize,
    /// How many tasks of one fan-out (`tack:plugin/tasks.run`) run at the same time.
    pub task_parallelism: usize,
    /// What a plugin may hand the host (see `budget.rs`).
    pub budgets: crate::budget::Budgets,
    /// Components compiled ahead of time (tack's built-ins), used instead of compiling them.
    pub precompiled: Vec<crate::cache::Precompiled>,
    /// The sandbox every command a plugin runs through `exec` is confined by.
    pub sandbox: crate::sandbox::SandboxPolicy,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            cache_dir: None,
            memory_limit: 512 << 20,
            table_limit: 100_000,
            limits: CallLimits::default(),
            max_faults: 3,
            max_instances: 4,
            task_parallelism: std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .min(8),
            budgets: crate::budget::Budgets::default(),
            precompiled: Vec::new(),
            sandbox: crate::sandbox::SandboxPolicy::default(),
        }
    }
}

/// The engine plus everything shared by all plugins of a process.
pub struct Runtime {
    engine: Engine,
    /// WASI and every `tack:plugin` import, linked once: what an import does depends on the
    /// store's data (the plugin's grants), never on the linker.
    linker: Linker<PluginState>,
    cache: ComponentCache,
    config: RuntimeConfig,
    sandbox: Arc<crate::sandbox::SandboxPolicy>,
    http: reqwest::Client,
    public_http: reqwest::Client,
    _ticker: EpochTicker,
}

impl Runtime {
    pub fn new(config: RuntimeConfig) -> wasmtime::Result<Arc<Self>> {
        let mut wasm = crate::engine_config::engine_config();
        // `TACK_WASM_PERFMAP=1` names guest functions for `perf` (in /tmp/perf-<pid>.map), so a
        // profile shows which plugin code the time goes to instead of bare JIT addresses.
        if std::env::var_os("TACK_WASM_PERFMAP").is_some_and(|v| v == "1") {
            wasm.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&wasm)?;
        let mut linker = Linker::<PluginState>::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
        Plugin::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
        Extensions::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
        crate::bindings::agents_v0_1_0::AgentsClient::add_to_linker::<_, HasSelf<_>>(
            &mut linker,
            |s| s,
        )?;
        crate::bindings::dirs_v0_1_0::DirsClient::add_to_linker::<_, HasSelf<_>>(
            &mut linker,
            |s| s,
        )?;
        // 0.2.0's interfaces one by one: `http-stream` uses 0.1.0's `http` types, so the world
        // as a whole would link 0.1.0's `http` a second time.
        {
            use crate::bindings::v0_2_0::tack::plugin0_2_0 as v2;
            v2::process::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::tools::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::commands::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::http_stream::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::events::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::control::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::screen::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::models::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::shortcuts::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::bus::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
            v2::providers::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
        }
        let http = crate::broker::http::client_builder(crate::broker::http::CONNECT_TIMEOUT)
            .build()
            .map_err(|e| wasmtime::format_err!("cannot build HTTP client: {e}"))?;
        let public_http = crate::broker::http::public::client()
            .map_err(|e| wasmtime::format_err!("cannot build the public-only HTTP client: {e}"))?;
        // Without the ticker no deadline would ever fire: a plugin could spin forever.
        let ticker = EpochTicker::start(&engine)
            .map_err(|e| wasmtime::format_err!("cannot start the epoch thread: {e}"))?;
        Ok(Arc::new(Self {
            cache: ComponentCache::with_precompiled(
                config.cache_dir.clone(),
                config.precompiled.clone(),
            ),
            _ticker: ticker,
            engine,
            linker,
            sandbox: Arc::new(config.sandbox.clone()),
            config,
            http,
            public_http,
        }))
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub(crate) fn linker(&self) -> &Linker<PluginState> {
        &self.linker
    }

    pub fn cache(&self) -> &ComponentCache {
        &self.cache
    }

    /// The command sandbox, shared by every plugin's environment.
    pub fn sandbox(&self) -> &Arc<crate::sandbox::SandboxPolicy> {
        &self.sandbox
    }

    pub fn config(&self) -> &RuntimeConfig {
        &self.config
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// The client for requests only a wildcard grant covers (`broker::http::public`).
    pub fn public_http(&self) -> &reqwest::Client {
        &self.public_http
    }
}

/// Advances the engine's epoch every [`EPOCH_TICK`] until dropped.
struct EpochTicker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl EpochTicker {
    fn start(engine: &Engine) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let weak = engine.weak();
        let stop_flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("tack-epoch".into())
            .spawn(move || {
                while !stop_flag.load(Ordering::Relaxed) {
                    std::thread::sleep(EPOCH_TICK);
                    match weak.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })?;
        Ok(Self {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for EpochTicker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
