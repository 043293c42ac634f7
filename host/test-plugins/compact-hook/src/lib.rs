//! A plugin whose before-compact hook does what its configuration says, so the host's handling
//! of the hook (and its chaining over several plugins) can be tested with real components.
//!
//! Configuration:
//! ```json
//! {"do": "proceed" | "cancel" | "summary" | "trap", "tag": "A"}
//! ```
//! `summary` answers with a text that names the tag and describes the request it received:
//! `[A] 12 messages; previous: <first line of the previous summary or none>; focus: <focus or
//! none>; tokens before: 3456`.

use serde::Deserialize;
use tack_sdk::{
    export_plugin, CompactDecision, CompactRequest, HookKind, InitContext, Plugin, Registration,
};

#[derive(Default)]
struct CompactHook {
    config: Config,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(rename = "do")]
    action: Action,
    #[serde(default)]
    tag: Option<String>,
}

#[derive(Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Action {
    #[default]
    Proceed,
    Cancel,
    Summary,
    Trap,
}

impl Plugin for CompactHook {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        self.config = serde_json::from_str(&ctx.config).map_err(|e| e.to_string())?;
        Ok(Registration::new().hook(HookKind::BeforeCompact))
    }

    fn before_compact(&mut self, request: CompactRequest) -> CompactDecision {
        match self.config.action {
            Action::Proceed => CompactDecision::Proceed,
            Action::Cancel => CompactDecision::Cancel,
            Action::Trap => panic!("tack-test-compact-hook: deliberate trap in before-compact"),
            Action::Summary => {
                let count = serde_json::from_str::<Vec<serde_json::Value>>(&request.messages)
                    .map_or(0, |messages| messages.len());
                let previous = request
                    .previous_summary
                    .as_deref()
                    .and_then(|s| s.lines().next())
                    .unwrap_or("none")
                    .to_string();
                CompactDecision::Summary(format!(
                    "[{}] {count} messages; previous: {previous}; focus: {}; tokens before: {}",
                    self.config.tag.as_deref().unwrap_or("compact-hook"),
                    request.focus.as_deref().unwrap_or("none"),
                    request.tokens_before
                ))
            }
        }
    }
}

export_plugin!(CompactHook);
