//! A plugin's header over the conversation (Pi's `setHeader`): the newest plugin's lines, each
//! cut to the width, gone on a screen too small to spare them.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{Pane, RenderContext};
use crate::render::styled::styled_line;
use crate::state::State;

/// Lines a header shows at most (the plugin runtime refuses more; this holds for any caller).
const HEADER_MAX_LINES: usize = 12;

#[derive(Default)]
pub(crate) struct HeaderPane {
    lines: Vec<Line<'static>>,
}

impl Pane for HeaderPane {
    fn measure(&mut self, state: &State, width: u16, compact: bool) -> u16 {
        self.lines = match state.headers.last() {
            Some((_, lines)) if !compact => lines
                .iter()
                .take(HEADER_MAX_LINES)
                .map(|line| styled_line(line, usize::from(width), Style::default()))
                .collect(),
            _ => Vec::new(),
        };
        self.lines.len() as u16
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, _cx: &mut RenderContext) {
        frame.render_widget(Paragraph::new(std::mem::take(&mut self.lines)), area);
    }
}
