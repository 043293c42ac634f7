//! The providers and models a user can pick: those the provider plugins register, adjusted and
//! extended by `[providers.<id>]` in config.toml. A config entry with `api = "<plugin provider>"`
//! defines a new provider served by that plugin (an OpenAI-compatible server, say):
//!
//! ```toml
//! [providers.ollama]
//! api = "openai"
//! base_url = "http://localhost:11434/v1"
//! secret = ""                       # no API key
//! options = { max_tokens_field = "max_tokens" }
//! models = [{ id = "qwen3:8b", context_window = 32768, max_output_tokens = 8192 }]
//! ```
//!
//! A provider that speaks the OpenAI API at a URL of the user's choosing may leave `models` out:
//! the server is asked which models it serves (`GET /models`, see `discover.rs`). Local servers
//! have presets that need no config at all: `tack --provider ollama --model qwen3-coder:30b`.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::{bail, Result};
use tack_runtime::api::{self, InputKind, ModelCost, ModelSpec};
use tack_runtime::bridge::provider_authority::{self, ProviderDenied, UserChoice};
use tack_runtime::bridge::StreamTimeouts;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{LoadedPlugin, PluginSet, PluginSource, RegisteredProvider};

use super::host_credentials::HostCredentials;
use super::pattern::Candidate;
use crate::settings::{ModelSettings, ProviderSettings, Settings};

pub struct ProviderEntry {
    /// What the user types (`--provider`), and what sessions record.
    pub id: String,
    pub plugin: Arc<LoadedPlugin>,
    /// The plugin's provider spec with the secret and models in effect. Its `id` stays the
    /// plugin's own, since that is what the plugin dispatches on.
    pub spec: api::ProviderSpec,
    pub base_url: Option<String>,
    /// `spec.secret` was named in config.toml, not by the plugin.
    pub secret_from_user: bool,
    pub options: serde_json::Value,
    /// `[providers.<id>]` connect, first-byte and idle timeouts.
    pub timeouts: StreamTimeouts,
    /// Headers added to every request (`[providers.<id>] headers`, or a preset's).
    pub headers: Vec<(String, String)>,
    /// The host's preset rather than a plugin's registration or the user's config: used when
    /// named, never picked on its own because some key happens to be set.
    pub preset: bool,
    /// What the user must set before it can send anything (Azure's resource URL).
    pub missing: Option<String>,
    /// Credentials the host applies to its requests itself (Bedrock's AWS signing, Vertex's
    /// Google tokens).
    pub host_credentials: HostCredentials,
    /// For a provider whose models speak several APIs (OpenCode Zen), each API's plugin, path
    /// and options; empty when `plugin` serves every model.
    pub routes: Vec<ApiRoute>,
    /// What the host puts before the key in its header (a preset's: Cloudflare's AI Gateway
    /// takes `cf-aig-authorization: Bearer <key>`).
    pub key_prefix: Option<String>,
    /// For a provider a plugin registered while running (`tack:plugin/providers`), that plugin:
    /// its grants, not those of the plugin whose API writes the requests, decide where they may
    /// go and with which secret.
    pub registered_by: Option<Arc<LoadedPlugin>>,
}

/// One API of a provider whose models speak several: the built-in plugin that speaks it, where
/// below the provider's URL it is, and which of the provider's models speak it.
pub struct ApiRoute {
    pub plugin: Arc<LoadedPlugin>,
    /// The plugin's own provider id (what it dispatches on) and how its API takes the key.
    pub plugin_provider: String,
    pub auth: api::AuthScheme,
    /// Appended to the provider's URL (the preset's root, or the user's `base_url`).
    pub path: String,
    pub options: serde_json::Value,
    pub models: Vec<String>,
}

