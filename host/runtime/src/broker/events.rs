//! The host side of `tack:plugin/events` (0.2.0): which events a plugin subscribed to by name,
//! read on every event the agent emits, so the check must cost next to nothing when nobody
//! subscribed (a `message_update` comes per streamed delta).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;

use crate::bindings::v0_2_0::tack::plugin0_2_0::events;
use crate::state::PluginState;

/// Every event a plugin may subscribe to, by its `type` (the names `tack --mode json` uses).
pub const EVENT_NAMES: &[&str] = &[
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "queue_update",
    "compaction_start",
    "compaction_end",
    "auto_retry_start",
    "auto_retry_end",
    "session_start",
    "session_shutdown",
    "model_select",
    "thinking_level_select",
    "session_tree",
    "dialog_open",
    // Told only to the plugin that started the process (`broker::process::imports`), never
    // announced to all subscribers.
    "process_exit",
];

/// One plugin's subscriptions.
#[derive(Default)]
pub struct Subscriptions {
    /// Whether any name is subscribed: the check every event makes first.
    any: AtomicBool,
    names: RwLock<BTreeSet<&'static str>>,
}

impl Subscriptions {
    /// Subscribes to `names`, all or none: an unknown name is an error naming it.
    pub fn subscribe(&self, names: &[String]) -> Result<(), String> {
        let mut known = Vec::with_capacity(names.len());
        for name in names {
            match EVENT_NAMES.iter().find(|n| **n == name.as_str()) {
                Some(n) => known.push(*n),
                None => {
                    return Err(format!(
                        "no event is named '{name}'; events: {}",
                        EVENT_NAMES.join(", ")
                    ))
                }
            }
        }
        let mut set = self.names.write().unwrap_or_else(|e| e.into_inner());
        set.extend(known);
        self.any.store(!set.is_empty(), Ordering::Release);
        Ok(())
    }

    pub fn unsubscribe(&self, names: &[String]) {
        let mut set = self.names.write().unwrap_or_else(|e| e.into_inner());
        set.retain(|n| !names.iter().any(|name| name == n));
        self.any.store(!set.is_empty(), Ordering::Release);
    }

    /// Whether `name` is subscribed; a relaxed load when nothing is.
    pub fn wants(&self, name: &str) -> bool {
        self.any.load(Ordering::Acquire)
            && self
                .names
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .contains(name)
    }
}

impl events::Host for PluginState {
    async fn subscribe(&mut self, names: Vec<String>) -> wasmtime::Result<Result<(), String>> {
        Ok(self.env.events.subscribe(&names))
    }

    async fn unsubscribe(&mut self, names: Vec<String>) -> wasmtime::Result<()> {
        self.env.events.unsubscribe(&names);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_name_subscribes_to_nothing_and_is_named() {
        let subs = Subscriptions::default();
        let err = subs
            .subscribe(&["turn_end".into(), "turn_ended".into()])
            .expect_err("unknown");
        assert!(err.contains("'turn_ended'"), "{err}");
        assert!(!subs.wants("turn_end"));
        subs.subscribe(&["message_update".into()]).expect("known");
        assert!(subs.wants("message_update") && !subs.wants("turn_end"));
        subs.unsubscribe(&["message_update".into()]);
        assert!(!subs.wants("message_update"));
    }
}
