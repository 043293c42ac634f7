//! Asking an OpenAI-compatible server which models it serves (`GET <base>/models`), so that a
//! local server (Ollama, LM Studio, llama.cpp, vLLM) or a proxy works with any model it has,
//! without a `models = [...]` list in config.toml.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use tack_runtime::api::{InputKind, ModelCost, ModelSpec};
use tack_runtime::bridge::provider_authority::{self, UserChoice};
use tack_runtime::broker::http::{apply_auth, private_transport};
use tack_runtime::broker::secrets::SecretStore;

use super::catalog::ProviderEntry;

/// What a served model is assumed to hold when the server does not say.
const DEFAULT_CONTEXT_WINDOW: u32 = 128_000;
const DEFAULT_MAX_OUTPUT: u32 = 8192;

/// How long the listing may take: it is asked before the first prompt.
const LISTING_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Deserialize)]
struct Listing {
    data: Vec<Served>,
}

/// One entry of the listing. Only `id` is standard; vLLM adds `max_model_len`, and some
/// gateways a `context_length`.
#[derive(Deserialize)]
struct Served {
    id: String,
    #[serde(default)]
    max_model_len: Option<u32>,
    #[serde(default)]
    context_length: Option<u32>,
}

/// The models the server at `base_url` lists. The provider's key goes along only where the
/// provider itself may send it (its grants, or the user's choice of URL, and a private
/// transport), so a listing is no new way for a key to leave.
pub fn served_models(
    entry: &ProviderEntry,
    base_url: &str,
    secrets: &SecretStore,
) -> Result<Vec<ModelSpec>> {
    let mut url = url::Url::parse(&format!("{}/models", base_url.trim_end_matches('/')))
        .with_context(|| format!("provider '{}': bad base URL {base_url}", entry.id))?;
    let mut headers = Vec::new();
    if let Some(secret) = &entry.spec.secret {
        // The caller checked `discoverable`: the URL is the user's choice (or a preset's).
        let user = UserChoice {
            base_url: true,
            secret: entry.secret_from_user,
        };
        let allowed = provider_authority::check(&entry.plugin, &entry.spec, base_url, user);
        if allowed.is_ok() && private_transport(&url) && secrets.has(secret) {
            let key = secrets
                .lookup(secret)
                .with_context(|| format!("provider '{}'", entry.id))?;
            apply_auth(&entry.spec.auth, &key, &mut headers, &mut url);
        }
    }
    let shown = base_url.to_string();
    // The caller may be on the async runtime's threads or not; the listing gets a thread and a
    // runtime of its own, so both work.
    let listing = std::thread::scope(|scope| {
        scope
            .spawn(|| fetch(url, headers))
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the model listing thread failed")))
    })
    .with_context(|| format!("asking {shown}/models which models it serves"))?;
    Ok(listing.data.into_iter().map(model_spec).collect())
}

fn fetch(url: url::Url, headers: Vec<(String, String)>) -> Result<Listing> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start a runtime for the request")?;
    runtime.block_on(async move {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(LISTING_TIMEOUT)
            .build()
            .context("cannot build an HTTP client")?;
        let mut request = client.get(url);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.send().await?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            let body: String = body.chars().take(300).collect();
            bail!("the server answered {status}: {}", body.trim());
        }
        let body = response.bytes().await?;
        serde_json::from_slice::<Listing>(&body)
            .context("the answer is not an OpenAI-style model list ({\"data\": [{\"id\": …}]})")
    })
}

fn model_spec(served: Served) -> ModelSpec {
    ModelSpec {
        name: served.id.clone(),
        id: served.id,
        context_window: served
            .max_model_len
            .or(served.context_length)
            .unwrap_or(DEFAULT_CONTEXT_WINDOW),
        max_output_tokens: DEFAULT_MAX_OUTPUT,
        reasoning: false,
        input: vec![InputKind::Text],
        cost: ModelCost {
            input: 0.0,
            output: 0.0,
            cache_read: 0.0,
            cache_write: 0.0,
        },
    }
}

/// Adds what the server serves to `entry`'s models (a model config.toml describes keeps its
/// description), and returns the served ids for an error that lists them.
pub fn merge(entry: &mut ProviderEntry, served: Vec<ModelSpec>) -> Vec<String> {
    let ids = served.iter().map(|m| m.id.clone()).collect();
    for model in served {
        if !entry.spec.models.iter().any(|m| m.id == model.id) {
            entry.spec.models.push(model);
        }
    }
    ids
}
