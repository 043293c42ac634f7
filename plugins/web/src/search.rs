//! `web_search`: one query to the backend the user configured, its answer as ranked results.
//! The key is the host's: this plugin names the secret and the host attaches it, only to the
//! backend's origin granted by name. A backend is a search API (Brave, Tavily, Exa, SearXNG) or
//! a model provider's own search (`model_search`).

use serde::Deserialize;
use serde_json::{json, Value};
use tack_sdk::http::{self, HttpError, Request, SecretUse};
use tack_sdk::{AuthScheme, ToolResult};
use url::Url;

use crate::model_search::{Found, Provider};
use crate::Config;

/// The longest snippet kept per result, in characters.
const SNIPPET_CHARS: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Brave,
    Tavily,
    Exa,
    Searxng,
    Model(Provider),
}

#[derive(Debug, Clone)]
pub struct Backend {
    kind: Kind,
    endpoint: Url,
    /// The model that searches, for a provider's own search.
    model: String,
}

impl Backend {
    /// The backend `config.search` names (none when it is empty).
    pub fn from_config(config: &Config) -> Result<Option<Backend>, String> {
        let kind = match config.search.trim().to_ascii_lowercase().as_str() {
            "" | "none" => return Ok(None),
            "brave" => Kind::Brave,
            "tavily" => Kind::Tavily,
            "exa" => Kind::Exa,
            "searxng" => Kind::Searxng,
            "anthropic" => Kind::Model(Provider::Anthropic),
            "openai" => Kind::Model(Provider::OpenAi),
            "gemini" | "google" => Kind::Model(Provider::Gemini),
            other => {
                return Err(format!(
                    "[plugins.web] search = \"{other}\" is no backend tack knows; use brave, \
                     tavily, exa, searxng, or a provider's own search: anthropic, openai or gemini"
                ))
            }
        };
        let model = match (config.search_model.trim(), kind) {
            ("", Kind::Model(provider)) => provider.default_model().to_string(),
            (model, Kind::Model(_)) => model.to_string(),
            _ => String::new(),
        };
        let base = match (config.search_url.trim(), kind) {
            ("", Kind::Brave) => "https://api.search.brave.com",
            ("", Kind::Tavily) => "https://api.tavily.com",
            ("", Kind::Exa) => "https://api.exa.ai",
            ("", Kind::Searxng) => {
                return Err(
                    "[plugins.web] search = \"searxng\" needs search_url, the instance's URL"
                        .into(),
                )
            }
            ("", Kind::Model(provider)) => provider.default_base(),
            (url, _) => url,
        };
        let path = match kind {
            Kind::Brave => "res/v1/web/search".to_string(),
            Kind::Model(provider) => provider.path(&model),
            _ => "search".to_string(),
        };
        let endpoint = Url::parse(&format!("{}/{path}", base.trim_end_matches('/')))
            .map_err(|e| format!("[plugins.web] search_url `{base}` is not a URL: {e}"))?;
        Ok(Some(Backend {
            kind,
            endpoint,
            model,
        }))
    }

