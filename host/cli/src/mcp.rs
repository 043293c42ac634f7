//! MCP servers the user keeps: `<tack home>/mcp.json` (user scope) and a trusted project's
//! `.mcp.json` (Claude Code's file, read as Claude Code writes it). The built-in `mcp` plugin is
//! the client; the host only decides which servers it may start, and with what (see
//! `start/mcp_servers.rs`), since the list of servers is the plugin's `process` grant.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

mod expand;

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

/// The server an entry describes, if tack can run it; otherwise why not.
pub fn resolve(
    name: &str,
    entry: &ServerEntry,
    scope: Scope,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<StdioServer, String> {
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
        "stdio" => {}
        "http" | "sse" | "streamable-http" => {
            return Err(format!(
                "MCP server '{name}' ({kind}, {}): tack does not speak MCP over HTTP yet; only \
                 servers it starts itself (stdio) are used",
                entry.url.as_deref().unwrap_or("no url")
            ))
        }
        other => {
            return Err(format!(
                "MCP server '{name}': unknown type '{other}' (stdio, http or sse)"
            ))
        }
    }
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
) -> Vec<StdioServer> {
    let mut by_name: BTreeMap<String, StdioServer> = BTreeMap::new();
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
        let server = resolve("github", &e, Scope::Project, &lookup).expect("resolves");
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
        let http = entry(serde_json::json!({ "type": "http", "url": "https://mcp.example/mcp" }));
        let why = resolve("remote", &http, Scope::User, &none).expect_err("http");
        assert!(why.contains("HTTP"), "{why}");
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
        let shown: Vec<_> = trusted
            .iter()
            .map(|s| (s.name.as_str(), s.shown.as_str()))
            .collect();
        assert_eq!(shown, [("a", "project-a"), ("b", "user-b")]);
        let untrusted = servers(home.path(), None, &none, &mut warnings);
        assert_eq!(untrusted[0].shown, "user-a");
        assert!(warnings.is_empty(), "{warnings:?}");
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
