//! The agent's events by name (`tack:plugin/events`, new in 0.2.0): every event of the agent
//! (`message_update` included), where 0.1.0's registration names nine. Subscribe in `init` and implement
//! [`crate::Observer`], exported with [`crate::export_observer!`]:
//!
//! ```rust,no_run
//! use tack_sdk::{events, export_observer, export_plugin, InitContext, Observer, Plugin, Registration};
//!
//! #[derive(Default)]
//! struct Typing { deltas: u64 }
//!
//! impl Plugin for Typing {
//!     fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
//!         events::subscribe(&["message_update"])?;
//!         Ok(Registration::new())
//!     }
//! }
//!
//! impl Observer for Typing {
//!     fn on_named_event(&mut self, _name: &str, _data: &str) {
//!         self.deltas += 1;
//!     }
//! }
//!
//! export_plugin!(Typing);
//! export_observer!(Typing);
//! ```

use crate::additions::tack::plugin0_2_0::events as host;

/// Subscribes to the events named (their `type`, as in `tack --mode json`); an unknown name fails
/// the call, naming it, and subscribes to none.
pub fn subscribe(names: &[&str]) -> Result<(), String> {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    host::subscribe(&names)
}

/// Stops delivering the events named.
pub fn unsubscribe(names: &[&str]) {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    host::unsubscribe(&names);
}
