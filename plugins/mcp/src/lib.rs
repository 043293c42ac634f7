//! tack's MCP client (`tack:plugin@0.2.0`): the tools of the MCP servers the user configured,
//! as tack tools named `<server>_<tool>`.
//!
//! The host hands over the servers (`servers` in the config) and makes exactly their command
//! lines the plugin's `process` grant, and exactly their URLs its `http` grant, so this plugin
//! can start and reach what the user configured and nothing else. A secret header (a bearer
//! token) is held by the host, which attaches it; the plugin only names it.
//!
//! Servers start with the session; its start, and each turn's, waits a little for them
//! (`startup_wait_ms`), and a slower server's tools arrive from a later turn. A server that says
//! its tools changed is listed again at the next turn. Each call waits at most `tool_timeout_ms`
//! for its answer; a server that does not answer, or exits, is stopped and starts again on the
//! next call. `/mcp` shows the servers; `/mcp restart [name]` starts them afresh.
//!
//! A server's prompts become commands, `/<server>:<prompt> args`, which send the prompt to the
//! model; `/mcp resources [server]` lists its resources and `/mcp read <server> <uri>` attaches
//! one to the next prompt.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::json;
use tack_sdk::session::{self, Delivery, OutgoingMessage};
use tack_sdk::{
    commands, events, export_observer, export_plugin, log, process, tools, InitContext, Observer,
    Plugin, Registration, ToolCall, ToolResult, ToolSpec,
};

mod content;
mod http;
mod legacy;
mod prompts;
mod rpc;
mod server;
mod sse;

use server::{Phase, Server, ServerConfig};

/// How long a call waits for a server that must start first.
const START_FOR_CALL: Duration = Duration::from_secs(30);
/// How long a server that failed is left alone by the start of a turn (a call still tries it).
const RETRY_AFTER: Duration = Duration::from_secs(30);

#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    servers: Vec<ServerConfig>,
    #[serde(default = "default_tool_timeout")]
    tool_timeout_ms: u64,
    #[serde(default = "default_startup_wait")]
    startup_wait_ms: u64,
}

fn default_tool_timeout() -> u64 {
    100_000
}

fn default_startup_wait() -> u64 {
    3_500
}

#[derive(Default)]
struct McpPlugin {
    servers: Vec<Server>,
    tool_timeout: Duration,
    startup_wait: Duration,
}

impl McpPlugin {
    /// Starts the servers not running (a broken one at most every 30 s), waits until `deadline`
    /// for them to list their tools, and brings tack's tools in line with what they list.
    fn connect(&mut self, deadline: Instant, only: Option<&str>) {
        for server in &mut self.servers {
            if only.is_some_and(|name| name != server.config.name) {
                continue;
            }
            let resting = server
                .failed_at
                .is_some_and(|at| at.elapsed() < RETRY_AFTER && only.is_none());
            if server.phase == Phase::Stopped && !resting {
                if let Err(e) = server.start(deadline) {
                    log::warn(e);
                }
            }
        }
        // Every stdio server started at once above, so waiting for them one after another costs
        // the slowest one's time, not the sum. (An HTTP server's start waited for its answer
        // already; one that took the whole wait brings its tools from a later turn.)
        for server in &mut self.servers {
            if let Err(e) = server
                .drain()
                .and_then(|()| server.pump(deadline, &Server::settled))
            {
                log::warn(e);
            }
        }
        self.sync_tools();
        self.list_prompts(deadline);
    }

