//! Pi's `examples/extensions/input-transform.ts` (pi-coding-agent 0.73.1) as a tack plugin:
//! `?quick <question>` becomes a request for a short answer, and `ping` and `time` are answered
//! by the plugin without the model.
//!
//! Pi's `input` event is the 0.1.0 `input` hook, with the same three outcomes (continue,
//! transform, handled). Pi's example lets messages from extensions through untouched
//! (`event.source === "extension"`); tack's hook sees only what the user typed, never a
//! plugin's message, so it needs no such check. A 0.1.0 plugin: it runs on every tack.

use tack_sdk::{
    export_plugin, ui, HookKind, InitContext, InputAction, Level, Plugin, Registration,
};

#[derive(Default)]
struct InputTransform;

/// The time in UTC: a plugin has no time zone to show the local time in, as Pi's
/// `toLocaleString` does.
fn utc_now() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%d %H:%M:%S UTC")
        .to_string()
}

impl Plugin for InputTransform {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        Ok(Registration::new().hook(HookKind::Input))
    }

    fn on_input(&mut self, text: &str) -> InputAction {
        if let Some(query) = text.strip_prefix("?quick ") {
            let query = query.trim();
            if query.is_empty() {
                ui::notify(Level::Warn, "Usage: ?quick <question>");
                return InputAction::Handled;
            }
            return InputAction::Transform(format!("Respond briefly in 1-2 sentences: {query}"));
        }
        match text.to_lowercase().as_str() {
            "ping" => {
                ui::notify(Level::Info, "pong");
                InputAction::Handled
            }
            "time" => {
                ui::notify(Level::Info, &utc_now());
                InputAction::Handled
            }
            _ => InputAction::Continue,
        }
    }
}

export_plugin!(InputTransform);
