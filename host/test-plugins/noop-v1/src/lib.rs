//! A 0.1.0 plugin whose before-tool-call hook allows everything and whose `message_end` handler
//! does nothing: the baseline of `benches/plugins.rs`'s API-version comparison (its twin is
//! `noop-v2`).

use tack_sdk::{
    export_plugin, EventKind, HookKind, InitContext, Plugin, Registration, ToolCall, ToolDecision,
};

#[derive(Default)]
struct Noop;

impl Plugin for Noop {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        Ok(Registration::new()
            .hook(HookKind::BeforeToolCall)
            .event(EventKind::MessageEnd))
    }

    fn before_tool_call(&mut self, _call: &ToolCall) -> ToolDecision {
        ToolDecision::Allow
    }

    fn on_event(&mut self, _kind: EventKind, _data: &str) {}
}

export_plugin!(Noop);
