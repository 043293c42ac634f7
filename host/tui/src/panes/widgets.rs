//! Plugins' widget lines, above the editor or below it.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{Pane, RenderContext};
use crate::render::styled::styled_line;
use crate::state::State;

/// Lines one widget shows at most.
const WIDGET_MAX_LINES: usize = 8;
/// Lines all the widgets on one side of the editor show at most.
const SIDE_MAX_LINES: usize = 12;

pub(crate) struct WidgetsPane {
    below: bool,
    lines: Vec<Line<'static>>,
}

impl WidgetsPane {
    pub fn above() -> WidgetsPane {
        WidgetsPane {
            below: false,
            lines: Vec::new(),
        }
    }

    pub fn below() -> WidgetsPane {
        WidgetsPane {
            below: true,
            lines: Vec::new(),
        }
    }
}

impl Pane for WidgetsPane {
    fn measure(&mut self, state: &State, width: u16, _compact: bool) -> u16 {
        self.lines = widget_lines(state, self.below, width);
        self.lines.len() as u16
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, _cx: &mut RenderContext) {
        frame.render_widget(Paragraph::new(std::mem::take(&mut self.lines)), area);
    }
}

fn widget_lines(state: &State, below: bool, width: u16) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for widget in state.widgets.values().filter(|w| w.below == below) {
        for line in widget.lines.iter().take(WIDGET_MAX_LINES) {
            out.push(styled_line(line, usize::from(width), Style::default()));
        }
    }
    out.truncate(SIDE_MAX_LINES);
    out
}
