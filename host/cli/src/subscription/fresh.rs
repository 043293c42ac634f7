//! The access token of the user's ChatGPT login for each request. `auth.json` is read for every
//! request (a small file), so `/logout`, or a login to another account in another terminal,
//! reaches a running session at its next request. A token within a minute of expiring is
//! refreshed under `auth.json`'s lock, after reading the file again: another tack that refreshed
//! first has already replaced the refresh token (each is good once), and its new tokens are taken
//! instead of spending the old one.

use std::path::PathBuf;

use async_trait::async_trait;
use tack_runtime::bridge::{LoginToken, LoginTokenSource};

use super::{ChatGpt, Tokens, CHATGPT};

pub struct FreshTokens {
    auth: PathBuf,
    chatgpt: ChatGpt,
    http: reqwest::Client,
    /// One refresh at a time in this process; the file lock orders them between processes.
    refreshing: tokio::sync::Mutex<()>,
}

impl FreshTokens {
    pub fn new(auth: PathBuf, chatgpt: ChatGpt, http: reqwest::Client) -> FreshTokens {
        FreshTokens {
            auth,
            chatgpt,
            http,
            refreshing: tokio::sync::Mutex::new(()),
        }
    }

    fn stored(&self) -> anyhow::Result<Tokens> {
        Tokens::read(&self.auth, CHATGPT)?.ok_or_else(|| {
            anyhow::anyhow!("not signed in to ChatGPT: run `tack login {CHATGPT}` (or /login)")
        })
    }

    async fn current(&self) -> anyhow::Result<Tokens> {
        let stored = self.stored()?;
        if stored.fresh() {
            return Ok(stored);
        }
        let _one = self.refreshing.lock().await;
        let auth = self.auth.clone();
        let lock = tokio::task::spawn_blocking(move || crate::api_keys::lock(&auth)).await??;
        let stored = self.stored()?;
        if stored.fresh() {
            return Ok(stored);
        }
        let renewed = self
            .chatgpt
            .refresh(&self.http, &stored.refresh)
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "the ChatGPT login has expired and could not be renewed: {e:#}; run `tack \
                     login {CHATGPT}` again"
                )
            })?;
        renewed.save_locked(&self.auth, CHATGPT)?;
        drop(lock);
        Ok(renewed)
    }
}

#[async_trait]
impl LoginTokenSource for FreshTokens {
    async fn token(&self) -> Result<LoginToken, String> {
        let tokens = self.current().await.map_err(|e| format!("{e:#}"))?;
        Ok(LoginToken {
            access: tokens.access,
            headers: tokens
                .account_id
                .map(|account| vec![("chatgpt-account-id".to_string(), account)])
                .unwrap_or_default(),
        })
    }
}
