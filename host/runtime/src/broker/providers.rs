//! The host side of `tack:plugin/providers` (0.2.0): providers a plugin registers while tack
//! runs, kept in the run's [`ProviderRegistry`](crate::ProviderRegistry) under the calling
//! plugin's name. Registering needs no grant; using one is judged by this plugin's `secrets` and
//! `http` grants when the front end builds its model catalog.

use crate::bindings::v0_2_0::tack::plugin0_2_0::providers;
use crate::bridge::RegisterError;
use crate::services::RegisteredProvider;
use crate::state::PluginState;

impl providers::Host for PluginState {
    async fn register(
        &mut self,
        provider: providers::ProviderRegistration,
    ) -> wasmtime::Result<Result<(), providers::RegisterError>> {
        let provider = RegisteredProvider {
            plugin: self.env.name.clone(),
            name: if provider.name.is_empty() {
                provider.id.clone()
            } else {
                provider.name
            },
            id: provider.id,
            api: provider.api,
            base_url: provider.base_url,
            secret: provider.secret,
            auth: provider.auth,
            headers: provider.headers,
            models: provider.models,
        };
        let registry = self.env.services.agent.providers();
        let registered = registry.register(&self.env.name, provider);
        Ok(registered.map_err(|e| match e {
            RegisterError::Invalid(m) => providers::RegisterError::Invalid(m),
            RegisterError::Taken(m) => providers::RegisterError::Taken(m),
            RegisterError::Limit(m) => providers::RegisterError::Limit(m),
        }))
    }

    async fn unregister(&mut self, id: String) -> wasmtime::Result<bool> {
        Ok(self
            .env
            .services
            .agent
            .providers()
            .unregister(&self.env.name, &id))
    }
}
