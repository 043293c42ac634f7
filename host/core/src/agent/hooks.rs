//! The points where plugins may change what the agent does. The loop calls each point once; an
//! implementation chains the subscribed plugins in load order (first block wins, rewrites chain).

use std::sync::Arc;

use serde_json::Value;

use crate::event::AgentEvent;
use crate::message::{Message, ToolCall, ToolResult};

/// Every method has a pass-through default, so an implementation writes only what it uses.
#[async_trait::async_trait]
pub trait Hooks: Send + Sync {
    /// Allow, block or rewrite a call whose arguments passed schema validation. An implementation
    /// that chains several deciders must let every one of them judge the arguments it returns.
    async fn before_tool_call(&self, _call: &ToolCall) -> ToolDecision {
        ToolDecision::Allow
    }

    /// `Some` replaces the result.
    async fn after_tool_call(&self, _call: &ToolCall, _result: &ToolResult) -> Option<ToolResult> {
        None
    }

    /// Rewrites the projected messages about to become the provider's context (a copy; the
    /// session is untouched). `Some` replaces them for this call.
    async fn context(&self, _messages: &[Arc<Message>]) -> Option<Vec<Arc<Message>>> {
        None
    }

    /// Whether [`context`](Self::context) may rewrite anything. When it cannot, the loop hands
    /// the provider the session's kept view instead of projecting a copy for the hook every turn.
    /// The default is the answer that is always correct.
    fn rewrites_context(&self) -> bool {
        true
    }

    /// Transforms or consumes the user's text before the agent sees it.
    async fn input(&self, _text: &str) -> InputAction {
        InputAction::Continue
    }

    /// Changes the system prompt or injects messages before a prompt runs.
    async fn before_agent_start(&self, _prompt: &str, _system_prompt: &str) -> AgentStartPatch {
        AgentStartPatch::default()
    }

    /// Lets the host summarize, cancels the compaction, or supplies its summary.
    async fn before_compact(&self, _request: &CompactRequest) -> CompactDecision {
        CompactDecision::Proceed
    }

    /// Pi's `session_before_tree`: asked before [`Agent::navigate`](super::Agent::navigate)
    /// moves the session, which it may stop or give the summary of the branch left behind.
    async fn before_tree(&self, _request: &TreeRequest) -> TreeDecision {
        TreeDecision::Proceed
    }

    /// Observe-only delivery of the loop's events (see [`AgentEvent::is_observable`]).
    async fn on_event(&self, _event: &AgentEvent) {}

    /// Whether someone observes the streamed events too (deltas and tool progress), which are
    /// otherwise kept from [`Hooks::on_event`]. Asked per streamed event, so it must be cheap.
    fn observes_streaming(&self) -> bool {
        false
    }
}

/// WIT `compact-request`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactRequest {
    /// The messages being summarized, oldest first.
    pub messages: Vec<Arc<Message>>,
    /// The summary of the previous compaction, which the new one replaces.
    pub previous_summary: Option<String>,
    /// Estimated context size before the compaction.
    pub tokens_before: u64,
    /// What the user asked the summary to focus on (`/compact focus on X`).
    pub focus: Option<String>,
}

/// A move in the session tree about to be made (WIT `tree-request`).
#[derive(Debug, Clone, PartialEq)]
pub struct TreeRequest {
    pub target_id: String,
    pub old_leaf_id: Option<String>,
    pub user_wants_summary: bool,
    pub focus: Option<String>,
    /// The messages of the branch left behind, oldest first.
    pub messages_left: Vec<Arc<Message>>,
}

/// WIT `tree-decision`, with who cancelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeDecision {
    Proceed,
    /// Stops the move; `by` names the plugin.
    Cancel {
        by: String,
    },
    /// Moves with this summary of the branch left behind.
    Summary(String),
}

/// WIT `compact-decision`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactDecision {
    /// Let the host summarize.
    Proceed,
    Cancel,
    /// Use this summary.
    Summary(String),
}

/// WIT `tool-decision`.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolDecision {
    Allow,
    /// Stops the call; the model receives the reason as an error result.
    Block(String),
    /// Replaces the arguments; they are validated again. Every deciding hook has already judged
    /// these final arguments.
    Rewrite {
        arguments: Value,
        /// The plugins that changed the arguments, in the order they first did.
        by: Vec<String>,
    },
}

/// WIT `input-action`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputAction {
    Continue,
    Transform(String),
    /// A plugin dealt with the input; the agent does not run.
    Handled,
}

/// WIT `agent-start-patch`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentStartPatch {
    /// Replaces the system prompt for this run.
    pub system_prompt: Option<String>,
    /// Appended to the system prompt (after any replacement).
    pub append_system_prompt: Option<String>,
    /// Custom messages added after the user's prompt.
    pub inject: Vec<InjectedMessage>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectedMessage {
    /// The plugin that injected it.
    pub plugin: String,
    pub custom_type: String,
    pub text: String,
    pub display: bool,
}

/// Hooks that change nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHooks;

impl Hooks for NoHooks {
    fn rewrites_context(&self) -> bool {
        false
    }
}
