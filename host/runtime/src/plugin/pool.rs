//! The instance pool and the one way into the guest: check an instance out (within the
//! plugin's budget of live instances), run one call on it under a deadline, classify what went
//! wrong, and check it back in. A faulted instance is dropped; too many faults disable the plugin.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use wasmtime::{Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::WasiCtxBuilder;

use super::LoadedPlugin;
use crate::api::{InitContext, Registration};
use crate::bindings::latest::exports::tack::plugin::guest::Guest;
use crate::bindings::latest::extensions::exports::tack::plugin::task_runner::Guest as TaskRunner;
use crate::bindings::latest::Plugin as Bindings;
use crate::bindings::provider_v0_1_0::exports::tack::provider::incremental::Guest as Incremental;
use crate::bindings::v0_2_0::completions::exports::tack::plugin0_2_0::completions::Guest as Completions;
use crate::bindings::v0_2_0::editor::exports::tack::plugin0_2_0::editor::Guest as EditorExport;
use crate::bindings::v0_2_0::observer::exports::tack::plugin0_2_0::observer::Guest as Observer;
use crate::bindings::v0_2_0::provider_hooks::exports::tack::plugin0_2_0::provider_hooks::Guest as ProviderHooks;
use crate::bindings::v0_2_0::renderers::exports::tack::plugin0_2_0::renderers::Guest as Renderers;
use crate::bindings::v0_2_0::session_hooks::exports::tack::plugin0_2_0::session_hooks::Guest as SessionHooks;
use crate::bindings::API_VERSION;
use crate::budget::BudgetExceeded;
use crate::error::PluginError;
use crate::limits::PluginLimiter;
use crate::state::{CallKind, PluginState};
use tack_core::message::Message;
use tack_core::sync::lock;

/// Run filesystem calls inline rather than through spawn_blocking: a tree walk makes tens of
/// thousands of them, and the guest already occupies this thread while it runs. Measured: grep
/// over 54k files 4.8 s -> 1.06 s.
pub(crate) const ALLOW_BLOCKING_CURRENT_THREAD: bool = true;

pub(crate) struct Live {
    /// Held while the instance is checked out (not while it idles in the pool): the plugin's
    /// budget of instances alive at once.
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
    pub(crate) store: Store<PluginState>,
    bindings: Bindings,
    pub(crate) optional: OptionalExports,
    /// What this instance last built a provider request from and the body it built, when it
    /// exports `tack:provider/incremental`: what the next request need not send again, and
    /// what its body may repeat.
    pub(crate) sent: Sent,
}

/// A provider instance's previous request, as the host sent it.
#[derive(Default)]
pub(crate) struct Sent {
    pub messages: Vec<Arc<Message>>,
    pub body: bytes::Bytes,
}

/// The exports a plugin may leave out.
pub(crate) struct OptionalExports {
    pub task_runner: Option<TaskRunner>,
    pub incremental: Option<Incremental>,
    pub observer: Option<Observer>,
    pub provider_hooks: Option<ProviderHooks>,
    pub session_hooks: Option<SessionHooks>,
    pub completions: Option<Completions>,
    pub renderers: Option<Renderers>,
    pub editor: Option<EditorExport>,
}

/// What runs on a checked-out instance: given the store, the guest exports and the optional
/// exports the plugin has, it makes one call.
pub(crate) trait GuestCall<R>:
    for<'a> FnOnce(&'a mut Store<PluginState>, &'a Guest, &'a OptionalExports) -> CallFuture<'a, R>
    + Send
{
}

impl<R, F> GuestCall<R> for F where
    F: for<'a> FnOnce(
            &'a mut Store<PluginState>,
            &'a Guest,
            &'a OptionalExports,
        ) -> CallFuture<'a, R>
        + Send
{
}

pub(crate) type CallFuture<'a, R> = Pin<Box<dyn Future<Output = wasmtime::Result<R>> + Send + 'a>>;

/// How one call runs: its time, what cancels it, and what kind of call it is.
pub(crate) struct CallSetup {
    pub budget: Duration,
    pub cancel: CancellationToken,
    pub kind: CallKind,
}

impl CallSetup {
    /// A command, hook, event or provider call.
    pub fn plain(budget: Duration) -> Self {
        Self {
            budget,
            cancel: CancellationToken::new(),
            kind: CallKind::Other,
        }
    }
}

impl LoadedPlugin {
    pub(crate) async fn with_instance<R: Send>(
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

    pub(crate) async fn invoke<R: Send>(
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
            call.kind = setup.kind;
            call.component = Default::default();
        }
        live.store.set_epoch_deadline(1);
        let Live {
            store,
            bindings,
            optional,
            ..
        } = live;
        let outcome = f(store, bindings.tack_plugin_guest(), optional).await;
        // Classified while the store still knows what kind of call failed.
        let result = outcome.map_err(|error| self.fault(store, label, error));
        let state = store.data_mut();
        state.call.kind = CallKind::Idle;
        // A component lives no longer than the call that drew it (Pi's `custom` resolves
        // before its command or tool returns).
        if state.call.component.shown {
            state.env.services.ui.close_component(&state.env.name);
        }
        result
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
        if state.call.kind.is_task() && state.call.timed_out {
            // Not a fault of its own: the call that started the task shares its deadline and
            // is counted when it runs out, once.
            return err;
        }
        self.record_fault(err)
    }

