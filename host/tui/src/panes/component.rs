//! A plugin's component (`screen.show-component`): lines the plugin draws, framed under its
//! name, in place of the editor or in a box over the screen, with the keyboard while it is up.
//! The plugin drives it frame by frame; between frames (while it draws) keys wait here, in
//! order. Ctrl+C is tack's: it closes the component, and the plugin's later frames are
//! answered "closed" until the call that drew it ends.

use std::collections::VecDeque;
use std::time::Instant;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use tokio::sync::oneshot;

use super::popup::{centered, panel};
use super::{Cursor, EventResult, Pane, RenderContext};
use tack_core::event::ComponentInput;

use crate::protocol::{ComponentAnswer, ComponentRequest};
use crate::render::styled::styled_line;
use crate::state::State;

/// Keys kept for a plugin that is drawing its next frame; more are dropped.
const MAX_PENDING: usize = 64;
/// Rows left to the rest of the screen (a line of transcript, the status line, the footer)
/// under a component in place of the editor.
const ROWS_KEPT: u16 = 4;

/// The component on screen.
#[derive(Debug)]
pub struct ShownComponent {
    pub plugin: String,
    pub lines: Vec<String>,
    pub overlay: bool,
    /// The plugin's frame waiting for a key, and when it stops waiting.
    waiter: Option<(oneshot::Sender<ComponentAnswer>, Instant)>,
    /// Keys that came while no frame waited.
    pending: VecDeque<ComponentInput>,
}

impl State {
    /// A frame from a plugin: shows it, and answers at once with a key that waited for it, or
    /// "closed" when the user closed this plugin's component during the call.
    pub(crate) fn show_component(&mut self, request: ComponentRequest) {
        let ComponentRequest {
            plugin,
            lines,
            overlay,
            wait,
            reply,
        } = request;
        if self.component_refused.as_deref() == Some(plugin.as_str()) {
            let _ = reply.send(self.component_answer(overlay, ComponentInput::Closed));
            return;
        }
        let mut pending = match self.component.take() {
            Some(shown) if shown.plugin == plugin => shown.pending,
            // Another plugin's component gives way; its frame, if one waits, hears closed.
            Some(shown) => {
                if let Some((reply, _)) = shown.waiter {
                    let _ =
                        reply.send(self.component_answer(shown.overlay, ComponentInput::Closed));
                }
                VecDeque::new()
            }
            None => VecDeque::new(),
        };
        let waiter = match pending.pop_front() {
            Some(input) => {
                let _ = reply.send(self.component_answer(overlay, input));
                None
            }
            None if wait.is_zero() => {
                let _ = reply.send(self.component_answer(overlay, ComponentInput::Tick));
                None
            }
            None => Some((reply, Instant::now() + wait)),
        };
        self.component = Some(ShownComponent {
            plugin,
            lines,
            overlay,
            waiter,
            pending,
        });
    }

    /// The plugin's call ended or it closed its component.
    pub(crate) fn component_closed(&mut self, plugin: &str) {
        if self
            .component
            .as_ref()
            .is_some_and(|shown| shown.plugin == plugin)
        {
            self.component = None;
        }
        if self.component_refused.as_deref() == Some(plugin) {
            self.component_refused = None;
        }
    }

    /// When the waiting frame's time is up, if one waits.
    pub fn component_deadline(&self) -> Option<Instant> {
        self.component
            .as_ref()
            .and_then(|shown| shown.waiter.as_ref().map(|(_, due)| *due))
    }

    /// Answers the waiting frame "tick" once its time is up.
    pub fn component_tick(&mut self) {
        let now = Instant::now();
        let Some(shown) = self.component.as_mut() else {
            return;
        };
        if shown.waiter.as_ref().is_some_and(|(_, due)| *due <= now) {
            let overlay = shown.overlay;
            if let Some((reply, _)) = shown.waiter.take() {
                let answer = self.component_answer(overlay, ComponentInput::Tick);
                let _ = reply.send(answer);
            }
        }
    }

    /// Ctrl+C: the component goes, and its plugin's frames are answered "closed" until its
    /// call ends.
    pub(crate) fn close_component(&mut self) {
        if let Some(shown) = self.component.take() {
            if let Some((reply, _)) = shown.waiter {
                let _ = reply.send(self.component_answer(shown.overlay, ComponentInput::Closed));
            }
            self.component_refused = Some(shown.plugin);
        }
    }

    /// Gives `input` to the waiting frame, or keeps it for the next.
    fn component_input(&mut self, input: ComponentInput) {
        let Some(shown) = self.component.as_mut() else {
            return;
        };
        let overlay = shown.overlay;
        match shown.waiter.take() {
            Some((reply, _)) => {
                let answer = self.component_answer(overlay, input);
                if let Err(answer) = reply.send(answer) {
                    // The frame stopped waiting (its time was up on the plugin's side).
                    if let Some(shown) = self.component.as_mut() {
                        shown.pending.push_back(answer.input);
                    }
                }
            }
            None if shown.pending.len() < MAX_PENDING => shown.pending.push_back(input),
            None => {}
        }
    }

    fn component_answer(&self, overlay: bool, input: ComponentInput) -> ComponentAnswer {
        let (width, height) = component_room(self.screen_size, overlay);
        ComponentAnswer {
            width,
            height,
            input,
        }
    }
}

/// The columns and rows inside a component's frame on a screen of `size`.
fn component_room((columns, rows): (u16, u16), overlay: bool) -> (u16, u16) {
    let outer = if overlay {
        (columns / 4 * 3).max(20).min(columns.saturating_sub(2))
    } else {
        columns
    };
    (
        outer.saturating_sub(2),
        rows.saturating_sub(ROWS_KEPT + 2).max(1),
    )
}