impl ProviderEntry {
    /// The provider `id` served by `plugin` as `spec` says, with nothing configured.
    fn new(id: &str, plugin: &Arc<LoadedPlugin>, spec: api::ProviderSpec) -> ProviderEntry {
        ProviderEntry {
            id: id.to_string(),
            plugin: plugin.clone(),
            spec,
            base_url: None,
            secret_from_user: false,
            options: serde_json::json!({}),
            timeouts: StreamTimeouts::default(),
            headers: Vec::new(),
            preset: false,
            missing: None,
            host_credentials: HostCredentials::None,
            routes: Vec::new(),
            key_prefix: None,
            registered_by: None,
        }
    }

    /// The plugin whose grants decide where its requests may go, and with which secret.
    pub fn authority(&self) -> &Arc<LoadedPlugin> {
        self.registered_by.as_ref().unwrap_or(&self.plugin)
    }

    /// The route of `model`, for a provider with several APIs.
    pub fn route(&self, model: &str) -> Option<&ApiRoute> {
        self.routes
            .iter()
            .find(|route| route.models.iter().any(|m| m == model))
    }

    /// The options a request for `model` carries: for a provider with several APIs, its API's,
    /// with the user's own (config.toml's, which every API gets) over them.
    pub fn options_for(&self, model: &str) -> serde_json::Value {
        let Some(route) = self.route(model) else {
            return self.options.clone();
        };
        let mut options = route.options.clone();
        if let (Some(merged), Some(own)) = (options.as_object_mut(), self.options.as_object()) {
            merged.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        options
    }

    /// Whether it can be used as set up: its key is set, or the credentials the host finds for
    /// it are there, and it has somewhere to send requests.
    pub fn key_available(&self, secrets: &SecretStore) -> bool {
        self.missing.is_none()
            && match &self.spec.secret {
                Some(secret) => secrets.has(secret),
                None => self.host_credentials.available(),
            }
    }

    /// Why the host would refuse to send this provider's requests as config.toml sets it up, if
    /// it would.
    pub fn denied(&self) -> Option<ProviderDenied> {
        let user = UserChoice {
            base_url: self.base_url.is_some(),
            secret: self.secret_from_user,
        };
        let base_url = self.effective_base_url();
        provider_authority::check(self.authority(), &self.id, &self.spec, base_url, user).err()
    }

    /// Ready without asking anything of the user: its key is set and its plugin may send it.
    pub fn usable(&self, secrets: &SecretStore) -> bool {
        self.key_available(secrets) && self.denied().is_none()
    }

    /// Needs no key and cannot reach the network: usable on any machine (the demo).
    pub fn offline(&self) -> bool {
        self.spec.secret.is_none()
            && self.base_url.is_none()
            && self.registered_by.is_none()
            && self.plugin.capabilities.http.is_empty()
    }

    pub fn first_party(&self) -> bool {
        self.plugin.source == PluginSource::Builtin
    }

    /// Whether its models can be asked of its server (`discover.rs`): it speaks the OpenAI API
    /// at a URL the user chose (config.toml, `base_url` given here for `--base-url`, or a
    /// local-server preset).
    pub fn discoverable(&self, base_url: Option<&str>) -> bool {
        self.spec.id == OPENAI_API
            && self.routes.is_empty()
            && (base_url.is_some() || self.base_url.is_some())
    }

    /// The provider id its requests name: a host preset's own (`deepseek`, served by the OpenAI
    /// plugin) or a registered one's (`my-proxy` on the Anthropic plugin), which is also what the
    /// session records on the answers; else the plugin's.
    pub fn request_id(&self) -> &str {
        if self.preset || self.registered_by.is_some() {
            &self.id
        } else {
            &self.spec.id
        }
    }

    /// Its models as `--model` patterns are matched against.
    pub fn candidates(&self) -> impl Iterator<Item = Candidate> + '_ {
        self.spec.models.iter().map(|m| Candidate {
            provider: self.id.clone(),
            id: m.id.clone(),
            name: m.name.clone(),
        })
    }

