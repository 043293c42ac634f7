//! LLM providers plugins register while tack runs (`tack:plugin/providers`, 0.2.0): Pi's
//! `registerProvider` for a proxy, a team's endpoint, a local server's models. The registry
//! holds each under the plugin that registered it, which alone may replace or remove it, and
//! never lets one take an id that is already there: a built-in's, another plugin's, a preset's
//! or the user's config's. So no plugin redirects another provider's traffic (and key).
//!
//! Whether a registered provider may be *used* is not decided here: the front end's model
//! catalog judges it by the registering plugin's grants, exactly as a provider `init` returns
//! (see [`crate::bridge::provider_authority`]).
//!
//! Registrations made during `init` come before the front end knows which ids are taken and
//! which APIs are served; it [`settle`](ProviderRegistry::settle)s them once the plugins are
//! loaded, and from then on each registration is judged when it is made.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};

use crate::api::{AuthScheme, ModelSpec};
use crate::bridge::RegisterError;

/// How many providers one plugin may register.
pub const MAX_REGISTERED_PROVIDERS: usize = 16;
/// How many models one registered provider may list.
pub const MAX_PROVIDER_MODELS: usize = 256;
/// The longest id of a provider or model.
pub const MAX_PROVIDER_ID: usize = 64;
/// The longest human name.
pub const MAX_PROVIDER_NAME: usize = 128;
/// The most headers a registered provider adds to its requests, and the longest value.
const MAX_HEADERS: usize = 32;
const MAX_HEADER_VALUE: usize = 4096;

/// A provider a plugin registered, as the plugin gave it (after the checks).
#[derive(Debug, Clone)]
pub struct RegisteredProvider {
    /// The plugin that registered it: its grants decide whether it may be used.
    pub plugin: String,
    pub id: String,
    pub name: String,
    /// The provider whose plugin writes its requests; `None`: the registering plugin's own
    /// provider functions.
    pub api: Option<String>,
    pub base_url: String,
    pub secret: Option<String>,
    pub auth: Option<AuthScheme>,
    pub headers: Vec<(String, String)>,
    pub models: Vec<ModelSpec>,
}

/// What the front end knows once the plugins are loaded.
#[derive(Debug, Default)]
struct Known {
    /// Provider ids that are not the registry's: built-ins, plugins' `init`, presets, config.
    taken: BTreeSet<String>,
    /// The providers an `api` may name.
    apis: BTreeSet<String>,
}

/// The run-time providers of one run, shared by every plugin's services and the front end.
#[derive(Debug, Default)]
pub struct ProviderRegistry {
    entries: Mutex<Vec<RegisteredProvider>>,
    /// `None` until [`settle`](Self::settle): during `init`, nothing else is known yet.
    known: Mutex<Option<Known>>,
}

impl ProviderRegistry {
    fn entries(&self) -> MutexGuard<'_, Vec<RegisteredProvider>> {
        // A list of plain values: a writer that panicked left it whole.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn known(&self) -> MutexGuard<'_, Option<Known>> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers (or replaces) one of `plugin`'s providers.
    pub fn register(
        &self,
        plugin: &str,
        provider: RegisteredProvider,
    ) -> Result<(), RegisterError> {
        let provider = RegisteredProvider {
            plugin: plugin.to_string(),
            ..provider
        };
        check_shape(&provider)?;
        if let Some(known) = self.known().as_ref() {
            check_known(&provider, known)?;
        }
        let mut entries = self.entries();
        if let Some(other) = entries
            .iter()
            .find(|e| e.id == provider.id && e.plugin != plugin)
        {
            return Err(RegisterError::Taken(format!(
                "provider '{}' is plugin '{}'s",
                provider.id, other.plugin
            )));
        }
        match entries
            .iter_mut()
            .find(|e| e.id == provider.id && e.plugin == plugin)
        {
            Some(held) => *held = provider,
            None => {
                let own = entries.iter().filter(|e| e.plugin == plugin).count();
                if own >= MAX_REGISTERED_PROVIDERS {
                    return Err(RegisterError::Limit(format!(
                        "a plugin registers at most {MAX_REGISTERED_PROVIDERS} providers"
                    )));
                }
                entries.push(provider);
            }
        }
        Ok(())
    }

    /// Removes `plugin`'s provider `id`; `false` when it has none of that id.
    pub fn unregister(&self, plugin: &str, id: &str) -> bool {
        let mut entries = self.entries();
        let before = entries.len();
        entries.retain(|e| !(e.id == id && e.plugin == plugin));
        entries.len() != before
    }

    /// Every registered provider, in the order they were first registered.
    pub fn list(&self) -> Vec<RegisteredProvider> {
        self.entries().clone()
    }

