//! LLM providers registered while running (`tack:plugin/providers`, new in 0.2.0), Pi's
//! `registerProvider` and `unregisterProvider`: a team's proxy, a corporate endpoint, the models
//! a local server lists. The provider gets a new id the user picks like any other; its requests
//! are written by the provider that speaks its API (`api: Some("anthropic")`) or, with no `api`,
//! by this plugin's own provider functions. It is used only once the user granted this plugin
//! its secret (`secrets`) and its endpoint (`http`), or set them in config.toml.
//!
//! ```rust,no_run
//! use tack_sdk::providers::{self, ProviderRegistration};
//! use tack_sdk::ModelSpec;
//!
//! providers::register(
//!     &ProviderRegistration::new("team-proxy", "https://llm.example.com")
//!         .api("anthropic")
//!         .secret("TEAM_PROXY_KEY")
//!         .model(ModelSpec::new("claude-sonnet-4-5", "Claude Sonnet 4.5 (proxy)", 200_000, 64_000)),
//! )?;
//! providers::unregister("team-proxy");
//! # Ok::<(), providers::RegisterError>(())
//! ```

use crate::additions::tack::plugin0_2_0::providers as host;
pub use crate::additions::tack::plugin0_2_0::providers::{
    unregister, ProviderRegistration, RegisterError,
};
use crate::{AuthScheme, ModelSpec};

/// Registers one of this plugin's providers, or replaces one it registered before.
pub fn register(provider: &ProviderRegistration) -> Result<(), RegisterError> {
    host::register(provider)
}

impl ProviderRegistration {
    /// A provider `id` whose requests go to `base_url`, with no key, no models yet, and this
    /// plugin's own provider functions writing them.
    pub fn new(id: &str, base_url: &str) -> Self {
        ProviderRegistration {
            id: id.to_string(),
            name: String::new(),
            api: None,
            base_url: base_url.to_string(),
            secret: None,
            auth: None,
            headers: Vec::new(),
            models: Vec::new(),
        }
    }

    /// Its human name.
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// The provider whose plugin writes its requests (`anthropic`, `openai`, …).
    pub fn api(mut self, api: &str) -> Self {
        self.api = Some(api.to_string());
        self
    }

    /// The secret holding its key (the user must grant it to this plugin).
    pub fn secret(mut self, secret: &str) -> Self {
        self.secret = Some(secret.to_string());
        self
    }

    /// How the key is attached, where it is not as its API attaches its own.
    pub fn auth(mut self, auth: AuthScheme) -> Self {
        self.auth = Some(auth);
        self
    }

    /// A header added to every request.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// One of its models.
    pub fn model(mut self, model: ModelSpec) -> Self {
        self.models.push(model);
        self
    }
}

impl RegisterError {
    /// The host's explanation, without the variant name.
    pub fn message(&self) -> &str {
        match self {
            RegisterError::Invalid(m) | RegisterError::Taken(m) | RegisterError::Limit(m) => m,
        }
    }
}
