//! Hands the user's MCP servers to the built-in `mcp` plugin. The servers are its grants,
//! exactly: each stdio server's command line, word for word, is a `process` grant, and each HTTP
//! server's URL an `http` grant, so the plugin can start and reach what the user configured and
//! nothing else. A server's secret header is a `secrets` grant of a name only the host can give
//! (`tack:mcp:<server>`); its value goes into the host's secret store ([`secrets`]), never into the
//! plugin's configuration. Without a server the plugin is not loaded at all.

use serde_json::json;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::PluginSpec;

use std::path::Path;

use crate::mcp::{oauth, McpServer};

/// The tokens of `tack mcp login` as the `Authorization` header of the HTTP servers they were
/// issued for (refreshed first when they are about to expire), unless the entry sets a secret
/// header of its own. A login that cannot be refreshed is a warning; the server then answers
/// 401 and the plugin says to log in again.
pub async fn logins(tack_home: &Path, servers: &mut [McpServer], warnings: &mut Vec<String>) {
    let path = oauth::store_path(tack_home);
    let mut store = match oauth::read_store(&path) {
        Ok(store) if store.is_empty() => return,
        Ok(store) => store,
        Err(e) => {
            warnings.push(format!("{e:#}; MCP logins are not used"));
            return;
        }
    };
    let client = match reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(15))
        .build()
    {
        Ok(client) => client,
        Err(e) => {
            warnings.push(format!("cannot refresh MCP logins: {e}"));
            return;
        }
    };
    let mut changed = false;
    for server in servers.iter_mut() {
        let McpServer::Http(http) = server else {
            continue;
        };
        let Some(tokens) = store.get_mut(&http.name) else {
            continue;
        };
        if http.secret.is_some() || tokens.url != http.url {
            continue;
        }
        match oauth::refresh_if_due(&client, tokens).await {
            Ok(refreshed) => changed |= refreshed,
            Err(e) => warnings.push(format!(
                "MCP server '{}': its login could not be refreshed ({e:#}); run `tack mcp login {}`",
                http.name, http.name
            )),
        }
        http.secret = Some(crate::mcp::SecretHeader {
            header: "Authorization".into(),
            value: format!("Bearer {}", tokens.access_token),
        });
    }
    if changed {
        if let Err(e) = oauth::write_store(&path, &store) {
            warnings.push(format!("{e:#}"));
        }
    }
}

/// The secret store with each HTTP server's secret header in it, under the name the plugin's
/// grant gives.
pub fn secrets(mut store: SecretStore, servers: &[McpServer]) -> SecretStore {
    for server in servers {
        if let McpServer::Http(http) = server {
            if let Some(secret) = &http.secret {
                store = store.with_bound_override(
                    &http.secret_name(),
                    secret.value.clone(),
                    &http.grant(),
                );
            }
        }
    }
    store
}

/// The built-in MCP client's name.
pub const PLUGIN: &str = "mcp";

