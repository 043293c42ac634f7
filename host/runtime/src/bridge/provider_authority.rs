//! Whether the host may send a provider's requests where it says, with the secret it names.
//!
//! A provider registration is the plugin's word, not the user's: it names a secret, an auth
//! scheme and a base URL at `init`, after install. So the user's grants decide. The secret must
//! be one the plugin was granted (`secrets`), and the base URL must lie under one of its granted
//! origins (`http`), unless the user named the secret or the URL themselves in config.toml or on
//! the command line. A secret only travels over https, or to this machine.

use url::Url;

use crate::api;
use crate::broker::http::{authorize, host_owned_header, private_transport};
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
    #[error(
        "provider '{provider}' would send its secret in the `{header}` header, which decides \
         where a request goes; the host sets it, not a plugin"
    )]
    HostOwnedHeader { provider: String, header: String },
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
/// grants and what the user chose. `provider` is the id the user knows it by (a preset's or a
/// registered provider's, where the spec's is that of the plugin serving its API).
pub fn check(
    plugin: &LoadedPlugin,
    provider: &str,
    spec: &api::ProviderSpec,
    base_url: &str,
    user: UserChoice,
) -> Result<(), ProviderDenied> {
    // A provider that answers locally (the demo) has no URL and sends nothing anywhere.
    if base_url.is_empty() {
        return Ok(());
    }
    let parsed = Url::parse(base_url).map_err(|_| ProviderDenied::BadUrl {
        provider: provider.to_string(),
        url: base_url.to_string(),
    })?;
    if let Some(secret) = &spec.secret {
        if let api::AuthScheme::Header(header) = &spec.auth {
            if host_owned_header(header) {
                return Err(ProviderDenied::HostOwnedHeader {
                    provider: provider.to_string(),
                    header: header.clone(),
                });
            }
        }
        if !user.secret && !plugin.capabilities.secrets.contains(secret) {
            return Err(ProviderDenied::SecretNotGranted {
                provider: provider.to_string(),
                plugin: plugin.name().to_string(),
                secret: secret.clone(),
            });
        }
        if !private_transport(&parsed) {
            return Err(ProviderDenied::InsecureTransport {
                provider: provider.to_string(),
                secret: secret.clone(),
                url: base_url.to_string(),
            });
        }
    }
    // A provider's endpoint is an origin granted by name: a wildcard grant reaches no private
    // address and carries no secret, and a provider client checks neither.
    let named = matches!(
        authorize(base_url, &plugin.capabilities.http),
        Ok((_, crate::broker::http::Reach::Named))
    );
    if !user.base_url && !named {
        return Err(ProviderDenied::EndpointNotGranted {
            provider: provider.to_string(),
            plugin: plugin.name().to_string(),
            url: base_url.to_string(),
        });
    }
    Ok(())
}
