//! Host services for the non-interactive modes: plugin logs go to stderr, dialogs resolve to
//! their safe default and are recorded in the event stream, session and agent requests go to the
//! running session and tool registry.

use std::sync::{Arc, OnceLock};

use serde_json::json;
use tack_core::agent::MessageQueues;
use tack_core::event::{AgentEvent, EventSink, NoticeLevel, UiRequest};
use tack_core::session::SessionHandle;
use tack_runtime::api::{Delivery, Level, OutgoingMessage};
use tack_runtime::bridge::PluginTools;
use tack_runtime::HostServices;

#[derive(Default)]
pub struct CliServices {
    session: OnceLock<SessionHandle>,
    tools: OnceLock<Arc<PluginTools>>,
    queues: OnceLock<MessageQueues>,
    sink: OnceLock<Arc<dyn EventSink>>,
}

impl CliServices {
    pub fn attach_session(&self, session: SessionHandle) {
        let _ = self.session.set(session);
    }

    pub fn attach_tools(&self, tools: Arc<PluginTools>) {
        let _ = self.tools.set(tools);
    }

    pub fn attach_agent(&self, queues: MessageQueues, sink: Arc<dyn EventSink>) {
        let _ = self.queues.set(queues);
        let _ = self.sink.set(sink);
    }

    fn emit(&self, event: AgentEvent) {
        if let Some(sink) = self.sink.get() {
            sink.emit(&event);
        }
    }

    fn record_dialog(&self, plugin: &str, request: UiRequest, response: serde_json::Value) {
        self.emit(AgentEvent::PluginUiRequest {
            plugin: plugin.to_string(),
            request,
            response,
        });
    }
}

#[async_trait::async_trait]
impl HostServices for CliServices {
    async fn confirm(
        &self,
        plugin: &str,
        title: &str,
        message: &str,
        timeout_ms: Option<u32>,
    ) -> bool {
        self.record_dialog(
            plugin,
            UiRequest::Confirm {
                title: title.to_string(),
                message: message.to_string(),
                timeout_ms,
            },
            json!(false),
        );
        false
    }

    async fn select(
        &self,
        plugin: &str,
        title: &str,
        options: &[String],
        timeout_ms: Option<u32>,
    ) -> Option<u32> {
        self.record_dialog(
            plugin,
            UiRequest::Select {
                title: title.to_string(),
                options: options.to_vec(),
                timeout_ms,
            },
            serde_json::Value::Null,
        );
        None
    }

    async fn input(
        &self,
        plugin: &str,
        title: &str,
        placeholder: &str,
        timeout_ms: Option<u32>,
    ) -> Option<String> {
        self.record_dialog(
            plugin,
            UiRequest::Input {
                title: title.to_string(),
                placeholder: placeholder.to_string(),
                timeout_ms,
            },
            serde_json::Value::Null,
        );
        None
    }

    fn notify(&self, plugin: &str, level: Level, message: &str) {
        let level = match level {
            Level::Debug | Level::Info => NoticeLevel::Info,
            Level::Warn => NoticeLevel::Warn,
            Level::Error => NoticeLevel::Error,
        };
        self.emit(AgentEvent::Notice {
            level,
            message: format!("[{plugin}] {message}"),
        });
    }

    fn session_id(&self) -> String {
        self.session
            .get()
            .map(|s| s.lock().id().to_string())
            .unwrap_or_default()
    }

    fn session_branch(&self, plugin: &str) -> String {
        let Some(session) = self.session.get() else {
            return "[]".into();
        };
        session.lock().branch_json_for(plugin).to_string()
    }

    fn latest_custom(&self, plugin: &str, custom_type: &str) -> Option<String> {
        let session = self.session.get()?.lock();
        session
            .plugin_state(plugin, custom_type)
            .map(|data| data.to_string())
    }

    fn append_custom(&self, plugin: &str, custom_type: &str, data: &str) -> Result<String, String> {
        let session = self.session.get().ok_or("no session is open")?;
        let data: serde_json::Value = serde_json::from_str(data)
            .map_err(|e| format!("custom entry data is not JSON: {e}"))?;
        let mut session = session.lock();
        let entry = session
            .append_plugin_state(plugin, custom_type, data)
            .map_err(|e| e.to_string())?;
        Ok(entry.id.clone())
    }

    fn send_message(&self, plugin: &str, message: OutgoingMessage, delivery: Delivery) {
        let Some(queues) = self.queues.get() else {
            return;
        };
        let message = tack_runtime::services::outgoing_message(plugin, message);
        match delivery {
            Delivery::Steer => queues.steer(message),
            // Without an interactive session there is no next prompt: deliver when the agent
            // would otherwise stop, so the message is not lost.
            Delivery::FollowUp | Delivery::NextTurn => queues.follow_up(message),
        }
    }

    fn all_tools(&self) -> Vec<String> {
        self.tools.get().map(|t| t.all_names()).unwrap_or_default()
    }

    fn active_tools(&self) -> Vec<String> {
        self.tools
            .get()
            .map(|t| t.active_names())
            .unwrap_or_default()
    }

    fn set_active_tools(&self, _plugin: &str, names: Vec<String>) -> Result<(), String> {
        self.tools
            .get()
            .ok_or("no agent is running")?
            .set_active(names)
    }
}

/// A plugin's log level as the interactive modes show it (the headless ones fold debug into
/// info).
pub fn notice_level(level: Level) -> NoticeLevel {
    match level {
        Level::Debug => NoticeLevel::Debug,
        Level::Info => NoticeLevel::Info,
        Level::Warn => NoticeLevel::Warn,
        Level::Error => NoticeLevel::Error,
    }
}
