//! The provider that sends a catalog entry's requests: its plugin's, or, for a provider whose
//! models speak several APIs (OpenCode Zen), one per API, each request going to the one its model
//! speaks. A switch between two models of such a provider then never sends a run still going on
//! to the other model's API.

use std::collections::HashMap;
use std::sync::Arc;

use tack_core::agent::{ProviderErrorKind, ProviderStream};
use tack_core::{Provider, ProviderError, ProviderRequest};
use tack_runtime::api;
use tack_runtime::bridge::{PayloadHooks, PluginProvider};
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::LoadedPlugin;

use super::catalog::ProviderEntry;
use super::host_credentials::HostCredentials;

/// What a provider is built from besides its catalog entry.
pub struct Serving<'a> {
    /// The URL its requests go to (the command line's, the user's config's or the preset's); for
    /// a provider with several APIs, the root each API's path is appended to.
    pub base_url: Option<String>,
    pub secrets: SecretStore,
    /// The key was the user's own choice (`--api-key`, config.toml).
    pub user_secret: bool,
    pub http: &'a reqwest::Client,
    pub payload_hooks: Option<Arc<PayloadHooks>>,
    pub host_credentials: &'a HostCredentials,
}

impl ProviderEntry {
    /// The provider sending this entry's requests as `serving` says.
    pub fn provider(&self, serving: Serving<'_>) -> Result<Arc<dyn Provider>, String> {
        if self.routes.is_empty() {
            let plugin = self.plugin_provider(
                &self.plugin,
                self.spec.clone(),
                serving.base_url.clone(),
                &serving,
            )?;
            return Ok(Arc::new(plugin));
        }
        let mut by_model = HashMap::new();
        let mut fallback = None;
        for route in &self.routes {
            let spec = api::ProviderSpec {
                id: route.plugin_provider.clone(),
                auth: route.auth.clone(),
                ..self.spec.clone()
            };
            let url = serving
                .base_url
                .as_deref()
                .map(|root| format!("{}{}", root.trim_end_matches('/'), route.path));
            let plugin: Arc<dyn Provider> =
                Arc::new(self.plugin_provider(&route.plugin, spec, url, &serving)?);
            for model in &route.models {
                by_model.insert(model.clone(), plugin.clone());
            }
            // A model the user added in config.toml goes to the provider's own API.
            if route.plugin_provider == self.spec.id {
                fallback = Some(plugin);
            }
        }
        Ok(Arc::new(ByModel {
            provider: self.id.clone(),
            by_model,
            fallback,
        }))
    }

    /// `plugin` serving `spec` (the entry's own, or one route's) with the entry's key, headers
    /// and timeouts.
    fn plugin_provider(
        &self,
        plugin: &Arc<LoadedPlugin>,
        spec: api::ProviderSpec,
        base_url: Option<String>,
        serving: &Serving<'_>,
    ) -> Result<PluginProvider, String> {
        let provider = PluginProvider::new(
            plugin.clone(),
            spec,
            base_url,
            serving.secrets.clone(),
            serving.http.clone(),
        )
        .with_user_secret(serving.user_secret)
        .with_key_prefix(self.key_prefix.clone())
        .judged_by(self.registered_by.clone())
        .named(self.request_id())
        .with_payload_hooks(serving.payload_hooks.clone())
        .with_headers(self.headers.clone())
        .map_err(|e| format!("provider '{}': {e}", self.id))?
        .with_timeouts(self.timeouts)
        .map_err(|e| format!("provider '{}': {e}", self.id))?;
        Ok(serving.host_credentials.apply(provider, serving.http))
    }
}

/// A provider with several APIs: each request goes to the plugin of its model's API.
struct ByModel {
    provider: String,
    by_model: HashMap<String, Arc<dyn Provider>>,
    fallback: Option<Arc<dyn Provider>>,
}

#[async_trait::async_trait]
impl Provider for ByModel {
    async fn stream(&self, request: ProviderRequest) -> Result<ProviderStream, ProviderError> {
        let found = self
            .by_model
            .get(&request.model.id)
            .or(self.fallback.as_ref());
        let Some(provider) = found.cloned() else {
            return Err(ProviderError::new(
                ProviderErrorKind::Other,
                format!(
                    "provider '{}' has no model '{}'",
                    self.provider, request.model.id
                ),
            ));
        };
        provider.stream(request).await
    }
}
