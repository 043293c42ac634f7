//! What built-in provider plugins registered, remembered beside the compiled components so that a
//! later run can list their providers and models without loading them: a provider plugin is
//! compiled and instantiated only once a call goes to it (see [`crate::PluginSet::load`]).
//!
//! Only built-in plugins that register nothing but providers, or that their configuration turns
//! off (`"enabled": false`), are remembered. Their `init` reads nothing but its configuration, so
//! the key (the component's digest from tack's build, the plugin's name, its configuration and
//! the host's API version) determines what it registers. A built-in turned off (subagents by
//! default) is then never compiled or instantiated: nothing can call it. An empty registration is
//! not remembered otherwise: skills and prompt-templates register nothing when their folders hold
//! nothing yet, and must load again once a file appears there. A plugin with tools, commands,
//! hooks or events is always loaded at start: its `init` may have effects, and its registration
//! may depend on the workspace.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api::{AuthScheme, InputKind, ModelCost, ModelSpec, ProviderSpec, Registration};

/// Bumped when the file format changes, so older entries simply miss.
const FORMAT: u32 = 1;

/// A registration as remembered, and the API version the component speaks.
#[derive(Debug, Clone)]
pub struct KnownRegistration {
    pub api_version: String,
    pub registration: Registration,
}

/// Where the registration for one key is kept: `<cache>/registrations/<key>.json`.
pub(crate) fn path(cache_dir: &Path, digest: &str, plugin: &str, config_json: &str) -> PathBuf {
    let mut key = Sha256::new();
    for part in [
        &FORMAT.to_string(),
        digest,
        plugin,
        config_json,
        crate::API_VERSION,
    ] {
        key.update((part.len() as u64).to_le_bytes());
        key.update(part.as_bytes());
    }
    cache_dir
        .join("registrations")
        .join(format!("{}.json", hex::encode(key.finalize())))
}

/// Whether a plugin's configuration turns it off (`"enabled": false`).
pub(crate) fn turned_off(config: &serde_json::Value) -> bool {
    config.get("enabled") == Some(&serde_json::Value::Bool(false))
}

/// Whether a registration may be remembered: providers and nothing else, or nothing from a
/// plugin its configuration turns off (the only empty registration that depends on the
/// configuration alone).
pub(crate) fn rememberable(registration: &Registration, turned_off: bool) -> bool {
    (!registration.providers.is_empty() || turned_off)
        && registration.tools.is_empty()
        && registration.commands.is_empty()
        && registration.hooks.is_empty()
        && registration.events.is_empty()
}

/// The remembered registration, if there is a readable one.
pub(crate) fn read(path: &Path) -> Option<KnownRegistration> {
    let text = std::fs::read(path).ok()?;
    match serde_json::from_slice::<Entry>(&text) {
        Ok(entry) => Some(entry.into_known()),
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "ignoring an unreadable remembered registration");
            None
        }
    }
}

pub(crate) fn write(path: &Path, api_version: &str, registration: &Registration) {
    let entry = Entry {
        api_version: api_version.to_string(),
        providers: registration.providers.iter().map(Provider::from).collect(),
    };
    let written = serde_json::to_vec(&entry)
        .map_err(anyhow::Error::from)
        .and_then(|bytes| crate::cache::write_atomically(path, &bytes));
    if let Err(error) = written {
        // Only costs the next run a load it could have deferred.
        tracing::warn!(path = %path.display(), %error, "cannot remember a plugin's registration");
    }
}

/// The parts of two registrations a deferred plugin promised: its providers.
pub(crate) fn same_providers(a: &Registration, b: &Registration) -> bool {
    let json = |r: &Registration| {
        serde_json::to_string(&r.providers.iter().map(Provider::from).collect::<Vec<_>>()).ok()
    };
    json(a) == json(b)
}

#[derive(Serialize, Deserialize)]
struct Entry {
    api_version: String,
    providers: Vec<Provider>,
}

impl Entry {
    fn into_known(self) -> KnownRegistration {
        KnownRegistration {
            api_version: self.api_version,
            registration: Registration {
                tools: Vec::new(),
                commands: Vec::new(),
                hooks: Vec::new(),
                events: Vec::new(),
                providers: self.providers.into_iter().map(ProviderSpec::from).collect(),
            },
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Provider {
    id: String,
    name: String,
    default_base_url: String,
    secret: Option<String>,
    auth: Auth,
    models: Vec<Model>,
}

#[derive(Serialize, Deserialize)]
enum Auth {
    None,
    Bearer,
    Header(String),
    Query(String),
}

#[derive(Serialize, Deserialize)]
struct Model {
    id: String,
    name: String,
    context_window: u32,
    max_output_tokens: u32,
    reasoning: bool,
    input: Vec<Input>,
    cost: [f64; 4],
}

#[derive(Serialize, Deserialize)]
enum Input {
    Text,
    Image,
}

impl From<&ProviderSpec> for Provider {
    fn from(p: &ProviderSpec) -> Self {
        Provider {
            id: p.id.clone(),
            name: p.name.clone(),
            default_base_url: p.default_base_url.clone(),
            secret: p.secret.clone(),
            auth: match &p.auth {
                AuthScheme::None => Auth::None,
                AuthScheme::Bearer => Auth::Bearer,
                AuthScheme::Header(h) => Auth::Header(h.clone()),
                AuthScheme::Query(q) => Auth::Query(q.clone()),
            },
            models: p
                .models
                .iter()
                .map(|m| Model {
                    id: m.id.clone(),
                    name: m.name.clone(),
                    context_window: m.context_window,
                    max_output_tokens: m.max_output_tokens,
                    reasoning: m.reasoning,
                    input: m
                        .input
                        .iter()
                        .map(|k| match k {
                            InputKind::Text => Input::Text,
                            InputKind::Image => Input::Image,
                        })
                        .collect(),
                    cost: [
                        m.cost.input,
                        m.cost.output,
                        m.cost.cache_read,
                        m.cost.cache_write,
                    ],
                })
                .collect(),
        }
    }
}

impl From<Provider> for ProviderSpec {
    fn from(p: Provider) -> Self {
        ProviderSpec {
            id: p.id,
            name: p.name,
            default_base_url: p.default_base_url,
            secret: p.secret,
            auth: match p.auth {
                Auth::None => AuthScheme::None,
                Auth::Bearer => AuthScheme::Bearer,
                Auth::Header(h) => AuthScheme::Header(h),
                Auth::Query(q) => AuthScheme::Query(q),
            },
            models: p
                .models
                .into_iter()
                .map(|m| ModelSpec {
                    id: m.id,
                    name: m.name,
                    context_window: m.context_window,
                    max_output_tokens: m.max_output_tokens,
                    reasoning: m.reasoning,
                    input: m
                        .input
                        .into_iter()
                        .map(|k| match k {
                            Input::Text => InputKind::Text,
                            Input::Image => InputKind::Image,
                        })
                        .collect(),
                    cost: ModelCost {
                        input: m.cost[0],
                        output: m.cost[1],
                        cache_read: m.cost[2],
                        cache_write: m.cost[3],
                    },
                })
                .collect(),
        }
    }
}
