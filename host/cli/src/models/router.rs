//! The agent's provider in the interactive modes (RPC and the terminal UI): it passes each
//! request to the provider of the request's model, so the user can move to another provider
//! between runs while a run still going on keeps the one its configuration names.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tack_core::agent::{ProviderErrorKind, ProviderStream};
use tack_core::{Provider, ProviderError, ProviderRequest};

use super::choose::Chosen;
use crate::sync::lock;

pub struct ProviderRouter {
    /// Providers by catalog id (what `ModelInfo::provider` holds). Never removed: a run may still
    /// be using one the client has switched away from.
    providers: Mutex<HashMap<String, Arc<dyn Provider>>>,
}

impl ProviderRouter {
    pub fn new(id: &str, provider: Arc<dyn Provider>) -> Self {
        let router = ProviderRouter {
            providers: Mutex::default(),
        };
        router.add(id, provider);
        router
    }

    /// `chosen` with its provider behind a new router, so the model can change later.
    pub fn route(chosen: Chosen) -> (Arc<ProviderRouter>, Chosen) {
        let router = Arc::new(ProviderRouter::new(&chosen.model.provider, chosen.provider));
        let chosen = Chosen {
            provider: router.clone(),
            model: chosen.model,
            options: chosen.options,
            reasoning: chosen.reasoning,
            notices: chosen.notices,
        };
        (router, chosen)
    }

    /// Adds or replaces the provider serving catalog id `id`.
    pub fn add(&self, id: &str, provider: Arc<dyn Provider>) {
        lock(&self.providers).insert(id.to_string(), provider);
    }
}

#[async_trait::async_trait]
impl Provider for ProviderRouter {
    async fn stream(&self, request: ProviderRequest) -> Result<ProviderStream, ProviderError> {
        let provider = lock(&self.providers).get(&request.model.provider).cloned();
        match provider {
            Some(provider) => provider.stream(request).await,
            None => Err(ProviderError::new(
                ProviderErrorKind::Other,
                format!("provider '{}' is not set up", request.model.provider),
            )),
        }
    }
}
