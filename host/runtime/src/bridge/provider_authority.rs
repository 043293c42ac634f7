//! Whether the host may send a provider's requests where it says, with the secret it names.
//!
//! A provider registration is the plugin's word, not the user's: it names a secret, an auth
//! scheme and a base URL at `init`, after install. So the user's grants decide. The secret must
//! be one the plugin was granted (`secrets`), and the base URL must lie under one of its granted
//! origins (`http`), unless the user named the secret or the URL themselves in config.toml or on
//! the command line. A secret only travels over https, or to this machine.

use url::Url;

use crate::api;
use crate::broker::http::authorize;
use crate::plugin::LoadedPlugin;

/// What the user, rather than the plugin, chose for a provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserChoice {
    /// The base URL came from config.toml or `--base-url`.
    pub base_url: bool,
    /// The secret's name came from config.toml (`[providers.x] secret`).
    pub secret: bool,
}

/// Why a provider cannot be used; each names the grant or setting that would fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderDenied {
    #[error(
        "provider '{provider}' of plugin '{plugin}' names the secret {secret}, which the plugin \
         was not granted; reinstall it with `--grant secrets={secret}`, or name the secret \
         yourself in config.toml ([providers.{provider}] secret = \"{secret}\")"
    )]
    SecretNotGranted {
        provider: String,
        plugin: String,
        secret: String,
    },
    #[error(
        "provider '{provider}' of plugin '{plugin}' sends requests to {url}, which the plugin \
         was not granted; reinstall it with `--grant http={url}`, or set the URL yourself in \
         config.toml ([providers.{provider}] base_url)"
    )]
    EndpointNotGranted {
        provider: String,
        plugin: String,
        url: String,
    },
    #[error("provider '{provider}' has an invalid base URL {url}")]
    BadUrl { provider: String, url: String },
    #[error(
        "provider '{provider}' would send the secret {secret} in clear text to {url}; secrets \
         only go over https, or to this machine"
    )]
    InsecureTransport {
        provider: String,
        secret: String,
        url: String,
    },
}

/// Checks `spec`'s base URL (`base_url`, the one in effect) and secret against `plugin`'s
/// grants and what the user chose.
pub fn check(
    plugin: &LoadedPlugin,
    spec: &api::ProviderSpec,
    base_url: &str,
    user: UserChoice,
) -> Result<(), ProviderDenied> {
    // A provider that answers locally (the demo) has no URL and sends nothing anywhere.
    if base_url.is_empty() {
        return Ok(());
    }
    let parsed = Url::parse(base_url).map_err(|_| ProviderDenied::BadUrl {
        provider: spec.id.clone(),
        url: base_url.to_string(),
    })?;
    if let Some(secret) = &spec.secret {
        if !user.secret && !plugin.capabilities.secrets.contains(secret) {
            return Err(ProviderDenied::SecretNotGranted {
                provider: spec.id.clone(),
                plugin: plugin.name().to_string(),
                secret: secret.clone(),
            });
        }
        if !private_transport(&parsed) {
            return Err(ProviderDenied::InsecureTransport {
                provider: spec.id.clone(),
                secret: secret.clone(),
                url: base_url.to_string(),
            });
        }
    }
    if !user.base_url && authorize(base_url, &plugin.capabilities.http).is_err() {
        return Err(ProviderDenied::EndpointNotGranted {
            provider: spec.id.clone(),
            plugin: plugin.name().to_string(),
            url: base_url.to_string(),
        });
    }
    Ok(())
}

/// https anywhere, or plain http to this machine.
pub fn private_transport(url: &Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_travel_over_https_or_to_this_machine_only() {
        let ok = |u: &str| private_transport(&Url::parse(u).expect("url"));
        assert!(ok("https://api.example.com/v1"));
        assert!(ok("http://127.0.0.1:8080"));
        assert!(ok("http://127.8.9.10"));
        assert!(ok("http://[::1]:11434/v1"));
        assert!(ok("http://localhost:11434"));
        assert!(!ok("http://192.168.1.5:11434"));
        assert!(!ok("http://api.example.com"));
        assert!(!ok("http://localhost.evil.com"));
        assert!(!ok("ftp://127.0.0.1"));
    }
}
