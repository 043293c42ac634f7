//! The conversation: the end of it, or from where the user scrolled back. Only the blocks on
//! screen (and those scrolled past) are laid out, each caching its lines.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{Pane, RenderContext};
use crate::render::blocks::{render_block, ViewOptions};
use crate::render::wrap::wrap_line;
use crate::state::State;
use crate::theme::Theme;
use crate::transcript::{Item, Rendered};

#[derive(Default)]
pub(crate) struct TranscriptPane;

impl Pane for TranscriptPane {
    fn render(&mut self, frame: &mut Frame, area: Rect, cx: &mut RenderContext) {
        cx.state.view_height = area.height;
        let lines = visible_lines(cx.state, area.width, area.height);
        frame.render_widget(Paragraph::new(lines), area);
    }
}

/// The transcript lines that fit `height` rows: the end, or from the scroll anchor down.
fn visible_lines(state: &mut State, width: u16, height: u16) -> Vec<Line<'static>> {
    if state.transcript.is_empty() {
        return welcome(&state.theme, width);
    }
    let height = usize::from(height);
    let options = state.options;
    let theme = state.theme;
    let count = state.transcript.len();
    let items = state.transcript.items_mut();
    let anchor = state.scroll.resolve(count, height, |i| {
        lay_out(&mut items[i], width, &theme, options)
    });
    let (first, skip) = match anchor {
        Some(anchor) => anchor,
        None => {
            // The end: lay out from the bottom up until the view is full.
            let mut total = 0;
            let mut first = count;
            while first > 0 && total < height {
                first -= 1;
                total += lay_out(&mut items[first], width, &theme, options);
            }
            (first, total.saturating_sub(height))
        }
    };
    let mut lines = Vec::with_capacity(height);
    for (i, item) in items.iter_mut().enumerate().skip(first) {
        if lines.len() >= height {
            break;
        }
        lay_out(item, width, &theme, options);
        let Some(cache) = &item.cache else {
            break;
        };
        let start = if i == first { skip } else { 0 };
        let room = height - lines.len();
        lines.extend(cache.lines.iter().skip(start).take(room).cloned());
    }
    lines
}

fn welcome(theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let lines = [
        "tack — a coding agent whose tools are sandboxed plugins.",
        "",
        "Type a prompt and press Enter. / lists commands, @ completes file paths,",
        "Shift+Enter (or Ctrl+J, or \\ then Enter) adds a line. While the agent works,",
        "Enter steers it, Alt+Enter queues a follow-up, Esc aborts.",
        "Ctrl+O expands tool output, Ctrl+T shows thinking, PageUp/PageDown scroll.",
        "Ctrl+C twice (or Ctrl+D, or /quit) quits.",
    ];
    lines
        .iter()
        .flat_map(|l| {
            wrap_line(
                Line::from(Span::styled(l.to_string(), theme.dim())),
                usize::from(width),
                &[],
            )
        })
        .collect()
}

/// Lays out a block at `width` unless its cached lines are for that width and those options;
/// returns its height.
fn lay_out(item: &mut Item, width: u16, theme: &Theme, options: ViewOptions) -> usize {
    let fresh = matches!(&item.cache, Some(c) if c.width == width && c.options == options.bits());
    if !fresh {
        item.cache = Some(Rendered {
            width,
            options: options.bits(),
            lines: render_block(&item.block, usize::from(width), theme, options),
        });
    }
    item.cache.as_ref().map_or(0, |c| c.lines.len())
}
