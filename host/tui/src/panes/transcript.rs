//! The conversation: the end of it, or from where the user scrolled back. Only the blocks on
//! screen (and those scrolled past) are laid out, each caching its lines; the lines on screen
//! are kept too, so a frame in which only another pane changed (a key typed in the editor)
//! copies them instead of walking the blocks again.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{Pane, RenderContext};
use crate::protocol::{Action, RenderKey, RenderQuery};
use crate::render::blocks::{render_block, ViewOptions, MESSAGE_INDENT, TOOL_INDENT};
use crate::render::wrap::wrap_line;
use crate::state::State;
use crate::theme::Theme;
use crate::transcript::{Item, Rendered};

#[derive(Default)]
pub(crate) struct TranscriptPane {
    shown: Option<Shown>,
    /// Frames whose lines were gathered again rather than reused.
    #[cfg(test)]
    pub(crate) gathered: usize,
}

/// The lines on screen and what they were drawn from.
struct Shown {
    key: ShownKey,
    lines: Vec<Line<'static>>,
}

#[derive(PartialEq, Eq)]
struct ShownKey {
    width: u16,
    height: u16,
    revision: u64,
    options: u8,
    anchor: Option<(usize, usize)>,
}

impl ShownKey {
    fn of(state: &State, width: u16, height: u16) -> ShownKey {
        ShownKey {
            width,
            height,
            revision: state.transcript.revision(),
            options: state.options.bits(),
            anchor: state.scroll.anchor,
        }
    }
}

impl Pane for TranscriptPane {
    fn render(&mut self, frame: &mut Frame, area: Rect, cx: &mut RenderContext) {
        cx.state.view_height = area.height;
        let lines = self.lines(cx.state, area.width, area.height);
        let lines: Vec<Line> = lines.iter().map(borrowed).collect();
        frame.render_widget(Paragraph::new(lines), area);
    }
}

/// The line with its text borrowed: the kept lines are drawn without copying their text.
fn borrowed<'a>(line: &'a Line<'static>) -> Line<'a> {
    Line {
        style: line.style,
        alignment: line.alignment,
        spans: line
            .spans
            .iter()
            .map(|span| Span::styled(span.content.as_ref(), span.style))
            .collect(),
    }
}

impl TranscriptPane {
    fn lines(&mut self, state: &mut State, width: u16, height: u16) -> &[Line<'static>] {
        let settled = state.scroll.pending == 0 && !state.scroll.to_top;
        let fresh = settled
            && matches!(&self.shown, Some(shown) if shown.key == ShownKey::of(state, width, height));
        if !fresh {
            let lines = visible_lines(state, width, height);
            // Scrolling resolved above, so the key holds the anchor the lines start at.
            let key = ShownKey::of(state, width, height);
            #[cfg(test)]
            {
                self.gathered += 1;
            }
            self.shown = Some(Shown { key, lines });
        }
        self.shown.as_ref().map_or(&[], |shown| &shown.lines)
    }
}

/// The transcript lines that fit `height` rows: the end, or from the scroll anchor down.
fn visible_lines(state: &mut State, width: u16, height: u16) -> Vec<Line<'static>> {
    if state.transcript.is_empty() {
        return welcome(&state.theme, width);
    }
    let height = usize::from(height);
    let options = state.options.clone();
    let theme = state.theme;
    let count = state.transcript.len();
    let mut layout = Layout {
        width,
        theme: &theme,
        options: &options,
        generation: state.transcript.generation(),
        asks: &mut state.actions,
    };
    let items = state.transcript.items_mut();
    let anchor = state
        .scroll
        .resolve(count, height, |i| layout.lay_out(&mut items[i], i));
    let (first, skip) = match anchor {
        Some(anchor) => anchor,
        None => {
            // The end: lay out from the bottom up until the view is full.
            let mut total = 0;
            let mut first = count;
            while first > 0 && total < height {
                first -= 1;
                total += layout.lay_out(&mut items[first], first);
            }
            (first, total.saturating_sub(height))
        }
    };
    let mut lines = Vec::with_capacity(height);
    for (i, item) in items.iter_mut().enumerate().skip(first) {
        if lines.len() >= height {
            break;
        }
        layout.lay_out(item, i);
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

/// What blocks are laid out with, and where the questions to their plugins go.
struct Layout<'a> {
    width: u16,
    theme: &'a Theme,
    options: &'a ViewOptions,
    generation: u64,
    asks: &'a mut Vec<Action>,
}

