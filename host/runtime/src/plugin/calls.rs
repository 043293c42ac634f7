//! The typed calls into a plugin: tools, commands and hooks. Each checks out an instance, runs
//! under its kind's deadline, and holds what the plugin returns to its budget.

use tokio_util::sync::CancellationToken;

use super::pool::over_budget;
use super::{CallSetup, LoadedPlugin};
use crate::api::{
    AgentStartPatch, CompactDecision, CompactRequest, EventKind, InputAction, ToolCall,
    ToolDecision, ToolResult,
};
use crate::bindings::v0_2_0::provider_hooks::exports::tack::plugin0_2_0::provider_hooks::{
    OutgoingRequest, ProviderResponse,
};
use crate::bindings::v0_2_0::session_hooks::exports::tack::plugin0_2_0::session_hooks::{
    ForkRequest, SessionDecision, SwitchRequest, TreeDecision, TreeRequest,
};
use crate::budget::{check_bytes, Budgets};
use crate::error::PluginError;
use crate::state::{tool_result_size, CallKind, ProgressSink};

impl LoadedPlugin {
    /// A call of the session's own agent.
    pub async fn call_tool(
        &self,
        call: ToolCall,
        cancel: CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<ToolResult, PluginError> {
        self.call_tool_at(0, call, cancel, progress, false).await
    }

    /// A call of the agent `depth` levels below the session's own (what a child it starts
    /// would be a level below). `unsandboxed`: the call was approved to run its commands outside
    /// the command sandbox (see `bridge::tools`).
    pub async fn call_tool_at(
        &self,
        depth: u32,
        call: ToolCall,
        cancel: CancellationToken,
        progress: Option<ProgressSink>,
        unsandboxed: bool,
    ) -> Result<ToolResult, PluginError> {
        let label = format!("tool '{}'", call.name);
        let setup = CallSetup {
            budget: self.limits().tool,
            cancel,
            kind: CallKind::Tool {
                call_id: call.id.clone(),
                progress,
                depth,
                unsandboxed,
            },
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
        let setup = CallSetup {
            kind: CallKind::Command { after_idle: false },
            ..CallSetup::plain(self.limits().command)
        };
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

    /// Delivers an event the plugin subscribed to by name (`tack:plugin/events`, 0.2.0) to its
    /// `observer` export; a plugin without the export gets nothing.
    pub async fn on_named_event(&self, name: &str, data: &str) -> Result<(), PluginError> {
        let (name, data) = (name.to_string(), data.to_string());
        self.with_instance(
            "event observer",
            CallSetup::plain(self.limits().hook),
            move |store, _, optional| {
                Box::pin(async move {
                    match &optional.observer {
                        Some(observer) => observer.call_on_event(store, &name, &data).await,
                        None => Ok(()),
                    }
                })
            },
        )
        .await
    }

    /// Tells a plugin whose command waited for the agent to be idle that it is
    /// (`control.wait-for-idle`): the `idle` event, in a call with a command's powers and
    /// deadline, since it goes on with the command.
    pub async fn tell_idle(&self) -> Result<(), PluginError> {
        let setup = CallSetup {
            kind: CallKind::Command { after_idle: true },
            ..CallSetup::plain(self.limits().command)
        };
        self.with_instance("idle after a command", setup, move |store, _, optional| {
            Box::pin(async move {
                match &optional.observer {
                    Some(observer) => {
                        let (name, data) = ("idle".to_string(), "{}".to_string());
                        observer.call_on_event(store, &name, &data).await
                    }
                    None => Ok(()),
                }
            })
        })
        .await
    }

    /// Pi's `before_provider_request` (`tack:plugin/provider-hooks`, 0.2.0): `Some` is the body
    /// the plugin would send instead. A plugin without the export answers `None`. Callers check
    /// the `provider_payload` grant first.
    pub async fn before_provider_request(
        &self,
        request: OutgoingRequest,
    ) -> Result<Option<String>, PluginError> {
        self.with_instance(
            "before-provider-request hook",
            CallSetup::plain(self.limits().hook),
            move |store, _, optional| {
                Box::pin(async move {
                    match &optional.provider_hooks {
                        Some(hooks) => hooks.call_before_provider_request(store, &request).await,
                        None => Ok(None),
                    }
                })
            },
        )
        .await
    }

    /// Pi's `after_provider_response`: the head of the provider's answer.
    pub async fn after_provider_response(
        &self,
        response: ProviderResponse,
    ) -> Result<(), PluginError> {
        self.with_instance(
            "after-provider-response hook",
            CallSetup::plain(self.limits().hook),
            move |store, _, optional| {
                Box::pin(async move {
                    match &optional.provider_hooks {
                        Some(hooks) => hooks.call_after_provider_response(store, &response).await,
                        None => Ok(()),
                    }
                })
            },
        )
        .await
    }

    /// Pi's `session_before_switch` (`tack:plugin/session-hooks`, 0.2.0); a plugin without the
    /// export proceeds.
    pub async fn before_session_switch(
        &self,
        request: SwitchRequest,
    ) -> Result<SessionDecision, PluginError> {
        self.with_instance(
            "before-switch hook",
            CallSetup::plain(self.limits().hook),
            move |store, _, optional| {
                Box::pin(async move {
                    match &optional.session_hooks {
                        Some(hooks) => hooks.call_before_switch(store, &request).await,
                        None => Ok(SessionDecision::Proceed),
                    }
                })
            },
        )
        .await
    }

    /// Pi's `session_before_fork`.
    pub async fn before_session_fork(
        &self,
        request: ForkRequest,
    ) -> Result<SessionDecision, PluginError> {
        self.with_instance(
            "before-fork hook",
            CallSetup::plain(self.limits().hook),
            move |store, _, optional| {
                Box::pin(async move {
                    match &optional.session_hooks {
                        Some(hooks) => hooks.call_before_fork(store, &request).await,
                        None => Ok(SessionDecision::Proceed),
                    }
                })
            },
        )
        .await
    }

    /// Pi's `session_before_tree`.
    pub async fn before_session_tree(
        &self,
        request: TreeRequest,
    ) -> Result<TreeDecision, PluginError> {
        let decision = self
            .with_instance(
                "before-tree hook",
                CallSetup::plain(self.limits().hook),
                move |store, _, optional| {
                    Box::pin(async move {
                        match &optional.session_hooks {
                            Some(hooks) => hooks.call_before_tree(store, &request).await,
                            None => Ok(TreeDecision::Proceed),
                        }
                    })
                },
            )
            .await?;
        if let TreeDecision::Summary(summary) = &decision {
            self.within_budget(
                "before-tree hook",
                "the summary it supplies",
                summary.len(),
                |b| b.message_bytes,
            )?;
        }
        Ok(decision)
    }

    /// Whether the plugin subscribed to the event named `name` (`tack:plugin/events`).
    pub fn wants_event(&self, name: &str) -> bool {
        self.env.events.wants(name)
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
}
