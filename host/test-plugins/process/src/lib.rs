//! A `tack:plugin@0.2.0` plugin that keeps one program running across tool calls (and across
//! the instances the host runs the plugin in) and talks to it line by line, as an MCP client
//! talks to a stdio server.
//!
//! Configuration: `{"command": "cat", "observe": ["turn_end", "message_update"]}`: the program
//! to start (matched against the `process` grant), and the events to subscribe to by name
//! (`tack:plugin/events`); each event observed is appended, by name, to `events.log` in the
//! plugin's data directory.
//!
//! Tools:
//! - `converse {line}`: starts the program on first use (its id kept as plugin state in the
//!   session), writes `line`, and answers with the line the program writes back.
//! - `stop_server`: releases the program.
//! - `processes`: the plugin's processes as JSON.
//! - `add_tool {name}`, `remove_tool {name}`: registers or removes a tool `name` while running
//!   (`tack:plugin/tools`); calling it answers `dynamic <name>: <arguments>`.
//! - `list_tools`: every plugin's tools as `[name, plugin, active]`, JSON.
//! - `observed`: how many of each event were observed so far, JSON.
//! - `agent_state`: what `tack:plugin/control` reads (model, thinking level, context usage,
//!   idleness, pending messages, the system prompt's length, the session's name), JSON.
//! - `label {entry_id, label}`: labels an entry (`control.set-label`; `first` is the branch's
//!   first entry); an error as the host says.

use std::time::Duration;

use serde::Deserialize;
use tack_sdk::process::{self, Process};
use tack_sdk::serde_json::json;
use tack_sdk::{control, tools};
use tack_sdk::{
    events, export_observer, export_plugin, session, InitContext, Observer, Plugin, Registration,
    ToolCall, ToolResult, ToolSpec,
};

const STATE: &str = "server";

#[derive(Default)]
struct ProcessPlugin {
    command: String,
    log: Option<String>,
}

#[derive(Deserialize)]
struct Config {
    command: String,
    #[serde(default)]
    observe: Vec<String>,
}

#[derive(Deserialize)]
struct LineArgs {
    line: String,
}

#[derive(Deserialize)]
struct NameArgs {
    name: String,
}

#[derive(Deserialize)]
struct LabelArgs {
    entry_id: String,
    label: Option<String>,
}

impl ProcessPlugin {
    /// The running program, started on first use.
    fn server(&self) -> Result<Process, String> {
        let kept: Option<u64> = session::latest_state(STATE)?;
        if let Some(id) = kept {
            let server = Process::from_id(id);
            if matches!(server.wait(Duration::ZERO), Ok(None)) {
                return Ok(server);
            }
        }
        let server = Process::spawn(&self.command).map_err(|e| format!("{e:?}"))?;
        session::append_state(STATE, &server.id())?;
        Ok(server)
    }

    fn converse(&self, line: &str) -> Result<String, String> {
        let server = self.server()?;
        server.write_line(line).map_err(|e| e.to_string())?;
        match server.read_line(Duration::from_secs(20)) {
            Ok(Some(reply)) => Ok(format!("reply: {reply} (process {})", server.id())),
            Ok(None) => Err(format!("process {} sent no line", server.id())),
            Err(e) => Err(e.to_string()),
        }
    }
}

