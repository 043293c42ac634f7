//! The steering and follow-up messages waiting for the running agent, a few of them.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{Pane, RenderContext};
use crate::render::wrap::truncate;
use crate::state::State;

#[derive(Default)]
pub(crate) struct QueuePane {
    lines: Vec<Line<'static>>,
}

impl Pane for QueuePane {
    fn measure(&mut self, state: &State, width: u16, _compact: bool) -> u16 {
        self.lines = queue_lines(state, width);
        self.lines.len() as u16
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, _cx: &mut RenderContext) {
        frame.render_widget(Paragraph::new(std::mem::take(&mut self.lines)), area);
    }
}

fn queue_lines(state: &State, width: u16) -> Vec<Line<'static>> {
    let theme = &state.theme;
    let (steering, follow_up) = &state.queue;
    let items = steering
        .iter()
        .map(|t| ("steer", t))
        .chain(follow_up.iter().map(|t| ("follow-up", t)));
    let mut out: Vec<Line> = items
        .map(|(kind, text)| {
            let text = text.replace('\n', " ");
            Line::from(vec![
                Span::styled(format!("  ⤷ {kind}: "), theme.accent()),
                Span::styled(
                    truncate(&text, usize::from(width).saturating_sub(kind.len() + 6)),
                    theme.dim(),
                ),
            ])
        })
        .collect();
    if out.len() > 4 {
        let more = out.len() - 3;
        out.truncate(3);
        out.push(Line::from(Span::styled(
            format!("  … {more} more queued"),
            theme.dim(),
        )));
    }
    out
}
