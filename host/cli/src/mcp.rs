//! MCP servers the user keeps: `<tack home>/mcp.json` (user scope) and a trusted project's
//! `.mcp.json` (Claude Code's file, read as Claude Code writes it). The built-in `mcp` plugin is
//! the client; the host only decides which servers it may start or reach, and with what (see
//! `start/mcp_servers.rs`), since the list of servers is the plugin's `process` and `http`
//! grant. A header that carries a secret (a bearer token) stays with the host, which attaches it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

mod expand;
pub mod oauth;

pub use expand::expand;

/// A file of servers, in the shape Claude Code, Cursor and the MCP reference clients share.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpFile {
    #[serde(rename = "mcpServers", default)]
    pub servers: BTreeMap<String, ServerEntry>,
    /// Whatever else the file holds, kept when tack writes it back.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// One server as written in the file: a program to start (`command`, `args`, `env`) or a URL.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerEntry {
    /// `stdio` (the default when `command` is set), `http` or `sse`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// Where a server was configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    User,
    Project,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// A server tack can start: its words with every `${VAR}` expanded, ready to be the `process`
/// grant and the command line the plugin spawns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioServer {
    pub name: String,
    pub scope: Scope,
    /// What runs: `env -- NAME=value … program args…` when the entry sets variables, else the
    /// program and its arguments.
    pub words: Vec<String>,
    /// The program and its arguments alone, for showing (values of `env` are not shown).
    pub shown: String,
    /// The names `env` sets.
    pub env_names: Vec<String>,
}

impl StdioServer {
    /// The command line, quoted so that splitting it gives back [`StdioServer::words`].
    pub fn command_line(&self) -> String {
        join(&self.words)
    }
}

/// A server tack reaches over MCP's streamable HTTP transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpServer {
    pub name: String,
    pub scope: Scope,
    /// The endpoint, with every `${VAR}` expanded: the plugin's `http` grant, exactly.
    pub url: String,
    /// Headers that hold no secret, sent as they are.
    pub headers: Vec<(String, String)>,
    /// The one header that holds a secret, and its value: kept by the host, which attaches it to
    /// requests to `url` alone; the plugin only names it.
    pub secret: Option<SecretHeader>,
    /// The older HTTP+SSE transport (`"type": "sse"`): the server names where messages go.
    pub sse: bool,
}

/// A header whose value the host holds.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretHeader {
    pub header: String,
    pub value: String,
}

impl std::fmt::Debug for SecretHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretHeader({}: …)", self.header)
    }
}

impl HttpServer {
    /// What the plugin may reach: the URL itself; for HTTP+SSE, whose server names the address
    /// it takes messages at, the URL's origin (the plugin posts only to that origin).
    pub fn grant(&self) -> String {
        if !self.sse {
            return self.url.clone();
        }
        url::Url::parse(&self.url)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_else(|_| self.url.clone())
    }

    /// The name the host's secret store keeps this server's secret header under. `tack:` names
    /// are the host's own: no manifest may ask for one (`tack_runtime::manifest`).
    pub fn secret_name(&self) -> String {
        format!("tack:mcp:{}", self.name)
    }
}

/// A server of the user's, as tack will use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServer {
    Stdio(StdioServer),
    Http(HttpServer),
}

impl McpServer {
    pub fn name(&self) -> &str {
        match self {
            McpServer::Stdio(s) => &s.name,
            McpServer::Http(s) => &s.name,
        }
    }

    /// What it is, in a few words: "runs `npx …` with GITHUB_TOKEN", "reached at https://…".
    pub fn summary(&self) -> String {
        match self {
            McpServer::Stdio(s) if s.env_names.is_empty() => format!("runs `{}`", s.shown),
            McpServer::Stdio(s) => format!("runs `{}` with {}", s.shown, s.env_names.join(", ")),
            McpServer::Http(s) => {
                let mut text = format!("reached at {}", s.url);
                if s.sse {
                    text.push_str(" (HTTP+SSE)");
                }
                let mut names: Vec<&str> = s.headers.iter().map(|(k, _)| k.as_str()).collect();
                if let Some(secret) = &s.secret {
                    names.push(&secret.header);
                }
                if !names.is_empty() {
                    text.push_str(&format!(" with {}", names.join(", ")));
                }
                text
            }
        }
    }
}

