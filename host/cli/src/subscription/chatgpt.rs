//! OpenAI's sign-in for ChatGPT plans, as Codex's own login does it: the authorization code flow
//! with PKCE (RFC 7636) against `auth.openai.com`, with Codex's public client, and the refresh
//! grant. The access token is a JWT whose `https://api.openai.com/auth` claim names the ChatGPT
//! account, which requests carry in `chatgpt-account-id`.
//!
//! `TACK_CHATGPT_ISSUER` names another sign-in server (https, or this machine), and
//! `TACK_LOGIN_CALLBACK_PORT` another port for the browser's return (0: any free one): for a
//! gateway in front of OpenAI's, and for tests. OpenAI itself only sends the browser back to
//! port 1455.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Deserialize;
use url::Url;

use super::Tokens;
use crate::oauth_loopback::{random_token, Pkce};

/// Codex's OAuth client: the one OpenAI's ChatGPT plans sign in with.
const CLIENT_ID: &str = "app_EMoamEEZ73f0CkXaXp7hrann";
const DEFAULT_ISSUER: &str = "https://auth.openai.com";
const SCOPE: &str = "openid profile email offline_access";
/// The port OpenAI sends the browser back to.
const DEFAULT_CALLBACK_PORT: u16 = 1455;
const ACCOUNT_CLAIM: &str = "https://api.openai.com/auth";
/// How long a token request may take.
const TOKEN_TIMEOUT: Duration = Duration::from_secs(30);

/// Where ChatGPT sign-ins go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatGpt {
    issuer: Url,
    callback_port: u16,
}

/// One sign-in's secrets: the PKCE verifier and the state the browser must bring back.
pub struct Flow {
    verifier: String,
    challenge: String,
    pub state: String,
    redirect_uri: String,
}

impl Flow {
    pub fn new(redirect_uri: String) -> Result<Flow> {
        let Pkce {
            verifier,
            challenge,
        } = Pkce::new()?;
        Ok(Flow {
            verifier,
            challenge,
            state: random_token(24)?,
            redirect_uri,
        })
    }
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
    refresh_token: Option<String>,
    expires_in: Option<u64>,
    id_token: Option<String>,
}

impl ChatGpt {
    /// OpenAI's, unless the environment names another (see the module's doc).
    pub fn from_env() -> Result<ChatGpt> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let issuer = var("TACK_CHATGPT_ISSUER").unwrap_or_else(|| DEFAULT_ISSUER.into());
        let issuer = Url::parse(&issuer)
            .with_context(|| format!("TACK_CHATGPT_ISSUER is not a URL: {issuer}"))?;
        if !tack_runtime::broker::http::private_transport(&issuer) {
            bail!("TACK_CHATGPT_ISSUER must be an https URL (or one on this machine): {issuer}");
        }
        let callback_port = match var("TACK_LOGIN_CALLBACK_PORT") {
            Some(port) => port
                .parse()
                .with_context(|| format!("TACK_LOGIN_CALLBACK_PORT is not a port: {port}"))?,
            None => DEFAULT_CALLBACK_PORT,
        };
        Ok(ChatGpt {
            issuer,
            callback_port,
        })
    }

    pub fn callback_port(&self) -> u16 {
        self.callback_port
    }

    fn endpoint(&self, path: &str) -> Url {
        let mut url = self.issuer.clone();
        url.set_path(&format!(
            "{}{path}",
            self.issuer.path().trim_end_matches('/')
        ));
        url
    }

    /// The address the user signs in at.
    pub fn authorize_url(&self, flow: &Flow) -> String {
        let mut url = self.endpoint("/oauth/authorize");
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", CLIENT_ID)
            .append_pair("redirect_uri", &flow.redirect_uri)
            .append_pair("scope", SCOPE)
            .append_pair("code_challenge", &flow.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &flow.state)
            .append_pair("id_token_add_organizations", "true")
            .append_pair("codex_cli_simplified_flow", "true")
            .append_pair("originator", "tack");
        url.into()
    }

    /// The tokens the code the browser brought back is worth.
    pub async fn exchange(
        &self,
        http: &reqwest::Client,
        code: &str,
        flow: &Flow,
    ) -> Result<Tokens> {
        let form = [
            ("grant_type", "authorization_code"),
            ("client_id", CLIENT_ID),
            ("code", code),
            ("code_verifier", &flow.verifier),
            ("redirect_uri", &flow.redirect_uri),
        ];
        self.token_request(http, &form, "signing in").await
    }

    /// New tokens for `refresh` (which the answer replaces).
    pub async fn refresh(&self, http: &reqwest::Client, refresh: &str) -> Result<Tokens> {
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", CLIENT_ID),
        ];
        self.token_request(http, &form, "refreshing the login")
            .await
    }

    async fn token_request(
        &self,
        http: &reqwest::Client,
        form: &[(&str, &str)],
        doing: &str,
    ) -> Result<Tokens> {
        let url = self.endpoint("/oauth/token");
        let answer = http
            .post(url.clone())
            .form(form)
            .timeout(TOKEN_TIMEOUT)
            .send()
            .await
            .with_context(|| format!("{doing}: cannot reach {url}"))?;
        let status = answer.status();
        let body = answer
            .text()
            .await
            .with_context(|| format!("{doing}: {url} sent a broken answer"))?;
        if !status.is_success() {
            bail!(
                "{doing}: {url} answered {status}: {}",
                crate::sessions::clip(body.trim(), 300)
            );
        }
        let answer: TokenAnswer = serde_json::from_str(&body)
            .with_context(|| format!("{doing}: {url} answered with something not JSON"))?;
        let (Some(access), Some(refresh), Some(expires_in)) =
            (answer.access_token, answer.refresh_token, answer.expires_in)
        else {
            bail!("{doing}: {url} answered without an access token, refresh token and expiry");
        };
        let account =
            account_id(&access).or_else(|| answer.id_token.as_deref().and_then(account_id));
        let Some(account) = account else {
            bail!("{doing}: the token {url} gave names no ChatGPT account");
        };
        let mut tokens = Tokens::new(access, refresh, Duration::from_secs(expires_in));
        tokens.account_id = Some(account);
        Ok(tokens)
    }
}

