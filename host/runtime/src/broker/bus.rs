//! The host side of `tack:plugin/bus` (0.2.0): an event bus between the plugins of one plugin
//! set, Pi's `pi.events`. Both ends must hold the `bus` grant for a channel: the sender to send
//! on it, the listener to hear it, so what crosses is only what the user let both sides share.
//!
//! A message never runs a listener inside the sender's call: it goes into the listener's own
//! bounded queue, which one task per listener drains in order through the `observer` export.
//! A listener that answers on the bus therefore cannot deadlock its sender, and a sender that
//! floods fills only queues that drop (with a warning) once full.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use tack_core::sync::lock;
use tokio::sync::mpsc;

use crate::api::Level;
use crate::bindings::v0_2_0::tack::plugin0_2_0::bus;
use crate::plugin::LoadedPlugin;
use crate::state::{PluginEnv, PluginState};

/// The event a message arrives as, at the listener's `observer.on-event`.
pub const BUS_MESSAGE: &str = "bus_message";
/// Longest channel name, in bytes (names are ASCII).
pub const MAX_CHANNEL_LEN: usize = 64;
/// Channels one plugin may be granted, and listen on.
pub const MAX_CHANNELS: usize = 32;
/// Largest `data` of one message, as JSON text.
pub const MAX_MESSAGE_BYTES: usize = 64 << 10;
/// Messages waiting for one listener; more are dropped until it catches up.
pub const QUEUE_LEN: usize = 256;

/// `Err` naming the channel when it is not 1 to [`MAX_CHANNEL_LEN`] characters of `a-z`,
/// `A-Z`, `0-9`, `-`, `_`, `.`, `:` or `/`: a name that shows the same in a grant prompt, a
/// log line and `tack.toml`, with nothing a terminal would interpret.
pub fn check_channel(channel: &str) -> Result<(), String> {
    let well_formed = !channel.is_empty()
        && channel.len() <= MAX_CHANNEL_LEN
        && channel
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/'));
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "bus channel '{}' must be 1-{MAX_CHANNEL_LEN} characters of a-z, A-Z, 0-9, '-', '_', \
             '.', ':' or '/'",
            channel.escape_debug()
        ))
    }
}

/// The bus of one plugin set: every plugin granted a channel, held weakly so that a plugin
/// that goes (a reload) drops out without being told.
#[derive(Default)]
pub struct Bus {
    members: Mutex<Vec<Weak<PluginEnv>>>,
}

impl Bus {
    /// Adds a plugin; one without a `bus` grant can neither send nor hear, so it is not kept.
    pub fn join(&self, env: &Arc<PluginEnv>) {
        if env.capabilities.bus.is_empty() {
            return;
        }
        let mut members = lock(&self.members);
        members.retain(|m| m.strong_count() > 0);
        members.push(Arc::downgrade(env));
    }

    fn members(&self) -> Vec<Arc<PluginEnv>> {
        lock(&self.members)
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// Sends `data` from `from` on `channel`: to every other member granted the channel and
    /// listening on it. The event's `from` is the sender's name as the host knows it.
    fn send(&self, from: &Arc<PluginEnv>, channel: &str, data: &str) -> Result<(), String> {
        check_channel(channel)?;
        if !from.capabilities.bus.iter().any(|c| c == channel) {
            return Err(not_granted(channel));
        }
        crate::budget::check_bytes(
            &format!("the message on bus channel '{channel}'"),
            data.len(),
            MAX_MESSAGE_BYTES,
        )
        .map_err(|e| e.to_string())?;
        let data: serde_json::Value = serde_json::from_str(data)
            .map_err(|e| format!("the message on bus channel '{channel}' is not JSON: {e}"))?;
        let event = serde_json::json!({
            "type": BUS_MESSAGE,
            "channel": channel,
            "from": from.name,
            "data": data,
        })
        .to_string();
        let message = Message {
            channel: channel.to_string(),
            event: Arc::from(event),
        };
        for member in self.members() {
            if Arc::ptr_eq(&member, from)
                || !member.capabilities.bus.iter().any(|c| c == channel)
                || !member.bus.listens(channel)
            {
                continue;
            }
            if member.bus.offer(message.clone()) {
                from.services.ui.log(
                    &from.name,
                    Level::Warn,
                    &format!(
                        "bus: '{}' is not keeping up with channel '{channel}': messages from \
                         '{}' to it are dropped until its queue of {QUEUE_LEN} has room",
                        member.name, from.name
                    ),
                );
            }
        }
        Ok(())
    }
}

fn not_granted(channel: &str) -> String {
    format!("bus channel '{channel}' is not granted to this plugin (grant it with bus = [\"{channel}\"])")
}

#[derive(Clone)]
struct Message {
    channel: String,
    /// The whole `bus_message` event, serialized once for every listener.
    event: Arc<str>,
}

/// One plugin's end of its set's bus: what it listens on, and its queue.
pub struct Port {
    bus: Arc<Bus>,
    listening: RwLock<BTreeSet<String>>,
    /// `None` for a plugin with no `bus` grant.
    queue: Option<Queue>,
}

struct Queue {
    sender: mpsc::Sender<Message>,
    /// Taken by the task that delivers, once the plugin is published.
    inbox: Mutex<Option<mpsc::Receiver<Message>>>,
    /// Whether the last message offered was dropped, so a flood warns once, not per message.
    dropping: AtomicBool,
}

impl Port {
    /// A port on `bus`; `granted`: whether the plugin holds any `bus` grant (else it gets no
    /// queue, and every call is refused before reaching one).
    pub fn new(bus: Arc<Bus>, granted: bool) -> Self {
        let queue = granted.then(|| {
            let (sender, inbox) = mpsc::channel(QUEUE_LEN);
            Queue {
                sender,
                inbox: Mutex::new(Some(inbox)),
                dropping: AtomicBool::new(false),
            }
        });
        Self {
            bus,
            listening: RwLock::default(),
            queue,
        }
    }

