//! What the agent loop needs from tools: their specs, and running one call.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::event::{AgentEvent, EventSink};
use crate::message::{ToolCall, ToolResult};

/// A tool the model can call (WIT `tool-spec`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    /// Short human label ("Read file").
    pub label: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
    pub mode: ExecutionMode,
    /// One line for the system prompt while the tool is active.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_snippet: Option<String>,
}

/// How a tool may be scheduled inside one assistant message's batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionMode {
    /// May run concurrently with the other calls of the batch.
    #[default]
    Parallel,
    /// Forces the whole batch to run one call at a time, in order.
    Sequential,
}

/// The registry of tools. The plugin runtime implements it over tool plugins.
#[async_trait::async_trait]
pub trait ToolExecutor: Send + Sync {
    /// The tools the model may call now (the active set).
    fn tools(&self) -> Vec<ToolSpec>;

    /// Runs one call whose arguments were validated against the tool's schema. Failures the model
    /// should see are an `Ok` result with `is_error`; an `Err` (a trap, a timeout, ...) becomes an
    /// error result naming the cause. `cancel` fires when the user aborts.
    async fn execute(
        &self,
        call: ToolCall,
        cancel: CancellationToken,
        progress: ToolProgress,
    ) -> Result<ToolResult, ToolError>;
}

/// Why a tool call produced no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    Failed(String),
    /// The tool's plugin trapped.
    #[error("the tool crashed: {0}")]
    Crashed(String),
    #[error("the tool did not finish within {after_ms} ms")]
    TimedOut { after_ms: u64 },
    #[error("the tool was cancelled")]
    Cancelled,
}

/// Streams partial results of a running call to front ends (and, when they asked, to hooks),
/// and says whose call it is.
#[derive(Clone)]
pub struct ToolProgress {
    tool_call_id: String,
    tool_name: String,
    sink: Arc<dyn EventSink>,
    depth: u32,
    /// Updates for the hooks that observe streamed events, delivered in order by a task of the
    /// call's own (see `Agent::spawn_call`): the tool's own plugin may be one of them, and its
    /// instance is busy until the call ends.
    observers: Option<tokio::sync::mpsc::UnboundedSender<AgentEvent>>,
}

impl ToolProgress {
    /// For a call of the session's own agent (depth 0).
    pub fn new(tool_call_id: String, tool_name: String, sink: Arc<dyn EventSink>) -> Self {
        ToolProgress {
            tool_call_id,
            tool_name,
            sink,
            depth: 0,
            observers: None,
        }
    }

    /// The same, with its updates also sent to `observers`.
    pub(crate) fn observed_by(
        mut self,
        observers: tokio::sync::mpsc::UnboundedSender<AgentEvent>,
    ) -> Self {
        self.observers = Some(observers);
        self
    }

    /// The same call, made by an agent `depth` levels below the session's own (1: a child).
    /// It travels with the call rather than with the task running it, so work the call hands
    /// to another task still knows it.
    pub fn at_depth(mut self, depth: u32) -> Self {
        self.depth = depth;
        self
    }

    /// How deep the agent making the call is: 0 the session's own, 1 a child of it, ...
    pub fn depth(&self) -> u32 {
        self.depth
    }

    pub fn tool_call_id(&self) -> &str {
        &self.tool_call_id
    }

    /// Emits a `tool_execution_update` event.
    pub fn update(&self, partial: ToolResult) {
        let event = AgentEvent::ToolExecutionUpdate {
            tool_call_id: self.tool_call_id.clone(),
            tool_name: self.tool_name.clone(),
            partial,
        };
        self.sink.emit(&event);
        if let Some(observers) = &self.observers {
            // Closed only once the delivery gave up on an abandoned call.
            let _ = observers.send(event);
        }
    }
}

impl std::fmt::Debug for ToolProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolProgress")
            .field("tool_call_id", &self.tool_call_id)
            .field("tool_name", &self.tool_name)
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}