impl Layout<'_> {
    /// Lays out block `index` unless its cached lines are for this width and these options;
    /// returns its height. A block a plugin may draw asks it, once per change, width and
    /// expansion, and shows tack's lines (or the plugin's last) until it answers.
    fn lay_out(&mut self, item: &mut Item, index: usize) -> usize {
        let (width, bits) = (self.width, self.options.bits());
        let fresh = matches!(&item.cache, Some(c) if c.width == width && c.options == bits);
        if !fresh {
            self.ask(item, index);
            item.cache = Some(Rendered {
                width,
                options: bits,
                lines: render_block(
                    &item.block,
                    item.drawn.drawing.as_ref(),
                    usize::from(width),
                    self.theme,
                    self.options,
                ),
            });
        }
        item.cache.as_ref().map_or(0, |c| c.lines.len())
    }

    fn ask(&mut self, item: &mut Item, index: usize) {
        let expanded = self.options.expand_tools;
        let asked = (item.drawn.version, self.width, expanded);
        if item.drawn.asked == Some(asked) {
            return;
        }
        let Some(query) = item.render_query() else {
            return;
        };
        item.drawn.asked = Some(asked);
        let indent = match query {
            RenderQuery::Tool { .. } => TOOL_INDENT,
            RenderQuery::Message { .. } => MESSAGE_INDENT,
        };
        let columns = usize::from(self.width).saturating_sub(indent).max(8);
        self.asks.push(Action::Render {
            key: RenderKey {
                generation: self.generation,
                index,
                version: item.drawn.version,
                width: self.width,
                expanded,
            },
            columns: u16::try_from(columns).unwrap_or(u16::MAX),
            query,
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use tack_core::message::Message;

    use super::*;
    use crate::panes::Areas;
    use crate::transcript::Block;

    fn draw(pane: &mut TranscriptPane, state: &mut State, terminal: &mut Terminal<TestBackend>) {
        let areas = Areas::default();
        let result = terminal.draw(|frame| {
            let area = frame.area();
            let mut cx = RenderContext {
                state: &mut *state,
                areas: &areas,
                compact: false,
            };
            pane.render(frame, area, &mut cx);
        });
        assert!(result.is_ok());
    }

    #[test]
    fn a_key_in_the_editor_reuses_the_lines_on_screen() {
        let mut state = State::new(Theme::colored());
        let messages: Vec<Arc<Message>> = (0..50)
            .map(|i| Arc::new(Message::user(format!("prompt {i}"))))
            .collect();
        state.transcript.load(&messages);
        let Ok(mut terminal) = Terminal::new(TestBackend::new(40, 10));
        let mut pane = TranscriptPane::default();
        draw(&mut pane, &mut state, &mut terminal);
        assert_eq!(pane.gathered, 1);

        state.edit(|editor| editor.insert_char('a'));
        draw(&mut pane, &mut state, &mut terminal);
        assert_eq!(pane.gathered, 1, "typing does not touch the transcript");

        state.scroll.by(-3);
        draw(&mut pane, &mut state, &mut terminal);
        assert_eq!(pane.gathered, 2, "scrolling moves the view");
        draw(&mut pane, &mut state, &mut terminal);
        assert_eq!(pane.gathered, 2);

        state.transcript.push(Block::Info("more".into()));
        draw(&mut pane, &mut state, &mut terminal);
        assert_eq!(pane.gathered, 3, "a new block is drawn");
    }
}
