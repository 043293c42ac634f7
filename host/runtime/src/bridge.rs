//! tack-core's agent traits implemented over loaded plugins: tools, hooks and providers.

pub mod aws;
mod convert;
pub mod google_auth;
mod hooks;
pub mod login_token;
mod message_json;
mod provider;
pub mod provider_authority;
mod provider_hooks;
mod tools;

pub use aws::AwsSigner;
pub use google_auth::{GoogleEnvironment, GoogleTokenSource};
pub use hooks::{MoveCancelled, PluginHooks, SwitchReason};
pub use login_token::{LoginToken, LoginTokenSource};
pub use provider::{reserved_header, PluginProvider, ReservedHeader, StreamTimeouts};
pub use provider_authority::{ProviderDenied, UserChoice};
pub use provider_hooks::{PayloadHooks, REPLACED_REQUEST_ENTRY_TYPE};
pub use tools::{PluginTools, RegisterError, ToolInfo};