    /// The bus this port is on.
    pub fn bus(&self) -> &Arc<Bus> {
        &self.bus
    }

    fn listens(&self, channel: &str) -> bool {
        self.listening
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(channel)
    }

    /// Queues `message`. True when it was dropped for a full queue and the message before it
    /// was not: the start of a run of drops, worth one warning.
    fn offer(&self, message: Message) -> bool {
        let Some(queue) = &self.queue else {
            return false;
        };
        match queue.sender.try_send(message) {
            Ok(()) => {
                queue.dropping.store(false, Ordering::Relaxed);
                false
            }
            Err(mpsc::error::TrySendError::Full(_)) => {
                !queue.dropping.swap(true, Ordering::Relaxed)
            }
            // The delivering task is gone: the plugin is going.
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Starts delivering this plugin's messages, once it is loaded (messages sent to it while
    /// its `init` ran wait in its queue). Without a tokio runtime nothing is delivered.
    pub fn start(&self, plugin: Weak<LoadedPlugin>) {
        let Some(queue) = &self.queue else {
            return;
        };
        let Some(inbox) = lock(&queue.inbox).take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(deliver(plugin, inbox));
        }
    }

    fn listen(&self, env: &PluginEnv, channels: &[String]) -> Result<(), String> {
        for channel in channels {
            check_channel(channel)?;
            if !env.capabilities.bus.iter().any(|c| c == channel) {
                return Err(not_granted(channel));
            }
        }
        let mut listening = self.listening.write().unwrap_or_else(|e| e.into_inner());
        let added = channels.iter().filter(|c| !listening.contains(*c));
        let total = listening.len() + added.collect::<BTreeSet<_>>().len();
        if total > MAX_CHANNELS {
            return Err(format!(
                "listening on {total} bus channels is over the cap of {MAX_CHANNELS}"
            ));
        }
        listening.extend(channels.iter().cloned());
        Ok(())
    }

    fn unlisten(&self, channels: &[String]) {
        self.listening
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|c| !channels.contains(c));
    }
}

/// Drains one listener's queue in order, one event at a time, until the plugin goes.
async fn deliver(plugin: Weak<LoadedPlugin>, mut inbox: mpsc::Receiver<Message>) {
    while let Some(message) = inbox.recv().await {
        let Some(plugin) = plugin.upgrade() else {
            return;
        };
        // Checked again at delivery: it may have stopped listening since the message was queued.
        if plugin.disabled_reason().is_some() || !plugin.env.bus.listens(&message.channel) {
            continue;
        }
        if let Err(e) = plugin.on_named_event(BUS_MESSAGE, &message.event).await {
            plugin.services().ui.log(
                plugin.name(),
                Level::Warn,
                &format!(
                    "event observer failed on {BUS_MESSAGE} (channel '{}'): {e}",
                    message.channel
                ),
            );
        }
    }
}

impl bus::Host for PluginState {
    async fn emit(
        &mut self,
        channel: String,
        data: String,
    ) -> wasmtime::Result<Result<(), String>> {
        let env = self.env.clone();
        Ok(env.bus.bus.send(&env, &channel, &data))
    }

    async fn listen(&mut self, channels: Vec<String>) -> wasmtime::Result<Result<(), String>> {
        Ok(self.env.bus.listen(&self.env, &channels))
    }

    async fn unlisten(&mut self, channels: Vec<String>) -> wasmtime::Result<()> {
        self.env.bus.unlisten(&channels);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_names_are_plain_and_short() {
        for good in [
            "x",
            "plan-mode:changed",
            "a/b.c_d",
            &"c".repeat(MAX_CHANNEL_LEN),
        ] {
            assert!(check_channel(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "a b",
            "\u{1b}[2J",
            "é",
            &"c".repeat(MAX_CHANNEL_LEN + 1),
        ] {
            assert!(check_channel(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_full_queue_drops_and_warns_once_per_run() {
        let port = Port::new(Arc::default(), true);
        let message = || Message {
            channel: "x".into(),
            event: Arc::from("{}"),
        };
        for _ in 0..QUEUE_LEN {
            assert!(!port.offer(message()));
        }
        assert!(port.offer(message()), "the first drop warns");
        assert!(!port.offer(message()), "later drops of the run do not");
    }
}