    /// Counts a fault, and disables the plugin after too many.
    pub(crate) fn record_fault(&self, err: PluginError) -> PluginError {
        let faults = self.faults.fetch_add(1, Ordering::Relaxed) + 1;
        let max = self.runtime.config().max_faults;
        if faults >= max {
            let reason = format!("{faults} faults; the last: {err}");
            {
                let mut disabled = lock(&self.disabled);
                if disabled.is_none() {
                    self.env.services.ui.log(
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
    pub(crate) async fn checkout(&self, wait: Option<Duration>) -> Result<Live, PluginError> {
        self.check_enabled()?;
        let permits = self.in_use.clone();
        let permit = match wait {
            None => permits.try_acquire_owned().ok(),
            Some(wait) => tokio::time::timeout(wait, permits.acquire_owned())
                .await
                .ok()
                .and_then(Result::ok),
        };
        let Some(permit) = permit else {
            let cap = self.instance_cap;
            let over =
                BudgetExceeded::items("the number of its instances alive at once", cap + 1, cap);
            let err = over_budget(self.name(), "checkout", &over);
            return Err(if wait.is_some() {
                self.record_fault(err)
            } else {
                err
            });
        };
        self.live_holding(permit).await
    }

    /// Runs one call on an instance that comes free within `patience`; `None` when none does.
    /// For calls that may as well not happen (drawing a block the UI can draw itself): a
    /// plugin busy with the agent's work is neither waited on for long nor counted at fault.
    pub(crate) async fn with_free_instance<R: Send>(
        &self,
        label: &str,
        setup: CallSetup,
        patience: Duration,
        f: impl GuestCall<R>,
    ) -> Result<Option<R>, PluginError> {
        self.check_enabled()?;
        let permit = tokio::time::timeout(patience, self.in_use.clone().acquire_owned()).await;
        let Ok(Ok(permit)) = permit else {
            return Ok(None);
        };
        let mut live = self.live_holding(permit).await?;
        let result = self.invoke(&mut live, label, setup, f).await;
        if result.is_ok() {
            self.checkin(live);
        }
        result.map(Some)
    }

    /// Refuses a call to a plugin disabled after too many faults.
    fn check_enabled(&self) -> Result<(), PluginError> {
        match self.disabled_reason() {
            Some(reason) => Err(PluginError::Disabled {
                plugin: self.name().to_string(),
                reason,
            }),
            None => Ok(()),
        }
    }

    /// A pooled or new instance, checked out under `permit`.
    async fn live_holding(
        &self,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) -> Result<Live, PluginError> {
        let pooled = lock(&self.pool).pop();
        let mut live = match pooled {
            Some(live) => live,
            None => {
                let (live, registration) = self.instantiate().await?;
                if self.remembered
                    && !crate::known_registrations::same_providers(
                        &self.registration,
                        &registration,
                    )
                {
                    // A deferred plugin was listed with what it registered on an earlier run;
                    // the key should make that impossible, so say so rather than guess.
                    tracing::warn!(
                        plugin = %self.name(),
                        "plugin registered other providers than it did when it was remembered"
                    );
                }
                live
            }
        };
        live.permit = Some(permit);
        Ok(live)
    }

    pub(crate) fn checkin(&self, mut live: Live) {
        live.permit = None;
        if self.disabled_reason().is_some() {
            return;
        }
        let mut pool = lock(&self.pool);
        if pool.len() < self.runtime.config().max_instances {
            pool.push(live);
        }
    }

    pub(crate) async fn instantiate(&self) -> Result<(Live, Registration), PluginError> {
        let linked = self.linked().await?;
        let mut store = self.new_store()?;
        let label = "init";
        store.data_mut().call.deadline = Instant::now() + self.limits().init;
        store.data_mut().call.budget = self.limits().init;
        store.set_epoch_deadline(1);
        let instance = match linked.pre.instantiate_async(&mut store).await {
            Ok(instance) => instance,
            Err(e) => return Err(self.fault(&store, "instantiation", e)),
        };
        let loaded = linked
            .indices
            .load(&mut store, &instance)
            .and_then(|bindings| {
                let task_runner = match &linked.task_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                let incremental = match &linked.incremental_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                let observer = match &linked.observer_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                let provider_hooks = match &linked.provider_hooks_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                let session_hooks = match &linked.session_hooks_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                let completions = match &linked.completions_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                let renderers = match &linked.renderers_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                let editor = match &linked.editor_indices {
                    Some(indices) => Some(indices.load(&mut store, &instance)?),
                    None => None,
                };
                Ok((
                    bindings,
                    OptionalExports {
                        task_runner,
                        incremental,
                        observer,
                        provider_hooks,
                        session_hooks,
                        completions,
                        renderers,
                        editor,
                    },
                ))
            });
        let (bindings, optional) = match loaded {
            Ok(parts) => parts,
            Err(e) => return Err(self.fault(&store, "instantiation", e)),
        };
        let mut live = Live {
            permit: None,
            store,
            bindings,
            optional,
            sent: Sent::default(),
        };
        let ctx = InitContext {
            api_version: API_VERSION.to_string(),
            workspace: self.env.workspace.display().to_string(),
            config: self.config_json.clone(),
            data_dir: self.data_dir.as_ref().map(|d| d.display().to_string()),
        };
        let setup = CallSetup {
            kind: CallKind::Init,
            ..CallSetup::plain(self.limits().init)
        };
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

pub(crate) fn over_budget(plugin: &str, call: &str, over: &BudgetExceeded) -> PluginError {
    PluginError::OverBudget {
        plugin: plugin.to_string(),
        call: call.to_string(),
        over: over.to_string(),
    }
}

fn root_message(error: &wasmtime::Error) -> String {
    let text = format!("{error:#}");
    // wasmtime appends a multi-line wasm backtrace; the first line carries the cause.
    text.lines().next().unwrap_or("unknown error").to_string()
}
