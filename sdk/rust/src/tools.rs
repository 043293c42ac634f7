//! Tools registered while running (`tack:plugin/tools`, new in 0.2.0), as Pi's `registerTool`
//! works at any time: an MCP adapter adds the tools its server lists, a plugin adds a tool once
//! a condition holds. Calls of a registered tool reach [`crate::Plugin::call_tool`] like those of
//! the tools `init` returned; the model sees the change from its next turn.
//!
//! ```rust,no_run
//! use tack_sdk::serde_json::json;
//! use tack_sdk::{tools, ToolSpec};
//!
//! tools::register(ToolSpec::new(
//!     "weather",
//!     "Weather",
//!     "The weather in `city`.",
//!     json!({ "type": "object", "properties": { "city": { "type": "string" } } }),
//! ))?;
//! # Ok::<(), tools::RegisterError>(())
//! ```

use crate::additions::tack::plugin0_2_0::tools as host;
pub use crate::additions::tack::plugin0_2_0::tools::{all, unregister, RegisterError, ToolInfo};
use crate::ToolSpec;

/// Registers one of this plugin's tools, or replaces the spec of one it registered before.
pub fn register(spec: ToolSpec) -> Result<(), RegisterError> {
    host::register(&spec)
}

impl RegisterError {
    /// The host's explanation, without the variant name.
    pub fn message(&self) -> &str {
        match self {
            RegisterError::Invalid(m) | RegisterError::Taken(m) | RegisterError::Limit(m) => m,
        }
    }
}
