//! Slash commands registered while running (`tack:plugin/commands`, new in 0.2.0), as Pi's
//! `registerCommand` works at any time: an MCP client adds a server's prompts once it has listed
//! them. `/name args` then reaches [`crate::Plugin::run_command`] like the commands `init`
//! returned.
//!
//! ```rust,no_run
//! use tack_sdk::commands;
//!
//! commands::register("deploy", "Deploy the current branch")?;
//! # Ok::<(), commands::RegisterError>(())
//! ```

use crate::additions::tack::plugin0_2_0::commands as host;
pub use crate::additions::tack::plugin0_2_0::commands::{
    all, unregister, CommandInfo, RegisterError,
};
use crate::CommandSpec;

/// Registers one of this plugin's commands (`/name`), or replaces the description of one it
/// registered before.
pub fn register(name: &str, description: &str) -> Result<(), RegisterError> {
    host::register(&CommandSpec {
        name: name.to_string(),
        description: description.to_string(),
    })
}

impl RegisterError {
    /// The host's explanation, without the variant name.
    pub fn message(&self) -> &str {
        match self {
            RegisterError::Invalid(m) | RegisterError::Taken(m) | RegisterError::Limit(m) => m,
        }
    }
}
