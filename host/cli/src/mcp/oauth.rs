//! Logging in to an MCP server reached over HTTP, as MCP's authorization spec (2025-06-18 on)
//! asks of a client: the server's Protected Resource Metadata (RFC 9728) names its authorization
//! server, whose metadata (RFC 8414, or OpenID discovery) names its endpoints; tack registers
//! itself (RFC 7591) when the server allows it, and runs the authorization code flow with PKCE
//! (RFC 7636, S256) and a loopback redirect, naming the MCP server as the token's resource
//! (RFC 8707). The host does all of it: the tokens stay in `<tack home>/mcp-auth.json` (0600),
//! the access token reaches the server as a secret header the host attaches, and the refresh
//! token never leaves the host.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::oauth_loopback::{random_token, refusal, Callback, Pkce};

/// How long the login waits for the browser to come back.
const CALLBACK_WAIT: Duration = Duration::from_secs(300);
/// A token that expires sooner than this is refreshed before it is used.
const REFRESH_MARGIN: u64 = 120;

/// What a login leaves: enough to send the token and to refresh it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The server's URL the tokens were issued for; another URL under the same name logs in
    /// again.
    pub url: String,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    pub token_endpoint: String,
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokens({}, client {}, …)", self.url, self.client_id)
    }
}

/// `<tack home>/mcp-auth.json`: tokens by server name.
pub fn store_path(tack_home: &Path) -> PathBuf {
    tack_home.join("mcp-auth.json")
}

pub fn read_store(path: &Path) -> Result<BTreeMap<String, Tokens>> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .with_context(|| format!("{} is not a valid MCP login file", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Writes the store whole, readable by the user alone.
pub fn write_store(path: &Path, store: &BTreeMap<String, Tokens>) -> Result<()> {
    let text = serde_json::to_string_pretty(store).context("encoding the MCP logins")?;
    crate::private_file::write(path, text.as_bytes())
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// `text` as a URL codes and tokens may travel to: https, or plain http to this machine.
fn safe_url(text: &str, what: &str) -> Result<url::Url> {
    let url = url::Url::parse(text).with_context(|| format!("{what} `{text}` is not a URL"))?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if tack_runtime::broker::http::on_this_machine(&url) => Ok(url),
        _ => {
            bail!("{what} `{text}` is neither https nor on this machine; tack sends no login there")
        }
    }
}

/// The `resource_metadata` URL of a `WWW-Authenticate: Bearer …` challenge.
fn resource_metadata_of(challenge: &str) -> Option<String> {
    let at = challenge.find("resource_metadata=")?;
    let rest = &challenge[at + "resource_metadata=".len()..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    Some(value.to_string())
}

/// `/.well-known/<name>` at `url`'s origin, with `url`'s path after it (RFC 8414 and 9728), and
/// without it.
fn well_known(url: &url::Url, name: &str) -> Vec<String> {
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/{name}{path}"));
    }
    urls.push(format!("{origin}/.well-known/{name}"));
    urls
}

/// The first of `urls` that answers 200 with a JSON object.
async fn first_json(client: &reqwest::Client, urls: &[String]) -> Option<(String, Value)> {
    for url in urls {
        let Ok(response) = client
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
        else {
            continue;
        };
        if !response.status().is_success() {
            continue;
        }
        if let Ok(value @ Value::Object(_)) = response.json::<Value>().await {
            return Some((url.clone(), value));
        }
    }
    None
}

/// The authorization server's endpoints.
struct AuthServer {
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
    /// How tack authenticates at the token endpoint: `none` (a public client, PKCE alone) where
    /// the server allows it, else `client_secret_post` with the secret registration gives.
    token_auth: &'static str,
}

/// Finds the authorization server of the MCP server at `server_url`, and the scopes it asks.
async fn discover(
    client: &reqwest::Client,
    server_url: &str,
) -> Result<(AuthServer, Option<String>)> {
    let server = url::Url::parse(server_url).with_context(|| format!("`{server_url}`"))?;
    // An unauthenticated request gets the challenge that names the resource's metadata.
    let probe = client
        .post(server_url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "tack", "version": env!("CARGO_PKG_VERSION") }
            } })
            .to_string(),
        )
        .send()
        .await
        .with_context(|| format!("cannot reach {server_url}"))?;
    let challenge = probe
        .headers()
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if probe.status() != reqwest::StatusCode::UNAUTHORIZED {
        bail!(
            "{server_url} answered HTTP {} without a login: it does not ask for one",
            probe.status().as_u16()
        );
    }
    let mut candidates: Vec<String> = resource_metadata_of(&challenge)
        .filter(|url| safe_url(url, "the resource metadata").is_ok())
        .into_iter()
        .collect();
    candidates.extend(well_known(&server, "oauth-protected-resource"));
    let resource = first_json(client, &candidates).await;
    // RFC 9728: the metadata is about this server, or another server's authorization server
    // would be asked for a token to it.
    if let Some(named) = resource
        .as_ref()
        .and_then(|(_, meta)| meta.get("resource")?.as_str())
    {
        let named = named.trim_end_matches('/');
        if !server_url.trim_end_matches('/').starts_with(named) || named.is_empty() {
            bail!("the resource metadata is about {named}, not {server_url}");
        }
    }
    let scope = challenge
        .split("scope=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(str::to_string)
        .or_else(|| {
            let scopes = resource.as_ref()?.1.get("scopes_supported")?.as_array()?;
            let words: Vec<&str> = scopes.iter().filter_map(Value::as_str).collect();
            (!words.is_empty()).then(|| words.join(" "))
        });
    // Without resource metadata (servers of 2025-03-26), the server's origin is its own
    // authorization server.
    let issuer = resource
        .as_ref()
        .and_then(|(_, meta)| {
            meta.get("authorization_servers")?
                .as_array()?
                .first()?
                .as_str()
        })
        .map(str::to_string)
        .unwrap_or_else(|| server.origin().ascii_serialization());
    let issuer_url = safe_url(&issuer, "the authorization server")?;
    let mut candidates = well_known(&issuer_url, "oauth-authorization-server");
    candidates.extend(well_known(&issuer_url, "openid-configuration"));
    candidates.push(format!(
        "{}/.well-known/openid-configuration",
        issuer.trim_end_matches('/')
    ));
    let (_, meta) = first_json(client, &candidates).await.ok_or_else(|| {
        anyhow!("the authorization server {issuer} publishes no metadata (RFC 8414 or OpenID)")
    })?;
    // RFC 8414: the metadata names the issuer it was asked about.
    if let Some(named) = meta.get("issuer").and_then(Value::as_str) {
        if named.trim_end_matches('/') != issuer.trim_end_matches('/') {
            bail!("the metadata found for {issuer} names another issuer, {named}");
        }
    }
    let endpoint = |key: &str| -> Result<Option<String>> {
        match meta.get(key).and_then(Value::as_str) {
            Some(url) => Ok(Some(safe_url(url, key)?.to_string())),
            None => Ok(None),
        }
    };
    let methods = meta
        .get("code_challenge_methods_supported")
        .and_then(Value::as_array);
    if methods.is_some_and(|m| !m.iter().any(|v| v == "S256")) {
        bail!(
            "the authorization server {issuer} does not offer PKCE with S256, which MCP requires"
        );
    }
    Ok((
        AuthServer {
            authorization_endpoint: endpoint("authorization_endpoint")?
                .ok_or_else(|| anyhow!("{issuer}'s metadata names no authorization_endpoint"))?,
            token_endpoint: endpoint("token_endpoint")?
                .ok_or_else(|| anyhow!("{issuer}'s metadata names no token_endpoint"))?,
            registration_endpoint: endpoint("registration_endpoint")?,
            token_auth: match meta
                .get("token_endpoint_auth_methods_supported")
                .and_then(Value::as_array)
            {
                Some(methods) if !methods.iter().any(|m| m == "none") => "client_secret_post",
                _ => "none",
            },
        },
        scope,
    ))
}