/// The ChatGPT account a token (a JWT) is for.
pub fn account_id(jwt: &str) -> Option<String> {
    let payload = jwt.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    claims[ACCOUNT_CLAIM]["chatgpt_account_id"]
        .as_str()
        .filter(|id| !id.is_empty())
        .map(str::to_string)
}

/// The code in what a user pasted: the address the browser was sent to, `code#state`, a query
/// string, or the code alone. A state that is not this sign-in's is refused.
pub fn code_from_pasted(text: &str, state: &str) -> Result<String> {
    let text = text.trim();
    let (code, given_state) = if let Ok(url) = Url::parse(text) {
        let get = |name: &str| {
            url.query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
        };
        (get("code"), get("state"))
    } else if let Some((code, state)) = text.split_once('#') {
        (Some(code.to_string()), Some(state.to_string()))
    } else if text.contains("code=") {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(text.as_bytes())
            .into_owned()
            .collect();
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        (get("code"), get("state"))
    } else {
        (Some(text.to_string()), None)
    };
    if given_state.is_some_and(|given| given != state) {
        bail!("that answer belongs to another sign-in (its state differs); nothing was saved");
    }
    match code.filter(|code| !code.is_empty()) {
        Some(code) => Ok(code),
        None => bail!("no authorization code in what was pasted; nothing was saved"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn jwt(claims: serde_json::Value) -> String {
        format!(
            "e30.{}.sig",
            URL_SAFE_NO_PAD.encode(claims.to_string().as_bytes())
        )
    }

    #[test]
    fn the_account_comes_from_the_tokens_claim() {
        let token = jwt(serde_json::json!({ACCOUNT_CLAIM: {"chatgpt_account_id": "acct-9"}}));
        assert_eq!(account_id(&token).as_deref(), Some("acct-9"));
        assert_eq!(account_id(&jwt(serde_json::json!({}))), None);
        assert_eq!(account_id("not a jwt"), None);
    }

    #[test]
    fn a_pasted_answer_gives_its_code_only_for_this_sign_in() {
        let url = "http://localhost:1455/auth/callback?code=c-1&state=s-1";
        assert_eq!(code_from_pasted(url, "s-1").expect("code"), "c-1");
        assert!(code_from_pasted(url, "s-2").is_err());
        assert_eq!(code_from_pasted("c-2#s-1", "s-1").expect("code"), "c-2");
        assert_eq!(
            code_from_pasted("code=c-3&state=s-1", "s-1").expect("code"),
            "c-3"
        );
        assert_eq!(code_from_pasted(" c-4 \n", "s-1").expect("code"), "c-4");
        assert!(code_from_pasted("http://localhost/?state=s-1", "s-1").is_err());
    }

    #[test]
    fn the_sign_in_address_carries_the_challenge_of_the_verifier() {
        let chatgpt = ChatGpt {
            issuer: Url::parse(DEFAULT_ISSUER).expect("url"),
            callback_port: DEFAULT_CALLBACK_PORT,
        };
        let flow = Flow::new("http://localhost:1455/auth/callback".into()).expect("flow");
        let url = Url::parse(&chatgpt.authorize_url(&flow)).expect("url");
        assert!(url
            .as_str()
            .starts_with("https://auth.openai.com/oauth/authorize?"));
        let query: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
        assert_eq!(query["client_id"], CLIENT_ID);
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(
            query["code_challenge"],
            URL_SAFE_NO_PAD.encode(Sha256::digest(flow.verifier.as_bytes()))
        );
        assert_eq!(query["state"], flow.state);
        assert_eq!(flow.state.len(), 32, "24 random bytes");
        assert_eq!(query["redirect_uri"], "http://localhost:1455/auth/callback");
    }
}
