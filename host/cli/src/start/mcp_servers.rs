//! Hands the user's MCP servers to the built-in `mcp` plugin. The servers are its `process`
//! grant, exactly: each server's command line, word for word, and nothing else, so the plugin
//! can start what the user configured and no other program. Without a server the plugin is not
//! loaded at all.

use serde_json::json;
use tack_runtime::PluginSpec;

use crate::mcp::StdioServer;

/// The built-in MCP client's name.
pub const PLUGIN: &str = "mcp";

/// Sets the `mcp` plugin's servers and grant, or drops the plugin when there is none.
pub fn apply(specs: &mut Vec<PluginSpec>, servers: &[StdioServer]) {
    let is_client = |s: &PluginSpec| s.is_builtin(PLUGIN);
    if servers.is_empty() {
        specs.retain(|s| !is_client(s));
        return;
    }
    let Some(spec) = specs.iter_mut().find(|s| is_client(s)) else {
        return;
    };
    let patterns: Vec<String> = servers.iter().map(StdioServer::command_line).collect();
    spec.manifest.capabilities.process = patterns.clone();
    spec.granted.process = patterns;
    let list: Vec<_> = servers
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "scope": s.scope.as_str(),
                "command": s.command_line(),
                "shown": s.shown,
                "env": s.env_names,
            })
        })
        .collect();
    if let Some(config) = spec.config.as_object_mut() {
        config.insert("servers".into(), serde_json::Value::Array(list));
    }
    // permission-gate asks about a server's tools by their names' prefix, since a hook sees a
    // call's tool name and not the plugin behind it.
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    for gate in specs.iter_mut().filter(|s| s.is_builtin("permission-gate")) {
        if let Some(config) = gate.config.as_object_mut() {
            config.insert("mcp_servers".into(), json!(names));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Scope;
    use tack_runtime::{Capabilities, Manifest, PluginSource};

    fn spec(source: PluginSource) -> PluginSpec {
        let manifest = Manifest::parse(
            "[plugin]\nname = \"mcp\"\nversion = \"0.1.0\"\napi = \"0.2\"\ncomponent = \"mcp.wasm\"\n",
        )
        .expect("manifest");
        PluginSpec {
            manifest,
            wasm: Vec::new(),
            wasm_label: "test".into(),
            source,
            granted: Capabilities {
                process: vec!["**".into()],
                ..Capabilities::default()
            },
            config: json!({}),
        }
    }

    fn server(name: &str, words: &[&str]) -> StdioServer {
        StdioServer {
            name: name.into(),
            scope: Scope::User,
            words: words.iter().map(|w| w.to_string()).collect(),
            shown: words.join(" "),
            env_names: Vec::new(),
        }
    }

    #[test]
    fn the_builtin_client_may_start_the_configured_servers_and_nothing_else() {
        let mut specs = vec![
            spec(PluginSource::Builtin),
            spec(PluginSource::Path("/elsewhere/mcp".into())),
        ];
        apply(&mut specs, &[server("ev", &["node", "server one.js"])]);
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
    fn without_a_server_the_client_is_not_loaded() {
        let mut specs = vec![spec(PluginSource::Builtin)];
        apply(&mut specs, &[]);
        assert!(specs.is_empty());
    }
}
