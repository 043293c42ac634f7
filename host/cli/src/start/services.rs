//! What plugins reach in every mode: the runtime's session and agent services, and for the
//! non-interactive modes a user interface that records instead of asking.

use std::sync::{Arc, OnceLock};

use serde_json::json;
use tack_core::event::{AgentEvent, EventSink, NoticeLevel, UiRequest};
use tack_runtime::api::Level;
use tack_runtime::{AgentServices, HostServices, PluginUi, SessionServices};

/// The session and agent every front end gives plugins, attached once they exist.
#[derive(Clone, Default)]
pub struct Backends {
    pub session: Arc<SessionServices>,
    pub agent: Arc<AgentServices>,
    /// Where the non-interactive modes record dialogs and notices.
    pub events: Arc<EventUi>,
}

impl Backends {
    /// What the non-interactive modes give plugins.
    pub fn headless(&self) -> HostServices {
        HostServices {
            ui: self.events.clone(),
            session: self.session.clone(),
            agent: self.agent.clone(),
        }
    }
}

/// The user interface of the non-interactive modes: nobody is there to answer, so dialogs take
/// their safe default, and both dialogs and notices are recorded in the event stream.
#[derive(Default)]
pub struct EventUi {
    sink: OnceLock<Arc<dyn EventSink>>,
}

impl EventUi {
    pub fn attach(&self, sink: Arc<dyn EventSink>) {
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
impl PluginUi for EventUi {
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
