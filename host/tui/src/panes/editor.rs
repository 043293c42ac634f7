//! The prompt editor between two rules, and the keys nothing over it takes: editing, history,
//! sending, scrolling the transcript, and the remappable actions of the keymap.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block as Panel, Borders, Padding, Paragraph};
use ratatui::Frame;

use super::{Cursor, EventResult, Pane, RenderContext};
use crate::editor::Editor;
use crate::keymap::{KeyAction, Keymap};
use crate::protocol::Action;
use crate::render::wrap::truncate;
use crate::state::State;

/// Most editor lines shown before it scrolls.
const EDITOR_MAX_LINES: usize = 8;
/// Most lines of a plugin's editor shown (the runtime sends no more).
const PLUGIN_EDITOR_MAX_LINES: usize = 12;

/// A plugin's editor: a rule naming the plugin, so it never passes for tack's, then its lines.
fn plugin_editor_lines(state: &State, width: u16) -> Vec<Line<'static>> {
    let Some(editor) = state.plugin_editor() else {
        return Vec::new();
    };
    let width = usize::from(width);
    let title = format!("─ {}'s editor ", editor.plugin);
    let rule = format!(
        "{title}{}",
        "─".repeat(width.saturating_sub(title.chars().count()))
    );
    let mut lines = vec![Line::from(Span::styled(
        truncate(&rule, width),
        state.theme.border(),
    ))];
    lines.extend(
        editor
            .lines
            .iter()
            .take(PLUGIN_EDITOR_MAX_LINES)
            .map(|line| {
                crate::render::styled::styled_line(line, width, ratatui::style::Style::default())
            }),
    );
    lines
}

#[derive(Default)]
pub(crate) struct EditorPane {
    /// The text laid out this frame, and the cursor within it (column, row).
    laid_out: (Vec<Line<'static>>, (u16, u16)),
    cursor: Option<Position>,
}

impl Pane for EditorPane {
    fn measure(&mut self, state: &State, width: u16, _compact: bool) -> u16 {
        // A plugin's component in place of the editor takes its rows; it draws them itself.
        if let Some(shown) = state.component.as_ref().filter(|shown| !shown.overlay) {
            return super::component::editor_rows(shown, state.screen_size);
        }
        // A plugin's editor: its lines under a rule naming it.
        if let Some(editor) = state.plugin_editor() {
            return editor.lines.len().clamp(1, PLUGIN_EDITOR_MAX_LINES) as u16 + 1;
        }
        self.laid_out = state.editor.layout(
            width.saturating_sub(2 + 2 * state.editor_padding),
            &state.theme,
            if state.running {
                "Steer the agent (Enter), or queue a follow-up (Alt+Enter)"
            } else {
                "Ask anything; / for commands, @ for files"
            },
        );
        self.laid_out.0.len().clamp(1, EDITOR_MAX_LINES) as u16 + 2
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, cx: &mut RenderContext) {
        let state = &*cx.state;
        if state.component.as_ref().is_some_and(|shown| !shown.overlay) {
            self.cursor = None;
            return;
        }
        if let Some(editor) = state.plugin_editor() {
            self.cursor = None;
            let width = area.width;
            let stale = editor.width != width;
            frame.render_widget(Paragraph::new(plugin_editor_lines(state, width)), area);
            // The width changed since it drew: ask it again.
            if stale {
                if let Some(editor) = cx.state.editors.last_mut() {
                    editor.width = width;
                }
                cx.state.ask_editor(crate::protocol::EditorInput::View);
            }
            return;
        }
        let width = area.width;
        let padding = state.editor_padding;
        let (lines, cursor) = std::mem::take(&mut self.laid_out);
        // The editor scrolls to keep its cursor in view.
        let inner_height = area.height.saturating_sub(2);
        let top = cursor.1.saturating_sub(inner_height.saturating_sub(1));
        let shown: Vec<Line> = lines
            .into_iter()
            .skip(usize::from(top))
            .take(usize::from(inner_height))
            .collect();
        let hint = if state.running {
            " Enter steer · Alt+Enter follow-up · Esc abort "
        } else {
            ""
        };
        let block = Panel::new()
            .borders(Borders::TOP | Borders::BOTTOM)
            .padding(Padding::horizontal(padding))
            .border_style(state.theme.border())
            .title_top(Line::from(Span::styled(
                truncate(hint, usize::from(width)),
                state.theme.dim(),
            )));
        frame.render_widget(Paragraph::new(shown).block(block), area);
        let x = area.x + padding + cursor.0.min(width.saturating_sub(1 + 2 * padding));
        let y = area.y + 1 + cursor.1.saturating_sub(top);
        self.cursor = (y < area.y + area.height.saturating_sub(1)).then_some(Position { x, y });
    }

