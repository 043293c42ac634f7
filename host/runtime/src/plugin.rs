//! A loaded plugin: its compiled component, its registration, and a small pool of instances that
//! calls check out, run under a deadline, and check back in. An instance that faulted is never
//! reused; a plugin that keeps faulting is disabled.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::Digest as _;
use tokio_util::sync::CancellationToken;
use wasmtime::component::{HasSelf, ResourceAny};
use wasmtime::{Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::WasiCtxBuilder;

use crate::api::{
    AgentStartPatch, CompactDecision, CompactRequest, EventKind, HookKind, InitContext,
    InputAction, ProviderError, ProviderRequest, Registration, RequestPlan, SseEvent, StreamEvent,
    ToolCall, ToolDecision, ToolResult,
};
use crate::bindings::latest::exports::tack::plugin::guest::Guest;
use crate::bindings::latest::extensions::exports::tack::plugin::task_runner::{
    Guest as TaskRunner, GuestIndices as TaskRunnerIndices,
};
use crate::bindings::latest::{Plugin as Bindings, PluginIndices};
use crate::bindings::{API_VERSION, SUPPORTED_API_VERSIONS};
use crate::broker::secrets::SecretStore;
use crate::budget::{check_bytes, BudgetExceeded, Budgets};
use crate::engine::Runtime;
use crate::error::{LoadError, PluginError};
use crate::limits::PluginLimiter;
use crate::manifest::{same_series, Capabilities, Manifest};
use crate::services::HostServices;
use tack_core::sync::lock;

use crate::state::{tool_result_size, PluginEnv, PluginState, ProgressSink};

/// Where a plugin came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginSource {
    /// Shipped inside the tack binary.
    Builtin,
    /// A package folder on disk.
    Path(PathBuf),
}

/// Everything needed to load one plugin.
pub struct PluginSpec {
    pub manifest: Manifest,
    pub wasm: Vec<u8>,
    /// Shown in errors ("builtin:core-tools", or the file path).
    pub wasm_label: String,
    pub source: PluginSource,
    /// What the user granted; the effective capabilities are the manifest's ∩ this.
    pub granted: Capabilities,
    /// Configuration object passed to `init` (manifest defaults merged with user config).
    pub config: serde_json::Value,
}

/// Per-process facts every plugin is loaded against.
#[derive(Clone)]
pub struct HostContext {
    pub workspace: PathBuf,
    /// Parent of per-plugin data directories; `None` gives plugins none.
    pub data_root: Option<PathBuf>,
    pub services: Arc<dyn HostServices>,
    pub secrets: SecretStore,
    /// Whether the user trusts the project in `workspace`; policies read it through
    /// `tack:plugin/project`.
    pub project_trusted: bool,
}

struct Live {
    /// Held while the instance is checked out (not while it idles in the pool): the plugin's
    /// budget of instances alive at once.
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
    store: Store<PluginState>,
    bindings: Bindings,
    /// The `task-runner` export, when the plugin has one.
    task_runner: Option<TaskRunner>,
}

pub struct LoadedPlugin {
    pub manifest: Manifest,
    pub source: PluginSource,
    /// Declared and granted.
    pub capabilities: Capabilities,
    /// Declared but not granted.
    pub denied: Capabilities,
    pub registration: Registration,
    /// The `tack:plugin` version the component speaks.
    pub api_version: String,
    runtime: Arc<Runtime>,
    pre: wasmtime::component::InstancePre<PluginState>,
    indices: PluginIndices,
    task_indices: Option<TaskRunnerIndices>,
    env: Arc<PluginEnv>,
    data_dir: Option<PathBuf>,
    config_json: String,
    pool: Mutex<Vec<Live>>,
    /// Permits for checked-out instances (`Budgets::live_instances`).
    in_use: Arc<tokio::sync::Semaphore>,
    faults: AtomicU32,
    disabled: Mutex<Option<String>>,
}

/// Why a fan-out returned no results.
#[derive(Debug)]
pub(crate) enum TasksFailed {
    /// The guest gets the message as an error result and may run the work itself.
    Refused(String),
    /// The call fails and counts as a fault.
    OverBudget(BudgetExceeded),
}

/// Bytes the tasks of one fan-out have returned so far, against their budget.
#[derive(Clone)]
struct TaskOutput {
    bytes: Arc<AtomicUsize>,
    cap: usize,
}

/// Inputs of one fan-out not yet taken by a worker, with their positions.
type TaskQueue = Arc<Mutex<std::collections::VecDeque<(usize, Vec<u8>)>>>;

/// What runs on a checked-out instance: given the store, the guest exports and the
/// `task-runner` export (when the plugin has one), it makes one call.
trait GuestCall<R>:
    for<'a> FnOnce(
        &'a mut Store<PluginState>,
        &'a Guest,
        Option<&'a TaskRunner>,
    ) -> CallFuture<'a, R>
    + Send
{
}

