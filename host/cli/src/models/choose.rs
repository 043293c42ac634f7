//! Which provider and model a run uses: `--provider`/`--model` (a pattern, maybe with a thinking
//! level), else the model a continued session was using, else the settings, else the first
//! provider whose key is set, else an offline one.

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tack_core::agent::{InputKind, ModelCost, ModelInfo, ReasoningLevel};
use tack_core::session::SessionHandle;
use tack_runtime::api;
use tack_runtime::broker::secrets::SecretStore;

use super::discover;
use super::host_credentials::HostCredentials;
use super::pattern::{self as model_pattern, Candidate, Thinking};
use super::serve::Serving;
use crate::cli::Cli;
use crate::start::load::Loaded;

/// A provider chosen for this run.
pub struct Chosen {
    pub provider: Arc<dyn tack_core::Provider>,
    pub model: ModelInfo,
    pub options: serde_json::Value,
    /// The thinking level asked for (`--thinking`, or `--model …:level`), clamped to the model.
    pub reasoning: Option<ReasoningLevel>,
    /// What to tell the user about the choice: an offline fallback, a clamped level.
    pub notices: Vec<String>,
}

/// [`choose`] for `session`, taking the model it last recorded into account.
pub fn for_session(cli: &Cli, loaded: &Loaded, session: &SessionHandle) -> Result<Chosen> {
    let session_model = session
        .lock()
        .model()
        .map(|(p, m)| (p.to_string(), m.to_string()));
    choose(cli, loaded, session_model)
}

