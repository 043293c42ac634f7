//! Google Cloud's Application Default Credentials, exchanged for access tokens by the host
//! alone (Vertex AI). The credentials file is `GOOGLE_APPLICATION_CREDENTIALS`, else the one
//! `gcloud auth application-default login` writes (`$CLOUDSDK_CONFIG` or `~/.config/gcloud`,
//! `application_default_credentials.json`):
//!
//! - a service-account key: a JWT signed with its private key (RS256, by `ring`) is exchanged
//!   at its `token_uri` (RFC 7523);
//! - an `authorized_user` (the gcloud login): its refresh token is exchanged (RFC 6749 §6).
//!
//! Tokens are kept until a minute before they expire, then exchanged again. Workload identity
//! federation (`external_account`) and impersonation files are not read; the error says so.
//! Neither the file's secrets nor the token ever reach plugin code: the host adds the token to
//! the provider's own requests.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde::Deserialize;
use url::Url;

use crate::broker::http::private_transport;

/// What Vertex AI's tokens are asked for.
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// A token this close to its expiry is exchanged again before a request.
const MARGIN: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoogleAuthError {
    #[error(
        "no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS to a service-account key \
         file, or run `gcloud auth application-default login` (or set GOOGLE_CLOUD_API_KEY)"
    )]
    NotFound,
    #[error("the Google credentials file {path}: {problem}")]
    File { path: String, problem: String },
    #[error("Google's token endpoint {uri} {problem}")]
    Exchange { uri: String, problem: String },
}

/// Where the credentials file is looked for, captured once.
#[derive(Debug, Clone, Default)]
pub struct GoogleEnvironment {
    pub credentials_file: Option<PathBuf>,
}

impl GoogleEnvironment {
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let credentials_file = var("GOOGLE_APPLICATION_CREDENTIALS")
            .map(PathBuf::from)
            .or_else(|| {
                let config = var("CLOUDSDK_CONFIG")
                    .map(PathBuf::from)
                    .or_else(|| Some(PathBuf::from(var("HOME")?).join(".config/gcloud")))?;
                let file = config.join("application_default_credentials.json");
                file.is_file().then_some(file)
            });
        GoogleEnvironment { credentials_file }
    }

    /// Whether there is a credentials file to use.
    pub fn has_credentials(&self) -> bool {
        self.credentials_file.is_some()
    }
}

/// Access tokens for the provider's requests, from the user's credentials.
#[derive(Debug)]
pub struct GoogleTokenSource {
    env: GoogleEnvironment,
    http: reqwest::Client,
    held: tokio::sync::Mutex<Option<Token>>,
}

