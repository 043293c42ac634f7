//! The host side of `tack:plugin/exec`: each spawn is authorized against the plugin's grant,
//! runs in the workspace (or a folder inside it) with the minimal environment, and is cancelled
//! with the call that started it, confined by the session's command sandbox.

use std::time::{Duration, Instant};

use wasmtime::component::Resource;

use super::{
    authorize, child_env, resolve_cwd, AuthorizeError, ChildEnv, Observed, ProcessHandle,
    Sandboxing,
};
use crate::bindings::latest::tack::plugin::exec;
use crate::state::PluginState;

impl exec::Host for PluginState {
    async fn spawn(
        &mut self,
        request: exec::ExecRequest,
    ) -> wasmtime::Result<Result<Resource<ProcessHandle>, exec::ExecError>> {
        let plan = match authorize(&request.command, &self.env.capabilities.exec) {
            Ok(plan) => plan,
            Err(e @ (AuthorizeError::NoGrant | AuthorizeError::NotCovered { .. })) => {
                return Ok(Err(exec::ExecError::Denied(e.to_string())))
            }
            Err(e @ AuthorizeError::Invalid(_)) => {
                return Ok(Err(exec::ExecError::Invalid(e.to_string())))
            }
        };
        let cwd = match resolve_cwd(&self.env.workspace, request.cwd.as_deref()) {
            Ok(cwd) => cwd,
            Err(e) if e.outside => return Ok(Err(exec::ExecError::Denied(e.message))),
            Err(e) => return Ok(Err(exec::ExecError::Invalid(e.message))),
        };
        let timeout = request.timeout_ms.map(Duration::from_millis);
        let env = ChildEnv::Only(child_env(
            std::env::vars_os(),
            &self.env.capabilities.env,
            |name| self.env.secrets.holds(name),
        ));
        let sandbox = Sandboxing {
            policy: &self.env.sandbox,
            workspace: &self.env.workspace,
        };
        let spawned = ProcessHandle::spawn(
            plan,
            env,
            &cwd,
            timeout,
            self.call.cancel.clone(),
            // A tool call the user (through a policy with the `escalation` grant) let out of
            // the sandbox runs its commands unconfined; nothing else does.
            (!self.call.kind.unsandboxed()).then_some(sandbox),
        );
        match spawned {
            Ok(handle) => Ok(Ok(self.table.push(handle)?)),
            Err(e) => Ok(Err(exec::ExecError::Failed(format!(
                "cannot start `{}`: {e}",
                request.command
            )))),
        }
    }
}

impl exec::HostProcess for PluginState {
    async fn next(
        &mut self,
        process: Resource<ProcessHandle>,
        wait_ms: u32,
    ) -> wasmtime::Result<exec::ProcessEvent> {
        let started = Instant::now();
        let wait = Duration::from_millis(u64::from(wait_ms.min(60_000)));
        let observed = self.table.get_mut(&process)?.next(wait).await;
        self.resume_after(started);
        Ok(match observed {
            Observed::Stdout(b) => exec::ProcessEvent::Stdout(b),
            Observed::Stderr(b) => exec::ProcessEvent::Stderr(b),
            Observed::Exited(code) => exec::ProcessEvent::Exited(code),
            Observed::Idle => exec::ProcessEvent::Idle,
            Observed::TimedOut => exec::ProcessEvent::TimedOut,
            Observed::Cancelled => exec::ProcessEvent::Cancelled,
        })
    }

    async fn kill(&mut self, process: Resource<ProcessHandle>) -> wasmtime::Result<()> {
        self.table.get_mut(&process)?.kill();
        Ok(())
    }

    async fn drop(&mut self, process: Resource<ProcessHandle>) -> wasmtime::Result<()> {
        self.table.delete(process)?;
        Ok(())
    }
}
