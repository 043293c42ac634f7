//! The completion popup at the foot of the transcript, over it: commands after `/`, files after
//! `@`. It takes the keys that move through and accept it; the rest go on to the editor.

use crossterm::event::{Event, KeyCode};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block as Panel, BorderType, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::{EventResult, Pane, Region, RenderContext};
use crate::complete::Kind;
use crate::render::wrap::truncate;
use crate::state::State;

/// Candidates shown at once.
const VISIBLE: usize = 8;
/// The widest the label column gets.
const LABEL_MAX_WIDTH: usize = 30;

#[derive(Default)]
pub(crate) struct CompletionPane;

impl Pane for CompletionPane {
    fn is_open(&self, state: &State) -> bool {
        state.completion.is_some()
    }

    fn render(&mut self, frame: &mut Frame, _area: Rect, cx: &mut RenderContext) {
        let state = &*cx.state;
        let Some(completion) = &state.completion else {
            return;
        };
        let above = cx.areas.get(Region::Transcript);
        let start = completion.selected.saturating_sub(VISIBLE - 1);
        let items: Vec<Line> = completion
            .items
            .iter()
            .enumerate()
            .skip(start)
            .take(VISIBLE)
            .map(|(i, item)| {
                let label_width = completion
                    .items
                    .iter()
                    .map(|i| i.label.chars().count())
                    .max()
                    .unwrap_or(0)
                    .min(LABEL_MAX_WIDTH);
                let style = if i == completion.selected {
                    state.theme.selected()
                } else {
                    state.theme.text()
                };
                let room = usize::from(above.width).saturating_sub(label_width + 4);
                Line::from(vec![
                    Span::styled(format!(" {:<label_width$} ", item.label), style),
                    Span::styled(
                        format!(" {}", truncate(&item.detail, room)),
                        state.theme.dim(),
                    ),
                ])
            })
            .collect();
        let height = (items.len() as u16 + 2).min(above.height);
        let area = Rect {
            x: above.x,
            y: above.y + above.height.saturating_sub(height),
            width: above.width,
            height,
        };
        frame.render_widget(Clear, area);
        let block = Panel::new()
            .borders(Borders::ALL)
            .border_type(BorderType::Rounded)
            .border_style(state.theme.border());
        frame.render_widget(Paragraph::new(items).block(block), area);
    }

    fn handle_event(&mut self, event: &Event, state: &mut State) -> EventResult {
        let Event::Key(key) = event else {
            return EventResult::Ignored;
        };
        let Some(completion) = &mut state.completion else {
            return EventResult::Ignored;
        };
        let count = completion.items.len();
        match key.code {
            KeyCode::Up => completion.selected = (completion.selected + count - 1) % count,
            KeyCode::Down => completion.selected = (completion.selected + 1) % count,
            KeyCode::Esc => {
                state.completion = None;
                state.completion_dismissed = true;
            }
            KeyCode::Tab => state.accept_completion(),
            KeyCode::Enter if key.modifiers.is_empty() => {
                let kind = completion.kind;
                state.accept_completion();
                if kind == Kind::Command {
                    state.submit(false);
                }
            }
            _ => return EventResult::Ignored,
        }
        EventResult::Consumed
    }
}
