//! tack-core's agent traits implemented over loaded plugins: tools, hooks and providers.

mod convert;
mod hooks;
mod provider;
mod tools;

pub use hooks::PluginHooks;
pub use provider::PluginProvider;
pub use tools::PluginTools;
