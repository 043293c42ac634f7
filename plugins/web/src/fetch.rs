//! `web_fetch`: one page, its redirects on the same host, its body turned into Markdown.

use serde::Deserialize;
use serde_json::json;
use tack_sdk::http::{self, HttpError, Request, Response};
use tack_sdk::ToolResult;
use url::Url;

use crate::page::{self, Body};
use crate::Config;

/// More hops than any honest site needs; a loop stops here.
const MAX_REDIRECTS: usize = 10;

const ACCEPT: &str =
    "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5";
const USER_AGENT: &str = concat!(
    "Mozilla/5.0 (compatible; tack-web/",
    env!("CARGO_PKG_VERSION"),
    "; a coding agent reading one page for its user)"
);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchArgs {
    url: String,
    #[serde(default)]
    max_chars: Option<usize>,
    #[serde(default)]
    offset: Option<usize>,
}

pub fn run(config: &Config, args: FetchArgs) -> ToolResult {
    let asked = match Url::parse(args.url.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host_str().is_some() => url,
        Ok(url) => {
            return ToolResult::error(format!(
                "web_fetch reads http and https URLs only, not `{}`",
                url.scheme()
            ))
        }
        Err(e) => return ToolResult::error(format!("`{}` is not a URL: {e}", args.url)),
    };
    let (final_url, response) = match follow(config, &asked) {
        Ok(found) => found,
        Err(message) => return ToolResult::error(message),
    };
    let content_type = header(&response, "content-type").unwrap_or_default();
    let total_bytes = response.body.len();
    let mut body = response.body;
    let cut_bytes = body.len() > config.max_bytes;
    body.truncate(config.max_bytes);
    let read = match page::read(&content_type, &body, &final_url) {
        Body::Text(read) => read,
        Body::Binary(kind) => {
            return ToolResult::error(format!(
                "{final_url} is {kind} ({}), not a page web_fetch can read as text",
                page::size(total_bytes)
            ))
        }
    };
    if response.status >= 400 {
        let excerpt: String = read.markdown.chars().take(600).collect();
        return ToolResult::error(format!(
            "{final_url} answered HTTP {}{}",
            response.status,
            if excerpt.trim().is_empty() {
                String::new()
            } else {
                format!(":\n\n{excerpt}")
            }
        ));
    }
    let limit = args.max_chars.unwrap_or(config.max_chars).max(1);
    let offset = args.offset.unwrap_or(0);
    let total_chars = read.markdown.chars().count();
    let shown: String = read.markdown.chars().skip(offset).take(limit).collect();
    let end = offset + shown.chars().count();
    let mut text = String::new();
    // A title is one line, never empty (`page::one_line`).
    if let Some(title) = &read.title {
        text.push_str(&format!("# {title}\n"));
    }
    text.push_str(&format!("URL: {final_url}\n"));
    if final_url != asked {
        text.push_str(&format!("(redirected from {asked})\n"));
    }
    text.push('\n');
    if offset >= total_chars && total_chars > 0 {
        text.push_str(&format!(
            "[offset {offset} is past the end: the page has {total_chars} characters]\n"
        ));
    } else {
        text.push_str(shown.trim_end());
        text.push('\n');
    }
    if cut_bytes {
        text.push_str(&format!(
            "\n[The page is {}; only its first {} were read.]\n",
            page::size(total_bytes),
            page::size(config.max_bytes)
        ));
    }
    if end < total_chars {
        text.push_str(&format!(
            "\n[Truncated: characters {offset}–{end} of {total_chars}. Call web_fetch with \
             \"offset\": {end} to read on.]\n"
        ));
    }
    ToolResult::text(text).with_details(json!({
        "url": asked.as_str(),
        "finalUrl": final_url.as_str(),
        "title": read.title,
        "status": response.status,
        "contentType": content_type,
        "bytes": total_bytes,
        "chars": total_chars,
        "truncated": end < total_chars || cut_bytes,
        "readable": read.readable,
    }))
}

/// GETs `asked`, following redirects that stay on its host; a redirect elsewhere is refused with
/// the URL for the model to ask for in a call of its own.
fn follow(config: &Config, asked: &Url) -> Result<(Url, Response), String> {
    let mut current = asked.clone();
    for _ in 0..=MAX_REDIRECTS {
        let response = http::fetch(&Request {
            method: "GET".into(),
            url: current.to_string(),
            headers: vec![
                ("accept".into(), ACCEPT.into()),
                ("user-agent".into(), USER_AGENT.into()),
            ],
            body: Vec::new(),
            secret: None,
            timeout_ms: Some(config.timeout_ms),
        })
        .map_err(|e| failure(&current, e, config))?;
        if !matches!(response.status, 301 | 302 | 303 | 307 | 308) {
            return Ok((current, response));
        }
        let Some(location) = header(&response, "location") else {
            return Ok((current, response));
        };
        let next = current.join(location.trim()).map_err(|e| {
            format!("{current} redirected to `{location}`, which is not a URL: {e}")
        })?;
        if !same_site(asked, &next) {
            return Err(format!(
                "refused: {current} redirected to {next}, on another host ({}). web_fetch follows \
                 redirects only on the host it was asked for; to read it, call web_fetch with \
                 that URL.",
                next.host_str().unwrap_or("?")
            ));
        }
        current = next;
    }
    Err(format!(
        "{asked} redirected more than {MAX_REDIRECTS} times; stopped at {current}"
    ))
}

/// The same host and port; plain http may move to https on it, never back.
fn same_site(asked: &Url, next: &Url) -> bool {
    let scheme_ok =
        next.scheme() == asked.scheme() || (asked.scheme() == "http" && next.scheme() == "https");
    let port_ok = next.port_or_known_default() == asked.port_or_known_default()
        || (asked.scheme() == "http" && next.scheme() == "https" && next.port().is_none());
    scheme_ok && port_ok && next.host_str() == asked.host_str()
}

fn failure(url: &Url, error: HttpError, config: &Config) -> String {
    match error {
        HttpError::Denied(why) => format!("refused: {why}"),
        HttpError::Invalid(why) => format!("cannot request {url}: {why}"),
        HttpError::Transport(why) => format!("cannot reach {url}: {why}"),
        HttpError::Timeout => format!("{url} did not answer within {} s", config.timeout_ms / 1000),
    }
}

fn header(response: &Response, name: &str) -> Option<String> {
    response
        .headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_the_host_asked_for() {
        let url = |u: &str| Url::parse(u).unwrap_or_else(|e| panic!("{u}: {e}"));
        let asked = url("http://docs.example.com/a");
        assert!(same_site(&asked, &url("http://docs.example.com/b")));
        assert!(same_site(&asked, &url("https://docs.example.com/b")));
        assert!(!same_site(&asked, &url("http://evil.example.com/b")));
        assert!(!same_site(&asked, &url("http://docs.example.com:8080/b")));
        assert!(!same_site(
            &url("https://docs.example.com/a"),
            &url("http://docs.example.com/b")
        ));
        assert!(!same_site(
            &url("http://127.0.0.1:8080/a"),
            &url("http://localhost:8080/b")
        ));
    }
}
