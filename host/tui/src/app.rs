//! The compositor: it owns the panes and the state they share, feeds events to the state,
//! and routes input: Ctrl+C first, then the top-most open overlay, then the focused pane.
//! Where the panes go is in `view.rs`.

use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers};

use crate::keymap::Keymap;
use crate::panes::completion::CompletionPane;
use crate::panes::dialog::DialogPane;
use crate::panes::editor::EditorPane;
use crate::panes::footer::FooterPane;
use crate::panes::picker::PickerPane;
use crate::panes::queue::QueuePane;
use crate::panes::status::StatusPane;
use crate::panes::transcript::TranscriptPane;
use crate::panes::widgets::WidgetsPane;
use crate::panes::{EventResult, Region, Regions};
use crate::protocol::{Action, UiEvent};
use crate::state::State;
use crate::theme::Theme;

pub struct App {
    pub(crate) state: State,
    pub(crate) regions: Regions,
    dirty: bool,
}

impl App {
    pub fn new(theme: Theme) -> App {
        let mut regions = Regions::new();
        regions
            .add(Region::Transcript, TranscriptPane::default())
            .add(Region::AboveEditor, StatusPane)
            .add(Region::AboveEditor, QueuePane::default())
            .add(Region::AboveEditor, WidgetsPane::above())
            .add(Region::Editor, EditorPane::default())
            .add(Region::BelowEditor, WidgetsPane::below())
            .add(Region::Footer, FooterPane::default())
            .add(Region::Overlay, CompletionPane)
            .add(Region::Overlay, PickerPane)
            .add(Region::Overlay, DialogPane::default());
        App {
            state: State::new(theme),
            regions,
            dirty: true,
        }
    }

    /// The actions asked for since the last call.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.state.actions)
    }

    pub fn should_quit(&self) -> bool {
        self.state.quit
    }

    /// Whether something changed since the last frame.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    pub fn mark_drawn(&mut self) {
        self.dirty = false;
    }

    /// A spinner turns while the agent works; otherwise nothing changes on its own, and the loop
    /// sleeps until an event.
    pub fn animating(&self) -> bool {
        self.state.running || self.state.busy.is_some()
    }

    pub fn tick(&mut self) {
        self.state.spinner = self.state.spinner.wrapping_add(1);
        self.dirty = true;
    }

    pub fn is_running(&self) -> bool {
        self.state.running
    }

    /// The keys of the remappable actions (`keybindings.toml`).
    pub fn set_keymap(&mut self, keymap: Keymap) {
        self.state.keymap = keymap;
    }

    /// The editor's text, when Ctrl+G asked for the external editor since the last call.
    pub fn take_external_edit(&mut self) -> Option<String> {
        std::mem::take(&mut self.state.external_edit).then(|| self.state.editor.text())
    }

    /// The text the external editor returned replaces the editor's.
    pub fn set_editor_text(&mut self, text: &str) {
        self.state.editor.set_text(text);
        self.state.completion = None;
        self.dirty = true;
    }

    /// The texts to put on the clipboard since the last call.
    pub fn take_clipboard(&mut self) -> Vec<String> {
        std::mem::take(&mut self.state.clipboard)
    }

    pub fn editor_text(&self) -> String {
        self.state.editor.text()
    }

    /// Sets how long a new dialog ignores answering keys (300 ms by default, so Enter typed a
    /// moment before a dialog pops up does not answer it); tests that answer at once set zero.
    pub fn set_dialog_guard(&mut self, guard: Duration) {
        self.state.dialog_guard = guard;
    }

    pub fn apply(&mut self, event: UiEvent) {
        self.dirty = true;
        self.state.apply(event);
    }

    pub fn handle_event(&mut self, event: Event) {
        match &event {
            Event::Key(key) if key.kind == KeyEventKind::Release => return,
            Event::Key(key)
                if key.modifiers.contains(KeyModifiers::CONTROL)
                    && key.code == KeyCode::Char('c') =>
            {
                self.dirty = true;
                return self.ctrl_c();
            }
            Event::Key(_) | Event::Paste(_) => self.dirty = true,
            Event::Resize(..) => {
                self.dirty = true;
                return;
            }
            _ => return,
        }
        if let Some(top) = self.regions.top_overlay(&self.state) {
            let overlays = self.regions.panes_mut(Region::Overlay);
            if let Some(overlay) = overlays.get_mut(top) {
                if overlay.handle_event(&event, &mut self.state) == EventResult::Consumed {
                    return;
                }
            }
        }
        if let Some(focused) = self.regions.focused_mut() {
            focused.handle_event(&event, &mut self.state);
        }
    }

    /// Ctrl+C, whatever is on screen: aborts what runs, else closes the picker, else clears
    /// the editor, else arms quitting (a second one quits).
    fn ctrl_c(&mut self) {
        let state = &mut self.state;
        if state.running || state.busy.is_some() || !state.dialogs.is_empty() {
            state.actions.push(Action::Abort);
            return;
        }
        if state.picker.take().is_some() {
            return;
        }
        if !state.editor.is_empty() {
            state.editor.clear();
            state.completion = None;
            return;
        }
        if state.quit_armed {
            state.quit();
        } else {
            state.quit_armed = true;
        }
    }
}