/// Registers tack as a public client with a loopback redirect (RFC 7591).
async fn register(
    client: &reqwest::Client,
    endpoint: &str,
    redirect_uri: &str,
    token_auth: &str,
) -> Result<(String, Option<String>)> {
    let request = client.post(endpoint).json(&json!({
        "client_name": "tack",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": token_auth,
    }));
    let (status, body) = exchange(request, endpoint).await?;
    if !status.is_success() {
        bail!("{endpoint} refused tack's registration (HTTP {status}): {body}");
    }
    let client_id = body
        .get("client_id")
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("{endpoint} registered tack without a client_id"))?;
    Ok((
        client_id.to_string(),
        body.get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_string),
    ))
}

/// Sends `request` to `endpoint`: the answer's status and JSON body (`null` when it has none).
async fn exchange(
    request: reqwest::RequestBuilder,
    endpoint: &str,
) -> Result<(reqwest::StatusCode, Value)> {
    let response = request
        .send()
        .await
        .with_context(|| format!("cannot reach {endpoint}"))?;
    let status = response.status();
    Ok((status, response.json().await.unwrap_or_default()))
}

/// A token endpoint's answer: its JSON, with an access token in it.
async fn token_request(
    client: &reqwest::Client,
    endpoint: &str,
    form: &[(&str, &str)],
) -> Result<Value> {
    let request = client
        .post(endpoint)
        .header("accept", "application/json")
        .form(form);
    let (status, body) = exchange(request, endpoint).await?;
    if !status.is_success() {
        let error = body.get("error").and_then(Value::as_str).unwrap_or("");
        let description = body
            .get("error_description")
            .and_then(Value::as_str)
            .unwrap_or("");
        bail!("{endpoint} refused the token request (HTTP {status}): {error} {description}");
    }
    if body.get("access_token").and_then(Value::as_str).is_none() {
        bail!("{endpoint} answered without an access_token");
    }
    Ok(body)
}

fn apply(tokens: &mut Tokens, body: &Value) {
    if let Some(access) = body.get("access_token").and_then(Value::as_str) {
        tokens.access_token = access.to_string();
    }
    if let Some(refresh) = body.get("refresh_token").and_then(Value::as_str) {
        tokens.refresh_token = Some(refresh.to_string());
    }
    tokens.expires_at = body
        .get("expires_in")
        .and_then(Value::as_u64)
        .map(|seconds| now().saturating_add(seconds));
}