impl<R, F> GuestCall<R> for F where
    F: for<'a> FnOnce(
            &'a mut Store<PluginState>,
            &'a Guest,
            Option<&'a TaskRunner>,
        ) -> CallFuture<'a, R>
        + Send
{
}

type CallFuture<'a, R> = Pin<Box<dyn Future<Output = wasmtime::Result<R>> + Send + 'a>>;

const WASM_MAGIC: &[u8] = b"\0asm";

/// The folder under the data root that belongs to a plugin. A built-in keeps its name (names of
/// built-ins are reserved); a package's folder is keyed by where it is installed as well, so a
/// package that takes a name another one had, or one loaded from elsewhere under the same name,
/// never reads what the other left. `tack remove` deletes the folder with the package.
pub fn data_dir_name(name: &str, source: &PluginSource) -> String {
    match source {
        PluginSource::Builtin => name.to_string(),
        PluginSource::Path(dir) => {
            let dir = dir.canonicalize().unwrap_or_else(|_| dir.clone());
            let digest = sha2::Sha256::digest(dir.as_os_str().as_encoded_bytes());
            let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
            format!("{name}-{short}")
        }
    }
}

/// Run filesystem calls inline rather than through spawn_blocking: a tree walk makes tens of
/// thousands of them, and the guest already occupies this thread while it runs. Measured: grep
/// over 54k files 4.8 s -> 1.06 s.
const ALLOW_BLOCKING_CURRENT_THREAD: bool = true;

impl LoadedPlugin {
    pub async fn load(
        runtime: &Arc<Runtime>,
        spec: PluginSpec,
        host: &HostContext,
    ) -> Result<Arc<Self>, LoadError> {
        let name = spec.manifest.plugin.name.clone();
        let (component, api_version) = compile(runtime, &name, &spec.wasm_label, spec.wasm).await?;

        let mut linker = wasmtime::component::Linker::<PluginState>::new(runtime.engine());
        let link_err = |e: wasmtime::Error| LoadError::Link {
            plugin: name.clone(),
            message: format!("{e:#}"),
        };
        wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(link_err)?;
        Bindings::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s).map_err(link_err)?;
        crate::bindings::latest::extensions::Extensions::add_to_linker::<_, HasSelf<_>>(
            &mut linker,
            |s| s,
        )
        .map_err(link_err)?;
        let pre = linker.instantiate_pre(&component).map_err(link_err)?;
        let indices = PluginIndices::new(&pre).map_err(link_err)?;
        // Fan-out is optional: a plugin without the export simply cannot be given tasks.
        let task_indices = TaskRunnerIndices::new(&pre).ok();

