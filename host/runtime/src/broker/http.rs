//! `http`: outbound requests for a plugin, checked against its grant on every call. Redirects are
//! not followed (a redirect could leave the granted origin); secrets are attached here.

use std::time::{Duration, Instant};

use url::Url;

use crate::bindings::latest::tack::plugin::{http, types};
use crate::state::PluginState;

/// Largest response body handed to a guest.
pub const MAX_BODY: usize = 16 << 20;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpDenied {
    #[error("this plugin has no http grant")]
    NoGrant,
    #[error("'{0}' is not a valid URL")]
    BadUrl(String),
    #[error("{url} is outside the granted origins ({})", grants.join(", "))]
    NotCovered { url: String, grants: Vec<String> },
}

/// Whether `url` lies under one of `grants`: same scheme, host and port, and a path that starts
/// with the grant's path at a segment boundary.
pub fn authorize(url: &str, grants: &[String]) -> Result<Url, HttpDenied> {
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
        let Ok(base) = Url::parse(grant) else {
            continue;
        };
        if under(&target, &base) {
            return Ok(target);
        }
    }
    Err(HttpDenied::NotCovered {
        url: url.to_string(),
        grants: grants.to_vec(),
    })
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
}

pub async fn fetch(
    client: &reqwest::Client,
    request: FetchRequest,
) -> Result<FetchResponse, FetchError> {
    let method = reqwest::Method::from_bytes(request.method.as_bytes())
        .map_err(|_| FetchError::Invalid(format!("bad method '{}'", request.method)))?;
    let mut builder = client.request(method, request.url).body(request.body);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    if let Some(timeout) = request.timeout {
        builder = builder.timeout(timeout);
    }
    let classify = |e: reqwest::Error| {
        if e.is_timeout() {
            FetchError::Timeout
        } else if e.is_builder() {
            FetchError::Invalid(e.to_string())
        } else {
            FetchError::Transport(e.to_string())
        }
    };
    let mut response = builder.send().await.map_err(classify)?;
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

impl http::Host for PluginState {
    async fn fetch(
        &mut self,
        request: http::Request,
    ) -> wasmtime::Result<Result<http::Response, http::HttpError>> {
        let url = match authorize(&request.url, &self.env.capabilities.http) {
            Ok(url) => url,
            Err(e) => return Ok(Err(http::HttpError::Denied(e.to_string()))),
        };
        let mut headers = request.headers;
        let mut url = url;
        if let Some(secret) = &request.secret {
            if !self.env.capabilities.secrets.contains(&secret.name) {
                return Ok(Err(http::HttpError::Denied(format!(
                    "secret {} is not granted to this plugin",
                    secret.name
                ))));
            }
            let value = match self.env.secrets.lookup(&secret.name) {
                Ok(v) => v,
                Err(e) => return Ok(Err(http::HttpError::Denied(e.to_string()))),
            };
            apply_auth(&secret.auth, &value, &mut headers, &mut url);
        }
        let started = Instant::now();
        let result = fetch(
            &self.env.http,
            FetchRequest {
                method: request.method,
                url,
                headers,
                body: request.body,
                timeout: request.timeout_ms.map(Duration::from_millis),
            },
        )
        .await;
        self.resume_after(started);
        Ok(match result {
            Ok(r) => Ok(http::Response {
                status: r.status,
                headers: r.headers,
                body: r.body,
            }),
            Err(FetchError::Invalid(m)) => Err(http::HttpError::Invalid(m)),
            Err(FetchError::Transport(m)) => Err(http::HttpError::Transport(m)),
            Err(FetchError::Timeout) => Err(http::HttpError::Timeout),
        })
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
}