/// An access token, and the project a user login bills its quota to.
#[derive(Clone)]
pub struct Token {
    pub value: String,
    pub quota_project: Option<String>,
    expires: SystemTime,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("expires", &self.expires)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum CredentialsFile {
    ServiceAccount {
        client_email: String,
        private_key: String,
        #[serde(default)]
        private_key_id: Option<String>,
        #[serde(default)]
        token_uri: Option<String>,
    },
    AuthorizedUser {
        client_id: String,
        client_secret: String,
        refresh_token: String,
        #[serde(default)]
        token_uri: Option<String>,
        #[serde(default)]
        quota_project_id: Option<String>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

impl GoogleTokenSource {
    pub fn new(env: GoogleEnvironment, http: reqwest::Client) -> Self {
        GoogleTokenSource {
            env,
            http,
            held: tokio::sync::Mutex::new(None),
        }
    }

    /// A token valid for at least another minute: the one held, or a new one.
    pub async fn token(&self) -> Result<Token, GoogleAuthError> {
        let mut held = self.held.lock().await;
        if let Some(token) = held.as_ref() {
            if token.expires > SystemTime::now() + MARGIN {
                return Ok(token.clone());
            }
        }
        let token = self.exchange().await?;
        *held = Some(token.clone());
        Ok(token)
    }

    async fn exchange(&self) -> Result<Token, GoogleAuthError> {
        let path = self
            .env
            .credentials_file
            .as_ref()
            .ok_or(GoogleAuthError::NotFound)?;
        let file_error = |problem: String| GoogleAuthError::File {
            path: path.display().to_string(),
            problem,
        };
        let text = std::fs::read_to_string(path).map_err(|e| file_error(e.to_string()))?;
        let credentials: CredentialsFile = serde_json::from_str(&text)
            .map_err(|e| file_error(format!("is not a credentials file ({e})")))?;
        let mut quota_project = None;
        let (uri, form) = match credentials {
            CredentialsFile::ServiceAccount {
                client_email,
                private_key,
                private_key_id,
                token_uri,
            } => {
                let uri = token_uri.unwrap_or_else(|| DEFAULT_TOKEN_URI.into());
                let assertion =
                    signed_assertion(&client_email, &private_key, private_key_id.as_deref(), &uri)
                        .map_err(file_error)?;
                let form = vec![
                    (
                        "grant_type",
                        "urn:ietf:params:oauth:grant-type:jwt-bearer".to_string(),
                    ),
                    ("assertion", assertion),
                ];
                (uri, form)
            }
            CredentialsFile::AuthorizedUser {
                client_id,
                client_secret,
                refresh_token,
                token_uri,
                quota_project_id,
            } => {
                quota_project = quota_project_id.filter(|p| !p.is_empty());
                let uri = token_uri.unwrap_or_else(|| DEFAULT_TOKEN_URI.into());
                let form = vec![
                    ("grant_type", "refresh_token".to_string()),
                    ("client_id", client_id),
                    ("client_secret", client_secret),
                    ("refresh_token", refresh_token),
                ];
                (uri, form)
            }
            CredentialsFile::Other => {
                return Err(file_error(
                    "is of a kind tack does not read (only service-account keys and `gcloud \
                     auth application-default login` credentials)"
                        .into(),
                ))
            }
        };
        let exchange_error = |problem: String| GoogleAuthError::Exchange {
            uri: uri.clone(),
            problem,
        };
        let parsed = Url::parse(&uri).map_err(|e| exchange_error(format!("is not a URL ({e})")))?;
        if !private_transport(&parsed) {
            return Err(exchange_error(
                "is not https: the credentials only go over https, or to this machine".into(),
            ));
        }
        let response = self
            .http
            .post(parsed)
            .form(&form)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .map_err(|e| exchange_error(format!("could not be reached: {e}")))?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|e| exchange_error(format!("broke off its answer: {e}")))?;
        if !status.is_success() {
            let said: String = body.chars().take(300).collect();
            return Err(exchange_error(format!(
                "refused the credentials ({status}): {said}"
            )));
        }
        let answer: TokenResponse = serde_json::from_str(&body)
            .map_err(|e| exchange_error(format!("answered without a token ({e})")))?;
        Ok(Token {
            value: answer.access_token,
            quota_project,
            expires: SystemTime::now() + Duration::from_secs(answer.expires_in.unwrap_or(3600)),
        })
    }
}

/// The JWT a service account exchanges for a token: RS256 over its claims, with its key.
fn signed_assertion(
    email: &str,
    private_key_pem: &str,
    key_id: Option<&str>,
    token_uri: &str,
) -> Result<String, String> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .as_secs();
    let mut header = serde_json::json!({ "alg": "RS256", "typ": "JWT" });
    if let Some(kid) = key_id {
        header["kid"] = kid.into();
    }
    let claims = serde_json::json!({
        "iss": email,
        "scope": SCOPE,
        "aud": token_uri,
        "iat": now,
        "exp": now + 3600,
    });
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let signing_input = format!(
        "{}.{}",
        b64.encode(header.to_string()),
        b64.encode(claims.to_string())
    );
    let der = pem_body(private_key_pem)?;
    let key = ring::signature::RsaKeyPair::from_pkcs8(&der)
        .map_err(|e| format!("its private_key is not a PKCS#8 RSA key ({e})"))?;
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(
        &ring::signature::RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        signing_input.as_bytes(),
        &mut signature,
    )
    .map_err(|_| "its private_key could not sign".to_string())?;
    Ok(format!("{signing_input}.{}", b64.encode(signature)))
}

/// The DER bytes of a PEM `PRIVATE KEY` block.
fn pem_body(pem: &str) -> Result<Vec<u8>, String> {
    let body: String = pem
        .lines()
        .map(str::trim)
        .skip_while(|line| *line != "-----BEGIN PRIVATE KEY-----")
        .skip(1)
        .take_while(|line| !line.starts_with("-----END"))
        .collect();
    if body.is_empty() {
        return Err("its private_key holds no `BEGIN PRIVATE KEY` block".into());
    }
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .map_err(|e| format!("its private_key is not base64 ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_file_without_a_pkcs8_block_is_named() {
        let err = signed_assertion("a@b", "not a key", None, "https://t").unwrap_err();
        assert!(err.contains("BEGIN PRIVATE KEY"), "{err}");
        let err = signed_assertion(
            "a@b",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            None,
            "https://t",
        )
        .unwrap_err();
        assert!(err.contains("PKCS#8"), "{err}");
    }

    #[tokio::test]
    async fn without_a_credentials_file_the_error_says_how_to_get_one() {
        let source = GoogleTokenSource::new(GoogleEnvironment::default(), reqwest::Client::new());
        let err = source.token().await.unwrap_err();
        assert!(
            err.to_string().contains("application-default login"),
            "{err}"
        );
    }
}