/// `<tack home>/mcp.json`.
pub fn user_file(tack_home: &Path) -> PathBuf {
    tack_home.join("mcp.json")
}

/// `<project root>/.mcp.json`.
pub fn project_file(root: &Path) -> PathBuf {
    root.join(".mcp.json")
}

/// Reads a file of servers; a missing file is an empty one.
pub fn read(path: &Path) -> Result<McpFile> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .with_context(|| format!("{} is not a valid MCP server file", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(McpFile::default()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Writes a file of servers whole (a temporary file renamed over it), two-space indented as
/// Claude Code writes it.
pub fn write(path: &Path, file: &McpFile) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut text = serde_json::to_string_pretty(file).context("encoding the MCP server file")?;
    text.push('\n');
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Whether a name can be a server's: it starts the names of the server's tools
/// (`<server>_<tool>`), which are `[a-zA-Z0-9_-]`.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 48
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The server an entry describes, if tack can use it; otherwise why not.
pub fn resolve(
    name: &str,
    entry: &ServerEntry,
    scope: Scope,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<McpServer, String> {
    if !valid_name(name) {
        return Err(format!(
            "MCP server '{name}': a server's name is 1 to 48 letters, digits, '-' or '_'"
        ));
    }
    let kind = entry
        .kind
        .as_deref()
        .unwrap_or(if entry.url.is_some() { "http" } else { "stdio" });
    match kind {
        "stdio" => resolve_stdio(name, entry, scope, lookup).map(McpServer::Stdio),
        "http" | "streamable-http" => {
            resolve_http(name, entry, scope, lookup, false).map(McpServer::Http)
        }
        "sse" => resolve_http(name, entry, scope, lookup, true).map(McpServer::Http),
        other => Err(format!(
            "MCP server '{name}': unknown type '{other}' (stdio, http or sse)"
        )),
    }
}

/// Header names whose values are credentials even when written out in the file.
fn names_a_credential(header: &str) -> bool {
    let lower = header.to_ascii_lowercase();
    ["authorization", "cookie"].contains(&lower.as_str())
        || ["auth", "token", "key", "secret", "password"]
            .iter()
            .any(|word| lower.contains(word))
}

/// Headers the transport itself sets; a file cannot override them.
const TRANSPORT_HEADERS: [&str; 6] = [
    "content-type",
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "host",
    "content-length",
];

fn resolve_http(
    name: &str,
    entry: &ServerEntry,
    scope: Scope,
    lookup: &dyn Fn(&str) -> Option<String>,
    sse: bool,
) -> Result<HttpServer, String> {
    let expand_all =
        |text: &str| expand(text, lookup).map_err(|e| format!("MCP server '{name}': {e}"));
    let Some(written) = entry.url.as_deref().filter(|u| !u.trim().is_empty()) else {
        return Err(format!("MCP server '{name}' has no url"));
    };
    let url = expand_all(written)?;
    let parsed =
        url::Url::parse(&url).map_err(|e| format!("MCP server '{name}': url `{url}`: {e}"))?;
    let local = tack_runtime::broker::http::on_this_machine(&parsed);
    match parsed.scheme() {
        "https" => {}
        "http" if local => {}
        "http" => {
            return Err(format!(
                "MCP server '{name}': {url} is plain http to another machine; tack sends requests \
                 there only over https"
            ))
        }
        other => {
            return Err(format!(
                "MCP server '{name}': url `{url}` is {other}, not http(s)"
            ))
        }
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!(
            "MCP server '{name}': put credentials in a header (\"headers\": {{\"Authorization\": \
             \"Bearer ${{TOKEN}}\"}}), not in the url"
        ));
    }
    // A variable in the query is a credential in the URL, which the grant, the plugin's
    // configuration and every listing would show.
    if written
        .split_once('?')
        .is_some_and(|(_, query)| query.contains("${"))
    {
        return Err(format!(
            "MCP server '{name}': put credentials in a header (\"headers\": {{\"Authorization\": \
             \"Bearer ${{TOKEN}}\"}}), not in the url's query"
        ));
    }
    let mut headers = Vec::new();
    let mut secret: Option<SecretHeader> = None;
    // A header whose name says it carries a credential is the secret; failing one, the first
    // whose value comes from a variable (`X-Api: ${KEY}`). Others go as written.
    let chosen = entry
        .headers
        .keys()
        .find(|h| names_a_credential(h))
        .or_else(|| {
            entry
                .headers
                .iter()
                .find(|(_, v)| v.contains("${"))
                .map(|(h, _)| h)
        })
        .cloned();
    for (header, written) in &entry.headers {
        let lower = header.to_ascii_lowercase();
        if TRANSPORT_HEADERS.contains(&lower.as_str())
            || tack_runtime::broker::http::host_owned_header(header)
        {
            return Err(format!(
                "MCP server '{name}': header `{header}` is the transport's or the host's own; \
                 leave it out"
            ));
        }
        let value = expand_all(written)?;
        if Some(header) == chosen.as_ref() {
            secret = Some(SecretHeader {
                header: header.clone(),
                value,
            });
        } else if names_a_credential(header) {
            return Err(format!(
                "MCP server '{name}': headers `{}` and `{header}` both hold credentials; tack \
                 attaches one secret header per server",
                chosen.as_deref().unwrap_or_default()
            ));
        } else {
            headers.push((header.clone(), value));
        }
    }
    Ok(HttpServer {
        name: name.to_string(),
        scope,
        url,
        headers,
        secret,
        sse,
    })
}

fn resolve_stdio(
    name: &str,
    entry: &ServerEntry,
    scope: Scope,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<StdioServer, String> {
    let Some(command) = entry.command.as_deref().filter(|c| !c.trim().is_empty()) else {
        return Err(format!("MCP server '{name}' has no command"));
    };
    let expand_all =
        |text: &str| expand(text, lookup).map_err(|e| format!("MCP server '{name}': {e}"));
    let mut program = vec![expand_all(command)?];
    for arg in &entry.args {
        program.push(expand_all(arg)?);
    }
    if program.iter().any(|w| w.trim() == "**") {
        return Err(format!(
            "MCP server '{name}': an argument `**` would grant any command; it is not run"
        ));
    }
    let mut words = Vec::new();
    let mut env_names = Vec::new();
    if !entry.env.is_empty() {
        // `env -- NAME=value… program`: `--` ends env's options, so no value is read as one;
        // env takes its first word without `=` as the program.
        if program[0].contains('=') {
            return Err(format!(
                "MCP server '{name}': a program whose name holds `=` cannot be given variables"
            ));
        }
        words.push("env".to_string());
        words.push("--".into());
        for (key, value) in &entry.env {
            if key.is_empty() || key.contains('=') {
                return Err(format!(
                    "MCP server '{name}': `{key}` is not an environment variable's name"
                ));
            }
            words.push(format!("{key}={}", expand_all(value)?));
            env_names.push(key.clone());
        }
    }
    let shown = join(&program);
    words.extend(program);
    Ok(StdioServer {
        name: name.to_string(),
        scope,
        words,
        shown,
        env_names,
    })
}

/// The servers of this run: the user's, then a trusted project's, a project server replacing a
/// user one of the same name (Claude Code's precedence). Entries tack cannot run are left out,
/// each with a warning.
pub fn servers(
    tack_home: &Path,
    trusted_project: Option<&Path>,
    lookup: &dyn Fn(&str) -> Option<String>,
    warnings: &mut Vec<String>,
) -> Vec<McpServer> {
    let mut by_name: BTreeMap<String, McpServer> = BTreeMap::new();
    let mut files = vec![(user_file(tack_home), Scope::User)];
    if let Some(root) = trusted_project {
        files.push((project_file(root), Scope::Project));
    }
    for (path, scope) in files {
        let file = match read(&path) {
            Ok(file) => file,
            Err(e) => {
                warnings.push(format!("{e:#}; its MCP servers are not used"));
                continue;
            }
        };
        for (name, entry) in &file.servers {
            match resolve(name, entry, scope, lookup) {
                Ok(server) => {
                    by_name.insert(name.clone(), server);
                }
                Err(e) => warnings.push(format!("{e} ({})", path.display())),
            }
        }
    }
    by_name.into_values().collect()
}

/// The words joined into one line that `shlex` splits back into the same words.
pub fn join(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shlex::try_quote(w).map_or_else(|_| w.clone(), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(json: serde_json::Value) -> ServerEntry {
        serde_json::from_value(json).expect("entry")
    }

    #[test]
    fn a_claude_code_entry_becomes_words_with_its_variables_first() {
        let e = entry(serde_json::json!({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github", "${HOME}/x y"],
            "env": { "GITHUB_TOKEN": "${TOKEN:-none}" }
        }));
        let lookup = |name: &str| (name == "HOME").then(|| "/home/me".to_string());
        let McpServer::Stdio(server) =
            resolve("github", &e, Scope::Project, &lookup).expect("resolves")
        else {
            panic!("a stdio server");
        };
        assert_eq!(
            server.words,
            [
                "env",
                "--",
                "GITHUB_TOKEN=none",
                "npx",
                "-y",
                "@modelcontextprotocol/server-github",
                "/home/me/x y"
            ]
        );
        assert_eq!(
            server.shown,
            "npx -y @modelcontextprotocol/server-github '/home/me/x y'"
        );
        assert_eq!(server.env_names, ["GITHUB_TOKEN"]);
        assert_eq!(
            shlex::split(&server.command_line()).expect("splits"),
            server.words
        );
    }

    #[test]
    fn what_tack_cannot_run_says_why() {
        let none = |_: &str| None;
        let bad = entry(serde_json::json!({ "command": "x" }));
        assert!(resolve("a b", &bad, Scope::User, &none).is_err());
        let wild = entry(serde_json::json!({ "command": "sh", "args": ["**"] }));
        assert!(resolve("w", &wild, Scope::User, &none).is_err());
        let unset = entry(serde_json::json!({ "command": "${NOPE}" }));
        let why = resolve("u", &unset, Scope::User, &none).expect_err("unset");
        assert!(why.contains("NOPE"), "{why}");
    }

    #[test]
    fn a_project_server_replaces_the_users_of_its_name_only_when_trusted() {
        let home = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            user_file(home.path()),
            r#"{"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}}"#,
        )
        .expect("write");
        std::fs::write(
            project_file(project.path()),
            r#"{"mcpServers": {"a": {"command": "project-a"}}}"#,
        )
        .expect("write");
        let none = |_: &str| None;
        let mut warnings = Vec::new();
        let trusted = servers(home.path(), Some(project.path()), &none, &mut warnings);
        let shown: Vec<_> = trusted.iter().map(|s| (s.name(), s.summary())).collect();
        assert_eq!(
            shown,
            [
                ("a", "runs `project-a`".to_string()),
                ("b", "runs `user-b`".to_string())
            ]
        );
        let untrusted = servers(home.path(), None, &none, &mut warnings);
        assert_eq!(untrusted[0].summary(), "runs `user-a`");
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn an_http_server_keeps_its_secret_header_apart() {
        let e = entry(serde_json::json!({
            "type": "http",
            "url": "https://${HOST}/mcp",
            "headers": {
                "Authorization": "Bearer ${TOKEN}",
                "X-Region": "eu"
            }
        }));
        let lookup = |name: &str| match name {
            "HOST" => Some("mcp.example".to_string()),
            "TOKEN" => Some("s3cret".to_string()),
            _ => None,
        };
        let McpServer::Http(server) = resolve("api", &e, Scope::User, &lookup).expect("resolves")
        else {
            panic!("an http server");
        };
        assert_eq!(server.url, "https://mcp.example/mcp");
        assert_eq!(server.headers, [("X-Region".to_string(), "eu".to_string())]);
        let secret = server.secret.as_ref().expect("a secret header");
        assert_eq!(
            (secret.header.as_str(), secret.value.as_str()),
            ("Authorization", "Bearer s3cret")
        );
        assert_eq!(server.secret_name(), "tack:mcp:api");
        // Shown and debugged by name only.
        let summary = McpServer::Http(server.clone()).summary();
        assert_eq!(
            summary,
            "reached at https://mcp.example/mcp with X-Region, Authorization"
        );
        assert!(!format!("{server:?}").contains("s3cret"));
        // A literal credential is a secret too, and a URL without a url is named.
        let literal = entry(serde_json::json!({
            "url": "http://127.0.0.1:9/mcp",
            "headers": { "X-Api-Key": "abc" }
        }));
        let McpServer::Http(local) = resolve("l", &literal, Scope::User, &lookup).expect("local")
        else {
            panic!("an http server");
        };
        assert!(local.headers.is_empty());
        assert_eq!(local.secret.expect("secret").value, "abc");
        // A variable in a plain header beside a credential is a plain header.
        let both = entry(serde_json::json!({
            "url": "https://mcp.example/mcp",
            "headers": { "Authorization": "Bearer ${TOKEN}", "X-Tenant": "${HOST}" }
        }));
        let McpServer::Http(both) = resolve("b", &both, Scope::User, &lookup).expect("both") else {
            panic!("an http server");
        };
        assert_eq!(both.secret.expect("secret").header, "Authorization");
        assert_eq!(
            both.headers,
            [("X-Tenant".to_string(), "mcp.example".to_string())]
        );
        // The older transport reaches the origin, where its server names its endpoint.
        let sse = entry(serde_json::json!({ "type": "sse", "url": "https://mcp.example/sse" }));
        let McpServer::Http(older) = resolve("o", &sse, Scope::User, &lookup).expect("sse") else {
            panic!("an http server");
        };
        assert!(older.sse);
        assert_eq!(older.grant(), "https://mcp.example");
        assert_eq!(server.grant(), "https://mcp.example/mcp");
    }

    #[test]
    fn an_http_server_tack_would_not_reach_safely_says_why() {
        let none = |_: &str| None;
        let why = |json: serde_json::Value| {
            resolve("r", &entry(json), Scope::User, &none).expect_err("refused")
        };
        assert!(why(serde_json::json!({ "url": "http://mcp.example/mcp" })).contains("https"));
        assert!(
            why(serde_json::json!({ "url": "https://u:p@mcp.example/mcp" })).contains("header")
        );
        assert!(why(serde_json::json!({ "type": "http" })).contains("no url"));
        assert!(why(serde_json::json!({
            "url": "https://mcp.example/mcp",
            "headers": { "Authorization": "a", "X-Token": "b" }
        }))
        .contains("one secret header"));
        assert!(why(serde_json::json!({
            "url": "https://mcp.example/mcp",
            "headers": { "Mcp-Session-Id": "x" }
        }))
        .contains("transport's"));
        assert!(why(serde_json::json!({
            "url": "https://mcp.example/mcp",
            "headers": { "X-Forwarded-Host": "admin.internal" }
        }))
        .contains("host's own"));
        assert!(
            why(serde_json::json!({ "url": "https://mcp.example/mcp?key=${K:-x}" }))
                .contains("not in the url's query")
        );
    }

    #[test]
    fn unknown_fields_survive_a_round_trip() {
        let text = r#"{"mcpServers":{"a":{"command":"x","timeout":5}},"extra":true}"#;
        let file: McpFile = serde_json::from_str(text).expect("parse");
        let back = serde_json::to_value(&file).expect("encode");
        assert_eq!(back["extra"], true);
        assert_eq!(back["mcpServers"]["a"]["timeout"], 5);
    }
}
