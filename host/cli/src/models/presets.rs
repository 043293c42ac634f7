//! Providers a Pi user has that speak an API tack's plugins speak (OpenAI Chat Completions and
//! Responses, Anthropic Messages): their key's variable, base URL, headers, compat options and models with
//! prices, from `presets.json`, which `scripts/refresh-provider-presets` generates from the model
//! catalog of the pinned Pi package (itself generated from models.dev).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use tack_runtime::api::{InputKind, ModelCost, ModelSpec};

#[derive(Deserialize)]
struct File {
    providers: Vec<Preset>,
}

#[derive(Deserialize)]
pub struct Preset {
    pub id: String,
    pub name: String,
    /// The plugin provider that speaks its API: `openai`, `openai-responses`, `anthropic` or
    /// `bedrock-converse-stream`.
    pub api: String,
    /// Empty where the user's settings decide it ([`super::azure`], [`super::bedrock`]).
    pub base_url: String,
    /// The environment variable (or auth.json key) holding its API key; empty for a
    /// subscription (`crate::subscription`).
    pub secret: String,
    /// The header the key goes in, where the API does not take it as its plugin sends it.
    #[serde(default)]
    pub key_header: Option<String>,
    /// What goes before the key in that header (Cloudflare's AI Gateway: `Bearer `).
    #[serde(default)]
    pub key_prefix: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub options: serde_json::Map<String, serde_json::Value>,
    /// A provider whose models speak several APIs (OpenCode Zen): each API's path below
    /// `base_url` and the options its plugin needs. Each model names its API.
    #[serde(default)]
    pub routes: BTreeMap<String, PresetRoute>,
    models: Vec<PresetModel>,
}

#[derive(Deserialize)]
pub struct PresetRoute {
    pub path: String,
    #[serde(default)]
    pub options: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct PresetModel {
    id: String,
    name: String,
    /// The API it speaks, where the provider has `routes`.
    #[serde(default)]
    api: Option<String>,
    context_window: u32,
    max_output_tokens: u32,
    reasoning: bool,
    images: bool,
    /// Dollars per million tokens: input, output, cache read, cache write.
    cost: [f64; 4],
}

impl Preset {
    /// The models of each API, for a provider with `routes`.
    pub fn models_by_api(&self) -> BTreeMap<&str, Vec<String>> {
        let mut by_api: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for model in &self.models {
            let api = model.api.as_deref().unwrap_or(&self.api);
            by_api.entry(api).or_default().push(model.id.clone());
        }
        by_api
    }

    pub fn models(&self) -> Vec<ModelSpec> {
        self.models
            .iter()
            .map(|m| ModelSpec {
                id: m.id.clone(),
                name: m.name.clone(),
                context_window: m.context_window,
                max_output_tokens: m.max_output_tokens,
                reasoning: m.reasoning,
                input: match m.images {
                    true => vec![InputKind::Text, InputKind::Image],
                    false => vec![InputKind::Text],
                },
                cost: ModelCost {
                    input: m.cost[0],
                    output: m.cost[1],
                    cache_read: m.cost[2],
                    cache_write: m.cost[3],
                },
            })
            .collect()
    }
}

/// The presets, read once per process. The file is checked in and tested, so a parse failure
/// is a build defect; it leaves the list empty rather than taking tack down.
pub fn all() -> &'static [Preset] {
    static PRESETS: OnceLock<Vec<Preset>> = OnceLock::new();
    PRESETS.get_or_init(|| {
        serde_json::from_str::<File>(include_str!("presets.json"))
            .map(|file| file.providers)
            .unwrap_or_else(|e| {
                tracing::error!("presets.json is invalid: {e}");
                Vec::new()
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_presets_parse_and_each_names_a_key_and_models() {
        let presets = all();
        assert!(presets.len() >= 10, "{}", presets.len());
        for preset in presets {
            assert!(
                matches!(
                    preset.api.as_str(),
                    "openai"
                        | "openai-responses"
                        | "anthropic"
                        | "bedrock-converse-stream"
                        | "google"
                ),
                "{}",
                preset.id
            );
            assert!(
                preset.base_url.starts_with("https://")
                    || [
                        super::super::azure::ID,
                        super::super::bedrock::ID,
                        super::super::vertex::ID
                    ]
                    .contains(&preset.id.as_str()),
                "{}",
                preset.id
            );
            // A subscription is signed in to, not given a key.
            assert_eq!(
                preset.secret.is_empty(),
                crate::subscription::is_subscription(&preset.id),
                "{}",
                preset.id
            );
            assert!(!preset.models().is_empty(), "{}", preset.id);
        }
        for preset in presets.iter().filter(|p| !p.routes.is_empty()) {
            for api in preset.models_by_api().keys() {
                assert!(
                    preset.routes.contains_key(*api),
                    "{}: no route for {api}",
                    preset.id
                );
            }
        }
        let opencode = presets
            .iter()
            .find(|p| p.id == "opencode")
            .expect("opencode");
        assert!(opencode.models_by_api().len() >= 3);
        let groq = presets.iter().find(|p| p.id == "groq").expect("groq");
        assert_eq!(groq.secret, "GROQ_API_KEY");
    }
}
