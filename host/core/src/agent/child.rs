//! What a child run (a sub-agent) takes from its parent: the same provider, tools, hooks and
//! event sink, and the parent's configuration as it is when the child starts (so a model switch
//! between runs reaches children started later). The child gets its own session and agent; the
//! plugin runtime narrows the tools and hooks and sets its limits.

use std::sync::{Arc, Mutex};

use super::{Agent, AgentConfig, Hooks, Provider, ToolExecutor};
use crate::event::EventSink;

/// A handle on a parent agent's parts, cheap to clone, from which child agents are built.
#[derive(Clone)]
pub struct ChildFactory {
    provider: Arc<dyn Provider>,
    tools: Arc<dyn ToolExecutor>,
    hooks: Arc<dyn Hooks>,
    sink: Arc<dyn EventSink>,
    config: Arc<Mutex<AgentConfig>>,
}

/// The parent's parts as a child starts from them.
pub struct ChildParts {
    pub provider: Arc<dyn Provider>,
    pub tools: Arc<dyn ToolExecutor>,
    pub hooks: Arc<dyn Hooks>,
    pub sink: Arc<dyn EventSink>,
    pub config: AgentConfig,
}

impl ChildFactory {
    pub fn parts(&self) -> ChildParts {
        ChildParts {
            provider: Arc::clone(&self.provider),
            tools: Arc::clone(&self.tools),
            hooks: Arc::clone(&self.hooks),
            sink: Arc::clone(&self.sink),
            config: crate::sync::lock(&self.config).clone(),
        }
    }
}

impl std::fmt::Debug for ChildFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildFactory").finish_non_exhaustive()
    }
}

impl Agent {
    /// The parts a child run of this agent starts from.
    pub fn child_factory(&self) -> ChildFactory {
        ChildFactory {
            provider: Arc::clone(&self.provider),
            tools: Arc::clone(&self.tools),
            hooks: Arc::clone(&self.hooks),
            sink: Arc::clone(&self.sink),
            config: Arc::clone(&self.config),
        }
    }
}