    fn handle_event(&mut self, event: &Event, state: &mut State) -> EventResult {
        match event {
            Event::Key(key) => key_pressed(state, *key),
            Event::Paste(text) if !state.editors.is_empty() => {
                state.ask_editor(crate::protocol::EditorInput::Paste(text.clone()));
            }
            Event::Paste(text) => {
                match state.attachments.attach_pasted(text) {
                    Some(chip) => state.editor.insert_str(&chip),
                    None => state.editor.insert_str(text),
                }
                state.edited();
            }
            _ => return EventResult::Ignored,
        }
        EventResult::Consumed
    }

    fn cursor(&self, _state: &State) -> Cursor {
        self.cursor.map_or(Cursor::Hidden, Cursor::At)
    }
}

fn key_pressed(state: &mut State, key: KeyEvent) {
    state.quit_armed = false;
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    let scrolls = matches!(key.code, KeyCode::PageUp | KeyCode::PageDown)
        || (matches!(key.code, KeyCode::Up | KeyCode::Down) && (shift || alt));
    let bound =
        Keymap::chord(&key).is_some_and(|chord| state.shortcuts.iter().any(|s| s.chord == chord));
    if !scrolls && !bound && state.plugin_editor_key(key, state.keymap.action(&key)) {
        return;
    }
    if let Some(action) = state.keymap.action(&key) {
        return key_action(state, action);
    }
    if let Some(chord) = Keymap::chord(&key) {
        if let Some(bound) = state.shortcuts.iter().find(|s| s.chord == chord) {
            let (plugin, key) = (bound.plugin.clone(), bound.key.clone());
            state.actions.push(Action::Shortcut { plugin, key });
            return;
        }
    }
    match key.code {
        KeyCode::Enter => {
            let (_, word) = state.editor.word_at_cursor();
            if word.ends_with('\\') {
                // A trailing backslash continues the prompt on a new line, in any terminal.
                state.edit(|e| {
                    e.backspace();
                    e.newline();
                });
            } else {
                state.submit(false);
            }
        }
        KeyCode::Char(c) if !ctrl => state.edit(|e| e.insert_char(c)),
        KeyCode::Tab => {
            state.completion_dismissed = false;
            state.refresh_completion();
        }
        KeyCode::Backspace => state.edit(Editor::backspace),
        KeyCode::Delete => state.edit(Editor::delete),
        KeyCode::Left => state.editor.left(),
        KeyCode::Right => state.editor.right(),
        KeyCode::Home if ctrl => state.scroll.top(),
        KeyCode::End if ctrl => state.scroll.follow(),
        KeyCode::Up if shift || alt => state.scroll.by(-1),
        KeyCode::Down if shift || alt => state.scroll.by(1),
        KeyCode::Up if !state.editor.up() => {
            state.editor.history_back();
        }
        KeyCode::Down if !state.editor.down() => {
            state.editor.history_forward();
        }
        KeyCode::PageUp => state.scroll.by(-page(state)),
        KeyCode::PageDown => state.scroll.by(page(state)),
        _ => {}
    }
}

/// PageUp and PageDown move the transcript by its height, less two lines kept for context.
fn page(state: &State) -> isize {
    isize::try_from(state.view_height.saturating_sub(2))
        .unwrap_or(1)
        .max(1)
}

/// A remappable key (see [`crate::keymap::Keymap`]).
fn key_action(state: &mut State, action: KeyAction) {
    match action {
        KeyAction::Interrupt => {
            if state.running || state.busy.is_some() {
                state.actions.push(Action::Abort);
            } else {
                state.scroll.follow();
            }
        }
        KeyAction::Exit => {
            if state.editor.is_empty() {
                state.quit();
            } else {
                state.edit(Editor::delete);
            }
        }
        KeyAction::FollowUp => state.submit(true),
        KeyAction::ModelSelect => state.actions.push(Action::Command {
            name: "model".into(),
            args: String::new(),
        }),
        KeyAction::ModelCycleForward => state.actions.push(Action::CycleModel { forward: true }),
        KeyAction::ModelCycleBackward => state.actions.push(Action::CycleModel { forward: false }),
        KeyAction::ThinkingCycle => state.actions.push(Action::CycleThinking),
        KeyAction::ThinkingToggle => state.options.show_thinking = !state.options.show_thinking,
        KeyAction::ToolsExpand => state.options.expand_tools = !state.options.expand_tools,
        KeyAction::EditorExternal => state.external_edit = true,
        KeyAction::PasteImage => state.actions.push(Action::PasteImage),
        KeyAction::LineStart => state.editor.home(),
        KeyAction::LineEnd => state.editor.end(),
        KeyAction::WordLeft => state.editor.word_left(),
        KeyAction::WordRight => state.editor.word_right(),
        KeyAction::DeleteWordBackward => state.edit(Editor::delete_word),
        KeyAction::DeleteToLineEnd => state.edit(Editor::kill_to_end),
        KeyAction::DeleteToLineStart => state.edit(Editor::kill_to_start),
        KeyAction::NewLine => state.edit(Editor::newline),
    }
}
