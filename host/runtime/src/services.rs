//! What the host application (CLI, TUI, RPC) provides to plugins: the user interface, the
//! session and agent control. The runtime routes each plugin import here, tagged with the
//! plugin's name; the capability broker handles fs, exec, http and secrets itself.

use async_trait::async_trait;

use crate::api::{Delivery, Level, OutgoingMessage, ToolResult};

#[async_trait]
pub trait HostServices: Send + Sync + 'static {
    fn log(&self, plugin: &str, level: Level, message: &str) {
        match level {
            Level::Debug => tracing::debug!(plugin, "{message}"),
            Level::Info => tracing::info!(plugin, "{message}"),
            Level::Warn => tracing::warn!(plugin, "{message}"),
            Level::Error => tracing::error!(plugin, "{message}"),
        }
    }

    /// Partial output of a running tool call.
    fn tool_progress(&self, _plugin: &str, _call_id: &str, _partial: ToolResult) {}

    /// Without a UI, dialogs take their safe default.
    async fn confirm(
        &self,
        _plugin: &str,
        _title: &str,
        _message: &str,
        _timeout_ms: Option<u32>,
    ) -> bool {
        false
    }

    async fn select(
        &self,
        _plugin: &str,
        _title: &str,
        _options: &[String],
        _timeout_ms: Option<u32>,
    ) -> Option<u32> {
        None
    }

    async fn input(
        &self,
        _plugin: &str,
        _title: &str,
        _placeholder: &str,
        _timeout_ms: Option<u32>,
    ) -> Option<String> {
        None
    }

    fn notify(&self, plugin: &str, level: Level, message: &str) {
        self.log(plugin, level, message);
    }

    fn set_status(&self, _plugin: &str, _key: &str, _text: Option<&str>) {}

    fn set_widget(&self, _plugin: &str, _key: &str, _lines: &[String]) {}

    fn session_id(&self) -> String {
        String::new()
    }

    /// The active branch as a JSON array of session entries, as `plugin` may see it: without
    /// other plugins' custom state (see `Session::branch_json_for`).
    fn session_branch(&self, _plugin: &str) -> String {
        "[]".into()
    }

    /// The data of `plugin`'s own newest `custom` entry of `custom_type` on the active branch.
    /// The default searches `session_branch`; hosts with the session at hand should do better.
    fn latest_custom(&self, plugin: &str, custom_type: &str) -> Option<String> {
        let branch: Vec<serde_json::Value> =
            serde_json::from_str(&self.session_branch(plugin)).ok()?;
        branch
            .iter()
            .rev()
            .find(|e| {
                e["type"] == "custom" && e["customType"] == custom_type && e["owner"] == plugin
            })
            .map(|e| e["data"].to_string())
    }

    /// Appends a `custom` entry owned by `plugin`.
    fn append_custom(
        &self,
        _plugin: &str,
        _custom_type: &str,
        _data: &str,
    ) -> Result<String, String> {
        Err("no session is open".into())
    }

    fn send_message(&self, _plugin: &str, _message: OutgoingMessage, _delivery: Delivery) {}

    fn all_tools(&self) -> Vec<String> {
        Vec::new()
    }

    fn active_tools(&self) -> Vec<String> {
        Vec::new()
    }

    fn set_active_tools(&self, _plugin: &str, _names: Vec<String>) -> Result<(), String> {
        Err("no agent is running".into())
    }
}

/// Services for contexts with no session and no UI (`tack plugins`, benchmarks, tests).
pub struct NullServices;

impl HostServices for NullServices {}

/// The conversation message a plugin's `send-message` becomes: always a custom message
/// attributed to `plugin` (the model sees it as user text), so that nothing a plugin says passes
/// for the user's own words in the session, `/tree` or a front end. Without a custom type it is
/// of type `plugin-message`.
pub fn outgoing_message(plugin: &str, message: OutgoingMessage) -> tack_core::message::Message {
    tack_core::message::Message::from_plugin(
        plugin,
        message
            .custom_type
            .unwrap_or_else(|| PLUGIN_MESSAGE_TYPE.to_string()),
        message.text,
        message.display,
    )
}

/// The custom type of a plain message a plugin sends.
pub const PLUGIN_MESSAGE_TYPE: &str = "plugin-message";