    /// Where a preset that works its URL out sends requests, or what the user must set first.
    fn point_at(&mut self, url: Result<String, String>) {
        match url {
            Ok(url) => self.base_url = Some(url),
            Err(missing) => {
                self.base_url = None;
                self.missing = Some(missing);
            }
        }
    }

    pub fn effective_base_url(&self) -> &str {
        self.base_url
            .as_deref()
            .unwrap_or(&self.spec.default_base_url)
    }
}

/// The plugin provider whose API has a `/models` listing that local servers copy.
pub const OPENAI_API: &str = "openai";

/// Local servers that speak the OpenAI API, at their usual address, with no key: the models are
/// whatever the server lists. `[providers.<id>]` adjusts or replaces one like any provider.
const LOCAL_SERVERS: &[(&str, &str, &str)] = &[
    ("ollama", "Ollama", "http://localhost:11434/v1"),
    ("lmstudio", "LM Studio", "http://localhost:1234/v1"),
    ("llamacpp", "llama.cpp", "http://localhost:8080/v1"),
    ("vllm", "vLLM", "http://localhost:8000/v1"),
];

fn local_server_presets(entries: &[ProviderEntry]) -> Vec<ProviderEntry> {
    let Some(openai) = first_party(entries, OPENAI_API) else {
        return Vec::new();
    };
    LOCAL_SERVERS
        .iter()
        .filter(|(id, _, _)| !entries.iter().any(|e| e.id == *id))
        .map(|(id, name, url)| {
            let mut spec = openai.spec.clone();
            spec.name = name.to_string();
            spec.secret = None;
            spec.models.clear();
            ProviderEntry {
                base_url: Some(url.to_string()),
                // Every one of these servers reads `max_tokens`; not all know the newer name.
                options: serde_json::json!({ "max_tokens_field": "max_tokens" }),
                preset: true,
                ..ProviderEntry::new(id, &openai.plugin, spec)
            }
        })
        .collect()
}

/// The API-key providers of `presets.json`, each served by the built-in plugin of its API.
fn key_presets(entries: &[ProviderEntry]) -> Vec<ProviderEntry> {
    super::presets::all()
        .iter()
        .filter(|preset| !entries.iter().any(|e| e.id == preset.id))
        .filter_map(|preset| {
            let base = first_party(entries, &preset.api)?;
            let mut spec = base.spec.clone();
            spec.name = preset.name.clone();
            // A subscription's preset takes no key ([`configure_chatgpt`]).
            spec.secret = (!preset.secret.is_empty()).then(|| preset.secret.clone());
            spec.models = preset.models();
            if let Some(header) = &preset.key_header {
                spec.auth = api::AuthScheme::Header(header.clone());
            }
            // A preset without a URL of its own is the user's to point (Azure): it must never
            // fall back to its plugin's endpoint with the preset's key.
            spec.default_base_url.clear();
            let routes = preset_routes(preset, entries)?;
            let entry = ProviderEntry {
                routes,
                key_prefix: preset.key_prefix.clone(),
                base_url: (!preset.base_url.is_empty()).then(|| preset.base_url.clone()),
                // The host names the key and the URL, as the user would in config.toml: the
                // plugin's own grants are for its own API's endpoint and key.
                secret_from_user: true,
                options: serde_json::Value::Object(preset.options.clone()),
                headers: preset
                    .headers
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                preset: true,
                ..ProviderEntry::new(&preset.id, &base.plugin, spec)
            };
            Some(entry)
        })
        .collect()
}

/// The routes of a preset whose models speak several APIs, each served by the built-in plugin
/// of its API; `None` (the preset is left out) if one of those plugins is not loaded.
fn preset_routes(
    preset: &super::presets::Preset,
    entries: &[ProviderEntry],
) -> Option<Vec<ApiRoute>> {
    if preset.routes.is_empty() {
        return Some(Vec::new());
    }
    preset
        .models_by_api()
        .into_iter()
        .map(|(api, models)| {
            let base = first_party(entries, api)?;
            let route = preset.routes.get(api)?;
            Some(ApiRoute {
                plugin: base.plugin.clone(),
                plugin_provider: base.spec.id.clone(),
                // A key header of the preset's own holds for every API (Cloudflare's gateway).
                auth: match &preset.key_header {
                    Some(header) => api::AuthScheme::Header(header.clone()),
                    None => base.spec.auth.clone(),
                },
                path: route.path.clone(),
                options: serde_json::Value::Object(route.options.clone()),
                models,
            })
        })
        .collect()
}

