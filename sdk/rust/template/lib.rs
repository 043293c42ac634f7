//! {{name}}: a tack plugin. Add tools, commands and hooks to the registration and implement the
//! matching `Plugin` methods; every method you leave out has a safe default.

use serde::Deserialize;
use serde_json::json;
use tack_sdk::{
    export_plugin, log, InitContext, Plugin, Registration, ToolCall, ToolResult, ToolSpec,
};

#[derive(Default)]
struct MyPlugin;

#[derive(Deserialize)]
struct GreetArgs {
    name: String,
}

fn greeting(who: &str) -> String {
    let who = if who.trim().is_empty() { "world" } else { who.trim() };
    format!("Hello, {who}, from {{name}}!")
}

impl Plugin for MyPlugin {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        log::info("{{name}} ready");
        Ok(Registration::new()
            .tool(ToolSpec::new(
                "{{command}}_greet",
                "Greet",
                "Greets someone by name.",
                json!({
                    "type": "object",
                    "properties": { "name": { "type": "string", "description": "Who to greet." } },
                    "required": ["name"],
                    "additionalProperties": false
                }),
            ))
            .command("{{command}}", "Say hello from {{name}}"))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        if call.name != "{{command}}_greet" {
            return ToolResult::error(format!("unknown tool `{}`", call.name));
        }
        match call.args::<GreetArgs>() {
            Ok(args) => ToolResult::text(greeting(&args.name)),
            Err(e) => ToolResult::error(e),
        }
    }

    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        match name {
            "{{command}}" => Ok(Some(greeting(args))),
            _ => Err(format!("unknown command `/{name}`")),
        }
    }
}

export_plugin!(MyPlugin);