    /// Lists the prompts of ready servers that offer some and were not listed since they
    /// started (or said their prompts changed), and brings tack's commands in line: a prompt is
    /// `/<server>:<prompt>`. A server whose prompts are not known keeps the commands it had,
    /// so a stopped server's prompt still starts it.
    fn list_prompts(&mut self, deadline: Instant) {
        let mut changed = false;
        for server in &mut self.servers {
            if server.phase != Phase::Ready || server.prompts.is_some() {
                continue;
            }
            if !server.offers("prompts") {
                server.prompts = Some(Default::default());
                changed = true;
                continue;
            }
            match prompts::list(server, deadline) {
                Ok(listed) => {
                    for (command, prompt) in &listed {
                        let description = prompts::describe(&server.config.name, prompt);
                        if let Err(e) = commands::register(command, &description) {
                            log::warn(format!(
                                "MCP server '{}': prompt '{}' is not available as /{command}: {}",
                                server.config.name,
                                prompt.name,
                                e.message()
                            ));
                        }
                    }
                    server.prompts = Some(listed);
                    changed = true;
                }
                Err(e) => log::warn(e),
            }
        }
        if !changed {
            return;
        }
        for command in commands::all() {
            let name = command.spec.name;
            if command.plugin != "mcp" || name == "mcp" {
                continue;
            }
            let owner = self
                .servers
                .iter()
                .find(|s| name.starts_with(&format!("{}:", s.config.name)));
            let stale = match owner.map(|s| s.prompts.as_ref()) {
                None => true,
                Some(None) => false,
                Some(Some(listed)) => !listed.contains_key(&name),
            };
            if stale {
                commands::unregister(&name);
            }
        }
    }

    /// `/<server>:<prompt> args`: the prompt, filled in by the server, sent to the model.
    fn run_prompt(&mut self, command: &str, args: &str) -> Result<Option<String>, String> {
        let Some(index) = self
            .servers
            .iter()
            .position(|s| command.starts_with(&format!("{}:", s.config.name)))
        else {
            return Err(format!("unknown command /{command}"));
        };
        let deadline = Instant::now() + START_FOR_CALL;
        let server = &mut self.servers[index];
        server.ready(deadline)?;
        if server.prompts.is_none() {
            self.list_prompts(deadline);
        }
        let server = &mut self.servers[index];
        let Some(prompt) = server
            .prompts
            .as_ref()
            .and_then(|listed| listed.get(command))
            .cloned()
        else {
            return Err(format!(
                "MCP server '{}' no longer offers the prompt of /{command}",
                server.config.name
            ));
        };
        let arguments = prompts::arguments(&prompt, args)?;
        let result = server.call(
            "prompts/get",
            json!({ "name": prompt.name, "arguments": arguments }),
            Instant::now() + self.tool_timeout,
            None,
        )?;
        let text = prompts::message_text(&result).map_err(|e| format!("/{command}: {e}"))?;
        session::send_message(
            &OutgoingMessage {
                custom_type: Some("mcp-prompt".into()),
                text,
                display: true,
            },
            Delivery::Steer,
        );
        Ok(None)
    }

    fn server_index(&self, name: &str) -> Result<usize, String> {
        self.servers
            .iter()
            .position(|s| s.config.name == name)
            .ok_or_else(|| format!("no MCP server named '{name}'"))
    }

    /// `/mcp resources [server]`: what each server (that offers resources) lists.
    fn resources(&mut self, only: Option<&str>) -> Result<String, String> {
        if let Some(name) = only {
            self.server_index(name)?;
        }
        let timeout = self.tool_timeout;
        let mut lines = Vec::new();
        for server in &mut self.servers {
            if only.is_some_and(|name| name != server.config.name) {
                continue;
            }
            if let Err(e) = server.ready(Instant::now() + START_FOR_CALL) {
                lines.push(format!("{}: {e}", server.config.name));
                continue;
            }
            if !server.offers("resources") {
                lines.push(format!("{}: offers no resources", server.config.name));
                continue;
            }
            match prompts::resource_lines(server, Instant::now() + timeout) {
                Ok(listed) if listed.is_empty() => {
                    lines.push(format!("{}: no resources", server.config.name));
                }
                Ok(listed) => {
                    lines.push(format!("{}:", server.config.name));
                    lines.extend(listed);
                }
                Err(e) => lines.push(format!("{}: {e}", server.config.name)),
            }
        }
        if lines.is_empty() {
            return Ok("No MCP servers are configured.".into());
        }
        lines.push("Attach one to your next prompt with /mcp read <server> <uri>.".into());
        Ok(lines.join("\n"))
    }

