//! The access token of the user's ChatGPT login for each request, refreshed when it is within a
//! minute of expiring. The refresh happens under `auth.json`'s lock and starts by reading the
//! file again: another tack that refreshed first has already replaced the refresh token (each is
//! good once), and its new tokens are taken instead of spending the old one.

use std::path::PathBuf;

use async_trait::async_trait;
use tack_runtime::bridge::{LoginToken, LoginTokenSource};

use super::{ChatGpt, Tokens, CHATGPT};

pub struct FreshTokens {
    auth: PathBuf,
    chatgpt: ChatGpt,
    http: reqwest::Client,
    held: tokio::sync::Mutex<Option<Tokens>>,
}

impl FreshTokens {
    pub fn new(auth: PathBuf, chatgpt: ChatGpt, http: reqwest::Client) -> FreshTokens {
        FreshTokens {
            auth,
            chatgpt,
            http,
            held: tokio::sync::Mutex::new(None),
        }
    }

    async fn renew(&self) -> anyhow::Result<Tokens> {
        let auth = self.auth.clone();
        let lock = tokio::task::spawn_blocking(move || crate::api_keys::lock(&auth)).await??;
        let stored = Tokens::read(&self.auth, CHATGPT)?.ok_or_else(|| {
            anyhow::anyhow!("not signed in to ChatGPT: run `tack login {CHATGPT}` (or /login)")
        })?;
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
        let mut held = self.held.lock().await;
        let tokens = match held.as_ref().filter(|tokens| tokens.fresh()) {
            Some(tokens) => tokens.clone(),
            None => {
                let tokens = self.renew().await.map_err(|e| format!("{e:#}"))?;
                *held = Some(tokens.clone());
                tokens
            }
        };
        Ok(LoginToken {
            access: tokens.access,
            headers: tokens
                .account_id
                .map(|account| vec![("chatgpt-account-id".to_string(), account)])
                .unwrap_or_default(),
        })
    }
}
