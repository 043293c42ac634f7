//! Azure OpenAI: the Responses API at the user's own resource, the key in `api-key`, each model
//! named in the body by the deployment that serves it. Configured as Pi reads it:
//!
//! - `AZURE_OPENAI_BASE_URL` (or `base_url` under `[providers.azure-openai-responses]`), else
//!   `AZURE_OPENAI_RESOURCE_NAME`, which stands for `https://<name>.openai.azure.com/openai/v1`;
//! - `AZURE_OPENAI_API_VERSION`, sent as `api-version` (default `v1`);
//! - `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`, `model=deployment,…`, for deployments not named after
//!   their model (or `deployments = { model = "deployment" }` in the provider's options).

use url::Url;

/// The preset's id, as Pi names the provider.
pub const ID: &str = "azure-openai-responses";

const DEFAULT_API_VERSION: &str = "v1";

/// What the user must set before the preset can send anything.
const NO_URL: &str = "set AZURE_OPENAI_BASE_URL (https://<resource>.openai.azure.com/openai/v1) \
     or AZURE_OPENAI_RESOURCE_NAME, or base_url under [providers.azure-openai-responses] in \
     config.toml";

/// How the Azure preset is set up: where its requests go (or what the user must set first), and
/// the deployments `AZURE_OPENAI_DEPLOYMENT_NAME_MAP` names.
pub struct AzureSetup {
    pub base_url: Result<String, String>,
    pub deployments: Vec<(String, String)>,
}

/// The Azure preset's setup from the URL the user's config gave it, if any, and `var` (the
/// environment).
pub fn setup(configured_url: Option<&str>, var: impl Fn(&str) -> Option<String>) -> AzureSetup {
    let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    let raw = configured_url
        .map(str::to_string)
        .or_else(|| var("AZURE_OPENAI_BASE_URL"))
        .or_else(|| var("AZURE_OPENAI_RESOURCE_NAME").map(|name| resource_url(&name)));
    let version = var("AZURE_OPENAI_API_VERSION").unwrap_or_else(|| DEFAULT_API_VERSION.into());
    AzureSetup {
        base_url: match raw {
            Some(raw) => base_url(&raw, &version),
            None => Err(NO_URL.into()),
        },
        deployments: var("AZURE_OPENAI_DEPLOYMENT_NAME_MAP")
            .map(|map| deployment_map(&map))
            .unwrap_or_default(),
    }
}

fn resource_url(name: &str) -> String {
    format!("https://{}.openai.azure.com/openai/v1", name.trim())
}

/// The URL requests go below: an Azure host's bare or `/openai` path is its `/openai/v1`, and
/// `api-version` rides along unless the URL names one.
fn base_url(raw: &str, version: &str) -> Result<String, String> {
    let mut url = Url::parse(raw.trim())
        .map_err(|e| format!("the Azure OpenAI base URL {raw} is not a URL ({e})"))?;
    let azure_host = url.host_str().is_some_and(|host| {
        host.ends_with(".openai.azure.com") || host.ends_with(".cognitiveservices.azure.com")
    });
    let path = url.path().trim_end_matches('/').to_string();
    if azure_host && (path.is_empty() || path == "/openai") {
        url.set_path("/openai/v1");
    } else {
        url.set_path(&path);
    }
    if !url.query_pairs().any(|(name, _)| name == "api-version") {
        url.query_pairs_mut().append_pair("api-version", version);
    }
    Ok(url.to_string())
}

/// `gpt-5=prod-gpt5, o4-mini = reasoning` as pairs; an entry without both halves is skipped,
/// as Pi skips it.
fn deployment_map(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .filter_map(|entry| {
            let (model, deployment) = entry.split_once('=')?;
            let (model, deployment) = (model.trim(), deployment.trim());
            (!model.is_empty() && !deployment.is_empty())
                .then(|| (model.to_string(), deployment.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_azure_host_gets_its_v1_path_and_every_url_an_api_version() {
        assert_eq!(
            base_url("https://res.openai.azure.com/", "v1").as_deref(),
            Ok("https://res.openai.azure.com/openai/v1?api-version=v1")
        );
        assert_eq!(
            base_url("https://res.cognitiveservices.azure.com/openai", "preview").as_deref(),
            Ok("https://res.cognitiveservices.azure.com/openai/v1?api-version=preview")
        );
        assert_eq!(
            base_url("http://127.0.0.1:9/proxy/v1/", "v1").as_deref(),
            Ok("http://127.0.0.1:9/proxy/v1?api-version=v1")
        );
        assert_eq!(
            base_url("https://gw.example/openai/v1?api-version=2025-04-01", "v1").as_deref(),
            Ok("https://gw.example/openai/v1?api-version=2025-04-01")
        );
        assert!(base_url("not a url", "v1")
            .unwrap_err()
            .contains("is not a URL"));
    }

    #[test]
    fn the_deployment_map_reads_as_pi_reads_it() {
        assert_eq!(
            deployment_map("gpt-5=prod-gpt5, o4-mini = reasoning ,broken,=x,"),
            vec![
                ("gpt-5".to_string(), "prod-gpt5".to_string()),
                ("o4-mini".to_string(), "reasoning".to_string())
            ]
        );
        assert_eq!(
            resource_url("myres"),
            "https://myres.openai.azure.com/openai/v1"
        );
    }
}