/// Azure's URL and deployments, from the user's config and Pi's variables.
fn configure_azure(entry: &mut ProviderEntry) {
    let setup = super::azure::setup(entry.base_url.as_deref(), |name| std::env::var(name).ok());
    entry.point_at(setup.base_url);
    if setup.deployments.is_empty() {
        return;
    }
    if !entry.options.is_object() {
        entry.options = serde_json::json!({});
    }
    let deployments = &mut entry.options["deployments"];
    if !deployments.is_object() {
        *deployments = serde_json::json!({});
    }
    if let serde_json::Value::Object(deployments) = deployments {
        // The config's own mapping of a model wins over the environment's.
        for (model, deployment) in setup.deployments {
            deployments
                .entry(model)
                .or_insert(serde_json::Value::String(deployment));
        }
    }
}

/// Bedrock's URL, and whether the host signs its requests (no Bedrock API key is set).
fn configure_bedrock(entry: &mut ProviderEntry, secrets: &SecretStore) {
    let api_key = entry
        .spec
        .secret
        .as_deref()
        .is_some_and(|key| secrets.has(key));
    let env = tack_runtime::bridge::aws::AwsEnvironment::from_process();
    let setup = super::bedrock::setup(entry.base_url.as_deref(), api_key, &env);
    entry.base_url = Some(setup.base_url);
    if api_key {
        entry.spec.auth = api::AuthScheme::Bearer;
    } else {
        entry.spec.secret = None;
        entry.spec.auth = api::AuthScheme::None;
    }
    entry.host_credentials = match setup.signing_region {
        Some(region) => HostCredentials::AwsSigV4 {
            region,
            service: super::bedrock::SERVICE,
        },
        None => HostCredentials::None,
    };
}

/// Vertex AI's URL (the project's and location's), and whether the host exchanges the user's
/// Google credentials for its tokens (no `GOOGLE_CLOUD_API_KEY` is set).
fn configure_vertex(entry: &mut ProviderEntry, secrets: &SecretStore) {
    let api_key = entry
        .spec
        .secret
        .as_deref()
        .is_some_and(|key| secrets.has(key));
    let url = super::vertex::base_url(entry.base_url.as_deref(), api_key, |name| {
        std::env::var(name).ok()
    });
    entry.point_at(url);
    // Options of the user's own replace the preset's; Vertex's paths need this one.
    if !entry.options.is_object() {
        entry.options = serde_json::json!({});
    }
    entry.options["vertex"] = serde_json::Value::Bool(true);
    if !api_key {
        entry.spec.secret = None;
        entry.spec.auth = api::AuthScheme::None;
        entry.host_credentials = HostCredentials::GoogleAdc;
    }
}

/// A preset URL naming the user's account (Cloudflare's `{CLOUDFLARE_ACCOUNT_ID}`), filled in
/// from the environment, unless the user's config gave a URL of its own.
fn fill_url_template(entry: &mut ProviderEntry) {
    if let Some(template) = entry.base_url.clone().filter(|url| url.contains('{')) {
        entry.point_at(super::url_template::fill(&template, |name| {
            std::env::var(name).ok()
        }));
    }
}