    /// Tells the registry which ids are taken and which APIs are served, now that the plugins
    /// are loaded, and drops what was registered during `init` against them. Returns why each
    /// dropped one was refused, naming its plugin, for the front end to tell the user.
    pub fn settle(
        &self,
        taken: impl IntoIterator<Item = String>,
        apis: impl IntoIterator<Item = String>,
    ) -> Vec<String> {
        let known = Known {
            taken: taken.into_iter().collect(),
            apis: apis.into_iter().collect(),
        };
        let mut refused = Vec::new();
        self.entries()
            .retain(|provider| match check_known(provider, &known) {
                Ok(()) => true,
                Err(e) => {
                    refused.push(format!(
                        "plugin '{}' could not register provider '{}': {e}",
                        provider.plugin, provider.id
                    ));
                    false
                }
            });
        *self.known() = Some(known);
        refused
    }
}

fn check_known(provider: &RegisteredProvider, known: &Known) -> Result<(), RegisterError> {
    if known.taken.contains(&provider.id) {
        return Err(RegisterError::Taken(format!(
            "a provider '{}' is there already (a built-in, a plugin's, a preset or config.toml's); \
             register it under another id",
            provider.id
        )));
    }
    if let Some(api) = &provider.api {
        if !known.apis.contains(api) {
            return Err(RegisterError::Invalid(format!(
                "no loaded plugin provides the API '{api}' (there are: {})",
                known.apis.iter().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    Ok(())
}

/// An id as `--provider` and `--model` take it, and as session lines record it.
fn check_id(what: &str, id: &str) -> Result<(), RegisterError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_PROVIDER_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
        && !id.starts_with(['.', '-']);
    if ok {
        Ok(())
    } else {
        Err(RegisterError::Invalid(format!(
            "{what} '{}' must be 1 to {MAX_PROVIDER_ID} bytes of letters, digits, '.', '_', ':' \
             and '-', not starting with '.' or '-'",
            tack_core::text::neutralize_controls(id)
        )))
    }
}

fn check_name(what: &str, name: &str) -> Result<(), RegisterError> {
    if name.len() > MAX_PROVIDER_NAME || name.chars().any(char::is_control) {
        return Err(RegisterError::Invalid(format!(
            "the name of {what} must be one line of at most {MAX_PROVIDER_NAME} bytes"
        )));
    }
    Ok(())
}

fn check_shape(provider: &RegisteredProvider) -> Result<(), RegisterError> {
    check_id("provider id", &provider.id)?;
    check_name(&format!("provider '{}'", provider.id), &provider.name)?;
    if let Some(api) = &provider.api {
        check_id("api", api)?;
    }
    if let Some(secret) = &provider.secret {
        let ok = !secret.is_empty()
            && secret.len() <= 128
            && secret
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if !ok {
            return Err(RegisterError::Invalid(format!(
                "provider '{}' names the secret '{}': a secret's name is 1 to 128 bytes of \
                 letters, digits, '_', '-' and '.'",
                provider.id,
                tack_core::text::neutralize_controls(secret)
            )));
        }
    }
    match url::Url::parse(&provider.base_url) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {}
        _ => {
            return Err(RegisterError::Invalid(format!(
                "provider '{}' has the base URL '{}', which is not an http or https URL",
                provider.id,
                tack_core::text::neutralize_controls(&provider.base_url)
            )))
        }
    }
    if provider.headers.len() > MAX_HEADERS
        || provider
            .headers
            .iter()
            .any(|(n, v)| n.len() > 128 || v.len() > MAX_HEADER_VALUE)
    {
        return Err(RegisterError::Limit(format!(
            "provider '{}' adds at most {MAX_HEADERS} headers of at most {MAX_HEADER_VALUE} bytes",
            provider.id
        )));
    }
    if let Some((name, _)) = provider
        .headers
        .iter()
        .find(|(name, _)| crate::bridge::reserved_header(name))
    {
        return Err(RegisterError::Invalid(format!(
            "provider '{}' sets the header '{name}', which the host sets (it routes, frames or \
             authenticates the request)",
            provider.id
        )));
    }
    for (name, value) in &provider.headers {
        let valid = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok()
            && reqwest::header::HeaderValue::from_str(value).is_ok();
        if !valid {
            return Err(RegisterError::Invalid(format!(
                "provider '{}' adds the header '{}', which is not a valid HTTP header",
                provider.id,
                tack_core::text::neutralize_controls(name)
            )));
        }
    }
    if provider.models.is_empty() {
        return Err(RegisterError::Invalid(format!(
            "provider '{}' lists no models",
            provider.id
        )));
    }
    if provider.models.len() > MAX_PROVIDER_MODELS {
        return Err(RegisterError::Limit(format!(
            "provider '{}' lists {} models; at most {MAX_PROVIDER_MODELS}",
            provider.id,
            provider.models.len()
        )));
    }
    let mut seen = BTreeSet::new();
    for model in &provider.models {
        check_id("model id", &model.id)?;
        check_name(&format!("model '{}'", model.id), &model.name)?;
        if !seen.insert(model.id.as_str()) {
            return Err(RegisterError::Invalid(format!(
                "provider '{}' lists the model '{}' twice",
                provider.id, model.id
            )));
        }
        let costs = [
            model.cost.input,
            model.cost.output,
            model.cost.cache_read,
            model.cost.cache_write,
        ];
        if costs.iter().any(|c| !c.is_finite() || *c < 0.0) {
            return Err(RegisterError::Invalid(format!(
                "model '{}' has a cost that is not a non-negative number",
                model.id
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{InputKind, ModelCost};

    fn model(id: &str) -> ModelSpec {
        ModelSpec {
            id: id.into(),
            name: id.into(),
            context_window: 200_000,
            max_output_tokens: 8192,
            reasoning: false,
            input: vec![InputKind::Text],
            cost: ModelCost {
                input: 1.0,
                output: 2.0,
                cache_read: 0.0,
                cache_write: 0.0,
            },
        }
    }

    fn proxy(id: &str) -> RegisteredProvider {
        RegisteredProvider {
            plugin: String::new(),
            id: id.into(),
            name: "Proxy".into(),
            api: Some("anthropic".into()),
            base_url: "https://proxy.example.com".into(),
            secret: Some("PROXY_KEY".into()),
            auth: None,
            headers: vec![],
            models: vec![model("claude-x")],
        }
    }

    #[test]
    fn a_plugin_replaces_and_removes_only_its_own_providers() {
        let registry = ProviderRegistry::default();
        registry.register("a", proxy("p")).expect("registers");
        let mut again = proxy("p");
        again.models.push(model("claude-y"));
        registry.register("a", again).expect("replaces its own");
        assert_eq!(registry.list()[0].models.len(), 2);
        assert!(matches!(
            registry.register("b", proxy("p")),
            Err(RegisterError::Taken(_))
        ));
        assert!(!registry.unregister("b", "p"));
        assert!(registry.unregister("a", "p"));
        assert!(registry.list().is_empty());
    }

    #[test]
    fn settling_drops_what_init_registered_over_a_taken_id_or_an_unknown_api() {
        let registry = ProviderRegistry::default();
        registry
            .register("a", proxy("anthropic"))
            .expect("not known yet");
        let mut odd = proxy("odd");
        odd.api = Some("cobol".into());
        registry.register("a", odd.clone()).expect("not known yet");
        registry.register("a", proxy("fine")).expect("registers");
        let refused = registry.settle(["anthropic".to_string()], ["anthropic".to_string()]);
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(
            refused[0].contains("'anthropic' is there already"),
            "{refused:?}"
        );
        assert!(refused[1].contains("API 'cobol'"), "{refused:?}");
        let ids: Vec<String> = registry.list().into_iter().map(|p| p.id).collect();
        assert_eq!(ids, ["fine"]);
        // From now on, judged when made.
        assert!(matches!(
            registry.register("a", proxy("anthropic")),
            Err(RegisterError::Taken(_))
        ));
        assert!(matches!(
            registry.register("a", odd),
            Err(RegisterError::Invalid(_))
        ));
    }

    #[test]
    fn malformed_registrations_are_refused_naming_what_is_wrong() {
        let registry = ProviderRegistry::default();
        let cases: Vec<(RegisteredProvider, &str)> = vec![
            (proxy("bad id"), "provider id 'bad id'"),
            (
                RegisteredProvider {
                    base_url: "file:///etc/passwd".into(),
                    ..proxy("p")
                },
                "not an http or https URL",
            ),
            (
                RegisteredProvider {
                    models: vec![],
                    ..proxy("p")
                },
                "lists no models",
            ),
            (
                RegisteredProvider {
                    secret: Some("A B".into()),
                    ..proxy("p")
                },
                "names the secret",
            ),
            (
                RegisteredProvider {
                    headers: vec![("x-bad\n".into(), "v".into())],
                    ..proxy("p")
                },
                "not a valid HTTP header",
            ),
            (
                RegisteredProvider {
                    headers: vec![("Authorization".into(), "Bearer x".into())],
                    ..proxy("p")
                },
                "which the host sets",
            ),
            (
                RegisteredProvider {
                    models: vec![model("m"), model("m")],
                    ..proxy("p")
                },
                "twice",
            ),
        ];
        for (provider, says) in cases {
            let err = registry.register("a", provider).expect_err("refused");
            assert!(err.to_string().contains(says), "{err} should say {says}");
        }
        for i in 0..MAX_REGISTERED_PROVIDERS {
            registry
                .register("a", proxy(&format!("p{i}")))
                .expect("within the budget");
        }
        assert!(matches!(
            registry.register("a", proxy("one-more")),
            Err(RegisterError::Limit(_))
        ));
    }
}