/// `--provider`/`--model`, else the model a continued session was using, else config, else the
/// first provider with a key whose API key is available, else an offline provider (one that
/// needs no key and whose plugin has no network grant, such as the demo).
pub fn choose(
    cli: &Cli,
    loaded: &Loaded,
    session_model: Option<(String, String)>,
) -> Result<Chosen> {
    let mut catalog = loaded.catalog()?;
    let mut secrets = loaded.secrets.clone();
    let served = discover_named(cli, loaded, &mut catalog, &secrets)?;
    let by_pattern = match &cli.model {
        Some(pattern) => Some(
            model_by_pattern(pattern, &catalog, cli.provider.as_deref(), &secrets).map_err(
                |e| match &served {
                    Some(served) => anyhow::anyhow!(served.unknown(
                        pattern
                            .strip_prefix(&format!("{}/", served.provider))
                            .unwrap_or(pattern)
                    )),
                    None => e,
                },
            )?,
        ),
        None => None,
    };
    let from_session = session_model.filter(|(p, _)| {
        cli.provider.is_none() && by_pattern.is_none() && catalog.iter().any(|e| &e.id == p)
    });
    let wanted = cli
        .provider
        .clone()
        .or_else(|| by_pattern.as_ref().map(|m| m.provider.clone()))
        .or_else(|| from_session.as_ref().map(|(p, _)| p.clone()))
        .or_else(|| loaded.settings.provider.clone());
    let mut notices = Vec::new();
    let entry = match wanted {
        Some(id) => catalog.iter().find(|e| e.id == id).with_context(|| {
            let known: Vec<&str> = catalog.iter().map(|e| e.id.as_str()).collect();
            format!("unknown provider '{id}' (available: {})", known.join(", "))
        })?,
        // Only providers whose key is set and whose plugin may send it there, first-party before
        // third-party, then by id (the catalog's order): the same choice on every run.
        None => match catalog
            .iter()
            .filter(|e| !e.preset && e.spec.secret.is_some() && e.usable(&secrets))
            .min_by_key(|e| !e.first_party())
        {
            Some(entry) => entry,
            None => {
                let offline = catalog
                    .iter()
                    .filter(|e| e.offline())
                    .min_by_key(|e| !e.first_party())
                    .context(
                        "no provider is usable: set an API key (ANTHROPIC_API_KEY, \
                         OPENAI_API_KEY, …) or pass --provider and --api-key",
                    )?;
                notices.push(format!(
                    "using the offline {} provider (no API key found). Set ANTHROPIC_API_KEY or \
                     OPENAI_API_KEY, or pass --provider and --api-key, to use a real model.",
                    offline.id
                ));
                offline
            }
        },
    };
    let mut user_secret = entry.secret_from_user;
    match (&cli.api_key, &entry.spec.secret) {
        (Some(key), Some(secret)) => {
            secrets = secrets.with_override(secret, key.clone());
            // `--api-key` is the user handing this provider a key themselves.
            user_secret = true;
        }
        // Said rather than ignored: a key the user typed that goes nowhere would look sent.
        (Some(_), None) if cli.provider.is_none() => {
            bail!("--api-key needs --provider: the key of which provider?")
        }
        (Some(_), None) => bail!(
            "provider '{}' names no key for --api-key to stand for; {}",
            entry.id,
            match entry.id.as_str() {
                super::bedrock::ID => "export AWS_BEARER_TOKEN_BEDROCK for a Bedrock API key",
                super::vertex::ID => "export GOOGLE_CLOUD_API_KEY for a Vertex API key",
                crate::subscription::CHATGPT =>
                    "it sends your ChatGPT login (`tack login openai-codex`)",
                _ => "give it one with `secret` under its [providers.<id>] in config.toml",
            }
        ),
        (None, _) => {}
    }
    let model_id = by_pattern
        .as_ref()
        .map(|m| m.model.clone())
        .or_else(|| {
            from_session
                .as_ref()
                .filter(|(p, _)| *p == entry.id)
                .map(|(_, m)| m.clone())
        })
        .or_else(|| {
            loaded
                .settings
                .model
                .clone()
                .filter(|_| cli.provider.is_none())
        });
    let spec = &entry.spec;
    let model = match &model_id {
        Some(id) => spec.models.iter().find(|m| &m.id == id).with_context(|| {
            match served.as_ref().filter(|s| s.provider == entry.id) {
                Some(served) => served.unknown(id),
                None => {
                    let known: Vec<&str> = spec.models.iter().map(|m| m.id.as_str()).collect();
                    format!(
                        "provider '{}' has no model '{id}' (available: {})",
                        entry.id,
                        known.join(", ")
                    )
                }
            }
        })?,
        None => spec
            .models
            .first()
            .with_context(|| format!("provider '{}' lists no models", entry.id))?,
    };
    let base_url = cli.base_url.clone().or_else(|| entry.base_url.clone());
    if let (None, Some(missing)) = (&base_url, &entry.missing) {
        bail!(
            "provider '{}' has nowhere to send requests: {missing}",
            entry.id
        );
    }
    let mut host_credentials = entry.host_credentials.clone();
    if let (Some(url), HostCredentials::AwsSigV4 { region, .. }) =
        (&cli.base_url, &mut host_credentials)
    {
        // A standard endpoint given on the command line is signed for its own region.
        if let Some(named) = tack_runtime::bridge::aws::endpoint_region(url) {
            *region = named;
        }
    }
    let provider = entry
        .provider(Serving {
            base_url,
            secrets,
            user_secret,
            http: loaded.runtime.http(),
            payload_hooks: tack_runtime::bridge::PayloadHooks::new(&loaded.set),
            host_credentials: &host_credentials,
        })
        .map_err(anyhow::Error::msg)?;
    let asked = match &cli.thinking {
        Some(level) => Some(Thinking::parse(level).with_context(|| {
            format!(
                "unknown thinking level '{level}' ({})",
                model_pattern::LEVELS
            )
        })?),
        None => by_pattern.and_then(|m| m.thinking).or_else(|| {
            // The user's default applies to a model that thinks; a bad value is ignored here
            // (and refused when `/settings` writes it).
            let default = loaded.settings.default_thinking.as_deref()?;
            Thinking::parse(default).filter(|_| model.reasoning)
        }),
    };
    let reasoning = asked.map(|asked| {
        let (level, note) = model_pattern::clamp(asked, model.reasoning, &model.id);
        notices.extend(note);
        level
    });
    Ok(Chosen {
        model: model_info(&entry.id, model),
        provider,
        options: entry.options_for(&model.id),
        reasoning,
        notices,
    })
}

/// What a server was asked to list, for an error that names what it serves.
struct Served {
    provider: String,
    url: String,
    ids: Vec<String>,
}

impl Served {
    fn unknown(&self, id: &str) -> String {
        let ids = match self.ids.is_empty() {
            true => "nothing".to_string(),
            false => self.ids.join(", "),
        };
        format!(
            "provider '{}' has no model '{id}': the server at {} serves {ids}",
            self.provider, self.url
        )
    }
}

