//! Pi's `examples/extensions/dynamic-tools.ts` (pi-coding-agent 0.73.1) as a tack plugin: an
//! `echo_session` tool registered when the session starts, and `/add-echo-tool <tool_name>`,
//! which registers another echo tool while tack runs. Each echoes `message` with its prefix.
//!
//! Pi's `pi.registerTool` after load is `tack:plugin/tools`' `register`; the model sees a new
//! tool from its next turn on. Pi's `promptSnippet` and `promptGuidelines` (lines a tool adds to
//! the system prompt) have no tack counterpart yet, so the tool's description carries its use.

use std::collections::BTreeSet;

use serde::Deserialize;
use tack_sdk::serde_json::json;
use tack_sdk::{
    export_plugin, tools, ui, EventKind, InitContext, Level, Plugin, Registration, ToolCall,
    ToolResult, ToolSpec,
};

#[derive(Default)]
struct DynamicTools {
    registered: BTreeSet<String>,
}

#[derive(Deserialize)]
struct EchoArgs {
    message: String,
}

/// Lower case letters, digits and underscores, as Pi's example accepts.
fn normalize_tool_name(input: &str) -> Option<String> {
    let name = input.trim().to_lowercase();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    valid.then_some(name)
}

/// The prefix a tool echoes with: `[session] ` for `echo_session`, `[name] ` for the others.
fn prefix_of(name: &str) -> String {
    if name == "echo_session" {
        "[session] ".to_string()
    } else {
        format!("[{name}] ")
    }
}

impl DynamicTools {
    /// Registers an echo tool; `false` when this plugin already has it.
    fn register_echo_tool(&mut self, name: &str, label: &str) -> Result<bool, String> {
        if self.registered.contains(name) {
            return Ok(false);
        }
        let prefix = prefix_of(name);
        tools::register(ToolSpec::new(
            name,
            label,
            format!("Echo a message with prefix: {prefix}"),
            json!({
                "type": "object",
                "properties": {
                    "message": { "type": "string", "description": "Message to echo" }
                },
                "required": ["message"]
            }),
        ))
        .map_err(|e| e.message().to_string())?;
        self.registered.insert(name.to_string());
        Ok(true)
    }
}

impl Plugin for DynamicTools {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        Ok(Registration::new().event(EventKind::SessionStart).command(
            "add-echo-tool",
            "Register a new echo tool dynamically: /add-echo-tool <tool_name>",
        ))
    }

    fn on_event(&mut self, kind: EventKind, _data: &str) {
        if kind != EventKind::SessionStart {
            return;
        }
        match self.register_echo_tool("echo_session", "Echo Session") {
            Ok(_) => ui::notify(Level::Info, "Registered dynamic tool: echo_session"),
            Err(e) => ui::notify(Level::Error, &format!("Cannot register echo_session: {e}")),
        }
    }

    fn run_command(&mut self, _name: &str, args: &str) -> Result<Option<String>, String> {
        let Some(name) = normalize_tool_name(args) else {
            ui::notify(
                Level::Warn,
                "Usage: /add-echo-tool <tool_name> (lowercase, numbers, underscores)",
            );
            return Ok(None);
        };
        if !self.register_echo_tool(&name, &format!("Echo {name}"))? {
            ui::notify(Level::Warn, &format!("Tool already registered: {name}"));
            return Ok(None);
        }
        ui::notify(Level::Info, &format!("Registered dynamic tool: {name}"));
        Ok(None)
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        match call.args::<EchoArgs>() {
            Ok(args) => {
                let prefix = prefix_of(&call.name);
                ToolResult::text(format!("{prefix}{}", args.message))
                    .with_details(json!({ "tool": call.name, "prefix": prefix }))
            }
            Err(e) => ToolResult::error(e),
        }
    }
}

export_plugin!(DynamicTools);
