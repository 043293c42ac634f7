//! The compositor: it owns the panes and the state they share, feeds events to the state,
//! and routes input: Ctrl+C first, then the top-most open overlay, then the focused pane.
//! Where the panes go is in `view.rs`.

use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers};
use tack_core::event::AgentEvent;
use tack_core::message::{Message, StopReason};

use crate::keymap::Keymap;
use crate::notify::Notifier;
use crate::panes::completion::CompletionPane;
use crate::panes::component::ComponentPane;
use crate::panes::dialog::DialogPane;
use crate::panes::editor::EditorPane;
use crate::panes::footer::FooterPane;
use crate::panes::header::HeaderPane;
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
    notifier: Notifier,
    inside_tmux: bool,
    /// What the terminal last said of its focus; `None` until it says anything (a terminal
    /// without focus reporting never does, and is never sent a notification).
    focused: Option<bool>,
    /// Notification sequences the runner has yet to write.
    notifications: Vec<String>,
}

impl App {
    pub fn new(theme: Theme) -> App {
        let mut regions = Regions::new();
        regions
            .add(Region::Header, HeaderPane::default())
            .add(Region::Transcript, TranscriptPane::default())
            .add(Region::AboveEditor, StatusPane)
            .add(Region::AboveEditor, QueuePane::default())
            .add(Region::AboveEditor, WidgetsPane::above())
            .add(Region::Editor, EditorPane::default())
            .add(Region::BelowEditor, WidgetsPane::below())
            .add(Region::Footer, FooterPane::default())
            .add(Region::Overlay, CompletionPane)
            .add(Region::Overlay, PickerPane)
            .add(Region::Overlay, ComponentPane)
            .add(Region::Overlay, DialogPane::default());
        App {
            state: State::new(theme),
            regions,
            dirty: true,
            notifier: Notifier::Off,
            inside_tmux: false,
            focused: None,
            notifications: Vec::new(),
        }
    }

    /// How to notify the user when a run ends or a plugin asks something while the terminal
    /// is not focused; `inside_tmux` wraps the sequence for tmux to pass on.
    pub fn set_notifier(&mut self, notifier: Notifier, inside_tmux: bool) {
        self.notifier = notifier;
        self.inside_tmux = inside_tmux;
    }

    /// The window title a plugin set since the last call (empty: tack's own).
    pub fn take_title(&mut self) -> Option<String> {
        self.state.title.take()
    }

    /// The notification sequences to write since the last call.
    pub fn take_notifications(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notifications)
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

    /// The name of the theme the UI starts with, for plugins that ask (`screen.theme`).
    pub fn set_theme_name(&mut self, name: &str) {
        self.state.theme_name = name.to_string();
    }

    /// The keys of the remappable actions (`keybindings.toml`).
    pub fn set_keymap(&mut self, keymap: Keymap) {
        self.state.keymap = keymap;
    }

    /// The editor's text, when Ctrl+G asked for the external editor since the last call.
    pub fn take_external_edit(&mut self) -> Option<String> {
        std::mem::take(&mut self.state.external_edit).then(|| self.state.editor.text())
    }

    /// When a plugin's component frame stops waiting for a key, if one waits.
    pub fn component_deadline(&self) -> Option<std::time::Instant> {
        self.state.component_deadline()
    }

    /// Answers a component frame whose wait is over.
    pub fn component_tick(&mut self) {
        self.state.component_tick();
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
        let notice = match &event {
            UiEvent::Agent(AgentEvent::AgentEnd { messages }) => run_ended(messages),
            UiEvent::Dialog(request) => Some(format!("{} asks for an answer", request.plugin)),
            _ => None,
        };
        self.state.apply(event);
        if let (Some(body), Some(false)) = (notice, self.focused) {
            let sequence = self.notifier.sequence("tack", &body, self.inside_tmux);
            self.notifications.extend(sequence);
        }
    }

    pub fn handle_event(&mut self, event: Event) {
        match &event {
            Event::FocusGained => return self.focused = Some(true),
            Event::FocusLost => return self.focused = Some(false),
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
        // A plugin's component has the keyboard, but never Ctrl+C: it closes the component.
        if state.component.is_some() && state.dialogs.is_empty() {
            state.close_component();
            return;
        }
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
        // A plugin's editor in place of tack's hears it (Pi's editors clear their text); tack
        // cannot tell whether it held any, so the press arms quitting too.
        if !state.editors.is_empty() && !state.quit_armed {
            state.ask_editor(crate::protocol::EditorInput::Key("ctrl+c".into()));
        }
        if state.quit_armed {
            state.quit();
        } else {
            state.quit_armed = true;
        }
    }
}

/// What to tell a user away from the terminal about a run that ended: its answer's first words,
/// or why it stopped. An abort is the user's own doing and needs no notice.
fn run_ended(messages: &[std::sync::Arc<Message>]) -> Option<String> {
    let last = messages.iter().rev().find_map(|m| match m.as_ref() {
        Message::Assistant(a) => Some(a),
        _ => None,
    });
    let Some(last) = last else {
        return Some("Ready for input".into());
    };
    match last.stop_reason {
        StopReason::Aborted => None,
        StopReason::Error => Some(format!(
            "The run failed: {}",
            last.error_message.as_deref().unwrap_or("an error")
        )),
        _ => {
            let text = last.text_content();
            Some(match text.trim().is_empty() {
                true => "Ready for input".into(),
                false => text,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crossterm::event::Event;
    use tack_core::event::AgentEvent;
    use tack_core::message::{
        AssistantContent, AssistantMessage, Message, StopReason, TextContent,
    };

    use super::App;
    use crate::notify::Notifier;
    use crate::protocol::UiEvent;
    use crate::theme::Theme;

    fn run(app: &mut App, answer: &str, stop_reason: StopReason) {
        app.apply(UiEvent::Agent(AgentEvent::AgentStart));
        let message = Message::Assistant(AssistantMessage {
            content: vec![AssistantContent::Text(TextContent {
                text: answer.into(),
            })],
            provider: "p".into(),
            model: "m".into(),
            usage: Default::default(),
            stop_reason,
            error_message: None,
            timestamp: 0,
        });
        app.apply(UiEvent::Agent(AgentEvent::AgentEnd {
            messages: vec![Arc::new(message)],
        }));
    }

    #[test]
    fn a_run_that_ends_while_the_terminal_is_unfocused_notifies() {
        let mut app = App::new(Theme::plain());
        app.set_notifier(Notifier::Osc777, false);
        run(&mut app, "never told: focus unknown", StopReason::Stop);
        assert!(app.take_notifications().is_empty());
        app.handle_event(Event::FocusLost);
        run(
            &mut app,
            "All tests pass.\nDetails follow.",
            StopReason::Stop,
        );
        assert_eq!(
            app.take_notifications(),
            vec!["\x1b]777;notify;tack;All tests pass. Details follow.\x07".to_string()]
        );
        run(&mut app, "stopped by the user", StopReason::Aborted);
        assert!(app.take_notifications().is_empty(), "an abort is no news");
        app.handle_event(Event::FocusGained);
        run(&mut app, "watched", StopReason::Stop);
        assert!(app.take_notifications().is_empty(), "the user is looking");
    }
}