    pub fn name(&self) -> &'static str {
        match self.kind {
            Kind::Brave => "Brave Search",
            Kind::Tavily => "Tavily",
            Kind::Exa => "Exa",
            Kind::Searxng => "SearXNG",
            Kind::Model(provider) => provider.name(),
        }
    }

    /// The secret holding the key, and where it goes.
    fn secret(&self) -> Option<SecretUse> {
        let (name, auth) = match self.kind {
            Kind::Brave => (
                "BRAVE_API_KEY",
                AuthScheme::Header("X-Subscription-Token".into()),
            ),
            Kind::Tavily => ("TAVILY_API_KEY", AuthScheme::Bearer),
            Kind::Exa => ("EXA_API_KEY", AuthScheme::Header("x-api-key".into())),
            Kind::Model(Provider::Anthropic) => {
                ("ANTHROPIC_API_KEY", AuthScheme::Header("x-api-key".into()))
            }
            Kind::Model(Provider::OpenAi) => ("OPENAI_API_KEY", AuthScheme::Bearer),
            Kind::Model(Provider::Gemini) => (
                "GEMINI_API_KEY",
                AuthScheme::Header("x-goog-api-key".into()),
            ),
            Kind::Searxng => return None,
        };
        Some(SecretUse {
            name: name.into(),
            auth,
        })
    }

    fn request(&self, query: &str, count: usize, config: &Config) -> Request {
        let mut url = self.endpoint.clone();
        let (method, body) = match self.kind {
            Kind::Brave => {
                url.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("count", &count.to_string());
                ("GET", Vec::new())
            }
            Kind::Searxng => {
                url.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("format", "json");
                ("GET", Vec::new())
            }
            Kind::Tavily => (
                "POST",
                json!({ "query": query, "max_results": count })
                    .to_string()
                    .into_bytes(),
            ),
            Kind::Exa => (
                "POST",
                json!({
                    "query": query,
                    "numResults": count,
                    "contents": { "text": { "maxCharacters": SNIPPET_CHARS } }
                })
                .to_string()
                .into_bytes(),
            ),
            Kind::Model(provider) => (
                "POST",
                provider.body(query, &self.model).to_string().into_bytes(),
            ),
        };
        let mut headers = vec![("accept".to_string(), "application/json".to_string())];
        if method == "POST" {
            headers.push(("content-type".into(), "application/json".into()));
        }
        if self.kind == Kind::Model(Provider::Anthropic) {
            headers.push(("anthropic-version".into(), "2023-06-01".into()));
        }
        Request {
            method: method.into(),
            url: url.to_string(),
            headers,
            body,
            secret: self.secret(),
            timeout_ms: Some(self.timeout_ms(config)),
        }
    }

    /// A provider's search waits for a model to read the results and write its report, which
    /// takes several times as long as a search API's answer.
    fn timeout_ms(&self, config: &Config) -> u64 {
        match self.kind {
            Kind::Model(_) => config.timeout_ms.saturating_mul(4),
            _ => config.timeout_ms,
        }
    }

    /// What an answer found: a search API's results in its order, or what a provider's search
    /// found and its model said of it.
    fn read(&self, answer: &Value) -> Result<Found, String> {
        match self.kind {
            Kind::Model(provider) => provider.read(answer),
            _ => Ok(Found {
                hits: self.results(answer),
                ..Found::default()
            }),
        }
    }

    /// The results of a search API's answer, in the backend's order.
    fn results(&self, answer: &Value) -> Vec<Hit> {
        let list = match self.kind {
            Kind::Brave => answer.pointer("/web/results"),
            _ => answer.get("results"),
        };
        let snippet_of = |item: &Value| -> String {
            let field = match self.kind {
                Kind::Brave => "description",
                Kind::Exa => "text",
                Kind::Tavily | Kind::Searxng | Kind::Model(_) => "content",
            };
            item.get(field)
                .and_then(Value::as_str)
                .or_else(|| {
                    item.get("highlights")
                        .and_then(Value::as_array)
                        .and_then(|h| h.first())
                        .and_then(Value::as_str)
                })
                .map(plain)
                .unwrap_or_default()
        };
        list.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|item| {
                let url = item.get("url").and_then(Value::as_str)?.trim().to_string();
                if url.is_empty() {
                    return None;
                }
                Some(Hit {
                    title: plain(item.get("title").and_then(Value::as_str).unwrap_or(&url)),
                    snippet: snippet_of(item),
                    url,
                })
            })
            .collect()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    query: String,
    #[serde(default)]
    count: Option<usize>,
}

#[derive(Debug)]
pub struct Hit {
    pub title: String,
    pub url: String,
    pub snippet: String,
}