        let capabilities = spec.manifest.capabilities.intersect(&spec.granted);
        let denied = spec.manifest.capabilities.minus(&capabilities);
        let data_dir = match &host.data_root {
            Some(root) => {
                let dir = root.join(data_dir_name(&name, &spec.source));
                std::fs::create_dir_all(&dir).map_err(|source| LoadError::Io {
                    plugin: name.clone(),
                    path: dir.display().to_string(),
                    source,
                })?;
                Some(dir.canonicalize().unwrap_or(dir))
            }
            None => None,
        };
        let workspace = host
            .workspace
            .canonicalize()
            .unwrap_or_else(|_| host.workspace.clone());
        let fs_dirs = crate::broker::fs::granted_dirs(
            &capabilities.fs,
            &workspace,
            data_dir.as_deref(),
            ALLOW_BLOCKING_CURRENT_THREAD,
        )
        .map_err(|source| LoadError::Sandbox {
            plugin: name.clone(),
            source,
        })?;
        let env = Arc::new(PluginEnv {
            name: name.clone(),
            capabilities: capabilities.clone(),
            workspace,
            services: host.services.clone(),
            secrets: host.secrets.clone(),
            http: runtime.http().clone(),
            project_trusted: host.project_trusted,
            budgets: runtime.config().budgets.clone(),
            plugin: std::sync::OnceLock::new(),
            fs_dirs,
        });
        let config_json = serde_json::to_string(&spec.config).unwrap_or_else(|_| "{}".into());
        let mut plugin = LoadedPlugin {
            manifest: spec.manifest,
            source: spec.source,
            capabilities,
            denied,
            registration: empty_registration(),
            api_version,
            runtime: runtime.clone(),
            pre,
            indices,
            task_indices,
            env,
            data_dir,
            config_json,
            pool: Mutex::new(Vec::new()),
            in_use: Arc::new(tokio::sync::Semaphore::new(
                runtime.config().budgets.live_instances.max(1),
            )),
            faults: AtomicU32::new(0),
            disabled: Mutex::new(None),
        };
        let (live, registration) =
            plugin
                .instantiate()
                .await
                .map_err(|source| LoadError::Init {
                    plugin: name.clone(),
                    source,
                })?;
        validate_registration(&name, &registration)?;
        plugin.registration = registration;
        plugin.checkin(live);
        let plugin = Arc::new(plugin);
        let _ = plugin.env.plugin.set(Arc::downgrade(&plugin));
        Ok(plugin)
    }

    pub fn name(&self) -> &str {
        &self.env.name
    }

    pub fn services(&self) -> &Arc<dyn HostServices> {
        &self.env.services
    }

    pub fn subscribes(&self, hook: HookKind) -> bool {
        self.registration.hooks.contains(&hook)
    }

    pub fn observes(&self, event: EventKind) -> bool {
        self.registration.events.contains(&event)
    }

    /// `Some(reason)` once the plugin has been disabled.
    pub fn disabled_reason(&self) -> Option<String> {
        lock(&self.disabled).clone()
    }

    pub fn fault_count(&self) -> u32 {
        self.faults.load(Ordering::Relaxed)
    }

    pub(crate) fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    fn limits(&self) -> &crate::engine::CallLimits {
        &self.runtime.config().limits
    }

    // ---- calls ------------------------------------------------------------------------------

    pub async fn call_tool(
        &self,
        call: ToolCall,
        cancel: CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<ToolResult, PluginError> {
        let label = format!("tool '{}'", call.name);
        let setup = CallSetup {
            budget: self.limits().tool,
            cancel,
            tool_call_id: Some(call.id.clone()),
            progress,
            may_fan_out: true,
            is_task: false,
        };
        let result = self
            .with_instance(&label, setup, move |store, guest, _| {
                Box::pin(async move { guest.call_call_tool(store, &call).await })
            })
            .await?;
        self.within_budget(&label, "the tool result", tool_result_size(&result), |b| {
            b.tool_result_bytes
        })?;
        Ok(result)
    }

    /// `Err` (counted as a fault) when `size` bytes of `what`, returned by `call`, are over the
    /// budget `cap` picks.
    fn within_budget(
        &self,
        call: &str,
        what: &str,
        size: usize,
        cap: impl FnOnce(&Budgets) -> usize,
    ) -> Result<(), PluginError> {
        match check_bytes(what, size, cap(&self.env.budgets)) {
            Ok(()) => Ok(()),
            Err(over) => Err(self.record_fault(over_budget(self.name(), call, &over))),
        }
    }

    pub async fn run_command(
        &self,
        name: &str,
        args: &str,
    ) -> Result<Result<Option<String>, String>, PluginError> {
        let (name, args) = (name.to_string(), args.to_string());
        let setup = CallSetup::plain(self.limits().command);
        self.with_instance(
            &format!("command '/{name}'"),
            setup,
            move |store, guest, _| {
                Box::pin(async move { guest.call_run_command(store, &name, &args).await })
            },
        )
        .await
    }

    pub async fn before_tool_call(&self, call: &ToolCall) -> Result<ToolDecision, PluginError> {
        let call = call.clone();
        self.with_instance(
            "before-tool-call hook",
            CallSetup::plain(self.limits().hook),
            move |store, guest, _| {
                Box::pin(async move { guest.call_before_tool_call(store, &call).await })
            },
        )
        .await
    }

    pub async fn after_tool_call(
        &self,
        call: &ToolCall,
        result: &ToolResult,
    ) -> Result<Option<ToolResult>, PluginError> {
        let (call, result) = (call.clone(), result.clone());
        let label = "after-tool-call hook";
        let replaced = self
            .with_instance(
                label,
                CallSetup::plain(self.limits().hook),
                move |store, guest, _| {
                    Box::pin(async move { guest.call_after_tool_call(store, &call, &result).await })
                },
            )
            .await?;
        if let Some(result) = &replaced {
            self.within_budget(
                label,
                "the replaced tool result",
                tool_result_size(result),
                |b| b.tool_result_bytes,
            )?;
        }
        Ok(replaced)
    }

    pub async fn on_input(&self, text: &str) -> Result<InputAction, PluginError> {
        let text = text.to_string();
        self.with_instance(
            "input hook",
            CallSetup::plain(self.limits().hook),
            move |store, guest, _| Box::pin(async move { guest.call_on_input(store, &text).await }),
        )
        .await
    }

    pub async fn before_agent_start(
        &self,
        prompt: &str,
        system_prompt: &str,
    ) -> Result<AgentStartPatch, PluginError> {
        let (prompt, system_prompt) = (prompt.to_string(), system_prompt.to_string());
        let label = "before-agent-start hook";
        let patch = self
            .with_instance(
                label,
                CallSetup::plain(self.limits().hook),
                move |store, guest, _| {
                    Box::pin(async move {
                        guest
                            .call_before_agent_start(store, &prompt, &system_prompt)
                            .await
                    })
                },
            )
            .await?;
        let added = patch.system_prompt.as_ref().map_or(0, String::len)
            + patch.append_system_prompt.as_ref().map_or(0, String::len)
            + patch.inject.iter().map(|m| m.text.len()).sum::<usize>();
        self.within_budget(
            label,
            "the system prompt and messages it adds",
            added,
            |b| b.message_bytes,
        )?;
        Ok(patch)
    }

    pub async fn context(&self, messages: &str) -> Result<Option<String>, PluginError> {
        let messages = messages.to_string();
        self.with_instance(
            "context hook",
            CallSetup::plain(self.limits().hook),
            move |store, guest, _| {
                Box::pin(async move { guest.call_context(store, &messages).await })
            },
        )
        .await
    }

    pub async fn before_compact(
        &self,
        request: CompactRequest,
    ) -> Result<CompactDecision, PluginError> {
        self.with_instance(
            "before-compact hook",
            CallSetup::plain(self.limits().hook),
            move |store, guest, _| {
                Box::pin(async move { guest.call_before_compact(store, &request).await })
            },
        )
        .await
    }

    pub async fn on_event(&self, kind: EventKind, data: &str) -> Result<(), PluginError> {
        let data = data.to_string();
        self.with_instance(
            "event handler",
            CallSetup::plain(self.limits().hook),
            move |store, guest, _| {
                Box::pin(async move { guest.call_on_event(store, kind, &data).await })
            },
        )
        .await
    }

    /// Checks out an instance for one provider round trip (translate the request, decode the
    /// stream). The decoder resource lives in that instance, so it stays checked out until the
    /// session is closed or dropped.
    pub async fn provider_session(self: &Arc<Self>) -> Result<ProviderSession, PluginError> {
        let live = self.checkout(Some(self.limits().tool)).await?;
        Ok(ProviderSession {
            plugin: self.clone(),
            live: Some(live),
            decoder: None,
        })
    }

    // ---- fan-out ----------------------------------------------------------------------------

    /// Runs `inputs` through the plugin's `task-runner` export on up to `parallelism` instances
    /// at once, each on a blocking thread of its own (a running guest holds its thread, and its
    /// filesystem calls run inline), and returns the results in input order. Tasks share the
    /// caller's `deadline`; once `cancel` fires no further task starts.
    pub(crate) async fn run_tasks(
        self: Arc<Self>,
        inputs: Vec<Vec<u8>>,
        deadline: Instant,
        cancel: CancellationToken,
    ) -> Result<Vec<Result<Vec<u8>, String>>, TasksFailed> {
        if self.task_indices.is_none() {
            return Err(TasksFailed::Refused(format!(
                "plugin '{}' does not export tack:plugin/task-runner, so it cannot run tasks",
                self.name()
            )));
        }
        let output = TaskOutput {
            bytes: Arc::new(AtomicUsize::new(0)),
            cap: self.env.budgets.task_output_bytes,
        };
        let count = inputs.len();
        let workers = self.task_parallelism().min(count).max(1);
        let queue: TaskQueue = Arc::new(Mutex::new(inputs.into_iter().enumerate().collect()));
        // Stops the workers taking new tasks if the caller goes away (its future dropped).
        let stop = cancel.child_token();
        let _stop_when_dropped = stop.clone().drop_guard();
        let handle = tokio::runtime::Handle::current();
        let mut running = Vec::with_capacity(workers);
        for _ in 0..workers {
            let (plugin, queue, stop, handle, output) = (
                self.clone(),
                queue.clone(),
                stop.clone(),
                handle.clone(),
                output.clone(),
            );
            running.push(tokio::task::spawn_blocking(move || {
                handle.block_on(plugin.task_worker(queue, deadline, stop, output))
            }));
        }
        let mut results: Vec<Option<Result<Vec<u8>, String>>> = vec![None; count];
        for worker in running {
            match worker.await {
                Ok(done) => {
                    for (index, result) in done {
                        if let Some(slot) = results.get_mut(index) {
                            *slot = Some(result);
                        }
                    }
                }
                Err(e) => return Err(TasksFailed::Refused(format!("a task worker failed: {e}"))),
            }
        }
        let total = output.bytes.load(Ordering::Relaxed);
        if total > output.cap {
            return Err(TasksFailed::OverBudget(BudgetExceeded::bytes(
                "the output of its tasks",
                total,
                output.cap,
            )));
        }
        Ok(results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err("cancelled before it started".into())))
            .collect())
    }

    /// One worker: takes tasks off the shared queue and runs them on one checked-out instance,
    /// replacing it if a task faults.
    async fn task_worker(
        self: Arc<Self>,
        queue: TaskQueue,
        deadline: Instant,
        stop: CancellationToken,
        output: TaskOutput,
    ) -> Vec<(usize, Result<Vec<u8>, String>)> {
        let mut done = Vec::new();
        let mut live: Option<Live> = None;
        while !stop.is_cancelled() {
            let next = lock(&queue).pop_front();
            let Some((index, input)) = next else {
                break;
            };
            let mut instance = match live.take() {
                Some(instance) => instance,
                // A worker never waits for an instance: with none free it is not started and
                // the other workers (or the caller) take its share.
                None => match self.checkout(None).await {
                    Ok(instance) => instance,
                    Err(e) => {
                        done.push((index, Err(e.to_string())));
                        continue;
                    }
                },
            };
            let budget = deadline.saturating_duration_since(Instant::now());
            if budget.is_zero() {
                done.push((
                    index,
                    Err("the call's time ran out before this task started".into()),
                ));
                live = Some(instance);
                continue;
            }
            let mut setup = CallSetup::plain(budget);
            setup.cancel = stop.clone();
            setup.may_fan_out = false;
            setup.is_task = true;
            let outcome = self
                .invoke(&mut instance, "task", setup, move |store, _, runner| {
                    Box::pin(async move {
                        match runner {
                            Some(runner) => runner.call_run_task(store, &input).await,
                            None => Err(wasmtime::format_err!("the task-runner export is missing")),
                        }
                    })
                })
                .await;
            match outcome {
                Ok(result) => {
                    let size = result.as_ref().map_or_else(String::len, Vec::len);
                    let total = output.bytes.fetch_add(size, Ordering::Relaxed) + size;
                    if total > output.cap {
                        // Over budget: stop every worker; the caller fails (see run_tasks).
                        stop.cancel();
                        done.push((index, Err("over the task output budget".into())));
                    } else {
                        done.push((index, result));
                    }
                    live = Some(instance);
                }
                // The instance faulted and is dropped; the next task gets a fresh one.
                Err(e) => done.push((index, Err(e.to_string()))),
            }
        }
        if let Some(instance) = live {
            self.checkin(instance);
        }
        done
    }

    // ---- instance management ----------------------------------------------------------------

    async fn with_instance<R: Send>(
        &self,
        label: &str,
        setup: CallSetup,
        f: impl GuestCall<R>,
    ) -> Result<R, PluginError> {
        let mut live = self.checkout(Some(setup.budget)).await?;
        let result = self.invoke(&mut live, label, setup, f).await;
        if result.is_ok() {
            self.checkin(live);
        }
        result
    }

    async fn invoke<R: Send>(
        &self,
        live: &mut Live,
        label: &str,
        setup: CallSetup,
        f: impl GuestCall<R>,
    ) -> Result<R, PluginError> {
        {
            let call = &mut live.store.data_mut().call;
            call.deadline = Instant::now() + setup.budget;
            call.budget = setup.budget;
            call.timed_out = false;
            call.cancel = setup.cancel;
            call.tool_call_id = setup.tool_call_id;
            call.progress = setup.progress;
            call.may_fan_out = setup.may_fan_out;
            call.is_task = setup.is_task;
        }
        live.store.set_epoch_deadline(1);
        let Live {
            store,
            bindings,
            task_runner,
            ..
        } = live;
        let outcome = f(store, bindings.tack_plugin_guest(), task_runner.as_ref()).await;
        let state = store.data_mut();
        state.call.progress = None;
        state.call.tool_call_id = None;
        state.call.may_fan_out = false;
        match outcome {
            Ok(value) => Ok(value),
            Err(error) => Err(self.fault(store, label, error)),
        }
    }

    /// Classifies a failed call, counts it, and disables the plugin after too many.
    fn fault(
        &self,
        store: &Store<PluginState>,
        label: &str,
        error: wasmtime::Error,
    ) -> PluginError {
        let state = store.data();
        let plugin = self.name().to_string();
        let call = label.to_string();
        let err = if state.call.timed_out {
            PluginError::Timeout {
                plugin,
                call,
                limit: state.call.budget,
            }
        } else if state.limiter.memory_exceeded {
            PluginError::OutOfMemory {
                plugin,
                call,
                message: root_message(&error),
            }
        } else if matches!(error.downcast_ref::<Trap>(), Some(Trap::StackOverflow)) {
            PluginError::StackOverflow { plugin, call }
        } else if let Some(over) = error.downcast_ref::<BudgetExceeded>() {
            over_budget(&plugin, &call, over)
        } else {
            let mut message = root_message(&error);
            let tail = state.stderr_tail();
            if !tail.is_empty() {
                message = format!("{message}\n{tail}");
            }
            PluginError::Trap {
                plugin,
                call,
                message,
            }
        };
        if state.call.is_task && state.call.timed_out {
            // Not a fault of its own: the call that started the task shares its deadline and
            // is counted when it runs out, once.
            return err;
        }
        self.record_fault(err)
    }

    /// Counts a fault, and disables the plugin after too many.
    fn record_fault(&self, err: PluginError) -> PluginError {
        let faults = self.faults.fetch_add(1, Ordering::Relaxed) + 1;
        let max = self.runtime.config().max_faults;
        if faults >= max {
            let reason = format!("{faults} faults; the last: {err}");
            {
                let mut disabled = lock(&self.disabled);
                if disabled.is_none() {
                    self.env.services.log(
                        self.name(),
                        crate::api::Level::Error,
                        &format!("plugin '{}' disabled after {reason}", self.name()),
                    );
                    *disabled = Some(reason);
                }
            }
            lock(&self.pool).clear();
        }
        err
    }

    /// An instance for one call, from the pool or new. With every permitted instance busy it
    /// waits up to `wait` for one (`None`: not at all); running out of that is over budget and
    /// a fault, as a plugin whose calls pile up holds host memory for each.
    async fn checkout(&self, wait: Option<Duration>) -> Result<Live, PluginError> {
        if let Some(reason) = self.disabled_reason() {
            return Err(PluginError::Disabled {
                plugin: self.name().to_string(),
                reason,
            });
        }
        let permits = self.in_use.clone();
        let permit = match wait {
            None => permits.try_acquire_owned().ok(),
            Some(wait) => tokio::time::timeout(wait, permits.acquire_owned())
                .await
                .ok()
                .and_then(Result::ok),
        };
        let Some(permit) = permit else {
            let cap = self.env.budgets.live_instances;
            let over =
                BudgetExceeded::items("the number of its instances alive at once", cap + 1, cap);
            let err = over_budget(self.name(), "checkout", &over);
            return Err(if wait.is_some() {
                self.record_fault(err)
            } else {
                err
            });
        };
        let pooled = lock(&self.pool).pop();
        let mut live = match pooled {
            Some(live) => live,
            None => self.instantiate().await?.0,
        };
        live.permit = Some(permit);
        Ok(live)
    }

    fn checkin(&self, mut live: Live) {
        live.permit = None;
        if self.disabled_reason().is_some() {
            return;
        }
        let mut pool = lock(&self.pool);
        if pool.len() < self.runtime.config().max_instances {
            pool.push(live);
        }
    }

    async fn instantiate(&self) -> Result<(Live, Registration), PluginError> {
        let mut store = self.new_store()?;
        let label = "init";
        store.data_mut().call.deadline = Instant::now() + self.limits().init;
        store.data_mut().call.budget = self.limits().init;
        store.set_epoch_deadline(1);
        let instance = match self.pre.instantiate_async(&mut store).await {
            Ok(instance) => instance,
            Err(e) => return Err(self.fault(&store, "instantiation", e)),
        };
        let loaded = self
            .indices
            .load(&mut store, &instance)
            .and_then(|bindings| {
                let task_runner = match &self.task_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                Ok((bindings, task_runner))
            });
        let (bindings, task_runner) = match loaded {
            Ok(parts) => parts,
            Err(e) => return Err(self.fault(&store, "instantiation", e)),
        };
        let mut live = Live {
            permit: None,
            store,
            bindings,
            task_runner,
        };
        let ctx = InitContext {
            api_version: API_VERSION.to_string(),
            workspace: self.env.workspace.display().to_string(),
            config: self.config_json.clone(),
            data_dir: self.data_dir.as_ref().map(|d| d.display().to_string()),
        };
        let mut setup = CallSetup::plain(self.limits().init);
        setup.may_fan_out = false;
        let registration = self
            .invoke(&mut live, label, setup, move |store, guest, _| {
                Box::pin(async move { guest.call_init(store, &ctx).await })
            })
            .await?
            .map_err(|message| PluginError::Guest {
                plugin: self.name().to_string(),
                call: label.to_string(),
                message,
            })?;
        Ok((live, registration))
    }

    fn new_store(&self) -> Result<Store<PluginState>, PluginError> {
        let mut wasi = WasiCtxBuilder::new();
        // Guest stdout/stderr are kept (bounded) so a crash report can quote the panic message.
        let output = MemoryOutputPipe::new(1 << 20);
        wasi.stdout(output.clone())
            .stderr(output.clone())
            .allow_blocking_current_thread(ALLOW_BLOCKING_CURRENT_THREAD)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false);
        let mut wasi = wasi.build();
        // The directories opened at load, never looked up by path again.
        *wasi.filesystem() = self.env.fs_dirs.preopens();
        let config = self.runtime.config();
        let state = PluginState::new(
            wasi,
            PluginLimiter::new(config.memory_limit, config.table_limit),
            self.env.clone(),
            output,
        );
        let mut store = Store::new(self.runtime.engine(), state);
        store.limiter(|s| &mut s.limiter);
        store.epoch_deadline_callback(|mut ctx| {
            let call = &mut ctx.data_mut().call;
            if Instant::now() >= call.deadline {
                call.timed_out = true;
                Ok(wasmtime::UpdateDeadline::Interrupt)
            } else {
                Ok(wasmtime::UpdateDeadline::Continue(1))
            }
        });
        Ok(store)
    }
}

