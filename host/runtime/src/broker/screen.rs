//! The host side of `tack:plugin/screen` (0.2.0): widgets placed above or below the editor,
//! under the same budget and neutralisation as 0.1.0's `ui.set-widget`.

use crate::bindings::v0_2_0::tack::plugin0_2_0::screen;
use crate::services::WidgetPlacement;
use crate::state::PluginState;

impl screen::Host for PluginState {
    async fn set_widget(
        &mut self,
        key: String,
        lines: Vec<String>,
        placement: screen::WidgetPlacement,
    ) -> wasmtime::Result<()> {
        let placement = match placement {
            screen::WidgetPlacement::AboveEditor => WidgetPlacement::AboveEditor,
            screen::WidgetPlacement::BelowEditor => WidgetPlacement::BelowEditor,
        };
        self.show_widget(&key, &lines, placement)
    }
}