/// The ChatGPT subscription: no key; the host sends the login's token, and the headers ChatGPT's
/// backend wants of Codex's clients.
fn configure_chatgpt(entry: &mut ProviderEntry, secrets: &SecretStore) {
    entry.spec.secret = None;
    entry.spec.auth = api::AuthScheme::None;
    for (name, value) in [
        ("OpenAI-Beta", "responses=experimental"),
        ("originator", "tack"),
    ] {
        if !entry
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            entry.headers.push((name.into(), value.into()));
        }
    }
    if !entry.options.is_object() {
        entry.options = serde_json::json!({});
    }
    entry.options["chatgpt"] = serde_json::Value::Bool(true);
    let chatgpt = crate::subscription::ChatGpt::from_env();
    match (secrets.auth_file(), chatgpt) {
        (Some(auth), Ok(chatgpt)) => {
            entry.host_credentials = HostCredentials::ChatGptLogin {
                auth: auth.to_path_buf(),
                chatgpt,
            }
        }
        (None, _) => entry.missing = Some("a tack home to keep the login in".into()),
        (_, Err(e)) => entry.missing = Some(format!("{e:#}")),
    }
}

fn first_party<'a>(entries: &'a [ProviderEntry], id: &str) -> Option<&'a ProviderEntry> {
    entries.iter().find(|e| e.id == id && e.first_party())
}

/// The ids a plugin may not register a provider under, besides the plugins' own: the presets'
/// and those config.toml defines (with `api`). A config entry without `api` adjusts a provider
/// that is there, a registered one included: that is how the user gives one a URL or key.
pub fn reserved_ids(settings: &Settings) -> Vec<String> {
    LOCAL_SERVERS
        .iter()
        .map(|(id, _, _)| id.to_string())
        .chain(super::presets::all().iter().map(|p| p.id.clone()))
        .chain(
            settings
                .providers
                .iter()
                .filter(|(_, cfg)| cfg.api.is_some())
                .map(|(id, _)| id.clone()),
        )
        .collect()
}

/// The catalog from the plugins' providers, those they `registered` while running, the presets
/// and config.toml's `[providers]`.
pub fn build(
    set: &PluginSet,
    configured: &BTreeMap<String, ProviderSettings>,
    secrets: &SecretStore,
    registered: &[RegisteredProvider],
) -> Result<Vec<ProviderEntry>> {
    let mut entries: Vec<ProviderEntry> = set
        .providers()
        .map(|(plugin, spec)| ProviderEntry::new(&spec.id, plugin, spec.clone()))
        .collect();
    let registered: Vec<ProviderEntry> = registered
        .iter()
        .filter_map(|provider| registered_entry(set, &entries, provider))
        .collect();
    entries.extend(registered);
    let mut presets = local_server_presets(&entries);
    presets.extend(key_presets(&entries));
    let preset_ids: Vec<String> = presets.iter().map(|e| e.id.clone()).collect();
    entries.extend(presets);
    for (id, cfg) in configured {
        // A config entry with `api` that shares a preset's name replaces the preset (configs
        // written before the presets existed define `[providers.ollama]` this way).
        if cfg.api.is_some() && preset_ids.contains(id) {
            entries.retain(|e| &e.id != id);
        }
        let index = match entries.iter().position(|e| &e.id == id) {
            Some(i) if cfg.api.is_none() => i,
            Some(_) => bail!("config.toml: [providers.{id}] sets `api`, but '{id}' is already a built-in provider; pick another name"),
            None => {
                let Some(api) = &cfg.api else {
                    let known: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
                    bail!(
                        "config.toml: [providers.{id}] is not a known provider ({}); add `api = \"<one of them>\"` to define a new one",
                        known.join(", ")
                    );
                };
                let Some(base) = entries.iter().find(|e| &e.spec.id == api && e.id == *api) else {
                    bail!("config.toml: [providers.{id}] has api = \"{api}\", which no loaded plugin provides");
                };
                let mut spec = base.spec.clone();
                spec.models.clear();
                let entry = ProviderEntry::new(id, &base.plugin, spec);
                entries.push(entry);
                entries.len() - 1
            }
        };
        let entry = &mut entries[index];
        if cfg.base_url.is_some() {
            entry.base_url = cfg.base_url.clone();
        }
        if let Some(secret) = &cfg.secret {
            entry.spec.secret = (!secret.is_empty()).then(|| secret.clone());
            entry.secret_from_user = true;
        }
        if let Some(header) = &cfg.key_header {
            entry.spec.auth = api::AuthScheme::Header(header.clone());
        }
        if !cfg.options.is_empty() || !preset_ids.contains(id) {
            entry.options =
                serde_json::to_value(&cfg.options).unwrap_or_else(|_| serde_json::json!({}));
        }
        entry.timeouts = cfg.timeouts(id)?;
        for (name, value) in &cfg.headers {
            entry.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            entry.headers.push((name.clone(), value.clone()));
        }
        for model in &cfg.models {
            let spec = model_spec(model);
            match entry.spec.models.iter_mut().find(|m| m.id == spec.id) {
                Some(existing) => *existing = spec,
                None => entry.spec.models.push(spec),
            }
        }
        if entry.spec.models.is_empty() && !entry.discoverable(None) {
            bail!("config.toml: [providers.{id}] has no models; add `models = [{{ id = \"…\" }}]`");
        }
    }
    for entry in entries.iter_mut().filter(|e| e.preset) {
        match entry.id.as_str() {
            super::azure::ID => configure_azure(entry),
            super::bedrock::ID => configure_bedrock(entry, secrets),
            super::vertex::ID => configure_vertex(entry, secrets),
            crate::subscription::CHATGPT => configure_chatgpt(entry, secrets),
            _ => fill_url_template(entry),
        }
    }
    Ok(entries)
}

