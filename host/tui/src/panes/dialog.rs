//! Plugins' dialogs (confirm, select, input), one at a time over the view with the rest
//! queued behind it. The front one has every key while it is up.

use std::time::Instant;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

use super::popup::{centered, panel};
use super::{Cursor, EventResult, Pane, RenderContext};
use crate::editor::Editor;
use tack_core::event::UiRequest;

use crate::protocol::{DialogAnswer, DialogRequest};
use crate::render::wrap::{truncate, wrap_line};
use crate::state::State;
use crate::theme::Theme;

/// A plugin's dialog on screen, or queued.
#[derive(Debug)]
pub struct OpenDialog {
    pub request: DialogRequest,
    /// When the dialog came to the front (queued dialogs wait behind the first).
    pub shown: Option<Instant>,
    /// The highlighted option (select), or button (confirm: 0 yes, 1 no).
    pub selected: usize,
    /// The answer being typed (input).
    pub input: Editor,
}

impl OpenDialog {
    pub fn new(request: DialogRequest, shown: Option<Instant>) -> OpenDialog {
        OpenDialog {
            request,
            shown,
            selected: 0,
            input: Editor::default(),
        }
    }
}

#[derive(Default)]
pub(crate) struct DialogPane {
    /// Where the answer being typed ends, drawn this frame.
    cursor: Option<Position>,
}

impl Pane for DialogPane {
    fn is_open(&self, state: &State) -> bool {
        !state.dialogs.is_empty()
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, cx: &mut RenderContext) {
        self.cursor = cx.state.dialogs.front().and_then(|dialog| {
            render_dialog(frame, area, dialog, &cx.state.theme, cx.state.dialogs.len())
        });
    }

    fn handle_event(&mut self, event: &Event, state: &mut State) -> EventResult {
        match event {
            Event::Key(key) => dialog_key(state, *key),
            Event::Paste(text) => {
                if let Some(dialog) = state.dialogs.front_mut() {
                    dialog.input.insert_str(&text.replace(['\n', '\r'], " "));
                }
            }
            _ => return EventResult::Ignored,
        }
        EventResult::Consumed
    }

    fn cursor(&self, _state: &State) -> Cursor {
        self.cursor.map_or(Cursor::Hidden, Cursor::At)
    }
}

fn dialog_key(state: &mut State, key: KeyEvent) {
    let guard = state.dialog_guard;
    let Some(dialog) = state.dialogs.front_mut() else {
        return;
    };
    let fresh = dialog.shown.is_some_and(|shown| shown.elapsed() < guard);
    let answers = matches!(key.code, KeyCode::Enter | KeyCode::Char(_));
    if fresh && answers {
        return;
    }
    let answer = match &dialog.request.kind {
        UiRequest::Confirm { .. } => match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => Some(DialogAnswer::Confirmed(true)),
            KeyCode::Char('n') | KeyCode::Char('N') => Some(DialogAnswer::Confirmed(false)),
            KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab => {
                dialog.selected = 1 - dialog.selected.min(1);
                None
            }
            KeyCode::Enter => Some(DialogAnswer::Confirmed(dialog.selected == 0)),
            KeyCode::Esc => Some(DialogAnswer::Cancelled),
            _ => None,
        },
        UiRequest::Select { options, .. } => {
            let count = options.len().max(1);
            match key.code {
                KeyCode::Up | KeyCode::Char('k') => {
                    dialog.selected = (dialog.selected + count - 1) % count;
                    None
                }
                KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => {
                    dialog.selected = (dialog.selected + 1) % count;
                    None
                }
                KeyCode::Char(c @ '1'..='9') => {
                    let index = usize::from(c as u8 - b'1');
                    (index < options.len()).then_some(DialogAnswer::Selected(index))
                }
                KeyCode::Enter if !options.is_empty() => {
                    Some(DialogAnswer::Selected(dialog.selected))
                }
                KeyCode::Esc => Some(DialogAnswer::Cancelled),
                _ => None,
            }
        }
        UiRequest::Input { .. } => match key.code {
            KeyCode::Enter => Some(DialogAnswer::Text(dialog.input.text())),
            KeyCode::Esc => Some(DialogAnswer::Cancelled),
            KeyCode::Backspace => {
                dialog.input.backspace();
                None
            }
            KeyCode::Left => {
                dialog.input.left();
                None
            }
            KeyCode::Right => {
                dialog.input.right();
                None
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                dialog.input.insert_char(c);
                None
            }
            _ => None,
        },
    };
    if let Some(answer) = answer {
        if let Some(dialog) = state.dialogs.pop_front() {
            // The plugin may have stopped waiting; then nobody needs the answer.
            let _ = dialog.request.reply.send(answer);
        }
        state.show_next_dialog();
    }
}

