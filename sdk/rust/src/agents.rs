//! Sub-agents (`tack:agents@0.1.0`, needs the `agents` grant): hand a task to a child agent
//! that runs in a context of its own, and get its answer back.
//!
//! Only a tool call may start a child; while it runs, its progress streams as that call's
//! progress, and cancelling the call aborts it. A child never has more authority than its
//! parent: its tools are a subset of the parent's, every policy plugin judges its calls, and
//! the host's limits (turns, tokens, time, how many at once, how deep) apply.
//!
//! A plugin that calls [`run`] imports `tack:agents`, which hosts older than this package
//! refuse at load; a plugin that does not call it imports nothing new.
//!
//! ```rust,no_run
//! use std::time::Duration;
//! use tack_sdk::agents::{self, ChildTask};
//! use tack_sdk::ToolResult;
//!
//! fn investigate(question: &str) -> ToolResult {
//!     let task = ChildTask::new("Find the config loader", question)
//!         .tools(["read", "grep", "find", "ls"])
//!         .model("anthropic/claude-haiku-4-5")
//!         .max_turns(20)
//!         .timeout(Duration::from_secs(300));
//!     match agents::run(&task) {
//!         Ok(answer) if answer.status.is_done() => ToolResult::text(answer.text),
//!         Ok(answer) => ToolResult::error(format!("the child {}: {}", answer.status,
//!             answer.error.unwrap_or_default())),
//!         Err(e) => ToolResult::error(e.describe()),
//!     }
//! }
//! ```

use std::fmt;
use std::time::Duration;

pub use crate::agents_bindings::tack::agents::agents::{
    ChildError, ChildRequest, ChildResult, ChildStatus, ChildUsage,
};

/// What a child is asked to do; [`ChildTask::new`] and the builder methods fill in a
/// [`ChildRequest`]. Anything left unset is the host's default: the parent's system prompt,
/// tools and model, the host's limits.
#[derive(Debug, Clone)]
pub struct ChildTask {
    request: ChildRequest,
}

impl ChildTask {
    /// `description` is the short label the user sees; `prompt` the child's one user message.
    pub fn new(description: impl Into<String>, prompt: impl Into<String>) -> Self {
        ChildTask {
            request: ChildRequest {
                description: description.into(),
                prompt: prompt.into(),
                system_prompt: None,
                tools: None,
                model: None,
                max_turns: None,
                max_tokens: None,
                timeout_ms: None,
            },
        }
    }

    /// The child's system prompt instead of the parent's.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.request.system_prompt = Some(prompt.into());
        self
    }

    /// The only tools the child may use, each one the parent has active.
    pub fn tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.request.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// A model as `provider/id`, or an id of the parent's provider.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.request.model = Some(model.into());
        self
    }

    /// At most this many turns (the host's cap still applies).
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.request.max_turns = Some(turns);
        self
    }

    /// At most this many tokens, input and output summed over its turns.
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.request.max_tokens = Some(tokens);
        self
    }

    /// At most this long.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.request.timeout_ms = Some(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        self
    }

    /// The request as the host takes it.
    pub fn request(&self) -> &ChildRequest {
        &self.request
    }
}

/// Runs the child to its end (from a tool call only) and returns its answer.
pub fn run(task: &ChildTask) -> Result<ChildResult, ChildError> {
    crate::agents_bindings::tack::agents::agents::run(&task.request)
}

impl ChildStatus {
    /// As the WIT spells it: `completed`, `limit-reached`, `aborted`, `failed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ChildStatus::Completed => "completed",
            ChildStatus::LimitReached => "limit-reached",
            ChildStatus::Aborted => "aborted",
            ChildStatus::Failed => "failed",
        }
    }

    /// Whether the child finished its work: it completed, or hit a limit with an answer so
    /// far (not aborted, not failed).
    pub fn is_done(&self) -> bool {
        matches!(self, ChildStatus::Completed | ChildStatus::LimitReached)
    }
}

impl fmt::Display for ChildStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ChildUsage {
    /// Input, output and cache tokens together.
    pub fn tokens(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

impl ChildError {
    /// A sentence for the model or the user: what kind of refusal, and the host's reason.
    /// (The generated `Display` shows the variant's debug form.)
    pub fn describe(&self) -> String {
        match self {
            ChildError::Denied(m) => format!("the sub-agent was not allowed: {m}"),
            ChildError::Invalid(m) => format!("the sub-agent could not start: {m}"),
            ChildError::Unavailable(m) => format!("no sub-agent could start: {m}"),
        }
    }
}
