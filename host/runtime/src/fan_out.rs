//! The host side of `tack:plugin/tasks`: a plugin splits one call into tasks that run at the same
//! time on other instances of itself (see `wit/v0.1.0/tasks.wit` and [`LoadedPlugin::run_tasks`]).
//!
//! Task instances come from the plugin's own pool, so they carry exactly its grants: fan-out adds
//! cores, never capabilities.

use std::sync::Arc;

use crate::bindings::latest::extensions::tack::plugin::tasks;
use crate::plugin::{LoadedPlugin, TasksFailed};
use crate::state::PluginState;

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
        if !self.call.may_fan_out {
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
