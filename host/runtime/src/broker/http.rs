//! `http`: outbound requests for a plugin, checked against its grant on every call. Redirects are
//! not followed (a redirect could leave the granted origin); secrets are attached here, and only
//! to an origin granted by name, over https or on this machine. A grant of any public address
//! (`https://*`, see [`public`]) reaches no private address and carries no secret. The headers that decide where a
//! request goes or how it is framed (`Host`, `Forwarded`, `Transfer-Encoding`, …) are the host's:
//! a grant for one address must not reach every virtual host behind it.

use std::time::{Duration, Instant};

use url::Url;

use crate::bindings::latest::tack::plugin::{http, types};
use crate::state::PluginState;

pub mod public;
pub mod stream;

/// Largest response body handed to a guest.
pub const MAX_BODY: usize = 16 << 20;

/// How long a connection may take to open unless a provider's config says otherwise.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The client every plugin and provider request starts from: it never follows a redirect,
/// since the next address would not have been checked against any grant.
pub fn client_builder(connect_timeout: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(connect_timeout)
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpDenied {
    #[error("this plugin has no http grant")]
    NoGrant,
    #[error("'{0}' is not a valid URL")]
    BadUrl(String),
    #[error("{url} is outside the granted origins ({})", grants.join(", "))]
    NotCovered { url: String, grants: Vec<String> },
}

/// How a request's URL is covered by the grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// A granted origin names it: it may be on this machine, and may carry a granted secret.
    Named,
    /// Only a wildcard (`https://*`) covers it: public addresses only, and no secret.
    Public,
}

/// Whether `url` lies under one of `grants`: same scheme, host and port, and a path that starts
/// with the grant's path at a segment boundary; or, failing that, under a wildcard of its scheme.
pub fn authorize(url: &str, grants: &[String]) -> Result<(Url, Reach), HttpDenied> {
    if grants.is_empty() {
        return Err(HttpDenied::NoGrant);
    }
    let target = Url::parse(url).map_err(|_| HttpDenied::BadUrl(url.to_string()))?;
    if !matches!(target.scheme(), "http" | "https")
        || !target.username().is_empty()
        || target.password().is_some()
    {
        return Err(HttpDenied::BadUrl(url.to_string()));
    }
    for grant in grants {
        if public::wildcard_scheme(grant).is_some() {
            continue;
        }
        let Ok(base) = Url::parse(grant) else {
            continue;
        };
        if under(&target, &base) {
            return Ok((target, Reach::Named));
        }
    }
    if grants
        .iter()
        .any(|grant| public::wildcard_scheme(grant) == Some(target.scheme()))
    {
        return Ok((target, Reach::Public));
    }
    Err(HttpDenied::NotCovered {
        url: url.to_string(),
        grants: grants.to_vec(),
    })
}

/// Headers that route or frame a request, which only the host sets: with its own `Host` (or a
/// forwarding header a proxy trusts) a plugin granted one address would reach every virtual host
/// behind it, and framing headers could smuggle a second request.
const HOST_OWNED_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "upgrade",
    "te",
    "trailer",
    "proxy-authorization",
    "forwarded",
    "x-forwarded-host",
    "x-forwarded-for",
    "x-forwarded-proto",
    "x-forwarded-port",
    "x-forwarded-server",
    "x-forwarded-prefix",
    "x-original-url",
    "x-original-host",
    "x-rewrite-url",
    "x-host",
    "x-http-host-override",
    "x-real-ip",
];

/// Whether only the host may set the header `name` (any case, and any HTTP/2 pseudo-header).
pub fn host_owned_header(name: &str) -> bool {
    let lower = name.trim().to_ascii_lowercase();
    lower.starts_with(':') || HOST_OWNED_HEADERS.contains(&lower.as_str())
}

/// https anywhere, or plain http to this machine: where a secret may travel.
pub fn private_transport(url: &Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => on_this_machine(url),
        _ => false,
    }
}