struct CallSetup {
    budget: Duration,
    cancel: CancellationToken,
    tool_call_id: Option<String>,
    progress: Option<ProgressSink>,
    may_fan_out: bool,
    is_task: bool,
}

impl CallSetup {
    fn plain(budget: Duration) -> Self {
        Self {
            budget,
            cancel: CancellationToken::new(),
            tool_call_id: None,
            progress: None,
            may_fan_out: true,
            is_task: false,
        }
    }
}

/// One provider round trip on a checked-out instance.
pub struct ProviderSession {
    plugin: Arc<LoadedPlugin>,
    live: Option<Live>,
    decoder: Option<ResourceAny>,
}

impl ProviderSession {
    async fn call<R: Send>(&mut self, label: &str, f: impl GuestCall<R>) -> Result<R, PluginError> {
        let Some(live) = self.live.as_mut() else {
            return Err(PluginError::Disabled {
                plugin: self.plugin.name().to_string(),
                reason: "the provider instance faulted earlier in this request".into(),
            });
        };
        let setup = CallSetup::plain(self.plugin.limits().provider);
        let result = self.plugin.invoke(live, label, setup, f).await;
        if result.is_err() {
            self.live = None;
            self.decoder = None;
        }
        result
    }

    pub async fn build_request(
        &mut self,
        request: ProviderRequest,
    ) -> Result<Result<RequestPlan, ProviderError>, PluginError> {
        self.call("build-request", move |store, guest, _| {
            Box::pin(async move { guest.call_build_request(store, &request).await })
        })
        .await
    }

