//! The host side of `tack:plugin/tasks`: a plugin splits one call into tasks that run at the same
//! time on other instances of itself (see `wit/plugin/v0.1.0/tasks.wit` and [`LoadedPlugin::run_tasks`]).
//!
//! Task instances come from the plugin's own pool, so they carry exactly its grants: fan-out adds
//! cores, never capabilities.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use crate::bindings::latest::extensions::tack::plugin::tasks;
use crate::budget::BudgetExceeded;
use crate::plugin::{CallSetup, Live, LoadedPlugin};
use crate::state::{CallKind, PluginState};
use tack_core::sync::lock;

/// More inputs than this in one `run` is refused: the inputs are all held in host memory at once.
pub const MAX_TASKS: usize = 4096;

impl tasks::Host for PluginState {
    async fn parallelism(&mut self) -> wasmtime::Result<u32> {
        let plugin = self.env.plugin.get().and_then(std::sync::Weak::upgrade);
        Ok(plugin.map_or(1, |p| {
            u32::try_from(p.task_parallelism()).unwrap_or(u32::MAX)
        }))
    }

    async fn run(
        &mut self,
        inputs: Vec<Vec<u8>>,
    ) -> wasmtime::Result<Result<Vec<Result<Vec<u8>, String>>, String>> {
        if !self.call.kind.may_fan_out() {
            return Ok(Err(
                "tasks cannot be started from init or from inside another task".into(),
            ));
        }
        if inputs.len() > MAX_TASKS {
            return Ok(Err(format!(
                "{} tasks in one run; at most {MAX_TASKS} are allowed",
                inputs.len()
            )));
        }
        let Some(plugin) = self.env.plugin.get().and_then(std::sync::Weak::upgrade) else {
            return Ok(Err(
                "tasks are not available while the plugin is loading".into()
            ));
        };
        if inputs.is_empty() {
            return Ok(Ok(Vec::new()));
        }
        // The caller's clock keeps running while its tasks work: they work on its behalf.
        let deadline = self.call.deadline;
        let cancel = self.call.cancel.clone();
        match Arc::clone(&plugin)
            .run_tasks(inputs, deadline, cancel)
            .await
        {
            Ok(results) => Ok(Ok(results)),
            Err(TasksFailed::Refused(message)) => Ok(Err(message)),
            // Traps the caller, which counts the fault (see `LoadedPlugin::fault`).
            Err(TasksFailed::OverBudget(over)) => Err(over.into()),
        }
    }
}

impl LoadedPlugin {
    /// How many tasks of one `run` execute at the same time.
    pub fn task_parallelism(&self) -> usize {
        self.runtime().config().task_parallelism.max(1)
    }
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

impl LoadedPlugin {
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
        let linked = self
            .linked()
            .await
            .map_err(|e| TasksFailed::Refused(e.to_string()))?;
        if linked.task_indices.is_none() {
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
            let setup = CallSetup {
                budget,
                cancel: stop.clone(),
                kind: CallKind::Task,
            };
            let outcome = self
                .invoke(&mut instance, "task", setup, move |store, _, optional| {
                    Box::pin(async move {
                        match &optional.task_runner {
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
}