/// Whether `url` names this machine: `localhost` or a loopback address.
pub fn on_this_machine(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Whether `target` is `base` or below it.
pub fn under(target: &Url, base: &Url) -> bool {
    if target.scheme() != base.scheme()
        || target.host_str() != base.host_str()
        || target.port_or_known_default() != base.port_or_known_default()
    {
        return false;
    }
    let base_path = base.path().trim_end_matches('/');
    let path = target.path();
    path == base_path || path.starts_with(&format!("{base_path}/")) || base_path.is_empty()
}

pub struct FetchRequest {
    pub method: String,
    pub url: Url,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub timeout: Option<Duration>,
}

pub struct FetchResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("invalid request: {0}")]
    Invalid(String),
    #[error("{0}")]
    Transport(String),
    #[error("timed out")]
    Timeout,
    #[error(transparent)]
    Refused(public::PrivateAddress),
}

/// What a failed request or body read was, in the guest's terms.
pub fn classify(e: reqwest::Error) -> FetchError {
    if let Some(refused) = public::refused_by_resolver(&e) {
        FetchError::Refused(refused)
    } else if e.is_timeout() {
        FetchError::Timeout
    } else if e.is_builder() {
        FetchError::Invalid(e.to_string())
    } else {
        FetchError::Transport(e.to_string())
    }
}

/// The request, ready to send (with its whole-request timeout, if any).
pub fn build(
    client: &reqwest::Client,
    request: FetchRequest,
) -> Result<reqwest::RequestBuilder, FetchError> {
    let method = reqwest::Method::from_bytes(request.method.as_bytes())
        .map_err(|_| FetchError::Invalid(format!("bad method '{}'", request.method)))?;
    let mut builder = client.request(method, request.url).body(request.body);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    if let Some(timeout) = request.timeout {
        builder = builder.timeout(timeout);
    }
    Ok(builder)
}

impl From<FetchError> for http::HttpError {
    fn from(e: FetchError) -> Self {
        match e {
            FetchError::Invalid(m) => http::HttpError::Invalid(m),
            FetchError::Transport(m) => http::HttpError::Transport(m),
            FetchError::Timeout => http::HttpError::Timeout,
            FetchError::Refused(refused) => http::HttpError::Denied(refused.to_string()),
        }
    }
}