/// Sets the `mcp` plugin's servers and grant, or drops the plugin when there is none.
pub fn apply(specs: &mut Vec<PluginSpec>, servers: &[McpServer], warnings: &mut Vec<String>) {
    let is_client = |s: &PluginSpec| s.is_builtin(PLUGIN);
    if servers.is_empty() {
        specs.retain(|s| !is_client(s));
        return;
    }
    let Some(spec) = specs.iter_mut().find(|s| is_client(s)) else {
        return;
    };
    let renames = renames(&spec.config, servers, warnings);
    let mut grants = tack_runtime::Capabilities::default();
    let mut list = Vec::new();
    for server in servers {
        match server {
            McpServer::Stdio(s) => {
                grants.process.push(s.command_line());
                list.push(json!({
                    "name": s.name,
                    "scope": s.scope.as_str(),
                    "command": s.command_line(),
                    "shown": s.shown,
                    "env": s.env_names,
                    "rename": renames_of(&renames, &s.name),
                }));
            }
            McpServer::Http(s) => {
                grants.http.push(s.grant());
                let secret = s.secret.as_ref().map(|secret| {
                    grants.secrets.push(s.secret_name());
                    json!({ "name": s.secret_name(), "header": secret.header })
                });
                list.push(json!({
                    "name": s.name,
                    "scope": s.scope.as_str(),
                    "url": s.url,
                    "shown": s.url,
                    "headers": s.headers,
                    "secret": secret,
                    "transport": if s.sse { "sse" } else { "http" },
                    "rename": renames_of(&renames, &s.name),
                }));
            }
        }
    }
    spec.manifest.capabilities.process = grants.process.clone();
    spec.manifest.capabilities.http = grants.http.clone();
    spec.manifest.capabilities.secrets = grants.secrets.clone();
    spec.granted.process = grants.process;
    spec.granted.http = grants.http;
    spec.granted.secrets = grants.secrets;
    if let Some(config) = spec.config.as_object_mut() {
        config.insert("servers".into(), serde_json::Value::Array(list));
    }
    // permission-gate asks about a server's tools by their names' prefix, since a hook sees a
    // call's tool name and not the plugin behind it.
    let names: Vec<&str> = servers.iter().map(McpServer::name).collect();
    // The gate judges a renamed tool by tack's name, so the user's rules for it hold.
    let renamed: serde_json::Map<String, serde_json::Value> = renames
        .iter()
        .map(|(from, (_, new))| (new.clone(), json!(from)))
        .collect();
    for gate in specs.iter_mut().filter(|s| s.is_builtin("permission-gate")) {
        if let Some(config) = gate.config.as_object_mut() {
            config.insert("mcp_servers".into(), json!(names));
            config.insert(
                "mcp_tools".into(),
                serde_json::Value::Object(renamed.clone()),
            );
        }
    }
}

/// `[plugins.mcp] tool_names`: tack's name of a server's tool (`github_create_issue`) -> the
/// user's (`new_issue`), each with its server. A name that is not a tool name, that no server's
/// prefix starts, or that two tools would share, is a warning and left out.
fn renames(
    config: &serde_json::Value,
    servers: &[McpServer],
    warnings: &mut Vec<String>,
) -> std::collections::BTreeMap<String, (String, String)> {
    let mut out = std::collections::BTreeMap::new();
    let Some(table) = config.get("tool_names").and_then(|t| t.as_object()) else {
        return out;
    };
    let mut taken = std::collections::BTreeSet::new();
    for (from, to) in table {
        let Some(to) = to.as_str() else {
            warnings.push(format!(
                "[plugins.mcp] tool_names.{from}: the new name is not text"
            ));
            continue;
        };
        let valid = !to.is_empty()
            && to.len() <= 64
            && to
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let server = servers
            .iter()
            .map(McpServer::name)
            .filter(|s| {
                from.strip_prefix(s)
                    .is_some_and(|rest| rest.starts_with('_'))
            })
            .max_by_key(|s| s.len());
        match server {
            _ if !valid => warnings.push(format!(
                "[plugins.mcp] tool_names.{from} = \"{to}\": a tool name is 1-64 of [a-zA-Z0-9_-]"
            )),
            None => warnings.push(format!(
                "[plugins.mcp] tool_names.{from}: no configured MCP server's tools are named so \
                 (they are <server>_<tool>)"
            )),
            Some(_) if !taken.insert(to.to_string()) => warnings.push(format!(
                "[plugins.mcp] tool_names: two tools are renamed `{to}`; neither is"
            )),
            Some(server) => {
                out.insert(from.clone(), (server.to_string(), to.to_string()));
            }
        }
    }
    out
}

