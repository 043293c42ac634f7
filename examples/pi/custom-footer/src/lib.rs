//! Pi's `examples/extensions/custom-footer.ts` (pi-coding-agent 0.73.1) as a tack plugin:
//! `/footer` swaps tack's footer for one showing the input and output tokens and the cost of the
//! session's branch on the left, and the model and git branch on the right; `/footer` again
//! gives tack's back.
//!
//! Pi's `ctx.ui.setFooter(factory)` draws a component on every render; here the plugin hands
//! tack the left and right parts (`screen.set-footer`), tack pads them to the terminal's width,
//! and the plugin sends new parts when they change: at each `turn_end` and `agent_end` (the
//! 0.2.0 `events`). Pi's `footerData.getGitBranch()` is `screen.git-branch`;
//! `ctx.sessionManager.getBranch()` is `session.branch`; `ctx.model` is `control.model`;
//! `ctx.ui.notify` is `ui.notify`. Pi's `theme.fg("dim", …)` is tack's footer style, which is
//! dim already.

use tack_sdk::screen::{self, Footer};
use tack_sdk::{
    control, events, export_observer, export_plugin, session, ui, InitContext, Level, Observer,
    Plugin, Registration,
};

#[derive(Default)]
struct CustomFooter {
    enabled: bool,
}

/// Pi's `fmt`: `950`, `1.2k`.
fn fmt(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else {
        format!("{:.1}k", n as f64 / 1000.0)
    }
}

impl CustomFooter {
    fn footer() -> Footer {
        let (mut input, mut output, mut cost) = (0u64, 0u64, 0f64);
        for entry in session::entries().unwrap_or_default() {
            let message = &entry["message"];
            if entry["type"] == "message" && message["role"] == "assistant" {
                let usage = &message["usage"];
                input += usage["input"].as_u64().unwrap_or(0);
                output += usage["output"].as_u64().unwrap_or(0);
                cost += usage["cost"]["total"]
                    .as_f64()
                    .or_else(|| usage["cost"].as_f64())
                    .unwrap_or(0.0);
            }
        }
        let branch = screen::git_branch()
            .map(|b| format!(" ({b})"))
            .unwrap_or_default();
        let model = control::model().map_or_else(|| "no-model".to_string(), |m| m.id);
        Footer {
            left: format!("↑{} ↓{} ${cost:.3}", fmt(input), fmt(output)),
            right: format!("{model}{branch}"),
        }
    }
}

impl Plugin for CustomFooter {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        events::subscribe(&["turn_end", "agent_end"])?;
        Ok(Registration::new().command("footer", "Toggle custom footer"))
    }

    fn run_command(&mut self, _name: &str, _args: &str) -> Result<Option<String>, String> {
        self.enabled = !self.enabled;
        if self.enabled {
            screen::set_footer(Some(&Self::footer()));
            ui::notify(Level::Info, "Custom footer enabled");
        } else {
            screen::set_footer(None);
            ui::notify(Level::Info, "Default footer restored");
        }
        Ok(None)
    }
}

impl Observer for CustomFooter {
    fn on_named_event(&mut self, _name: &str, _data: &str) {
        if self.enabled {
            screen::set_footer(Some(&Self::footer()));
        }
    }
}

export_plugin!(CustomFooter);
export_observer!(CustomFooter);
