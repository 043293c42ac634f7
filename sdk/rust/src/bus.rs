//! The event bus between plugins (`tack:plugin/bus`, new in 0.2.0), Pi's `pi.events`: send JSON
//! on a channel, and hear what other plugins send there as the `bus_message` event at your
//! [`crate::Observer`]. Both ends need the `bus` grant for the channel (`bus = ["todo:changed"]`
//! in `tack.toml`); a plugin never hears its own messages, and `from` is set by the host.
//!
//! ```rust,no_run
//! use tack_sdk::{bus, export_observer, export_plugin, InitContext, Observer, Plugin, Registration};
//!
//! #[derive(Default)]
//! struct Listener;
//!
//! impl Plugin for Listener {
//!     fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
//!         bus::listen(&["todo:changed"])?;
//!         bus::emit("todo:hello", r#"{"ready":true}"#)?;
//!         Ok(Registration::new())
//!     }
//! }
//!
//! impl Observer for Listener {
//!     fn on_named_event(&mut self, name: &str, data: &str) {
//!         // `data`: {"type":"bus_message","channel":…,"from":"the sender's name","data":…}
//!         if name == bus::BUS_MESSAGE {
//!             let _ = data;
//!         }
//!     }
//! }
//!
//! export_plugin!(Listener);
//! export_observer!(Listener);
//! ```

use crate::additions::tack::plugin0_2_0::bus as host;

/// The name messages arrive under at [`crate::Observer::on_named_event`].
pub const BUS_MESSAGE: &str = "bus_message";

/// Sends `data` (JSON text) on `channel` to every other plugin listening there and granted it.
/// Fails, sending nothing, when the channel is not granted to this plugin or `data` is not JSON
/// or is over 64 KiB.
pub fn emit(channel: &str, data: &str) -> Result<(), String> {
    host::emit(channel, data)
}

/// Listens on the channels named, all or none: a channel not granted fails the call, naming it.
pub fn listen(channels: &[&str]) -> Result<(), String> {
    let channels: Vec<String> = channels.iter().map(|c| c.to_string()).collect();
    host::listen(&channels)
}

/// Stops listening on the channels named.
pub fn unlisten(channels: &[&str]) {
    let channels: Vec<String> = channels.iter().map(|c| c.to_string()).collect();
    host::unlisten(&channels);
}
