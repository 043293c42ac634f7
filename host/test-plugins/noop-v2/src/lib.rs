//! `noop-v1` as a 0.2.0 plugin: the same hook, and `message_end` observed by name through
//! `tack:plugin/events` instead of 0.1.0's event kinds. `benches/plugins.rs` compares the two
//! (issue 35: hooks and events within 1.5× of 0.1.0).

use tack_sdk::{
    events, export_observer, export_plugin, HookKind, InitContext, Observer, Plugin, Registration,
    ToolCall, ToolDecision,
};

#[derive(Default)]
struct Noop;

impl Plugin for Noop {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        events::subscribe(&["message_end"])?;
        Ok(Registration::new().hook(HookKind::BeforeToolCall))
    }

    fn before_tool_call(&mut self, _call: &ToolCall) -> ToolDecision {
        ToolDecision::Allow
    }
}

impl Observer for Noop {
    fn on_named_event(&mut self, _name: &str, _data: &str) {}
}

export_plugin!(Noop);
export_observer!(Noop);