    /// `/mcp read <server> <uri>`: the resource's text, attached to the user's next prompt.
    fn read(&mut self, name: &str, uri: &str) -> Result<String, String> {
        let index = self.server_index(name)?;
        let timeout = self.tool_timeout;
        let server = &mut self.servers[index];
        server.ready(Instant::now() + START_FOR_CALL)?;
        let text = prompts::read_resource(server, uri, Instant::now() + timeout)?;
        let size = text.chars().count();
        session::send_message(
            &OutgoingMessage {
                custom_type: Some("mcp-resource".into()),
                text,
                display: true,
            },
            Delivery::NextTurn,
        );
        Ok(format!(
            "Attached {uri} of MCP server '{name}' ({size} characters) to your next prompt."
        ))
    }

    /// Registers the tools of servers whose list changed, and removes the tools of servers that
    /// no longer list them.
    fn sync_tools(&mut self) {
        let registered: BTreeSet<String> = tools::all()
            .into_iter()
            .filter(|t| t.plugin == "mcp")
            .map(|t| t.spec.name)
            .collect();
        let mut wanted = BTreeSet::new();
        for server in &mut self.servers {
            wanted.extend(server.tools.keys().cloned());
            if !server.tools_changed {
                continue;
            }
            server.tools_changed = false;
            for (name, tool) in &server.tools {
                let mut description = tool.description.clone();
                if !description.is_empty() {
                    description.push_str("\n\n");
                }
                description.push_str(&format!(
                    "(Tool '{}' of the MCP server '{}'.)",
                    tool.name, server.config.name
                ));
                let spec = ToolSpec::new(
                    name,
                    tool.title.as_deref().unwrap_or(&tool.name),
                    description,
                    tool.schema.clone(),
                )
                .sequential();
                if let Err(e) = tools::register(spec) {
                    log::warn(format!(
                        "MCP server '{}': tool '{}' is not available as {name}: {}",
                        server.config.name,
                        tool.name,
                        e.message()
                    ));
                }
            }
        }
        for stale in registered.difference(&wanted) {
            tools::unregister(stale);
        }
    }

    fn route(&self, tack_name: &str) -> Option<(usize, String)> {
        self.servers.iter().enumerate().find_map(|(i, server)| {
            server
                .tools
                .get(tack_name)
                .map(|tool| (i, tool.name.clone()))
        })
    }

    fn call(&mut self, call: &ToolCall) -> ToolResult {
        if self.route(&call.name).is_none() {
            // A new instance (after a fault) knows no server yet; the tool is still registered.
            self.connect(Instant::now() + START_FOR_CALL, None);
        }
        let Some((index, tool)) = self.route(&call.name) else {
            return ToolResult::error(format!(
                "no MCP server offers {} any more; see /mcp",
                call.name
            ));
        };
        let arguments = match call.args_value() {
            Ok(value) => value,
            Err(e) => return ToolResult::error(e),
        };
        let timeout = self.tool_timeout;
        let server = &mut self.servers[index];
        let name = server.config.name.clone();
        if let Err(e) = server.ready(Instant::now() + START_FOR_CALL) {
            return ToolResult::error(e);
        }
        let outcome = server.call(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
            Instant::now() + timeout,
            Some(&call.id),
        );
        // What came with the answer may include a changed tool list.
        if let Err(e) = server.drain() {
            log::warn(e);
        }
        self.sync_tools();
        match outcome {
            Ok(result) => content::tool_result(&name, &tool, &result),
            Err(e) => ToolResult::error(e),
        }
    }

