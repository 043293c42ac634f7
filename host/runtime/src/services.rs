//! What the host application (CLI, TUI, RPC) provides to plugins, in three narrow parts the way
//! wasmtime-wasi gives each capability its own view: the user interface ([`PluginUi`]), the
//! session ([`PluginSession`]) and agent control ([`PluginAgent`]). The runtime routes each
//! plugin import to one part, tagged with the plugin's name; the capability broker handles fs,
//! exec, http and secrets itself.
//!
//! The session and agent parts have one real implementation each here ([`SessionServices`],
//! [`AgentServices`]), attached to the session and tool registry once they exist; front ends
//! bring their own UI, and the interactive ones their own message delivery.

mod agent;
mod providers;
mod session;
mod ui;

use std::sync::Arc;

pub use agent::{
    deliver_quietly, outgoing_message, AgentServices, CompactionRequest, End, EndRequest,
    ModelControl, PluginAgent, PLUGIN_MESSAGE_TYPE,
};
pub use providers::{
    ProviderRegistry, RegisteredProvider, MAX_PROVIDER_MODELS, MAX_REGISTERED_PROVIDERS,
};
pub use session::{PluginSession, SessionServices};
pub use ui::{
    ComponentFrame, ComponentInput, ComponentPlacement, HeadlessUi, PluginUi, ScreenRead,
    ScreenReading, ScreenSetting, WidgetPlacement, WorkingIndicator,
};

/// Everything a plugin reaches outside the broker.
#[derive(Clone)]
pub struct HostServices {
    pub ui: Arc<dyn PluginUi>,
    pub session: Arc<dyn PluginSession>,
    pub agent: Arc<dyn PluginAgent>,
}

impl HostServices {
    /// No UI, and no session or agent until they are attached: `tack plugins`, install checks,
    /// benchmarks.
    pub fn headless() -> Self {
        Self::with_ui(Arc::new(HeadlessUi))
    }

    /// `ui` over a session and agent that are not attached (tests that watch the UI only).
    pub fn with_ui(ui: Arc<dyn PluginUi>) -> Self {
        HostServices {
            ui,
            session: Arc::new(SessionServices::default()),
            agent: Arc::new(AgentServices::default()),
        }
    }
}

impl Default for HostServices {
    fn default() -> Self {
        Self::headless()
    }
}
