//! `/login` and `/logout`: API keys typed into a masked dialog and kept in the tack home's
//! `auth.json` (`crate::api_keys`), where the host reads them like any key there: the next
//! request of that provider sends it, without a restart.

use std::fmt::Write as _;

use anyhow::{bail, Result};
use tack_core::event::UiRequest;
use tack_tui::{DialogAnswer, DialogRequest, UiEvent};
use tokio::sync::oneshot;

use super::controller::Controller;
use crate::models::catalog::{self, ProviderEntry};

impl Controller {
    fn providers(&self) -> Result<Vec<ProviderEntry>> {
        let loaded = &self.front.loaded;
        catalog::build(&loaded.set, &loaded.settings, &loaded.secrets)
    }

    /// `/login` alone: the providers that take a key, and whether each has one.
    pub(super) fn login_list(&self) -> Result<Option<String>> {
        let mut out =
            String::from("Providers that take an API key (`/login <provider>` saves one):\n");
        for entry in self.providers()? {
            if let Some(secret) = &entry.spec.secret {
                let set = if self.front.loaded.secrets.has(secret) {
                    "set"
                } else {
                    "not set"
                };
                let _ = writeln!(out, "  {} ({}): {secret}, {set}", entry.id, entry.spec.name);
            }
        }
        Ok(Some(out.trim_end().to_string()))
    }

    /// `/login <provider>`: asks for the key in a masked dialog and saves it.
    pub(super) async fn login(&self, provider: &str) -> Result<Option<String>> {
        let (secret, name) = self.secret_of(provider)?;
        let (reply, answer) = oneshot::channel();
        self.send(UiEvent::Dialog(DialogRequest {
            id: format!("login-{provider}"),
            plugin: "tack".into(),
            kind: UiRequest::Input {
                title: format!("API key for {name} ({secret})"),
                placeholder: "paste the key; it is kept in auth.json".into(),
                timeout_ms: None,
            },
            reply,
            masked: true,
        }));
        let key = match answer.await {
            Ok(DialogAnswer::Text(key)) => key.trim().to_string(),
            _ => return Ok(Some("Login cancelled; nothing was saved.".into())),
        };
        if key.is_empty() {
            bail!("no key was given; nothing was saved");
        }
        let auth = self.front.loaded.home.auth();
        crate::api_keys::save(&auth, &secret, &key)?;
        let mut said = format!(
            "Saved {secret} in {}. Pick one of {provider}'s models with /model.",
            auth.display()
        );
        if std::env::var(&secret).is_ok_and(|v| !v.is_empty()) {
            let _ = write!(
                said,
                " Note: {secret} is also set in the environment, which is used first."
            );
        }
        Ok(Some(said))
    }

    /// `/logout <provider>`: removes its key from auth.json.
    pub(super) fn logout(&self, provider: &str) -> Result<Option<String>> {
        let (secret, _) = self.secret_of(provider)?;
        let auth = self.front.loaded.home.auth();
        Ok(Some(if crate::api_keys::forget(&auth, &secret)? {
            format!("Removed {secret} from {}.", auth.display())
        } else {
            format!("{} holds no {secret}.", auth.display())
        }))
    }

    /// The secret `provider` takes its key from, and its name.
    fn secret_of(&self, provider: &str) -> Result<(String, String)> {
        crate::api_keys::secret_for(&self.providers()?, provider)
    }
}
