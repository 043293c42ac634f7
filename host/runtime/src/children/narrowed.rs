//! The parent's tools and hooks as a child sees them: the tools narrowed to the allow-list (a
//! subset of the parent's active tools, fixed when the child starts), the hooks that judge tool
//! calls and context passed through unchanged (so every policy plugin applies), the ones about
//! the user's prompt and the session's lifecycle left out. Every tool call carries the child's
//! depth.

use std::sync::Arc;

use tack_core::agent::{Hooks, ToolDecision, ToolError, ToolExecutor, ToolProgress, ToolSpec};
use tack_core::message::{Message, ToolCall, ToolResult};
use tokio_util::sync::CancellationToken;

pub(super) struct ChildTools {
    inner: Arc<dyn ToolExecutor>,
    allowed: Vec<ToolSpec>,
    depth: u32,
}

impl ChildTools {
    /// The parent's active tools, narrowed to `wanted` when given. Naming a tool the parent
    /// cannot use now is an error, not silently dropped: the caller asked for more authority
    /// than it has.
    pub fn narrow(
        inner: Arc<dyn ToolExecutor>,
        wanted: Option<&[String]>,
        depth: u32,
    ) -> Result<Self, String> {
        let active = inner.tools();
        let allowed = match wanted {
            None => active,
            Some(names) => {
                let missing: Vec<&str> = names
                    .iter()
                    .filter(|n| !active.iter().any(|t| &t.name == *n))
                    .map(String::as_str)
                    .collect();
                if !missing.is_empty() {
                    let have: Vec<&str> = active.iter().map(|t| t.name.as_str()).collect();
                    return Err(format!(
                        "the parent cannot use tool{} {} (its active tools: {})",
                        if missing.len() == 1 { "" } else { "s" },
                        missing.join(", "),
                        have.join(", ")
                    ));
                }
                active
                    .into_iter()
                    .filter(|t| names.contains(&t.name))
                    .collect()
            }
        };
        Ok(ChildTools {
            inner,
            allowed,
            depth,
        })
    }
}

#[async_trait::async_trait]
impl ToolExecutor for ChildTools {
    fn tools(&self) -> Vec<ToolSpec> {
        self.allowed.clone()
    }

    async fn execute(
        &self,
        call: ToolCall,
        cancel: CancellationToken,
        progress: ToolProgress,
    ) -> Result<ToolResult, ToolError> {
        // The loop refuses unknown tools already; this holds even if a hook renamed the call.
        if !self.allowed.iter().any(|t| t.name == call.name) {
            return Ok(ToolResult::error(format!(
                "tool '{}' is not available to this sub-agent",
                call.name
            )));
        }
        self.inner
            .execute(call, cancel, progress.at_depth(self.depth))
            .await
    }
}

pub(super) struct ChildHooks {
    inner: Arc<dyn Hooks>,
}

impl ChildHooks {
    pub fn new(inner: Arc<dyn Hooks>) -> Self {
        ChildHooks { inner }
    }
}

#[async_trait::async_trait]
impl Hooks for ChildHooks {
    async fn before_tool_call(&self, call: &ToolCall) -> ToolDecision {
        self.inner.before_tool_call(call).await
    }

    async fn after_tool_call(&self, call: &ToolCall, result: &ToolResult) -> Option<ToolResult> {
        self.inner.after_tool_call(call, result).await
    }

    async fn context(&self, messages: &[Arc<Message>]) -> Option<Vec<Arc<Message>>> {
        self.inner.context(messages).await
    }

    fn rewrites_context(&self) -> bool {
        self.inner.rewrites_context()
    }
}