impl Plugin for ProcessPlugin {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config).map_err(|e| e.to_string())?;
        self.command = config.command;
        self.log = ctx.data_dir.as_ref().map(|d| format!("{d}/events.log"));
        if !config.observe.is_empty() {
            let names: Vec<&str> = config.observe.iter().map(String::as_str).collect();
            events::subscribe(&names)?;
        }
        Ok(Registration::new()
            .tool(ToolSpec::new(
                "converse",
                "Converse",
                "Sends `line` to the running program and returns the line it answers with.",
                json!({
                    "type": "object",
                    "properties": { "line": { "type": "string" } },
                    "required": ["line"]
                }),
            ))
            .tool(ToolSpec::new(
                "stop_server",
                "Stop server",
                "Stops the running program.",
                json!({ "type": "object", "properties": {} }),
            ))
            .tool(ToolSpec::new(
                "add_tool",
                "Add tool",
                "Registers a tool named `name`.",
                json!({
                    "type": "object",
                    "properties": { "name": { "type": "string" } },
                    "required": ["name"]
                }),
            ))
            .tool(ToolSpec::new(
                "remove_tool",
                "Remove tool",
                "Removes the tool named `name`.",
                json!({
                    "type": "object",
                    "properties": { "name": { "type": "string" } },
                    "required": ["name"]
                }),
            ))
            .tool(ToolSpec::new(
                "list_tools",
                "List tools",
                "Lists every plugin's tools.",
                json!({ "type": "object", "properties": {} }),
            ))
            .tool(ToolSpec::new(
                "observed",
                "Observed",
                "Counts the events observed so far, by name.",
                json!({ "type": "object", "properties": {} }),
            ))
            .tool(ToolSpec::new(
                "agent_state",
                "Agent state",
                "What the plugin reads of the running agent.",
                json!({ "type": "object", "properties": {} }),
            ))
            .tool(ToolSpec::new(
                "label",
                "Label",
                "Labels entry `entry_id`.",
                json!({
                    "type": "object",
                    "properties": {
                        "entry_id": { "type": "string" },
                        "label": { "type": "string" }
                    },
                    "required": ["entry_id"]
                }),
            ))
            .tool(ToolSpec::new(
                "processes",
                "Processes",
                "Lists the plugin's processes.",
                json!({ "type": "object", "properties": {} }),
            ))
            .tool(ToolSpec::new(
                "keep_server",
                "Keep server",
                "Asks to keep the running program past tack's exit (a tool may not).",
                json!({ "type": "object", "properties": {} }),
            )))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        match call.name.as_str() {
            "converse" => match call.args::<LineArgs>() {
                Ok(args) => match self.converse(&args.line) {
                    Ok(text) => ToolResult::text(text),
                    Err(e) => ToolResult::error(e),
                },
                Err(e) => ToolResult::error(e),
            },
            "stop_server" => match session::latest_state::<u64>(STATE) {
                Ok(Some(id)) => match Process::from_id(id).release() {
                    Ok(()) => ToolResult::text(format!("released process {id}")),
                    Err(e) => ToolResult::error(e.to_string()),
                },
                Ok(None) => ToolResult::error("no server was started"),
                Err(e) => ToolResult::error(e),
            },
            "keep_server" => match session::latest_state::<u64>(STATE) {
                Ok(Some(id)) => match Process::from_id(id).keep() {
                    Ok(kept) => ToolResult::text(format!("kept as group {}", kept.group)),
                    Err(e) => ToolResult::error(format!("{e:?}")),
                },
                Ok(None) => ToolResult::error("no server was started"),
                Err(e) => ToolResult::error(e),
            },
            "processes" => {
                let list: Vec<_> = process::list()
                    .into_iter()
                    .map(|p| {
                        json!({
                            "id": p.id,
                            "command": p.command,
                            "ended": p.exit.is_some(),
                        })
                    })
                    .collect();
                ToolResult::text(json!(list).to_string())
            }
            "add_tool" => match call.args::<NameArgs>() {
                Ok(args) => match tools::register(ToolSpec::new(
                    &args.name,
                    &args.name,
                    "A tool registered while running; it echoes its arguments.",
                    json!({ "type": "object", "properties": { "say": { "type": "string" } } }),
                )) {
                    Ok(()) => ToolResult::text(format!("registered {}", args.name)),
                    Err(e) => ToolResult::error(format!("{e:?}")),
                },
                Err(e) => ToolResult::error(e),
            },
            "remove_tool" => match call.args::<NameArgs>() {
                Ok(args) => ToolResult::text(format!(
                    "removed {}: {}",
                    args.name,
                    tools::unregister(&args.name)
                )),
                Err(e) => ToolResult::error(e),
            },
            "observed" => {
                let text = self
                    .log
                    .as_ref()
                    .and_then(|log| std::fs::read_to_string(log).ok())
                    .unwrap_or_default();
                let mut counts = std::collections::BTreeMap::<&str, u64>::new();
                for name in text.lines() {
                    *counts.entry(name).or_default() += 1;
                }
                ToolResult::text(json!(counts).to_string())
            }
            "list_tools" => {
                let list: Vec<_> = tools::all()
                    .into_iter()
                    .map(|t| json!([t.spec.name, t.plugin, t.active]))
                    .collect();
                ToolResult::text(json!(list).to_string())
            }
            "agent_state" => {
                let model = control::model();
                let usage = control::context_usage();
                ToolResult::text(
                    json!({
                        "model": model.map(|m| json!({
                            "provider": m.provider,
                            "id": m.id,
                            "name": m.name,
                            "context_window": m.context_window,
                            "reasoning": m.reasoning,
                            "images": m.images,
                        })),
                        "thinking_level": control::thinking_level(),
                        "usage": usage.map(|u| json!({
                            "tokens": u.tokens,
                            "context_window": u.context_window,
                            "percent": u.percent,
                        })),
                        "idle": control::is_idle(),
                        "pending": control::has_pending_messages(),
                        "system_prompt_chars": control::system_prompt().chars().count(),
                        "session_name": control::session_name(),
                    })
                    .to_string(),
                )
            }
            "label" => match call.args::<LabelArgs>() {
                Ok(args) => {
                    match control::set_label(&entry_id(&args.entry_id), args.label.as_deref()) {
                        Ok(()) => ToolResult::text(format!("labelled {}", args.entry_id)),
                        Err(e) => ToolResult::error(e),
                    }
                }
                Err(e) => ToolResult::error(e),
            },
            // A tool `add_tool` registered: any instance may be asked to run it.
            other => ToolResult::text(format!("dynamic {other}: {}", call.arguments)),
        }
    }
}

/// `first` stands for the first entry of the active branch, whose id a test cannot know.
fn entry_id(given: &str) -> String {
    if given != "first" {
        return given.to_string();
    }
    let branch: serde_json::Value = serde_json::from_str(&session::branch()).unwrap_or_default();
    branch[0]["id"].as_str().unwrap_or_default().to_string()
}

impl Observer for ProcessPlugin {
    fn on_named_event(&mut self, name: &str, data: &str) {
        let parsed: serde_json::Value = serde_json::from_str(data).unwrap_or_default();
        // What arrives is the event as JSON, tagged with its name.
        let line = if parsed["type"] == name {
            format!("{name}\n")
        } else {
            format!("mismatch {name}\n")
        };
        if let Some(log) = &self.log {
            if let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
            {
                let _ = std::io::Write::write_all(&mut file, line.as_bytes());
            }
        }
    }
}

export_plugin!(ProcessPlugin);
export_observer!(ProcessPlugin);
