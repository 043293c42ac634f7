//! web: `web_fetch` reads a page as readable Markdown, `web_search` asks the search backend the
//! user configured. Everything runs in the sandbox: the HTML of a page someone else wrote is
//! parsed here, not in the host.
//!
//! Network reach is the host's to enforce. The plugin's grant is any public address (`https://*`,
//! `http://*`), the origins of the search backends by name (the only ones a key may travel to),
//! and the private origins the user lists in `private_origins`. Which domains the model may read
//! is permission-gate's question, asked once per domain on the `web_fetch` call; so this plugin
//! follows a redirect only on the host the call named, and hands any other back to the model as
//! a URL to call again, where it is judged like the first.

mod fetch;
mod model_search;
mod page;
mod search;

use serde::Deserialize;
use serde_json::json;
use tack_sdk::{export_plugin, InitContext, Plugin, Registration, ToolCall, ToolResult, ToolSpec};

use crate::search::Backend;

pub const FETCH_TOOL: &str = "web_fetch";
pub const SEARCH_TOOL: &str = "web_search";

/// `[plugins.web]` of config.toml, over the manifest's defaults.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Config {
    /// `brave`, `tavily`, `exa` or `searxng`, or a provider's own search: `anthropic`, `openai`
    /// or `gemini`; empty: no `web_search` tool.
    pub search: String,
    /// The backend's endpoint when not its usual one (a SearXNG instance is always the user's).
    pub search_url: String,
    /// The model that searches, for a provider's own search; empty: the provider's small one.
    pub search_model: String,
    /// The most of a page's body read, in bytes.
    pub max_bytes: usize,
    /// The Markdown returned by one call, in characters, unless the call asks for less.
    pub max_chars: usize,
    /// How long one request may take.
    pub timeout_ms: u64,
    /// How many results a search returns unless the call asks for fewer.
    pub results: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            search: String::new(),
            search_url: String::new(),
            search_model: String::new(),
            max_bytes: 5 << 20,
            max_chars: 40_000,
            timeout_ms: 30_000,
            results: 8,
        }
    }
}

#[derive(Default)]
struct Web {
    config: Option<Config>,
    backend: Option<Backend>,
}

fn fetch_spec() -> ToolSpec {
    ToolSpec::new(
        FETCH_TOOL,
        "Fetch web page",
        "Fetch a web page (http or https URL) and return its main content as Markdown, with its \
         title and final URL. Navigation, ads and other page furniture are left out. Plain text, \
         Markdown and JSON come back as they are; binary bodies (PDF, images, archives) are not \
         read. Redirects are followed only on the same host: a redirect elsewhere is returned as \
         the URL to fetch next. Long pages are cut: pass `offset` to read on from where the \
         previous call stopped.",
        json!({
            "type": "object",
            "properties": {
                "url": {
                    "type": "string",
                    "description": "The page's absolute http(s) URL."
                },
                "max_chars": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Return at most this many characters of Markdown."
                },
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Start at this character of the Markdown (to read on)."
                }
            },
            "required": ["url"],
            "additionalProperties": false
        }),
    )
    .snippet("web_fetch: read a web page (documentation, an issue, an article) as Markdown")
}

fn search_spec(backend: &Backend) -> ToolSpec {
    ToolSpec::new(
        SEARCH_TOOL,
        "Search the web",
        format!(
            "Search the web ({}) and return ranked results, each with its title, URL and a \
             snippet. Use it for anything newer than your training or outside this workspace; \
             then read a result with web_fetch.",
            backend.name()
        ),
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What to search for."
                },
                "count": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 20,
                    "description": "How many results (default 8)."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        }),
    )
    .snippet("web_search: search the web for current information, then read results with web_fetch")
}

impl Plugin for Web {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config)
            .map_err(|e| format!("invalid web config ([plugins.web] in config.toml): {e}"))?;
        let backend = Backend::from_config(&config)?;
        let mut registration = Registration::new().tool(fetch_spec());
        if let Some(backend) = &backend {
            registration = registration.tool(search_spec(backend));
        }
        self.backend = backend;
        self.config = Some(config);
        Ok(registration)
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        let Some(config) = &self.config else {
            return ToolResult::error("the web plugin was not initialised");
        };
        match call.name.as_str() {
            FETCH_TOOL => match call.args() {
                Ok(args) => fetch::run(config, args),
                Err(e) => ToolResult::error(e),
            },
            SEARCH_TOOL => match (&self.backend, call.args()) {
                (Some(backend), Ok(args)) => search::run(config, backend, args),
                (None, _) => ToolResult::error(
                    "no search backend is configured: set [plugins.web] search in config.toml",
                ),
                (_, Err(e)) => ToolResult::error(e),
            },
            other => ToolResult::error(format!("unknown tool `{other}`")),
        }
    }
}

export_plugin!(Web);