/// Logs in to the server at `server_url`: `show` is given the address to open in a browser
/// (and says whether it could open one itself).
pub async fn login(
    client: &reqwest::Client,
    server_url: &str,
    show: &mut dyn FnMut(&str),
) -> Result<Tokens> {
    let (auth, scope) = discover(client, server_url).await?;
    let callback = Callback::listen("127.0.0.1", 0, "/callback").await?;
    let redirect_uri = callback.redirect_uri();
    let (client_id, client_secret) = match &auth.registration_endpoint {
        Some(endpoint) => register(client, endpoint, &redirect_uri, auth.token_auth).await?,
        None => bail!(
            "the server's authorization server does not let clients register themselves \
             (no registration_endpoint); tack cannot log in to it without a client id"
        ),
    };
    let Pkce {
        verifier,
        challenge,
    } = Pkce::new()?;
    let state = random_token(24)?;
    let mut authorize = url::Url::parse(&auth.authorization_endpoint)
        .with_context(|| format!("`{}` is not a URL", auth.authorization_endpoint))?;
    {
        let mut query = authorize.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", &client_id)
            .append_pair("redirect_uri", &redirect_uri)
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &state)
            .append_pair("resource", server_url);
        if let Some(scope) = &scope {
            query.append_pair("scope", scope);
        }
    }
    show(authorize.as_str());
    let answer = tokio::time::timeout(CALLBACK_WAIT, callback.answer(&state))
        .await
        .map_err(|_| {
            anyhow!(
                "no answer from the browser within {} minutes",
                CALLBACK_WAIT.as_secs() / 60
            )
        })??;
    if let Some(refusal) = refusal(&answer) {
        bail!("the authorization server said no: {refusal}");
    }
    let code = answer
        .get("code")
        .ok_or_else(|| anyhow!("the browser's answer carries no code"))?;
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", redirect_uri.as_str()),
        ("client_id", client_id.as_str()),
        ("code_verifier", verifier.as_str()),
        ("resource", server_url),
    ];
    if let Some(secret) = &client_secret {
        form.push(("client_secret", secret.as_str()));
    }
    let body = token_request(client, &auth.token_endpoint, &form).await?;
    let mut tokens = Tokens {
        url: server_url.to_string(),
        client_id,
        client_secret,
        token_endpoint: auth.token_endpoint,
        access_token: String::new(),
        refresh_token: None,
        expires_at: None,
    };
    apply(&mut tokens, &body);
    Ok(tokens)
}

/// Refreshes `tokens` when they expire within two minutes and can be refreshed; `true` when
/// they changed.
pub async fn refresh_if_due(client: &reqwest::Client, tokens: &mut Tokens) -> Result<bool> {
    let due = tokens
        .expires_at
        .is_some_and(|at| at <= now().saturating_add(REFRESH_MARGIN));
    let Some(refresh) = tokens.refresh_token.clone().filter(|_| due) else {
        return Ok(false);
    };
    let mut form = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh.as_str()),
        ("client_id", tokens.client_id.as_str()),
        ("resource", tokens.url.as_str()),
    ];
    let secret = tokens.client_secret.clone();
    if let Some(secret) = &secret {
        form.push(("client_secret", secret.as_str()));
    }
    let endpoint = tokens.token_endpoint.clone();
    let body = token_request(client, &endpoint, &form).await?;
    apply(tokens, &body);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_names_the_resource_metadata() {
        assert_eq!(
            resource_metadata_of(
                r#"Bearer error="invalid_token", resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp""#
            )
            .as_deref(),
            Some("http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            resource_metadata_of("Bearer resource_metadata=https://a/x, scope=\"r\"").as_deref(),
            Some("https://a/x")
        );
        assert_eq!(resource_metadata_of("Basic realm=\"x\""), None);
    }

    #[test]
    fn well_known_addresses_put_the_path_after_the_name() {
        let url = url::Url::parse("https://as.example/tenant/1").expect("url");
        assert_eq!(
            well_known(&url, "oauth-authorization-server"),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant/1",
                "https://as.example/.well-known/oauth-authorization-server"
            ]
        );
    }

    #[test]
    fn the_store_is_private_and_round_trips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = store_path(dir.path());
        let mut store = BTreeMap::new();
        store.insert(
            "api".to_string(),
            Tokens {
                url: "https://mcp.example/mcp".into(),
                client_id: "c".into(),
                client_secret: None,
                token_endpoint: "https://as.example/token".into(),
                access_token: "acc3ss".into(),
                refresh_token: Some("r3fresh".into()),
                expires_at: Some(1),
            },
        );
        write_store(&path, &store).expect("write");
        assert_eq!(read_store(&path).expect("read"), store);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let shown = format!("{:?}", store["api"]);
        assert!(
            !shown.contains("acc3ss") && !shown.contains("r3fresh"),
            "{shown}"
        );
    }
}
