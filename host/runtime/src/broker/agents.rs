//! The host side of `tack:agents/agents`: a plugin with the `agents` grant starts a child run
//! from one of its tool calls. The child's progress streams as that call's progress; the call's
//! cancellation (the user aborting the parent) aborts the child; the time the plugin waits for
//! the child does not count against its own deadline.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bindings::agents_v0_1_0::tack::agents::agents;
use crate::bindings::latest::tack::plugin::types;
use crate::children::{ChildError, ChildOutcome, ChildProgress, ChildRequest, ChildStatus};
use crate::state::{CallKind, PluginState};

impl agents::Host for PluginState {
    async fn run(
        &mut self,
        request: agents::ChildRequest,
    ) -> wasmtime::Result<Result<agents::ChildResult, agents::ChildError>> {
        if !self.env.capabilities.agents {
            return Ok(Err(agents::ChildError::Denied(format!(
                "plugin '{}' has no `agents` grant, so it may not start sub-agents",
                self.env.name
            ))));
        }
        let CallKind::Tool {
            progress, depth, ..
        } = &self.call.kind
        else {
            return Ok(Err(agents::ChildError::Unavailable(
                "only a tool call may start a sub-agent".into(),
            )));
        };
        let Some(children) = self.env.services.agent.children() else {
            return Ok(Err(agents::ChildError::Unavailable(
                "no agent session is running to start a sub-agent from".into(),
            )));
        };
        let depth = *depth;
        let progress = progress.clone().map(|sink| {
            let forward: Arc<dyn Fn(ChildProgress) + Send + Sync> =
                Arc::new(move |p: ChildProgress| {
                    sink(types::ToolResult {
                        content: vec![types::ContentBlock::Text(p.text)],
                        details: Some(p.details.to_string()),
                        is_error: false,
                    })
                });
            forward
        });
        let request = ChildRequest {
            description: request.description,
            prompt: request.prompt,
            system_prompt: request.system_prompt,
            tools: request.tools,
            model: request.model,
            max_turns: request.max_turns,
            max_tokens: request.max_tokens,
            timeout: request.timeout_ms.map(Duration::from_millis),
        };
        let started = Instant::now();
        let cancel = self.call.cancel.clone();
        let outcome = children
            .run_from(depth, &self.env.name, request, cancel, progress)
            .await;
        self.resume_after(started);
        Ok(outcome.map(result).map_err(|e| match e {
            ChildError::Denied(m) => agents::ChildError::Denied(m),
            ChildError::Invalid(m) => agents::ChildError::Invalid(m),
            ChildError::Unavailable(m) => agents::ChildError::Unavailable(m),
        }))
    }
}

fn result(outcome: ChildOutcome) -> agents::ChildResult {
    agents::ChildResult {
        status: match outcome.status {
            ChildStatus::Completed => agents::ChildStatus::Completed,
            ChildStatus::LimitReached => agents::ChildStatus::LimitReached,
            ChildStatus::Aborted => agents::ChildStatus::Aborted,
            ChildStatus::Failed => agents::ChildStatus::Failed,
        },
        text: outcome.text,
        error: outcome.error,
        usage: agents::ChildUsage {
            input: outcome.usage.input,
            output: outcome.usage.output,
            cache_read: outcome.usage.cache_read,
            cache_write: outcome.usage.cache_write,
            cost: outcome.usage.cost,
            turns: outcome.usage.turns,
            tool_calls: outcome.usage.tool_calls,
        },
        model: outcome.model,
        entry_id: outcome.entry_id,
    }
}
