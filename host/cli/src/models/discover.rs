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
/// gateways a `context_length` (read when they are numbers a window can be).
#[derive(Deserialize)]
struct Served {
    id: String,
    #[serde(default)]
    max_model_len: serde_json::Value,
    #[serde(default)]
    context_length: serde_json::Value,
}

/// The most of a listing read: thousands of models fit many times over.
const MAX_LISTING_BYTES: usize = 8 << 20;
/// The most models taken from one listing.
const MAX_SERVED: usize = 10_000;

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
        let allowed =
            provider_authority::check(entry.authority(), &entry.id, &entry.spec, base_url, user);
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
    // An id is printed in errors and pickers: one with control characters is no model's.
    Ok(listing
        .data
        .into_iter()
        .filter(|m| !m.id.is_empty() && !m.id.chars().any(char::is_control))
        .take(MAX_SERVED)
        .map(model_spec)
        .collect())
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
        let mut response = request.send().await?;
        let status = response.status();
        if !status.is_success() {
            let body = read_capped(&mut response, 4096).await.unwrap_or_default();
            let body = String::from_utf8_lossy(&body);
            let body: String = body.chars().take(300).collect();
            bail!("the server answered {status}: {}", body.trim());
        }
        let body = read_capped(&mut response, MAX_LISTING_BYTES).await?;
        if body.len() > MAX_LISTING_BYTES {
            bail!("the answer is over {} MiB", MAX_LISTING_BYTES >> 20);
        }
        serde_json::from_slice::<Listing>(&body)
            .context("the answer is not an OpenAI-style model list ({\"data\": [{\"id\": …}]})")
    })
}

/// The body, up to a little over `max` bytes: a server cannot make the host hold more.
async fn read_capped(response: &mut reqwest::Response, max: usize) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        body.extend_from_slice(&chunk);
        if body.len() > max {
            break;
        }
    }
    Ok(body)
}

fn model_spec(served: Served) -> ModelSpec {
    ModelSpec {
        name: served.id.clone(),
        id: served.id,
        context_window: [&served.max_model_len, &served.context_length]
            .into_iter()
            .find_map(|n| n.as_u64().and_then(|n| u32::try_from(n).ok()))
            .filter(|n| *n > 0)
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
