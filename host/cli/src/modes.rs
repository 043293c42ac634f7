//! The front ends over one [`crate::start::AgentSession`]: print and JSON mode run one prompt;
//! RPC mode and the terminal UI share the [`driver`] that runs prompts, queues and aborts.

pub mod driver;
pub mod file_args;
pub mod print;
pub mod rpc;
pub mod tui;