fn renames_of(
    renames: &std::collections::BTreeMap<String, (String, String)>,
    server: &str,
) -> serde_json::Value {
    serde_json::Value::Object(
        renames
            .iter()
            .filter(|(_, (owner, _))| owner == server)
            .map(|(from, (_, to))| (from.clone(), json!(to)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{HttpServer, Scope, SecretHeader, StdioServer};
    use tack_runtime::{Capabilities, Manifest, PluginSource};

    fn spec(source: PluginSource) -> PluginSpec {
        let manifest = Manifest::parse(
            "[plugin]\nname = \"mcp\"\nversion = \"0.1.0\"\napi = \"0.2\"\ncomponent = \"mcp.wasm\"\n",
        )
        .expect("manifest");
        PluginSpec {
            manifest,
            wasm: Default::default(),
            wasm_label: "test".into(),
            source,
            granted: Capabilities {
                process: vec!["**".into()],
                ..Capabilities::default()
            },
            config: json!({}),
        }
    }

    fn server(name: &str, words: &[&str]) -> McpServer {
        McpServer::Stdio(StdioServer {
            name: name.into(),
            scope: Scope::User,
            words: words.iter().map(|w| w.to_string()).collect(),
            shown: words.join(" "),
            env_names: Vec::new(),
        })
    }

    #[test]
    fn the_builtin_client_may_start_the_configured_servers_and_nothing_else() {
        let mut specs = vec![
            spec(PluginSource::Builtin),
            spec(PluginSource::Path("/elsewhere/mcp".into())),
        ];
        apply(
            &mut specs,
            &[server("ev", &["node", "server one.js"])],
            &mut Vec::new(),
        );
        assert_eq!(specs[0].granted.process, ["node 'server one.js'"]);
        assert_eq!(
            specs[0].manifest.capabilities.process,
            ["node 'server one.js'"]
        );
        assert_eq!(specs[0].config["servers"][0]["name"], "ev");
        // A package that calls itself mcp gets nothing of the user's servers.
        assert_eq!(specs[1].granted.process, ["**"]);
        assert!(specs[1].config.get("servers").is_none());
    }

    #[test]
    fn tools_the_user_renames_keep_their_server_for_the_gate() {
        let mut specs = vec![spec(PluginSource::Builtin), gate()];
        specs[0].config = json!({ "tool_names": {
            "ev_echo": "say", "nope_x": "y", "ev_add": "bad name", "ev_sum": "say"
        } });
        let mut warnings = Vec::new();
        apply(
            &mut specs,
            &[server("ev", &["node", "ev.js"])],
            &mut warnings,
        );
        assert_eq!(
            specs[0].config["servers"][0]["rename"],
            json!({ "ev_echo": "say" })
        );
        assert_eq!(specs[1].config["mcp_tools"], json!({ "say": "ev_echo" }));
        assert_eq!(warnings.len(), 3, "{warnings:?}");
    }

    fn gate() -> PluginSpec {
        let mut gate = spec(PluginSource::Builtin);
        gate.manifest = Manifest::parse(
            "[plugin]\nname = \"permission-gate\"\nversion = \"0.1.0\"\napi = \"0.1\"\ncomponent = \"g.wasm\"\n",
        )
        .expect("manifest");
        gate
    }

    #[test]
    fn an_http_servers_secret_header_is_the_hosts_and_the_plugin_only_names_it() {
        let remote = McpServer::Http(HttpServer {
            name: "api".into(),
            scope: Scope::Project,
            url: "https://mcp.example/mcp".into(),
            headers: vec![("X-Region".into(), "eu".into())],
            secret: Some(SecretHeader {
                header: "Authorization".into(),
                value: "Bearer s3cret".into(),
            }),
            sse: false,
        });
        let mut specs = vec![spec(PluginSource::Builtin)];
        let servers = [server("ev", &["node", "ev.js"]), remote];
        apply(&mut specs, &servers, &mut Vec::new());
        let granted = &specs[0].granted;
        assert_eq!(granted.process, ["node ev.js"]);
        assert_eq!(granted.http, ["https://mcp.example/mcp"]);
        assert_eq!(granted.secrets, ["tack:mcp:api"]);
        let config = specs[0].config.to_string();
        assert!(!config.contains("s3cret"), "{config}");
        assert_eq!(
            specs[0].config["servers"][1]["secret"]["header"],
            "Authorization"
        );
        let store = secrets(SecretStore::new(None), &servers);
        assert_eq!(store.lookup("tack:mcp:api").as_deref(), Ok("Bearer s3cret"));
        // The host sends it to that server alone, whatever else the plugin may reach.
        assert_eq!(
            store.bound_to("tack:mcp:api"),
            Some("https://mcp.example/mcp")
        );
    }

    #[test]
    fn without_a_server_the_client_is_not_loaded() {
        let mut specs = vec![spec(PluginSource::Builtin)];
        apply(&mut specs, &[], &mut Vec::new());
        assert!(specs.is_empty());
    }
}
