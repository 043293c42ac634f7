//! `http`: outbound requests for a plugin, checked against its grant on every call. Redirects are
//! not followed (a redirect could leave the granted origin); secrets are attached here.

use std::time::Duration;

use url::Url;

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
