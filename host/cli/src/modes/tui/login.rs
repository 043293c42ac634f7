//! `/login` and `/logout`: API keys typed into a masked dialog and kept in the tack home's
//! `auth.json` (`crate::api_keys`), where the host reads them like any key there: the next
//! request of that provider sends it, without a restart.

use std::fmt::Write as _;

use anyhow::{bail, Result};
use tack_core::event::UiRequest;
use tack_tui::{DialogAnswer, DialogRequest, UiEvent};
use tokio::sync::oneshot;

use super::controller::Controller;
use crate::models::catalog::ProviderEntry;

impl Controller {
    fn providers(&self) -> Result<Vec<ProviderEntry>> {
        let loaded = &self.front.loaded;
        loaded.catalog()
    }

    /// `/login` alone: the providers that take a key, and whether each has one.
    pub(super) fn login_list(&self) -> Result<Option<String>> {
        let mut out =
            String::from("Subscriptions (`/login <provider>` signs in with a browser):\n");
        let auth = self.front.loaded.home.auth();
        let signed_in = match crate::subscription::logged_in(&auth, crate::subscription::CHATGPT) {
            true => "signed in",
            false => "not signed in",
        };
        let _ = writeln!(
            out,
            "  {} (ChatGPT Plus/Pro): {signed_in}",
            crate::subscription::CHATGPT
        );
        out.push_str("Providers that take an API key (`/login <provider>` saves one):\n");
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
        if crate::subscription::is_subscription(provider) {
            return self.subscription_login(provider).await;
        }
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

    /// `/login openai-codex`: the sign-in address goes into the transcript (and to the browser),
    /// and a dialog takes the address the browser ends up on from a user whose browser is on
    /// another machine; the browser's return closes it.
    async fn subscription_login(&self, provider: &str) -> Result<Option<String>> {
        use crate::subscription::{ChatGpt, PendingLogin};
        let pending = PendingLogin::start(ChatGpt::from_env()?).await?;
        self.send(UiEvent::Notify {
            plugin: "tack".into(),
            level: tack_core::event::NoticeLevel::Info,
            message: format!("Sign in to ChatGPT in your browser: {}", pending.url),
        });
        crate::subscription::open_browser(&pending.url);
        let id = format!("login-{provider}");
        let (reply, answer) = oneshot::channel();
        self.send(UiEvent::Dialog(DialogRequest {
            id: id.clone(),
            plugin: "tack".into(),
            kind: UiRequest::Input {
                title: "Waiting for the browser to sign in to ChatGPT (Esc cancels)".into(),
                placeholder: "or paste the address the browser ends up on".into(),
                timeout_ms: None,
            },
            reply,
            masked: false,
        }));
        let pasted = async move {
            match answer.await {
                Ok(DialogAnswer::Text(text)) if !text.trim().is_empty() => Some(text),
                _ => None,
            }
        };
        let loaded = &self.front.loaded;
        let auth = loaded.home.auth();
        let signed_in = pending.finish(pasted, loaded.runtime.http(), &auth).await;
        self.send(UiEvent::DialogClosed(id));
        signed_in?;
        Ok(Some(format!(
            "Signed in to ChatGPT; the login is kept in {}. Pick one of {provider}'s models with \
             /model.",
            auth.display()
        )))
    }

    /// `/logout <provider>`: removes its key (or its login) from auth.json.
    pub(super) fn logout(&self, provider: &str) -> Result<Option<String>> {
        if crate::subscription::is_subscription(provider) {
            let auth = self.front.loaded.home.auth();
            return Ok(Some(if crate::api_keys::forget(&auth, provider)? {
                format!(
                    "Signed out: removed the {provider} login from {}.",
                    auth.display()
                )
            } else {
                format!("{} holds no {provider} login.", auth.display())
            }));
        }
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
