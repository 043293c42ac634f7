//! A login's tokens as `auth.json` keeps them, in Pi's shape:
//! `{"type": "oauth", "access": …, "refresh": …, "expires": <ms since the epoch>, "accountId": …}`.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// A token this close to its expiry is refreshed before a request.
const MARGIN: Duration = Duration::from_secs(60);

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    #[serde(rename = "type")]
    kind: String,
    pub access: String,
    pub refresh: String,
    /// Milliseconds since the epoch.
    pub expires: u64,
    #[serde(rename = "accountId", default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<String>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("expires", &self.expires)
            .field("account_id", &self.account_id)
            .finish_non_exhaustive()
    }
}

impl Tokens {
    pub fn new(access: String, refresh: String, expires_in: Duration) -> Tokens {
        let expires = SystemTime::now() + expires_in;
        Tokens {
            kind: "oauth".into(),
            access,
            refresh,
            expires: millis(expires),
            account_id: None,
        }
    }

    /// Still good for a request now.
    pub fn fresh(&self) -> bool {
        millis(SystemTime::now() + MARGIN) < self.expires
    }

    /// `provider`'s login in `auth`, if there is one.
    pub fn read(auth: &Path, provider: &str) -> Result<Option<Tokens>> {
        let entries = crate::api_keys::read(auth)?;
        let Some(value) = entries.get(provider) else {
            return Ok(None);
        };
        if !value.is_object() {
            // A key saved under the provider's name; not a login.
            return Ok(None);
        }
        serde_json::from_value(value.clone())
            .map(Some)
            .with_context(|| format!("the {provider} login in {} is damaged", auth.display()))
    }

    /// Saves these as `provider`'s login in `auth`, beside the other entries.
    pub fn save(&self, auth: &Path, provider: &str) -> Result<()> {
        let _lock = crate::api_keys::lock(auth)?;
        self.save_locked(auth, provider)
    }

    /// [`Tokens::save`] for a caller that holds `auth`'s lock.
    pub fn save_locked(&self, auth: &Path, provider: &str) -> Result<()> {
        let mut entries = crate::api_keys::read(auth)?;
        entries.insert(
            provider.to_string(),
            serde_json::to_value(self).context("encoding the login")?,
        );
        crate::api_keys::write(auth, &entries)
    }
}

fn millis(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_sits_beside_the_keys_in_pis_shape_and_is_never_printed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let auth = dir.path().join("auth.json");
        crate::api_keys::save(&auth, "GROQ_API_KEY", "gsk-1").expect("key");
        let mut tokens = Tokens::new("at-1".into(), "rt-1".into(), Duration::from_secs(3600));
        tokens.account_id = Some("acct".into());
        tokens.save(&auth, "openai-codex").expect("saved");
        let text = std::fs::read_to_string(&auth).expect("read");
        let json: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(json["GROQ_API_KEY"], "gsk-1");
        assert_eq!(json["openai-codex"]["type"], "oauth");
        assert_eq!(json["openai-codex"]["accountId"], "acct");
        let back = Tokens::read(&auth, "openai-codex")
            .expect("read")
            .expect("there");
        assert_eq!(back, tokens);
        assert!(back.fresh());
        assert!(!Tokens::new("a".into(), "r".into(), Duration::from_secs(30)).fresh());
        assert!(!format!("{back:?}").contains("at-1"));
        assert!(Tokens::read(&auth, "GROQ_API_KEY").expect("read").is_none());
    }
}
