use std::time::Duration;

/// Why a plugin could not be loaded. Each variant names the plugin and the cause so the user can
/// act on it; the host keeps running with the other plugins.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("plugin '{plugin}': cannot read {path}: {source}")]
    Io {
        plugin: String,
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("plugin '{plugin}': invalid manifest: {message}")]
    Manifest { plugin: String, message: String },
    #[error("plugin '{plugin}': {path} is not a WebAssembly file")]
    NotWasm { plugin: String, path: String },
    #[error(
        "plugin '{plugin}': {path} is a core WebAssembly module, not a component; build it for \
         wasm32-wasip2 (or componentize it) against the tack:plugin WIT"
    )]
    CoreModule { plugin: String, path: String },
    #[error("plugin '{plugin}': {path} is not a valid component: {message}")]
    InvalidComponent {
        plugin: String,
        path: String,
        message: String,
    },
    #[error(
        "plugin '{plugin}' does not export the tack:plugin/guest interface; is it a tack plugin?"
    )]
    NotAPlugin { plugin: String },
    #[error(
        "plugin '{plugin}' was built against tack:plugin@{found}, but this tack supports {supported}; \
         rebuild it with a supported SDK or update tack"
    )]
    UnsupportedApi {
        plugin: String,
        found: String,
        supported: String,
    },
    #[error("plugin '{plugin}' cannot be linked: {message}")]
    Link { plugin: String, message: String },
    #[error("plugin '{plugin}' failed to start: {source}")]
    Init {
        plugin: String,
        #[source]
        source: PluginError,
    },
    /// It provides a tool, command or provider another loaded plugin already has.
    #[error("plugin '{plugin}': {message}")]
    Conflict { plugin: String, message: String },
    /// What its `init` returned is malformed (a bad tool name, a schema that is not an object).
    #[error("plugin '{plugin}' registered something invalid: {message}")]
    InvalidRegistration { plugin: String, message: String },
    /// Its granted directories could not be opened; no code of the plugin ran.
    #[error("plugin '{plugin}': its sandbox could not be set up: {source}")]
    Sandbox {
        plugin: String,
        #[source]
        source: crate::broker::fs::FsGrantError,
    },
    /// Names are owned: the first plugin with a name (built-in ones above all) keeps it, and a
    /// second is refused before any of its code runs.
    #[error("plugin '{plugin}' from {source_label} not loaded: the name belongs to {owner}; rename the package")]
    NameTaken {
        plugin: String,
        source_label: String,
        owner: String,
    },
}

/// Why one call into a plugin failed. The plugin's instance is discarded; the host goes on.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PluginError {
    #[error("plugin '{plugin}' exceeded its {limit:?} time limit in {call}")]
    Timeout {
        plugin: String,
        call: String,
        limit: Duration,
    },
    #[error("plugin '{plugin}' ran out of memory in {call}: {message}")]
    OutOfMemory {
        plugin: String,
        call: String,
        message: String,
    },
    #[error("plugin '{plugin}' overflowed its stack in {call}")]
    StackOverflow { plugin: String, call: String },
    #[error("plugin '{plugin}' crashed in {call}: {message}")]
    Trap {
        plugin: String,
        call: String,
        message: String,
    },
    #[error("plugin '{plugin}' is disabled: {reason}")]
    Disabled { plugin: String, reason: String },
    #[error("plugin '{plugin}' returned an error from {call}: {message}")]
    Guest {
        plugin: String,
        call: String,
        message: String,
    },
    /// The plugin handed the host more than its budget allows (see `budget.rs`); `over` says
    /// what, how much, and the cap.
    #[error("plugin '{plugin}' exceeded its budget in {call}: {over}")]
    OverBudget {
        plugin: String,
        call: String,
        over: String,
    },
}

impl PluginError {
    pub fn plugin(&self) -> &str {
        match self {
            PluginError::Timeout { plugin, .. }
            | PluginError::OutOfMemory { plugin, .. }
            | PluginError::StackOverflow { plugin, .. }
            | PluginError::Trap { plugin, .. }
            | PluginError::Disabled { plugin, .. }
            | PluginError::Guest { plugin, .. }
            | PluginError::OverBudget { plugin, .. } => plugin,
        }
    }
}
