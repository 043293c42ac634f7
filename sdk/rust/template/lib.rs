//! {{name}}: a tack plugin. Add tools, commands and hooks to the registration and implement the
//! matching `Plugin` methods; every method you leave out has a safe default.

use tack_sdk::{export_plugin, log, InitContext, Plugin, Registration};

#[derive(Default)]
struct MyPlugin;

impl Plugin for MyPlugin {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        log::info("{{name}} ready");
        Ok(Registration::new().command("{{command}}", "Say hello from {{name}}"))
    }

    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        let who = if args.trim().is_empty() { "world" } else { args.trim() };
        match name {
            "{{command}}" => Ok(Some(format!("Hello, {who}, from {{name}}!"))),
            _ => Err(format!("unknown command `/{name}`")),
        }
    }
}

export_plugin!(MyPlugin);