pub async fn fetch(
    client: &reqwest::Client,
    request: FetchRequest,
) -> Result<FetchResponse, FetchError> {
    let mut response = build(client, request)?.send().await.map_err(classify)?;
    let status = response.status().as_u16();
    let headers = header_pairs(response.headers());
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(classify)? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(FetchError::Transport(format!(
                "response body exceeds {} MiB",
                MAX_BODY >> 20
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(FetchResponse {
        status,
        headers,
        body,
    })
}

pub fn header_pairs(headers: &reqwest::header::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
        .collect()
}

// ---- the host side of `tack:plugin/http` ------------------------------------------------------

impl PluginState {
    /// A plugin's request as it may go out, with the client it goes through: its URL under the
    /// `http` grant, no header the host owns, and a granted secret attached only to an origin
    /// granted by name, over https or on this machine. `Err` says what was refused.
    pub(crate) fn authorized_request(
        &self,
        request: http::Request,
    ) -> Result<(reqwest::Client, FetchRequest), http::HttpError> {
        let denied = |why: String| http::HttpError::Denied(why);
        let (url, reach) = authorize(&request.url, &self.env.capabilities.http)
            .map_err(|e| denied(e.to_string()))?;
        if reach == Reach::Public {
            public::check_literal(&url).map_err(|refused| denied(refused.to_string()))?;
        }
        let mut headers = request.headers;
        if let Some((name, _)) = headers.iter().find(|(name, _)| host_owned_header(name)) {
            return Err(denied(format!(
                "the `{name}` header decides where a request goes or how it is framed; the host \
                 sets it, not a plugin"
            )));
        }
        let mut url = url;
        if let Some(secret) = &request.secret {
            if !self.env.capabilities.secrets.contains(&secret.name) {
                return Err(denied(format!(
                    "secret {} is not granted to this plugin",
                    secret.name
                )));
            }
            if reach == Reach::Public {
                return Err(denied(format!(
                    "the secret {} goes only to an origin granted by name, and {} is covered by \
                     a grant of any public address",
                    secret.name,
                    url.origin().ascii_serialization()
                )));
            }
            if !private_transport(&url) {
                return Err(denied(format!(
                    "the secret {} would travel in clear text to {url}; secrets only go over \
                     https, or to this machine",
                    secret.name
                )));
            }
            if let Some(bound) = self.env.secrets.bound_to(&secret.name) {
                if !Url::parse(bound).is_ok_and(|base| under(&url, &base)) {
                    return Err(denied(format!(
                        "the secret {} goes to {bound} alone, not to {url}",
                        secret.name
                    )));
                }
            }
            if let types::AuthScheme::Header(name) = &secret.auth {
                if host_owned_header(name) {
                    return Err(denied(format!(
                        "the secret {} cannot go in the `{name}` header, which the host sets",
                        secret.name
                    )));
                }
            }
            let value = self
                .env
                .secrets
                .lookup(&secret.name)
                .map_err(|e| denied(e.to_string()))?;
            apply_auth(&secret.auth, &value, &mut headers, &mut url);
        }
        let client = match reach {
            Reach::Named => self.env.http.clone(),
            Reach::Public => self.env.public_http.clone(),
        };
        Ok((
            client,
            FetchRequest {
                method: request.method,
                url,
                headers,
                body: request.body,
                timeout: request.timeout_ms.map(Duration::from_millis),
            },
        ))
    }
}

impl http::Host for PluginState {
    async fn fetch(
        &mut self,
        request: http::Request,
    ) -> wasmtime::Result<Result<http::Response, http::HttpError>> {
        let (client, request) = match self.authorized_request(request) {
            Ok(authorized) => authorized,
            Err(refused) => return Ok(Err(refused)),
        };
        let started = Instant::now();
        let result = fetch(&client, request).await;
        self.resume_after(started);
        Ok(result
            .map(|r| http::Response {
                status: r.status,
                headers: r.headers,
                body: r.body,
            })
            .map_err(http::HttpError::from))
    }
}

/// Attaches a secret the way the provider or plugin asked.
pub fn apply_auth(
    auth: &types::AuthScheme,
    value: &str,
    headers: &mut Vec<(String, String)>,
    url: &mut url::Url,
) {
    match auth {
        types::AuthScheme::None => {}
        types::AuthScheme::Bearer => {
            headers.push(("authorization".into(), format!("Bearer {value}")))
        }
        types::AuthScheme::Header(name) => headers.push((name.clone(), value.to_string())),
        types::AuthScheme::Query(param) => {
            url.query_pairs_mut().append_pair(param, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_and_path_prefix_must_match() {
        let g = vec!["https://api.example.com/v1".to_string()];
        assert!(authorize("https://api.example.com/v1/messages", &g).is_ok());
        assert!(authorize("https://api.example.com/v1", &g).is_ok());
        assert!(authorize("https://api.example.com/v10", &g).is_err());
        assert!(authorize("https://api.example.com.evil.net/v1", &g).is_err());
        assert!(authorize("http://api.example.com/v1", &g).is_err());
        assert!(authorize("https://api.example.com:444/v1", &g).is_err());
        assert!(authorize("https://user@api.example.com/v1", &g).is_err());
        assert_eq!(authorize("https://x", &[]), Err(HttpDenied::NoGrant));
    }

    #[test]
    fn a_wildcard_covers_its_scheme_and_a_named_origin_wins_over_it() {
        let g = vec!["https://*".to_string(), "http://127.0.0.1:8080".to_string()];
        let reach = |u: &str| authorize(u, &g).map(|(_, reach)| reach);
        assert_eq!(reach("https://docs.rs/serde"), Ok(Reach::Public));
        assert_eq!(reach("http://127.0.0.1:8080/x"), Ok(Reach::Named));
        assert!(
            reach("http://docs.rs/").is_err(),
            "http is not covered by https://*"
        );
        assert!(reach("https://user:pw@docs.rs/").is_err());
    }

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

    #[test]
    fn routing_and_framing_headers_are_the_hosts() {
        for name in [
            "Host",
            "HOST ",
            "x-forwarded-host",
            "Forwarded",
            ":authority",
        ] {
            assert!(host_owned_header(name), "{name}");
        }
        for name in ["authorization", "content-type", "x-api-key", "user-agent"] {
            assert!(!host_owned_header(name), "{name}");
        }
    }
}
