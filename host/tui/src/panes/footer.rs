//! The footer: the model and thinking level, where the session works, its name, the context
//! used and the tokens and cost so far.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::{Pane, RenderContext};
use crate::render::count::human;
use crate::render::wrap::wrap_line;
use crate::state::State;

/// Rows the footer wraps to at most.
const FOOTER_MAX_LINES: usize = 2;

#[derive(Default)]
pub(crate) struct FooterPane {
    lines: Vec<Line<'static>>,
}

impl Pane for FooterPane {
    fn measure(&mut self, state: &State, width: u16, compact: bool) -> u16 {
        self.lines = if compact {
            Vec::new()
        } else {
            footer_lines(state, width)
        };
        self.lines.len() as u16
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, _cx: &mut RenderContext) {
        frame.render_widget(Paragraph::new(std::mem::take(&mut self.lines)), area);
    }
}

/// A plugin's footer: its left part, then its right part against the right edge, at least one
/// space apart; cut to the width when they do not fit.
fn plugin_footer(state: &State, left: &str, right: &str, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width);
    let (lw, rw) = (left.width(), right.width());
    let pad = width.saturating_sub(lw + rw).max(1);
    let mut text = format!("{left}{}{right}", " ".repeat(pad));
    if text.width() > width {
        let mut cut = String::new();
        for c in text.chars() {
            if cut.width() + c.width().unwrap_or(0) > width {
                break;
            }
            cut.push(c);
        }
        text = cut;
    }
    vec![Line::from(Span::styled(text, state.theme.footer()))]
}

fn footer_lines(state: &State, width: u16) -> Vec<Line<'static>> {
    if let Some((_, (left, right))) = state.plugin_footers.last() {
        return plugin_footer(state, left, right, width);
    }
    let f = &state.footer;
    let mut parts: Vec<String> = Vec::new();
    if !f.model.is_empty() {
        match &f.thinking {
            Some(level) if level != "off" => parts.push(format!("{} ({level})", f.model)),
            _ => parts.push(f.model.clone()),
        }
    }
    if !f.cwd.is_empty() {
        parts.push(f.cwd.clone());
    }
    if let Some(branch) = &f.git_branch {
        parts.push(format!("⎇ {branch}"));
    }
    if let Some(name) = &f.session_name {
        parts.push(format!("“{name}”"));
    }
    let u = &state.usage;
    if f.context_window > 0 {
        let pct = u.context_tokens as f64 * 100.0 / f64::from(f.context_window);
        parts.push(format!(
            "ctx {pct:.0}% of {}",
            human(u64::from(f.context_window))
        ));
    }
    parts.push(format!("↑{} ↓{}", human(u.input), human(u.output)));
    if u.cost > 0.0 {
        parts.push(format!("${:.3}", u.cost));
    }
    let text = parts.join(" · ");
    wrap_line(
        Line::from(Span::styled(text, state.theme.footer())),
        usize::from(width),
        &[],
    )
    .into_iter()
    .take(FOOTER_MAX_LINES)
    .collect()
}