/// The rows a component in place of the editor takes, frame included.
pub(crate) fn editor_rows(shown: &ShownComponent, size: (u16, u16)) -> u16 {
    let (_, room) = component_room(size, false);
    let lines = u16::try_from(shown.lines.len()).unwrap_or(u16::MAX);
    lines.min(room) + 2
}

/// `key` named as Pi's `matchesKey` names keys; `None` for keys it has no name for.
pub fn key_name(key: &KeyEvent) -> Option<String> {
    let mut name = String::new();
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    if ctrl {
        name.push_str("ctrl+");
    }
    if alt {
        name.push_str("alt+");
    }
    let base = match key.code {
        KeyCode::Char(' ') => "space".to_string(),
        // A shifted character is already the character shift makes.
        KeyCode::Char(c) if ctrl => c.to_ascii_lowercase().to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::BackTab => return Some(format!("{name}shift+tab")),
        code => {
            let special = match code {
                KeyCode::Enter => "enter".to_string(),
                KeyCode::Esc => "escape".to_string(),
                KeyCode::Tab => "tab".to_string(),
                KeyCode::Backspace => "backspace".to_string(),
                KeyCode::Delete => "delete".to_string(),
                KeyCode::Insert => "insert".to_string(),
                KeyCode::Up => "up".to_string(),
                KeyCode::Down => "down".to_string(),
                KeyCode::Left => "left".to_string(),
                KeyCode::Right => "right".to_string(),
                KeyCode::Home => "home".to_string(),
                KeyCode::End => "end".to_string(),
                KeyCode::PageUp => "pageUp".to_string(),
                KeyCode::PageDown => "pageDown".to_string(),
                KeyCode::F(n @ 1..=12) => format!("f{n}"),
                _ => return None,
            };
            if shift {
                name.push_str("shift+");
            }
            special
        }
    };
    name.push_str(&base);
    Some(name)
}

#[derive(Default)]
pub(crate) struct ComponentPane;

impl Pane for ComponentPane {
    fn is_open(&self, state: &State) -> bool {
        state.component.is_some()
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, cx: &mut RenderContext) {
        let Some(shown) = cx.state.component.as_ref() else {
            return;
        };
        let (width, height) = component_room(cx.state.screen_size, shown.overlay);
        let shown_lines = shown.lines.len().min(usize::from(height));
        let rect = if shown.overlay {
            let rows = u16::try_from(shown_lines).unwrap_or(u16::MAX) + 2;
            centered(area, width + 2, rows)
        } else {
            cx.areas.get(super::Region::Editor)
        };
        if rect.width < 3 || rect.height < 2 {
            return;
        }
        let inner = usize::from(rect.width - 2);
        let title = format!("{} · Ctrl+C closes", shown.plugin);
        // Too tall for the screen: its last lines show, as a terminal that scrolled would show
        // them (where a component keeps its footer and key hints).
        let lines: Vec<Line> = shown
            .lines
            .iter()
            .skip(shown.lines.len() - shown_lines)
            .map(|line| styled_line(line, inner, Style::default()))
            .collect();
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(lines).block(panel(&title, inner, &cx.state.theme)),
            rect,
        );
    }

    fn handle_event(&mut self, event: &Event, state: &mut State) -> EventResult {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                if let Some(name) = key_name(key) {
                    state.component_input(ComponentInput::Key(name));
                }
            }
            Event::Paste(text) => state.component_input(ComponentInput::Paste(text.clone())),
            _ => return EventResult::Ignored,
        }
        EventResult::Consumed
    }

    fn cursor(&self, _state: &State) -> Cursor {
        Cursor::Hidden
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Option<String> {
        key_name(&KeyEvent::new(code, modifiers))
    }

    #[test]
    fn keys_are_named_as_pi_names_them() {
        assert_eq!(
            key(KeyCode::Char('a'), KeyModifiers::NONE).as_deref(),
            Some("a")
        );
        assert_eq!(
            key(KeyCode::Char('A'), KeyModifiers::SHIFT).as_deref(),
            Some("A")
        );
        assert_eq!(
            key(KeyCode::Char(' '), KeyModifiers::NONE).as_deref(),
            Some("space")
        );
        assert_eq!(
            key(KeyCode::Char('x'), KeyModifiers::CONTROL).as_deref(),
            Some("ctrl+x")
        );
        assert_eq!(
            key(KeyCode::Up, KeyModifiers::CONTROL | KeyModifiers::SHIFT).as_deref(),
            Some("ctrl+shift+up")
        );
        assert_eq!(
            key(KeyCode::BackTab, KeyModifiers::SHIFT).as_deref(),
            Some("shift+tab")
        );
        assert_eq!(
            key(KeyCode::PageDown, KeyModifiers::NONE).as_deref(),
            Some("pageDown")
        );
        assert_eq!(
            key(KeyCode::Esc, KeyModifiers::NONE).as_deref(),
            Some("escape")
        );
        assert_eq!(
            key(KeyCode::F(5), KeyModifiers::ALT).as_deref(),
            Some("alt+f5")
        );
        assert_eq!(key(KeyCode::CapsLock, KeyModifiers::NONE), None);
    }

    #[test]
    fn the_room_leaves_the_footer_and_a_frame() {
        assert_eq!(component_room((100, 32), false), (98, 26));
        assert_eq!(component_room((100, 32), true), (73, 26));
        assert_eq!(component_room((10, 5), true), (6, 1));
    }
}
