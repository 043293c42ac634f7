//! `config.toml` in the tack home: per-plugin configuration and defaults.
//!
//! ```toml
//! provider = "anthropic"
//!
//! [plugins.hello-rust]
//! blocked_word = "deploy"
//!
//! [providers.openai]
//! base_url = "http://localhost:11434/v1"
//! options = { max_tokens_field = "max_tokens" }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;
use tack_runtime::Manifest;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Default provider id (`--provider` overrides).
    #[serde(default)]
    pub provider: Option<String>,
    /// Default model id (`--model` overrides).
    #[serde(default)]
    pub model: Option<String>,
    /// Configuration objects keyed by plugin name, merged over the manifest's defaults.
    #[serde(default)]
    pub plugins: BTreeMap<String, toml::Table>,
    /// Per-provider settings keyed by provider id.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderSettings>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    /// Where requests go instead of the provider's default (Ollama, vLLM, a proxy).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Compatibility flags handed to the provider plugin.
    #[serde(default)]
    pub options: toml::Table,
}

impl Settings {
    pub fn load(path: &Path) -> Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                toml::from_str(&text).with_context(|| format!("{} is malformed", path.display()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    pub fn base_url(&self, provider: &str) -> Option<String> {
        self.providers
            .get(provider)
            .and_then(|p| p.base_url.clone())
    }

    pub fn provider_options(&self, provider: &str) -> serde_json::Value {
        self.providers
            .get(provider)
            .and_then(|p| serde_json::to_value(&p.options).ok())
            .unwrap_or_else(|| serde_json::json!({}))
    }

    /// A command-line override of one plugin config key.
    pub fn set_plugin_option(&mut self, plugin: &str, key: &str, value: toml::Value) {
        self.plugins
            .entry(plugin.to_string())
            .or_default()
            .insert(key.to_string(), value);
    }

    pub fn plugin_config(&self, manifest: &Manifest) -> serde_json::Value {
        let mut merged = manifest.config.clone();
        if let Some(user) = self.plugins.get(&manifest.plugin.name) {
            for (k, v) in user {
                merged.insert(k.clone(), v.clone());
            }
        }
        serde_json::to_value(merged).unwrap_or_else(|_| serde_json::json!({}))
    }
}