    fn status(&self) -> String {
        let mut lines = Vec::new();
        for server in &self.servers {
            let state = match server.phase {
                Phase::Ready => format!(
                    "ready, {} tool(s){}",
                    server.tools.len(),
                    server
                        .server_info
                        .as_deref()
                        .map(|info| format!(", {info}"))
                        .unwrap_or_default()
                ),
                Phase::Initializing => "starting".to_string(),
                Phase::Stopped => match &server.last_error {
                    Some(why) => format!("stopped: {why}"),
                    None => "not started yet".to_string(),
                },
            };
            let env = match (&server.config.secret, server.config.env.is_empty()) {
                (Some(secret), _) => format!(" with {} (its value held by tack)", secret.header),
                (None, true) => String::new(),
                (None, false) => format!(" with {}", server.config.env.join(", ")),
            };
            let how = match &server.config.url {
                Some(_) => format!("reached at {}", server.config.shown),
                None => format!("runs `{}`", server.config.shown),
            };
            lines.push(format!(
                "{} ({}): {state}\n  {how}{env}",
                server.config.name, server.config.scope
            ));
            if server.phase == Phase::Ready && !server.tools.is_empty() {
                let names: Vec<&str> = server.tools.keys().map(String::as_str).collect();
                lines.push(format!("  tools: {}", names.join(", ")));
            }
        }
        if lines.is_empty() {
            return "No MCP servers are configured (tack mcp add <name> -- <command>).".into();
        }
        lines.join("\n")
    }
}

impl Plugin for McpPlugin {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config)
            .map_err(|e| format!("the mcp plugin's configuration is malformed: {e}"))?;
        self.tool_timeout = Duration::from_millis(config.tool_timeout_ms.max(1));
        self.startup_wait = Duration::from_millis(config.startup_wait_ms);
        self.servers = config.servers.into_iter().map(Server::new).collect();
        // The host runs this plugin in one instance at a time (`instances = 1`), so processes
        // left from an instance before this one have no conversation anyone remembers.
        for orphan in process::list() {
            let _ = process::Process::from_id(orphan.id).release();
        }
        for orphan in tack_sdk::http_stream::list() {
            tack_sdk::http_stream::close(orphan);
        }
        // At the session's start too, so that servers' prompts are commands before the first
        // prompt (`tack -p "/server:prompt …"`), as Claude Code connects its servers at start.
        events::subscribe(&["session_start", "turn_start"])?;
        Ok(Registration::new().command(
            "mcp",
            "MCP servers and their tools; /mcp restart [server], /mcp resources [server], /mcp read <server> <uri>",
        ))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        self.call(&call)
    }

    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        if name != "mcp" {
            return self.run_prompt(name, args);
        }
        let mut words = args.split_whitespace();
        match words.next() {
            None | Some("list") => {
                self.connect(Instant::now() + self.startup_wait, None);
                Ok(Some(self.status()))
            }
            Some("restart") => {
                let only = words.next();
                if let Some(name) = only {
                    if !self.servers.iter().any(|s| s.config.name == name) {
                        return Err(format!("no MCP server named '{name}'"));
                    }
                }
                for server in &mut self.servers {
                    if only.is_none_or(|name| name == server.config.name) {
                        server.stop(None);
                        server.failed_at = None;
                    }
                }
                self.connect(Instant::now() + Duration::from_secs(20), only);
                Ok(Some(self.status()))
            }
            Some("resources") => self.resources(words.next()).map(Some),
            Some("read") => match (words.next(), words.next()) {
                (Some(server), Some(uri)) => self.read(server, uri).map(Some),
                _ => Err("say /mcp read <server> <uri> (see /mcp resources)".into()),
            },
            Some(other) => Err(format!(
                "/mcp {other}: say /mcp to list the servers, /mcp restart [server], \
                 /mcp resources [server] or /mcp read <server> <uri>"
            )),
        }
    }
}

impl Observer for McpPlugin {
    fn on_named_event(&mut self, name: &str, _data: &str) {
        if name == "turn_start" || name == "session_start" {
            let deadline = Instant::now() + self.startup_wait;
            self.connect(deadline, None);
        }
    }
}

export_plugin!(McpPlugin);
export_observer!(McpPlugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_config_is_read_with_defaults() {
        let config: Config = serde_json::from_value(json!({
            "servers": [{
                "name": "ev", "scope": "user", "command": "node ev.js", "shown": "node ev.js"
            }]
        }))
        .expect("config");
        assert_eq!(config.servers[0].name, "ev");
        assert_eq!(config.tool_timeout_ms, 100_000);
    }
}
