//! An open picker (models, sessions, the tree, settings…) over the view: it has every key
//! while it is up.

use crossterm::event::Event;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

use super::popup::{centered, panel};
use super::{Cursor, EventResult, Pane, RenderContext};
use crate::picker::{Outcome, PickerState};
use crate::render::wrap::truncate;
use crate::state::State;
use crate::theme::Theme;

#[derive(Default)]
pub(crate) struct PickerPane;

impl Pane for PickerPane {
    fn is_open(&self, state: &State) -> bool {
        state.picker.is_some()
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, cx: &mut RenderContext) {
        if let Some(picker) = &cx.state.picker {
            render_picker(frame, area, picker, &cx.state.theme);
        }
    }

    fn handle_event(&mut self, event: &Event, state: &mut State) -> EventResult {
        let Some(picker) = &mut state.picker else {
            return EventResult::Ignored;
        };
        // A paste, like any other input, has nowhere to go behind the picker.
        let Event::Key(key) = event else {
            return EventResult::Consumed;
        };
        match picker.key(*key) {
            Outcome::Stay => {}
            Outcome::Close => state.picker = None,
            Outcome::Chosen(action) => {
                state.picker = None;
                state.actions.push(action);
            }
            Outcome::Asked(action) => state.actions.push(action),
        }
        EventResult::Consumed
    }

    fn cursor(&self, _state: &State) -> Cursor {
        Cursor::Hidden
    }
}

fn render_picker(frame: &mut Frame, area: Rect, state: &PickerState, theme: &Theme) {
    let visible = state.visible();
    let width = (area.width.saturating_sub(4)).clamp(area.width.min(20), 100);
    // Filter line, blank line, the items, two borders.
    let wanted = u16::try_from(state.picker.items.len().max(1) + 4).unwrap_or(u16::MAX);
    let height = wanted
        .min(area.height.saturating_sub(2))
        .clamp(area.height.min(6), 24);
    let rect = centered(area, width, height);
    let inner_width = usize::from(width.saturating_sub(2));
    let rows = usize::from(height.saturating_sub(4));
    let start = if rows == 0 {
        0
    } else {
        state.selected.saturating_sub(rows - 1)
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled("filter: ", theme.dim()),
            Span::raw(state.filter.clone()),
        ]),
        Line::default(),
    ];
    for (row, &index) in visible.iter().enumerate().skip(start).take(rows) {
        let item = &state.picker.items[index];
        let style = if row == state.selected {
            theme.selected()
        } else {
            theme.text()
        };
        let marker = if row == state.selected { "› " } else { "  " };
        let folded = if state.folded.contains(&index) {
            format!("  ▸ {} more", state.subtree_len(index))
        } else {
            String::new()
        };
        let label = truncate(&format!("{marker}{}{folded}", item.label), inner_width);
        let room = inner_width.saturating_sub(label.chars().count() + 2);
        let mut spans = vec![Span::styled(label, style)];
        if room > 4 && !item.detail.is_empty() {
            spans.push(Span::styled(
                format!("  {}", truncate(&item.detail, room)),
                theme.dim(),
            ));
        }
        lines.push(Line::from(spans));
    }
    if visible.is_empty() {
        lines.push(Line::from(Span::styled("nothing matches", theme.dim())));
    }
    frame.render_widget(Clear, rect);
    let title = match state.view_name() {
        Some(view) => format!("{} · {view}", state.picker.title),
        None => state.picker.title.clone(),
    };
    let block = panel(&title, inner_width, theme).title_bottom(Span::styled(
        truncate(&state.hint(), inner_width),
        theme.dim(),
    ));
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
