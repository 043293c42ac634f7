//! The tool registry over plugins: every tool a loaded plugin registered, filtered by the active
//! set, each call routed to its plugin.

use std::sync::{Arc, RwLock};

use tack_core::agent::{ToolError, ToolExecutor, ToolProgress, ToolSpec};
use tack_core::message::{ToolCall, ToolResult};
use tokio_util::sync::CancellationToken;

use super::convert;
use crate::error::PluginError;
use crate::plugin_set::PluginSet;

pub struct PluginTools {
    set: Arc<PluginSet>,
    /// `None`: every registered tool is active.
    active: Arc<RwLock<Option<Vec<String>>>>,
}

/// Whether a tool call's arguments ask for its commands to run outside the command sandbox
/// (`"unsandboxed": true`, which core-tools' `bash` documents; any tool may carry it).
pub fn asks_to_leave_the_sandbox(arguments: &serde_json::Value) -> bool {
    arguments.get("unsandboxed") == Some(&serde_json::Value::Bool(true))
}

impl PluginTools {
    /// Whether some plugin judges requests to leave the sandbox: one holding the `escalation`
    /// grant, enabled, with a before-tool-call hook. Its hook ran before this call (and every
    /// hook allowed it), so the call is approved; with no such plugin, nobody approved it.
    fn escalation_is_judged(&self) -> bool {
        self.set.plugins().iter().any(|p| {
            p.disabled_reason().is_none()
                && p.capabilities.escalation
                && p.subscribes(crate::api::HookKind::BeforeToolCall)
        })
    }

    pub fn new(set: Arc<PluginSet>) -> Self {
        Self {
            set,
            active: Arc::new(RwLock::new(None)),
        }
    }

    pub fn all_names(&self) -> Vec<String> {
        self.set
            .tools()
            .map(|(_, spec)| spec.name.clone())
            .collect()
    }

    pub fn active_names(&self) -> Vec<String> {
        self.tools().into_iter().map(|t| t.name).collect()
    }

    /// Replaces the active set; names no plugin registered are an error naming them.
    pub fn set_active(&self, names: Vec<String>) -> Result<(), String> {
        let unknown: Vec<&String> = names
            .iter()
            .filter(|n| self.set.tool(n).is_none())
            .collect();
        if !unknown.is_empty() {
            let list: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
            return Err(format!("unknown tools: {}", list.join(", ")));
        }
        if let Ok(mut active) = self.active.write() {
            *active = Some(names);
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl ToolExecutor for PluginTools {
    fn tools(&self) -> Vec<ToolSpec> {
        let active = self.active.read().ok().and_then(|a| a.clone());
        self.set
            .tools()
            .filter(|(plugin, spec)| {
                plugin.disabled_reason().is_none()
                    && active
                        .as_ref()
                        .is_none_or(|names| names.contains(&spec.name))
            })
            .filter_map(|(_, spec)| convert::tool_spec(spec))
            .collect()
    }

    async fn execute(
        &self,
        call: ToolCall,
        cancel: CancellationToken,
        progress: ToolProgress,
    ) -> Result<ToolResult, ToolError> {
        let Some((plugin, _)) = self.set.tool(&call.name) else {
            return Err(ToolError::Failed(format!(
                "no plugin provides the tool '{}'",
                call.name
            )));
        };
        let unsandboxed = asks_to_leave_the_sandbox(&call.arguments);
        if unsandboxed && !self.escalation_is_judged() {
            return Err(ToolError::Failed(format!(
                "the call asks to run outside the command sandbox (`\"unsandboxed\": true`), \
                 but no policy plugin that judges that (the `escalation` grant; \
                 permission-gate has it) is loaded, so it did not run; call {} without it",
                call.name
            )));
        }
        let depth = progress.depth();
        let sink: crate::state::ProgressSink =
            Arc::new(move |partial| progress.update(convert::result(partial)));
        match plugin
            .call_tool_at(
                depth,
                convert::wit_call(&call),
                cancel.clone(),
                Some(sink),
                unsandboxed,
            )
            .await
        {
            Ok(result) => Ok(convert::result(result)),
            Err(PluginError::Timeout { limit, .. }) => Err(ToolError::TimedOut {
                after_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
            }),
            Err(_) if cancel.is_cancelled() => Err(ToolError::Cancelled),
            Err(e) => Err(ToolError::Crashed(e.to_string())),
        }
    }
}
