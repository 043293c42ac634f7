//! Pi's `examples/extensions/trigger-compact.ts` (pi-coding-agent 0.73.1) as a tack plugin:
//! compacts the conversation when a turn takes the context past a threshold (100,000 tokens, or
//! the `threshold` of the plugin's configuration), and on `/trigger-compact [instructions]`.
//!
//! Pi's `ctx.getContextUsage` and `ctx.compact` are `tack:plugin/control`'s `context-usage` and
//! `compact`; Pi's `onComplete` / `onError` callbacks are the `compaction_end` event
//! (`tack:plugin/events`), which says whether it worked.

use serde::Deserialize;
use tack_sdk::{
    control, events, export_observer, export_plugin, ui, InitContext, Level, Observer, Plugin,
    Registration,
};

const DEFAULT_THRESHOLD_TOKENS: u32 = 100_000;

#[derive(Default)]
struct TriggerCompact {
    threshold: u32,
    /// The context's size at the previous turn's end: the threshold counts when it is crossed.
    previous_tokens: Option<u32>,
}

#[derive(Deserialize, Default)]
struct Config {
    threshold: Option<u32>,
}

impl TriggerCompact {
    fn trigger(&self, instructions: Option<&str>) -> Result<(), String> {
        control::compact(instructions)?;
        ui::notify(Level::Info, "Compaction started");
        Ok(())
    }
}

impl Plugin for TriggerCompact {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = if ctx.config.trim().is_empty() {
            Config::default()
        } else {
            serde_json::from_str(&ctx.config).map_err(|e| format!("configuration: {e}"))?
        };
        self.threshold = config.threshold.unwrap_or(DEFAULT_THRESHOLD_TOKENS);
        events::subscribe(&["turn_end", "compaction_end"])?;
        Ok(Registration::new().command("trigger-compact", "Trigger compaction immediately"))
    }

    fn run_command(&mut self, _name: &str, args: &str) -> Result<Option<String>, String> {
        let instructions = Some(args.trim()).filter(|a| !a.is_empty());
        self.trigger(instructions)?;
        Ok(None)
    }
}

impl Observer for TriggerCompact {
    fn on_named_event(&mut self, name: &str, data: &str) {
        match name {
            "turn_end" => {
                let Some(usage) = control::context_usage() else {
                    return;
                };
                let crossed = self
                    .previous_tokens
                    .is_some_and(|previous| previous <= self.threshold);
                self.previous_tokens = Some(usage.tokens);
                if crossed && usage.tokens > self.threshold {
                    if let Err(e) = self.trigger(None) {
                        ui::notify(Level::Error, &format!("Compaction failed: {e}"));
                    }
                }
            }
            "compaction_end" => {
                let event: serde_json::Value = serde_json::from_str(data).unwrap_or_default();
                match event["error_message"].as_str() {
                    Some(error) => ui::notify(Level::Error, &format!("Compaction failed: {error}")),
                    None if event["aborted"] == true => {}
                    None => ui::notify(Level::Info, "Compaction completed"),
                }
            }
            _ => {}
        }
    }
}

export_plugin!(TriggerCompact);
export_observer!(TriggerCompact);
