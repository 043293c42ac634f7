//! Pi's `examples/extensions/widget-placement.ts` (pi-coding-agent 0.73.1) as a tack plugin: when
//! the session starts, one widget above the editor and one below it.
//!
//! Pi's `ctx.ui.setWidget(key, lines, { placement })` is `tack:plugin/screen`'s `set-widget`.
//! Pi skips it without a UI (`ctx.hasUI`); in tack, print and JSON modes drop widgets, so the
//! plugin need not ask.

use tack_sdk::screen::{self, WidgetPlacement};
use tack_sdk::{export_plugin, EventKind, InitContext, Plugin, Registration};

#[derive(Default)]
struct WidgetPlacementExample;

impl Plugin for WidgetPlacementExample {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        Ok(Registration::new().event(EventKind::SessionStart))
    }

    fn on_event(&mut self, kind: EventKind, _data: &str) {
        if kind != EventKind::SessionStart {
            return;
        }
        screen::set_widget(
            "widget-above",
            &["Above editor widget".to_string()],
            WidgetPlacement::AboveEditor,
        );
        screen::set_widget(
            "widget-below",
            &["Below editor widget".to_string()],
            WidgetPlacement::BelowEditor,
        );
    }
}

export_plugin!(WidgetPlacementExample);
