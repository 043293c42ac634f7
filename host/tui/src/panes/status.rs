//! The status line over the editor: the spinner while the agent or the host works, the quit
//! warning, whether the transcript is scrolled back, and plugins' status segments on the right.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{Pane, RenderContext};
use crate::render::wrap::truncate;
use crate::state::State;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// How often the spinner turns (the runner's tick), in milliseconds.
const SPINNER_TICK_MS: u64 = crate::runner::SPINNER_TICK.as_millis() as u64;

#[derive(Default)]
pub(crate) struct StatusPane;

impl Pane for StatusPane {
    fn measure(&mut self, _state: &State, _width: u16, compact: bool) -> u16 {
        u16::from(!compact)
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, cx: &mut RenderContext) {
        if !cx.compact {
            frame.render_widget(Paragraph::new(status_line(cx.state, area.width)), area);
        }
    }
}

fn status_line(state: &State, width: u16) -> Line<'static> {
    let theme = &state.theme;
    let mut left: Vec<Span> = Vec::new();
    if let Some(busy) = &state.busy {
        left.push(Span::styled(
            format!("{} {busy}", SPINNER[state.spinner % SPINNER.len()]),
            theme.running(),
        ));
    } else if state.running {
        if state.working_visible {
            let working = state.working_message.as_deref().unwrap_or("Working…");
            let indicator = match &state.working_indicator {
                None => format!("{} ", SPINNER[state.spinner % SPINNER.len()]),
                Some(indicator) if indicator.frames.is_empty() => String::new(),
                Some(indicator) => {
                    // The spinner ticks every SPINNER_TICK_MS; a plugin's frames keep their own pace.
                    let elapsed = state.spinner as u64 * SPINNER_TICK_MS;
                    let at = elapsed / u64::from(indicator.interval_ms.max(1));
                    let frame = &indicator.frames[at as usize % indicator.frames.len()];
                    format!("{frame} ")
                }
            };
            left.push(Span::styled(
                format!("{indicator}{working} (Esc to abort)"),
                theme.running(),
            ));
        }
    } else if state.quit_armed {
        left.push(Span::styled("Press Ctrl+C again to quit", theme.warn()));
    }
    if state.scroll.is_back() {
        if !left.is_empty() {
            left.push(Span::raw("  "));
        }
        left.push(Span::styled(
            "↑ scrolled back (Ctrl+End or Esc: follow the end)",
            theme.dim(),
        ));
    }
    let right: Vec<String> = state.statuses.values().cloned().collect();
    let right = right.join(" · ");
    let used: usize = left.iter().map(|s| s.width()).sum();
    let room = usize::from(width).saturating_sub(used + 1);
    if !right.is_empty() && room > 3 {
        let right = truncate(&right, room);
        let pad = usize::from(width) - used - right.chars().count();
        left.push(Span::raw(" ".repeat(pad.max(1))));
        left.push(Span::styled(right, theme.accent()));
    }
    Line::from(left)
}
