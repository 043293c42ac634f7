//! What the user types that is not a prompt: tack's subcommands (`tack plugins`, `tack import`,
//! `tack plugin new`, …) and the host's slash commands (`/compact`, `/tree`, `!command`, …).

pub mod host;
pub mod keys;
pub mod list;
pub mod mcp;
pub mod migrate;
pub mod packages;
pub mod plugin_dev;
pub mod prompt;
pub mod rewind;
pub mod scaffold;
pub mod shell;
pub mod user_bash;
