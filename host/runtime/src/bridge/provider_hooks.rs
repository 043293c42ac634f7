//! Pi's `before_provider_request` and `after_provider_response` (`tack:plugin/provider-hooks`,
//! 0.2.0), over the plugins the user granted `provider_payload`, in load order. A plugin without
//! the grant is never called, whatever it exports. A replacement needs `replace`, must stay JSON
//! when the body was JSON, and is recorded in the session under the plugin's name, so what the
//! model was really told can always be traced to who changed it.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::json;
use tack_core::agent::{ProviderError, ProviderErrorKind};

use crate::api::Level;
use crate::bindings::v0_2_0::provider_hooks::exports::tack::plugin0_2_0::provider_hooks::{
    OutgoingRequest, ProviderResponse,
};
use crate::manifest::PayloadAccess;
use crate::plugin::LoadedPlugin;
use crate::plugin_set::PluginSet;

/// The `custom` entry type of the host's record that a plugin replaced a provider request; no
/// plugin may write one itself.
pub const REPLACED_REQUEST_ENTRY_TYPE: &str = "tack.provider-request-replaced";

/// Response headers a plugin never sees: those that carry or set credentials.
const CREDENTIAL_HEADERS: &[&str] = &[
    "set-cookie",
    "set-cookie2",
    "cookie",
    "authorization",
    "proxy-authorization",
    "www-authenticate",
    "proxy-authenticate",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
];

/// The request a provider is about to send, as the hooks are told of it.
pub struct RequestHead<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub method: &'a str,
    /// Below the base URL, without the query.
    pub path: &'a str,
}

pub struct PayloadHooks {
    plugins: Vec<Arc<LoadedPlugin>>,
}

impl PayloadHooks {
    /// The hooks of the plugins in `set` granted `provider_payload`; `None` when there are none,
    /// so a provider without hooks does no work per request.
    pub fn new(set: &PluginSet) -> Option<Arc<Self>> {
        let plugins: Vec<Arc<LoadedPlugin>> = set
            .plugins()
            .iter()
            .filter(|p| p.capabilities.provider_payload.is_some())
            .cloned()
            .collect();
        (!plugins.is_empty()).then(|| Arc::new(Self { plugins }))
    }

    fn active(&self) -> impl Iterator<Item = &Arc<LoadedPlugin>> {
        self.plugins
            .iter()
            .filter(|p| p.disabled_reason().is_none())
    }

    /// The body to send: `body`, or what the hooks replaced it with. Fails (naming the plugin)
    /// on a replacement that is not JSON where the body was, or that is larger than the plugin
    /// could have built.
    pub async fn before_request(
        &self,
        head: &RequestHead<'_>,
        body: Bytes,
    ) -> Result<Bytes, ProviderError> {
        // Only text reaches a plugin; a binary body (no first-party provider sends one) goes
        // unseen rather than mangled.
        let Ok(text) = std::str::from_utf8(&body) else {
            return Ok(body);
        };
        let was_json = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
        let mut current: Option<String> = None;
        for plugin in self.active() {
            let payload = current.clone().unwrap_or_else(|| text.to_string());
            let request = OutgoingRequest {
                provider: head.provider.to_string(),
                model: head.model.to_string(),
                method: head.method.to_string(),
                path: head.path.to_string(),
                payload,
            };
            let replacement = match plugin.before_provider_request(request).await {
                Ok(Some(replacement)) => replacement,
                Ok(None) => continue,
                Err(e) => {
                    warn(
                        plugin,
                        format!("before-provider-request hook failed; body kept: {e}"),
                    );
                    continue;
                }
            };
            if plugin.capabilities.provider_payload != Some(PayloadAccess::Replace) {
                warn(
                    plugin,
                    format!(
                        "tried to replace the request to provider '{}', which needs the \
                         `provider_payload = \"replace\"` grant; it was sent unchanged",
                        head.provider
                    ),
                );
                continue;
            }
            let before = current.as_deref().unwrap_or(text);
            if replacement == before {
                continue;
            }
            let refuse = |why: String| {
                ProviderError::new(
                    ProviderErrorKind::InvalidRequest,
                    format!(
                        "plugin '{}' replaced the request to provider '{}' {why}; nothing was sent",
                        plugin.name(),
                        head.provider
                    ),
                )
            };
            let limit = plugin.runtime.config().memory_limit;
            if replacement.len() > limit {
                return Err(refuse(format!(
                    "with {} bytes, more than its memory limit of {limit}",
                    replacement.len()
                )));
            }
            if was_json {
                if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&replacement) {
                    return Err(refuse(format!("with a body that is not JSON ({e})")));
                }
            }
            let record = json!({
                "provider": head.provider,
                "model": head.model,
                "path": head.path,
                "bytesBefore": before.len(),
                "bytesAfter": replacement.len(),
            });
            if let Err(e) = plugin.services().session.record_for(
                plugin.name(),
                REPLACED_REQUEST_ENTRY_TYPE,
                record,
            ) {
                // A request outside a session (a model check before one opens) has nowhere to
                // be recorded; the log still says who changed it.
                tracing::debug!(plugin = %plugin.name(), "replaced request not recorded: {e}");
            }
            plugin.services().ui.log(
                plugin.name(),
                Level::Info,
                &format!(
                    "replaced the request to provider '{}' ({} bytes → {})",
                    head.provider,
                    before.len(),
                    replacement.len()
                ),
            );
            current = Some(replacement);
        }
        Ok(match current {
            Some(replaced) => Bytes::from(replaced),
            None => body,
        })
    }

    /// Tells each hook the head of the answer, credential headers taken out.
    pub async fn after_response(
        &self,
        head: &RequestHead<'_>,
        status: u16,
        headers: &[(String, String)],
    ) {
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(name, value)| (name.to_ascii_lowercase(), value.clone()))
            .filter(|(name, _)| !CREDENTIAL_HEADERS.contains(&name.as_str()))
            .collect();
        for plugin in self.active() {
            let response = ProviderResponse {
                provider: head.provider.to_string(),
                model: head.model.to_string(),
                status,
                headers: headers.clone(),
            };
            if let Err(e) = plugin.after_provider_response(response).await {
                warn(plugin, format!("after-provider-response hook failed: {e}"));
            }
        }
    }
}

fn warn(plugin: &LoadedPlugin, message: String) {
    plugin
        .services()
        .ui
        .log(plugin.name(), Level::Warn, &message);
}