/// The provider this run names (`--provider`, the `provider/` of `--model`, or the settings'
/// provider), when it speaks the OpenAI API at a URL the user chose: its server is asked which
/// models it serves, and they join the provider's models. A provider with models listed in
/// config.toml is asked only when the asked model is not among them, and a failed listing then
/// leaves the error to the model lookup.
fn discover_named(
    cli: &Cli,
    loaded: &Loaded,
    catalog: &mut [crate::models::catalog::ProviderEntry],
    secrets: &SecretStore,
) -> Result<Option<Served>> {
    let named = cli
        .provider
        .clone()
        .or_else(|| {
            let (prefix, _) = cli.model.as_deref()?.split_once('/')?;
            catalog
                .iter()
                .any(|e| e.id == prefix)
                .then(|| prefix.to_string())
        })
        .or_else(|| loaded.settings.provider.clone());
    let Some(entry) = named.and_then(|id| catalog.iter_mut().find(|e| e.id == id)) else {
        return Ok(None);
    };
    if !entry.discoverable(cli.base_url.as_deref()) {
        return Ok(None);
    }
    let asked = cli
        .model
        .as_deref()
        .map(|pattern| {
            pattern
                .strip_prefix(&format!("{}/", entry.id))
                .unwrap_or(pattern)
                .to_string()
        })
        .or_else(|| loaded.settings.model.clone());
    let listed = |entry: &crate::models::catalog::ProviderEntry, asked: &str| {
        let pool: Vec<Candidate> = entry.candidates().collect();
        model_pattern::resolve(asked, &pool).is_some()
    };
    let needed =
        entry.spec.models.is_empty() || asked.as_deref().is_some_and(|a| !listed(entry, a));
    if !needed {
        return Ok(None);
    }
    let url = cli
        .base_url
        .clone()
        .unwrap_or_else(|| entry.effective_base_url().to_string());
    match discover::served_models(entry, &url, secrets) {
        Ok(models) => {
            let ids = discover::merge(entry, models);
            Ok(Some(Served {
                provider: entry.id.clone(),
                url,
                ids,
            }))
        }
        Err(e) if entry.spec.models.is_empty() => Err(e.context(format!(
            "provider '{}' lists no models of its own, and its server could not be asked",
            entry.id
        ))),
        Err(e) => {
            tracing::warn!("provider '{}': {e:#}", entry.id);
            Ok(None)
        }
    }
}

/// What `--model` named: a provider's model and maybe a thinking level.
struct ModelByPattern {
    provider: String,
    model: String,
    thinking: Option<Thinking>,
}

/// Resolves `--model` (see [`model_pattern`]) among the models of `--provider` when given, else
/// among the models that can be used right away (their key set, or offline), else among all.
fn model_by_pattern(
    pattern: &str,
    catalog: &[crate::models::catalog::ProviderEntry],
    provider: Option<&str>,
    secrets: &SecretStore,
) -> Result<ModelByPattern> {
    let candidates = |keep: &dyn Fn(&crate::models::catalog::ProviderEntry) -> bool| {
        catalog
            .iter()
            .filter(|e| keep(e))
            .flat_map(|e| e.candidates())
            .collect::<Vec<_>>()
    };
    let pools = match provider {
        Some(id) => vec![candidates(&|e| e.id == id)],
        // A preset's models count when its key is set, or when `--provider` names it.
        None => vec![
            candidates(&|e| e.offline() || e.usable(secrets)),
            candidates(&|e| !e.preset),
        ],
    };
    for pool in &pools {
        if let Some(found) = model_pattern::resolve(pattern, pool) {
            let c = &pool[found.index];
            return Ok(ModelByPattern {
                provider: c.provider.clone(),
                model: c.id.clone(),
                thinking: found.thinking,
            });
        }
    }
    match provider {
        Some(id) if catalog.iter().any(|e| e.id == id) => {
            let known: Vec<String> = pools[0].iter().map(|c| c.id.clone()).collect();
            bail!(
                "provider '{id}' has no model '{pattern}' (available: {})",
                known.join(", ")
            )
        }
        Some(id) => {
            let known: Vec<&str> = catalog.iter().map(|e| e.id.as_str()).collect();
            bail!("unknown provider '{id}' (available: {})", known.join(", "))
        }
        None => bail!(
            "no model matches '{pattern}' (an id, provider/id or part of a model's id or name, \
             optionally with :level; `tack models` lists them)"
        ),
    }
}

pub fn model_info(provider: &str, model: &api::ModelSpec) -> ModelInfo {
    ModelInfo {
        provider: provider.to_string(),
        id: model.id.clone(),
        name: model.name.clone(),
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
        reasoning: model.reasoning,
        input: model
            .input
            .iter()
            .map(|k| match k {
                api::InputKind::Text => InputKind::Text,
                api::InputKind::Image => InputKind::Image,
            })
            .collect(),
        cost: ModelCost {
            input: model.cost.input,
            output: model.cost.output,
            cache_read: model.cost.cache_read,
            cache_write: model.cost.cache_write,
        },
    }
}