pub fn run(config: &Config, backend: &Backend, args: SearchArgs) -> ToolResult {
    let query = args.query.trim();
    if query.is_empty() {
        return ToolResult::error("the query is empty");
    }
    let count = args.count.unwrap_or(config.results).clamp(1, 20);
    let name = backend.name();
    let response = match http::fetch(&backend.request(query, count, config)) {
        Ok(response) => response,
        Err(HttpError::Denied(why)) => return ToolResult::error(format!("refused: {why}")),
        Err(HttpError::Timeout) => {
            return ToolResult::error(format!(
                "{name} did not answer within {} s",
                backend.timeout_ms(config) / 1000
            ))
        }
        Err(HttpError::Invalid(why) | HttpError::Transport(why)) => {
            return ToolResult::error(format!("cannot reach {name}: {why}"))
        }
    };
    let text = String::from_utf8_lossy(&response.body);
    if !(200..300).contains(&response.status) {
        let excerpt: String = text.chars().take(300).collect();
        return ToolResult::error(format!(
            "{name} answered HTTP {}: {}",
            response.status,
            excerpt.trim()
        ));
    }
    let answer: Value = match serde_json::from_str(&text) {
        Ok(answer) => answer,
        Err(e) => return ToolResult::error(format!("{name} answered with no JSON: {e}")),
    };
    let found = match backend.read(&answer) {
        Ok(found) => found,
        Err(why) => return ToolResult::error(why),
    };
    let hits: Vec<&Hit> = found.hits.iter().take(count).collect();
    let mut details = json!({ "backend": name, "query": query });
    if let Kind::Model(_) = backend.kind {
        details["model"] = json!(backend.model);
        details["searched"] = json!(found.queries);
        details["summary"] = json!(found.summary);
        details["usage"] = json!({ "input": found.input_tokens, "output": found.output_tokens });
    }
    let searched: Vec<&String> = found
        .queries
        .iter()
        .filter(|q| !q.is_empty() && q.as_str() != query)
        .collect();
    let mut out = if hits.is_empty() {
        format!("{name} found nothing for \"{query}\".")
    } else {
        format!("{name} results for \"{query}\":")
    };
    if !searched.is_empty() {
        let quoted: Vec<String> = searched.iter().map(|q| format!("\"{q}\"")).collect();
        out.push_str(&format!("\n(searched for {})", quoted.join(", ")));
    }
    out.push('\n');
    for (rank, hit) in hits.iter().enumerate() {
        out.push_str(&format!("\n{}. {}\n   {}\n", rank + 1, hit.title, hit.url));
        if !hit.snippet.is_empty() {
            out.push_str(&format!("   {}\n", hit.snippet));
        }
    }
    if !found.summary.is_empty() {
        out.push_str(&format!(
            "\nWhat {} made of them:\n{}\n",
            backend.model, found.summary
        ));
    }
    details["results"] = hits
        .iter()
        .map(|h| json!({ "title": h.title, "url": h.url, "snippet": h.snippet }))
        .collect();
    ToolResult::text(out.trim_end().to_string()).with_details(details)
}

/// A snippet as plain text on one line: markup (`<strong>`) and control characters out, the
/// common entities decoded, whitespace folded, the length capped.
pub(crate) fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            c if c.is_control() || c.is_whitespace() => out.push(' '),
            c => out.push(c),
        }
    }
    let decoded = out
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    let folded = decoded.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() > SNIPPET_CHARS {
        let cut: String = folded.chars().take(SNIPPET_CHARS).collect();
        format!("{}…", cut.trim_end())
    } else {
        folded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backend(search: &str, url: &str) -> Result<Option<Backend>, String> {
        Backend::from_config(&Config {
            search: search.into(),
            search_url: url.into(),
            ..Config::default()
        })
    }

    #[test]
    fn each_backend_has_its_endpoint_and_searxng_needs_one() {
        let endpoint = |search: &str, url: &str| match backend(search, url) {
            Ok(Some(b)) => b.endpoint.to_string(),
            other => panic!("{search}: {other:?}"),
        };
        assert_eq!(
            endpoint("brave", ""),
            "https://api.search.brave.com/res/v1/web/search"
        );
        assert_eq!(endpoint("Tavily", ""), "https://api.tavily.com/search");
        assert_eq!(
            endpoint("searxng", "http://127.0.0.1:8888/"),
            "http://127.0.0.1:8888/search"
        );
        assert!(matches!(backend("", ""), Ok(None)));
        assert!(backend("searxng", "").is_err_and(|e| e.contains("search_url")));
        assert!(backend("bing", "").is_err_and(|e| e.contains("brave, tavily, exa")));
        assert_eq!(
            endpoint("anthropic", ""),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            endpoint("gemini", ""),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        );
        assert_eq!(
            endpoint("openai", "http://127.0.0.1:9/proxy/"),
            "http://127.0.0.1:9/proxy/v1/responses"
        );
    }

    #[test]
    fn brave_results_lose_their_markup() {
        let Ok(Some(brave)) = backend("brave", "") else {
            panic!("brave");
        };
        let answer = json!({ "web": { "results": [
            { "title": "Rust &amp; <strong>WASM</strong>", "url": "https://a.example/", "description": "The <strong>best</strong>\n book" },
            { "title": "no url" }
        ] } });
        let hits = brave.results(&answer);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].title, "Rust & WASM");
        assert_eq!(hits[0].snippet, "The best book");
    }
}