/// A provider a plugin registered while running, served by the plugin of its API (or by its
/// own provider functions); `None` when neither is loaded, or its id is taken (the registry
/// refuses both once it knows, see [`tack_runtime::ProviderRegistry::settle`]).
fn registered_entry(
    set: &PluginSet,
    entries: &[ProviderEntry],
    provider: &RegisteredProvider,
) -> Option<ProviderEntry> {
    if entries.iter().any(|e| e.id == provider.id) {
        return None;
    }
    let owner = set.get(&provider.plugin)?;
    let (plugin, base) = match &provider.api {
        Some(api) => {
            let base = entries.iter().find(|e| &e.id == api && &e.spec.id == api)?;
            (base.plugin.clone(), Some(&base.spec))
        }
        None => (owner.clone(), None),
    };
    let spec = api::ProviderSpec {
        // What the serving plugin dispatches on: its API's own id, or the new one.
        id: base.map_or_else(|| provider.id.clone(), |b| b.id.clone()),
        name: provider.name.clone(),
        default_base_url: provider.base_url.clone(),
        secret: provider.secret.clone(),
        auth: provider
            .auth
            .clone()
            .or_else(|| base.map(|b| b.auth.clone()))
            .unwrap_or(api::AuthScheme::Bearer),
        models: provider.models.clone(),
    };
    Some(ProviderEntry {
        headers: provider.headers.clone(),
        registered_by: Some(owner.clone()),
        ..ProviderEntry::new(&provider.id, &plugin, spec)
    })
}

fn model_spec(m: &ModelSettings) -> ModelSpec {
    ModelSpec {
        id: m.id.clone(),
        name: m.name.clone().unwrap_or_else(|| m.id.clone()),
        context_window: m.context_window.unwrap_or(128_000),
        max_output_tokens: m.max_output_tokens.unwrap_or(8192),
        reasoning: m.reasoning.unwrap_or(false),
        input: if m.images.unwrap_or(false) {
            vec![InputKind::Text, InputKind::Image]
        } else {
            vec![InputKind::Text]
        },
        cost: ModelCost {
            input: m.cost_input.unwrap_or(0.0),
            output: m.cost_output.unwrap_or(0.0),
            cache_read: m.cost_cache_read.unwrap_or(0.0),
            cache_write: m.cost_cache_write.unwrap_or(0.0),
        },
    }
}