    pub async fn decode_error(
        &mut self,
        provider: &str,
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> Result<ProviderError, PluginError> {
        let provider = provider.to_string();
        self.call("decode-error", move |store, guest, _| {
            Box::pin(async move {
                guest
                    .call_decode_error(store, &provider, status, &headers, &body)
                    .await
            })
        })
        .await
    }

    pub async fn start_decoder(&mut self, provider: &str, model: &str) -> Result<(), PluginError> {
        let (provider, model) = (provider.to_string(), model.to_string());
        let decoder = self
            .call("decoder", move |store, guest, _| {
                Box::pin(async move {
                    guest
                        .decoder()
                        .call_constructor(store, &provider, &model)
                        .await
                })
            })
            .await?;
        self.decoder = Some(decoder);
        Ok(())
    }

    pub async fn push(
        &mut self,
        event: SseEvent,
    ) -> Result<Result<Vec<StreamEvent>, ProviderError>, PluginError> {
        let decoder = self.require_decoder()?;
        self.call("decoder.push", move |store, guest, _| {
            Box::pin(async move { guest.decoder().call_push(store, decoder, &event).await })
        })
        .await
    }

    pub async fn finish(&mut self) -> Result<Result<Vec<StreamEvent>, ProviderError>, PluginError> {
        let decoder = self.require_decoder()?;
        self.call("decoder.finish", move |store, guest, _| {
            Box::pin(async move { guest.decoder().call_finish(store, decoder).await })
        })
        .await
    }

    fn require_decoder(&self) -> Result<ResourceAny, PluginError> {
        self.decoder.ok_or_else(|| PluginError::Guest {
            plugin: self.plugin.name().to_string(),
            call: "decoder".into(),
            message: "decoder used before it was started".into(),
        })
    }

    /// Returns the instance to the pool (dropping the decoder first).
    pub async fn close(mut self) {
        if let (Some(mut live), Some(decoder)) = (self.live.take(), self.decoder.take()) {
            if decoder.resource_drop_async(&mut live.store).await.is_ok() {
                self.plugin.checkin(live);
            }
        } else if let Some(live) = self.live.take() {
            self.plugin.checkin(live);
        }
    }
}

/// Checks that `wasm` is a component this host can load (a tack plugin for a supported API
/// version) and compiles it into the cache, without instantiating it. Returns the API version.
/// Used at install time, so a broken package is refused before it is recorded.
pub async fn validate_component(
    runtime: &Arc<Runtime>,
    plugin: &str,
    label: &str,
    wasm: Vec<u8>,
) -> Result<String, LoadError> {
    compile(runtime, plugin, label, wasm)
        .await
        .map(|(_, version)| version)
}

/// Checks the header, compiles (or loads from the cache) and reads the supported API version.
async fn compile(
    runtime: &Arc<Runtime>,
    plugin: &str,
    label: &str,
    wasm: Vec<u8>,
) -> Result<(wasmtime::component::Component, String), LoadError> {
    check_wasm_header(plugin, label, &wasm)?;
    let engine = runtime.engine().clone();
    let cache_runtime = runtime.clone();
    let invalid = |message: String| LoadError::InvalidComponent {
        plugin: plugin.to_string(),
        path: label.to_string(),
        message,
    };
    // Compilation is CPU-bound and can take seconds for large components.
    let component = tokio::task::spawn_blocking(move || cache_runtime.cache().load(&engine, &wasm))
        .await
        .map_err(|e| invalid(e.to_string()))?
        .map_err(|e| invalid(format!("{e:#}")))?;
    let version = guest_api_version(plugin, runtime, &component)?;
    Ok((component, version))
}

fn over_budget(plugin: &str, call: &str, over: &BudgetExceeded) -> PluginError {
    PluginError::OverBudget {
        plugin: plugin.to_string(),
        call: call.to_string(),
        over: over.to_string(),
    }
}

fn empty_registration() -> Registration {
    Registration {
        tools: Vec::new(),
        commands: Vec::new(),
        hooks: Vec::new(),
        events: Vec::new(),
        providers: Vec::new(),
    }
}

fn root_message(error: &wasmtime::Error) -> String {
    let text = format!("{error:#}");
    // wasmtime appends a multi-line wasm backtrace; the first line carries the cause.
    text.lines().next().unwrap_or("unknown error").to_string()
}

fn check_wasm_header(plugin: &str, path: &str, bytes: &[u8]) -> Result<(), LoadError> {
    if bytes.len() < 8 || &bytes[..4] != WASM_MAGIC {
        return Err(LoadError::NotWasm {
            plugin: plugin.into(),
            path: path.into(),
        });
    }
    // Core modules carry version 1 (01 00 00 00); components carry 0d 00 01 00.
    if bytes[4..8] == [1, 0, 0, 0] {
        return Err(LoadError::CoreModule {
            plugin: plugin.into(),
            path: path.into(),
        });
    }
    Ok(())
}

/// Reads the `tack:plugin/guest@X` export and refuses versions this host cannot speak.
fn guest_api_version(
    plugin: &str,
    runtime: &Runtime,
    component: &wasmtime::component::Component,
) -> Result<String, LoadError> {
    let ty = component.component_type();
    let mut found = None;
    for (name, _) in ty.exports(runtime.engine()) {
        if let Some(version) = name.strip_prefix("tack:plugin/guest@") {
            found = Some(version.to_string());
        } else if name == "tack:plugin/guest" {
            found = Some(String::new());
        }
    }
    let Some(version) = found else {
        return Err(LoadError::NotAPlugin {
            plugin: plugin.into(),
        });
    };
    if SUPPORTED_API_VERSIONS
        .iter()
        .any(|v| same_series(v, &version))
    {
        Ok(version)
    } else {
        Err(LoadError::UnsupportedApi {
            plugin: plugin.into(),
            found: if version.is_empty() {
                "(unversioned)".into()
            } else {
                version
            },
            supported: SUPPORTED_API_VERSIONS.join(", "),
        })
    }
}

fn validate_registration(plugin: &str, registration: &Registration) -> Result<(), LoadError> {
    let conflict = |message: String| LoadError::InvalidRegistration {
        plugin: plugin.into(),
        message,
    };
    let mut seen = std::collections::HashSet::new();
    for tool in &registration.tools {
        let name_ok = !tool.name.is_empty()
            && tool.name.len() <= 64
            && tool
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !name_ok {
            return Err(conflict(format!(
                "tool name '{}' must be 1-64 of [a-zA-Z0-9_-]",
                tool.name
            )));
        }
        if !seen.insert(tool.name.as_str()) {
            return Err(conflict(format!("registers tool '{}' twice", tool.name)));
        }
        match serde_json::from_str::<serde_json::Value>(&tool.parameters) {
            Ok(serde_json::Value::Object(_)) => {}
            Ok(_) => {
                return Err(conflict(format!(
                    "tool '{}': parameters must be a JSON Schema object",
                    tool.name
                )))
            }
            Err(e) => {
                return Err(conflict(format!(
                    "tool '{}': parameters are not valid JSON: {e}",
                    tool.name
                )))
            }
        }
    }
    let mut commands = std::collections::HashSet::new();
    for command in &registration.commands {
        if !commands.insert(command.name.as_str()) {
            return Err(conflict(format!(
                "registers command '/{}' twice",
                command.name
            )));
        }
    }
    Ok(())
}
