//! tack's core: the message model, the events front ends consume, the session tree and its
//! projection, the agent loop, compaction, and the system prompt.
//!
//! It knows nothing of WebAssembly: tools, hooks and providers are reached through the traits in
//! [`agent`], which the plugin runtime implements.

pub mod agent;
pub mod compaction;
pub mod event;
pub mod keys;
pub mod message;
pub mod session;
pub mod sync;
pub mod system_prompt;
pub mod text;
pub mod tokens;

pub use agent::{
    Agent, AgentConfig, AgentError, Hooks, ModelInfo, Provider, ProviderError, ProviderRequest,
    RunOutcome, RunStatus, StreamEvent, ToolExecutor, ToolSpec,
};
pub use event::{AgentEvent, EventSink};
pub use message::{Message, ToolCall, ToolResult};
pub use session::{Entry, EntryKind, Session, SessionError, SessionHandle, SessionStore};
