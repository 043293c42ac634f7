//! Plugin slash commands: `get_commands` and `run_command`.

use anyhow::{bail, Context};
use serde_json::json;
use tack_protocol::{CommandInfo, SourceInfo};

use super::server::{data, Reply, Server};

impl Server {
    pub fn commands(&self) -> Reply {
        let mut commands: Vec<CommandInfo> = self
            .front
            .loaded
            .set
            .commands()
            .into_iter()
            .map(|(plugin, spec)| CommandInfo {
                name: spec.name.clone(),
                description: spec.description.clone(),
                source: "extension".to_string(),
                source_info: self.source_info(&plugin),
                plugin: plugin.name().to_string(),
            })
            .collect();
        commands.sort_by(|a, b| a.name.cmp(&b.name));
        data(json!({ "commands": commands }))
    }

    /// Where a plugin comes from, in Pi's terms: a built-in is tack's own (`scope: "builtin"`,
    /// which Pi has no word for), a package is the user's (installed globally), the project's
    /// (`.tack/`) or this run's alone (`--plugin`, Pi's "temporary").
    fn source_info(&self, plugin: &tack_runtime::LoadedPlugin) -> SourceInfo {
        match &plugin.source {
            tack_runtime::PluginSource::Builtin => SourceInfo {
                path: format!("builtin:{}", plugin.name()),
                source: "builtin".to_string(),
                scope: "builtin".to_string(),
                origin: "top-level".to_string(),
            },
            tack_runtime::PluginSource::Path(dir) => {
                let loaded = &self.front.loaded;
                let scope = if dir.starts_with(loaded.home.root()) {
                    "user"
                } else if dir.starts_with(loaded.cwd.join(".tack")) {
                    "project"
                } else {
                    "temporary"
                };
                SourceInfo {
                    path: dir.display().to_string(),
                    source: plugin.name().to_string(),
                    scope: scope.to_string(),
                    origin: "package".to_string(),
                }
            }
        }
    }

    /// Runs `/name args`. A message the command queued for the model starts a turn once it
    /// has answered (plan-mode's "execute the plan").
    pub async fn run_command(self: std::sync::Arc<Self>, name: &str, args: &str) -> Reply {
        let name = name.strip_prefix('/').unwrap_or(name);
        let Some((plugin, _)) = self.front.loaded.set.command(name) else {
            bail!("no plugin provides /{name} (see get_commands)");
        };
        let plugin = plugin.clone();
        let output = match plugin.run_command(name, args.trim()).await {
            Ok(Ok(output)) => output,
            Ok(Err(message)) => bail!("/{name}: {message}"),
            Err(e) => return Err(e).with_context(|| format!("/{name}")),
        };
        self.driver.wake();
        data(json!({ "output": output }))
    }
}