/// The answer as drawn: masked when it is a secret.
fn shown_input(dialog: &OpenDialog) -> std::borrow::Cow<'_, Editor> {
    if dialog.request.masked {
        std::borrow::Cow::Owned(dialog.input.masked())
    } else {
        std::borrow::Cow::Borrowed(&dialog.input)
    }
}

/// Draws the front dialog; returns where the cursor goes (an input dialog's answer).
fn render_dialog(
    frame: &mut Frame,
    area: Rect,
    dialog: &OpenDialog,
    theme: &Theme,
    open: usize,
) -> Option<Position> {
    let width = area.width.saturating_sub(4).min(72).max(area.width.min(20));
    let inner = usize::from(width.saturating_sub(4)).max(1);
    let mut lines: Vec<Line> = Vec::new();
    let title = match &dialog.request.kind {
        UiRequest::Confirm { title, message, .. } => {
            for l in message.lines() {
                lines.extend(wrap_line(Line::from(l.to_string()), inner, &[]));
            }
            lines.push(Line::default());
            let (yes, no) = if dialog.selected == 0 {
                (theme.selected(), theme.text())
            } else {
                (theme.text(), theme.selected())
            };
            lines.push(Line::from(vec![
                Span::styled(" Yes (y) ", yes),
                Span::raw("   "),
                Span::styled(" No (n) ", no),
            ]));
            title
        }
        UiRequest::Select { title, options, .. } => {
            for (i, option) in options.iter().enumerate() {
                let style = if i == dialog.selected {
                    theme.selected()
                } else {
                    theme.text()
                };
                let marker = if i == dialog.selected { "›" } else { " " };
                lines.push(Line::from(Span::styled(
                    truncate(&format!("{marker} {}. {option}", i + 1), inner),
                    style,
                )));
            }
            title
        }
        UiRequest::Input {
            title, placeholder, ..
        } => {
            let (input, _) =
                shown_input(dialog).layout(width.saturating_sub(4), theme, placeholder);
            lines.extend(input);
            title
        }
    };
    lines.push(Line::default());
    let hint = match dialog.request.kind {
        UiRequest::Confirm { .. } => "y/n or ←/→ and Enter · Esc cancels",
        UiRequest::Select { .. } => "↑/↓ or 1-9, Enter chooses · Esc cancels",
        UiRequest::Input { .. } => "Enter answers · Esc cancels",
    };
    lines.push(Line::from(Span::styled(truncate(hint, inner), theme.dim())));
    if open > 1 {
        lines.push(Line::from(Span::styled(
            format!("{} more waiting", open - 1),
            theme.dim(),
        )));
    }
    let height = lines.len() as u16 + 2;
    let rect = centered(area, width, height);
    frame.render_widget(Clear, rect);
    let block = panel(&format!("{}: {title}", dialog.request.plugin), inner, theme);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
    let UiRequest::Input { .. } = dialog.request.kind else {
        return None;
    };
    let (_, cursor) = shown_input(dialog).layout(width.saturating_sub(4), theme, "");
    Some(Position {
        x: rect.x + 1 + cursor.0,
        y: rect.y + 1 + cursor.1,
    })
}
