//! The UI's state and how events change it: agent and host events in, keys in, actions out.
//! Drawing is in `view.rs`.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tack_core::event::{AgentEvent, NoticeLevel};
use tack_core::message::Message;

use crate::attachments::Attachments;
use crate::complete::{complete, Completion, Kind};
use crate::editor::Editor;
use crate::keymap::{KeyAction, Keymap};
use crate::picker::{Outcome, PickerState};
use crate::protocol::{
    Action, CommandInfo, DialogAnswer, DialogKind, DialogRequest, Display, FooterInfo, UiEvent,
};
use crate::render::blocks::ViewOptions;
use crate::scroll::Scroll;
use crate::theme::Theme;
use crate::transcript::{Block, Transcript};

/// Token counts and cost of the session so far, and the size of the last context.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cost: f64,
    pub context_tokens: u64,
}

impl Usage {
    fn add(&mut self, message: &Message) {
        if let Message::Assistant(a) = message {
            let u = &a.usage;
            self.input += u.input + u.cache_read + u.cache_write;
            self.output += u.output;
            self.cost += u.cost;
            let context = u.input + u.cache_read + u.cache_write + u.output;
            if context > 0 {
                self.context_tokens = context;
            }
        }
        if let Message::ToolResult(r) = message {
            self.add_subagent(r.details.as_ref());
        }
    }

    /// A sub-agent's tokens and cost (the `subagents` plugin's `task` result) count with the
    /// session's; its context is its own, so the context size stays the parent's.
    fn add_subagent(&mut self, details: Option<&serde_json::Value>) {
        let Some(usage) = details.and_then(|d| d.get("subagent")?.get("usage")) else {
            return;
        };
        let number = |key: &str| usage.get(key).and_then(serde_json::Value::as_u64);
        self.input += number("input").unwrap_or(0)
            + number("cacheRead").unwrap_or(0)
            + number("cacheWrite").unwrap_or(0);
        self.output += number("output").unwrap_or(0);
        self.cost += usage
            .get("cost")
            .and_then(serde_json::Value::as_f64)
            .filter(|c| c.is_finite() && *c >= 0.0)
            .unwrap_or(0.0);
    }
}

/// How long a dialog ignores keys that would answer it, counted from when it comes on screen:
/// Enter typed to send a message a moment before a permission question pops up must not answer
/// "allow". Esc (the safe answer) and moving the highlight always work.
pub const DIALOG_TYPEAHEAD_GUARD: Duration = Duration::from_millis(300);

/// A plugin's dialog on screen.
#[derive(Debug)]
pub struct OpenDialog {
    pub request: DialogRequest,
    /// When the dialog came to the front (queued dialogs wait behind the first).
    pub(crate) shown: Option<Instant>,
    /// The highlighted option (select), or button (confirm: 0 yes, 1 no).
    pub selected: usize,
    /// The answer being typed (input).
    pub input: Editor,
}

pub struct App {
    pub theme: Theme,
    pub(crate) transcript: Transcript,
    pub(crate) options: ViewOptions,
    /// Blank columns on each side of the editor (`editor_padding`).
    pub(crate) editor_padding: u16,
    pub(crate) editor: Editor,
    pub(crate) completion: Option<Completion>,
    completion_dismissed: bool,
    pub(crate) commands: Vec<CommandInfo>,
    files: Vec<String>,
    pub(crate) dialogs: VecDeque<OpenDialog>,
    pub(crate) picker: Option<PickerState>,
    /// Queued steering and follow-up messages.
    pub(crate) queue: (Vec<String>, Vec<String>),
    pub(crate) running: bool,
    pub(crate) busy: Option<String>,
    pub(crate) statuses: BTreeMap<(String, String), String>,
    pub(crate) widgets: BTreeMap<(String, String), Vec<String>>,
    pub(crate) footer: FooterInfo,
    pub(crate) usage: Usage,
    pub(crate) scroll: Scroll,
    /// Height of the transcript view in the last frame, for paging.
    pub(crate) view_height: u16,
    /// Ctrl+C on an empty, idle editor arms quitting; a second one quits.
    pub(crate) quit_armed: bool,
    pub(crate) spinner: usize,
    actions: Vec<Action>,
    /// Texts for the clipboard that the runner has yet to send to the terminal.
    clipboard: Vec<String>,
    /// Ctrl+G was pressed: the runner hands the text to the external editor.
    external_edit: bool,
    keymap: Keymap,
    attachments: Attachments,
    quit: bool,
    dirty: bool,
    dialog_guard: Duration,
}

impl App {
    pub fn new(theme: Theme) -> App {
        App {
            theme,
            transcript: Transcript::default(),
            options: ViewOptions {
                show_images: Display::default().show_images,
                ..ViewOptions::default()
            },
            editor_padding: Display::default().editor_padding,
            editor: Editor::default(),
            completion: None,
            completion_dismissed: false,
            commands: Vec::new(),
            files: Vec::new(),
            dialogs: VecDeque::new(),
            picker: None,
            queue: Default::default(),
            running: false,
            busy: None,
            statuses: BTreeMap::new(),
            widgets: BTreeMap::new(),
            footer: FooterInfo::default(),
            usage: Usage::default(),
            scroll: Scroll::default(),
            view_height: 20,
            quit_armed: false,
            spinner: 0,
            actions: Vec::new(),
            clipboard: Vec::new(),
            external_edit: false,
            keymap: Keymap::default(),
            attachments: Attachments::default(),
            quit: false,
            dirty: true,
            dialog_guard: DIALOG_TYPEAHEAD_GUARD,
        }
    }

    /// The actions asked for since the last call.
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    pub fn should_quit(&self) -> bool {
        self.quit
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
        self.running || self.busy.is_some()
    }

    pub fn tick(&mut self) {
        self.spinner = self.spinner.wrapping_add(1);
        self.dirty = true;
    }

    pub fn is_running(&self) -> bool {
        self.running
    }

    pub fn transcript_len(&self) -> usize {
        self.transcript.len()
    }

    pub fn push_block(&mut self, block: Block) {
        self.transcript.push(block);
        self.dirty = true;
    }

    /// The keys of the remappable actions (`keybindings.toml`).
    pub fn set_keymap(&mut self, keymap: Keymap) {
        self.keymap = keymap;
    }

    /// The editor's text, when Ctrl+G asked for the external editor since the last call.
    pub fn take_external_edit(&mut self) -> Option<String> {
        std::mem::take(&mut self.external_edit).then(|| self.editor.text())
    }

    /// The text the external editor returned replaces the editor's.
    pub fn set_editor_text(&mut self, text: &str) {
        self.editor.set_text(text);
        self.completion = None;
        self.dirty = true;
    }

    /// The texts to put on the clipboard since the last call.
    pub fn take_clipboard(&mut self) -> Vec<String> {
        std::mem::take(&mut self.clipboard)
    }

    pub fn editor_text(&self) -> String {
        self.editor.text()
    }

    pub fn apply(&mut self, event: UiEvent) {
        self.dirty = true;
        match event {
            UiEvent::Agent(event) => self.agent_event(event),
            UiEvent::Transcript(messages) => {
                self.transcript.load(&messages);
                self.usage = Usage::default();
                for message in &messages {
                    self.usage.add(message);
                }
                self.scroll.follow();
            }
            UiEvent::Dialog(request) => {
                let selected = 0;
                let shown = self.dialogs.is_empty().then(Instant::now);
                self.dialogs.push_back(OpenDialog {
                    request,
                    shown,
                    selected,
                    input: Editor::default(),
                });
            }
            UiEvent::DialogClosed(id) => {
                self.dialogs.retain(|d| d.request.id != id);
                self.show_next_dialog();
            }
            UiEvent::CloseDialogs => self.dialogs.clear(),
            UiEvent::Notify {
                plugin,
                level,
                message,
            } => {
                self.transcript.push(Block::Notice {
                    level,
                    text: format!("[{plugin}] {message}"),
                });
            }
            UiEvent::Status { plugin, key, text } => match text {
                Some(text) => {
                    self.statuses.insert((plugin, key), text);
                }
                None => {
                    self.statuses.remove(&(plugin, key));
                }
            },
            UiEvent::Widget { plugin, key, lines } => {
                if lines.is_empty() {
                    self.widgets.remove(&(plugin, key));
                } else {
                    self.widgets.insert((plugin, key), lines);
                }
            }
            UiEvent::Info(text) => {
                self.transcript.push(Block::Info(text));
                self.scroll.follow();
            }
            UiEvent::Error(text) => {
                self.transcript.push(Block::Notice {
                    level: NoticeLevel::Error,
                    text,
                });
                self.scroll.follow();
            }
            UiEvent::Footer(footer) => self.footer = footer,
            UiEvent::Commands(commands) => self.commands = commands,
            UiEvent::Picker(picker) => match &mut self.picker {
                Some(open) if open.picker.kind == picker.kind => open.refresh(picker),
                _ => self.picker = Some(PickerState::new(picker)),
            },
            UiEvent::AttachImage(path) => {
                let chip = self.attachments.attach_file(path);
                self.editor.insert_str(&chip);
                self.edited();
            }
            UiEvent::Display(display) => {
                self.options.show_images = display.show_images;
                self.editor_padding = display.editor_padding.min(Display::MAX_EDITOR_PADDING);
            }
            UiEvent::Busy(busy) => self.busy = busy,
            UiEvent::History(history) => self.editor.set_history(history),
            UiEvent::Files(files) => self.files = files,
            UiEvent::EditorText(text) => {
                // What the user was writing stays, after the text put back.
                let current = self.editor.text();
                if current.trim().is_empty() {
                    self.editor.set_text(&text);
                } else {
                    self.editor.set_text(&format!("{text}\n\n{current}"));
                }
                self.completion = None;
            }
            UiEvent::Clipboard(text) => self.clipboard.push(text),
            UiEvent::Palette(palette) => {
                self.theme = self.theme.with_palette(palette);
                self.transcript.invalidate();
            }
            UiEvent::Shutdown => self.quit(),
        }
    }

    fn agent_event(&mut self, event: AgentEvent) {
        self.transcript.apply(&event);
        match &event {
            AgentEvent::AgentStart => {
                self.running = true;
                self.quit_armed = false;
            }
            AgentEvent::AgentEnd { .. } => self.running = false,
            AgentEvent::QueueUpdate {
                steering,
                follow_up,
            } => self.queue = (steering.clone(), follow_up.clone()),
            AgentEvent::MessageEnd { message } => self.usage.add(message),
            AgentEvent::CompactionStart { .. } => {
                self.busy = Some("Compacting the conversation…".into())
            }
            AgentEvent::CompactionEnd { aborted, .. } => {
                self.busy = None;
                if !aborted {
                    // The next response tells the new size.
                    self.usage.context_tokens = 0;
                }
            }
            _ => {}
        }
    }

    pub fn handle_event(&mut self, event: Event) {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.key(key),
            Event::Paste(text) => {
                self.dirty = true;
                if let Some(dialog) = self.dialogs.front_mut() {
                    dialog.input.insert_str(&text.replace(['\n', '\r'], " "));
                } else if self.picker.is_none() {
                    match self.attachments.attach_pasted(&text) {
                        Some(chip) => self.editor.insert_str(&chip),
                        None => self.editor.insert_str(&text),
                    }
                    self.edited();
                }
            }
            Event::Resize(..) => self.dirty = true,
            _ => {}
        }
    }

    fn key(&mut self, key: KeyEvent) {
        self.dirty = true;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return self.ctrl_c();
        }
        if !self.dialogs.is_empty() {
            return self.dialog_key(key);
        }
        if self.picker.is_some() {
            return self.picker_key(key);
        }
        if self.completion.is_some() && self.completion_key(key) {
            return;
        }
        self.quit_armed = false;
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if let Some(action) = self.keymap.action(&key) {
            return self.key_action(action);
        }
        match key.code {
            KeyCode::Enter => {
                let (_, word) = self.editor.word_at_cursor();
                if word.ends_with('\\') {
                    // A trailing backslash continues the prompt on a new line, in any terminal.
                    self.edit(|e| {
                        e.backspace();
                        e.newline();
                    });
                } else {
                    self.submit(false);
                }
            }
            KeyCode::Char(c) if !ctrl => self.edit(|e| e.insert_char(c)),
            KeyCode::Tab => {
                self.completion_dismissed = false;
                self.refresh_completion();
            }
            KeyCode::Backspace => self.edit(Editor::backspace),
            KeyCode::Delete => self.edit(Editor::delete),
            KeyCode::Left => self.editor.left(),
            KeyCode::Right => self.editor.right(),
            KeyCode::Home if ctrl => self.scroll.top(),
            KeyCode::End if ctrl => self.scroll.follow(),
            KeyCode::Up if shift || alt => self.scroll.by(-1),
            KeyCode::Down if shift || alt => self.scroll.by(1),
            KeyCode::Up if !self.editor.up() => {
                self.editor.history_back();
            }
            KeyCode::Down if !self.editor.down() => {
                self.editor.history_forward();
            }
            KeyCode::PageUp => {
                let page = isize::try_from(self.view_height.saturating_sub(2))
                    .unwrap_or(1)
                    .max(1);
                self.scroll.by(-page);
            }
            KeyCode::PageDown => {
                let page = isize::try_from(self.view_height.saturating_sub(2))
                    .unwrap_or(1)
                    .max(1);
                self.scroll.by(page);
            }
            _ => {}
        }
    }

    /// A remappable key (see [`Keymap`]).
    fn key_action(&mut self, action: KeyAction) {
        match action {
            KeyAction::Interrupt => {
                if self.running || self.busy.is_some() {
                    self.actions.push(Action::Abort);
                } else {
                    self.scroll.follow();
                }
            }
            KeyAction::Exit => {
                if self.editor.is_empty() {
                    self.quit();
                } else {
                    self.edit(Editor::delete);
                }
            }
            KeyAction::FollowUp => self.submit(true),
            KeyAction::ModelSelect => self.actions.push(Action::Command {
                name: "model".into(),
                args: String::new(),
            }),
            KeyAction::ModelCycleForward => self.actions.push(Action::CycleModel { forward: true }),
            KeyAction::ModelCycleBackward => {
                self.actions.push(Action::CycleModel { forward: false })
            }
            KeyAction::ThinkingCycle => self.actions.push(Action::CycleThinking),
            KeyAction::ThinkingToggle => self.options.show_thinking = !self.options.show_thinking,
            KeyAction::ToolsExpand => self.options.expand_tools = !self.options.expand_tools,
            KeyAction::EditorExternal => self.external_edit = true,
            KeyAction::PasteImage => self.actions.push(Action::PasteImage),
            KeyAction::LineStart => self.editor.home(),
            KeyAction::LineEnd => self.editor.end(),
            KeyAction::WordLeft => self.editor.word_left(),
            KeyAction::WordRight => self.editor.word_right(),
            KeyAction::DeleteWordBackward => self.edit(Editor::delete_word),
            KeyAction::DeleteToLineEnd => self.edit(Editor::kill_to_end),
            KeyAction::DeleteToLineStart => self.edit(Editor::kill_to_start),
            KeyAction::NewLine => self.edit(Editor::newline),
        }
    }

    fn ctrl_c(&mut self) {
        if self.running || self.busy.is_some() || !self.dialogs.is_empty() {
            self.actions.push(Action::Abort);
            return;
        }
        if self.picker.take().is_some() {
            return;
        }
        if !self.editor.is_empty() {
            self.editor.clear();
            self.completion = None;
            return;
        }
        if self.quit_armed {
            self.quit();
        } else {
            self.quit_armed = true;
        }
    }

    fn quit(&mut self) {
        self.quit = true;
        self.actions.push(Action::Quit);
    }

    fn edit(&mut self, f: impl FnOnce(&mut Editor)) {
        f(&mut self.editor);
        self.edited();
    }

    fn edited(&mut self) {
        self.completion_dismissed = false;
        self.refresh_completion();
    }

    fn refresh_completion(&mut self) {
        self.completion = if self.completion_dismissed {
            None
        } else {
            complete(&self.editor, &self.commands, &self.files)
        };
    }

    /// Keys the completion popup takes; false lets the editor have the key.
    fn completion_key(&mut self, key: KeyEvent) -> bool {
        let Some(completion) = &mut self.completion else {
            return false;
        };
        let count = completion.items.len();
        match key.code {
            KeyCode::Up => {
                completion.selected = (completion.selected + count - 1) % count;
                true
            }
            KeyCode::Down => {
                completion.selected = (completion.selected + 1) % count;
                true
            }
            KeyCode::Esc => {
                self.completion = None;
                self.completion_dismissed = true;
                true
            }
            KeyCode::Tab => {
                self.accept_completion();
                true
            }
            KeyCode::Enter if key.modifiers.is_empty() => {
                let kind = completion.kind;
                self.accept_completion();
                if kind == Kind::Command {
                    self.submit(false);
                }
                true
            }
            _ => false,
        }
    }

    fn accept_completion(&mut self) {
        let Some(completion) = self.completion.take() else {
            return;
        };
        if let Some(item) = completion.items.get(completion.selected) {
            let (_, col) = self.editor.cursor();
            self.editor.replace(completion.start, col, &item.text);
        }
        self.completion_dismissed = true;
    }

    fn submit(&mut self, follow_up: bool) {
        let text = self.editor.text();
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        self.editor.remember(trimmed);
        self.editor.clear();
        self.completion = None;
        self.completion_dismissed = false;
        self.scroll.follow();
        if let Some(rest) = trimmed.strip_prefix('/') {
            let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if matches!(name, "quit" | "exit") {
                return self.quit();
            }
            // Unknown `/words` may be paths: they go to the model as text.
            if self.commands.iter().any(|c| c.name == name) {
                self.actions.push(Action::Command {
                    name: name.to_string(),
                    args: args.trim().to_string(),
                });
                return;
            }
        }
        let text = trimmed.to_string();
        let images = self.attachments.take_for(&text);
        if !images.is_empty() {
            self.actions.push(Action::Attach(images));
        }
        self.actions.push(if !self.running {
            Action::Prompt(text)
        } else if follow_up {
            Action::FollowUp(text)
        } else {
            Action::Steer(text)
        });
    }

    fn dialog_key(&mut self, key: KeyEvent) {
        let guard = self.dialog_guard;
        let Some(dialog) = self.dialogs.front_mut() else {
            return;
        };
        let fresh = dialog.shown.is_some_and(|shown| shown.elapsed() < guard);
        let answers = matches!(key.code, KeyCode::Enter | KeyCode::Char(_));
        if fresh && answers {
            return;
        }
        let answer = match &dialog.request.kind {
            DialogKind::Confirm { .. } => match key.code {
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
            DialogKind::Select { options, .. } => {
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
            DialogKind::Input { .. } => match key.code {
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
            if let Some(dialog) = self.dialogs.pop_front() {
                // The plugin may have stopped waiting; then nobody needs the answer.
                let _ = dialog.request.reply.send(answer);
            }
            self.show_next_dialog();
        }
    }

    /// Starts the typeahead guard of the dialog now at the front.
    fn show_next_dialog(&mut self) {
        if let Some(front) = self.dialogs.front_mut() {
            front.shown.get_or_insert_with(Instant::now);
        }
    }

    /// Sets how long a new dialog ignores answering keys ([`DIALOG_TYPEAHEAD_GUARD`] by
    /// default); tests that answer at once set zero.
    pub fn set_dialog_guard(&mut self, guard: Duration) {
        self.dialog_guard = guard;
    }

    fn picker_key(&mut self, key: KeyEvent) {
        let Some(state) = &mut self.picker else {
            return;
        };
        match state.key(key) {
            Outcome::Stay => {}
            Outcome::Close => self.picker = None,
            Outcome::Chosen(action) => {
                self.picker = None;
                self.actions.push(action);
            }
            Outcome::Asked(action) => self.actions.push(action),
        }
    }
}

#[cfg(test)]
mod subagent_usage_tests {
    use super::*;
    use tack_core::message::ToolResultMessage;

    #[test]
    fn a_subagents_usage_counts_in_the_footer_but_not_its_context() {
        let mut usage = Usage {
            context_tokens: 500,
            ..Usage::default()
        };
        let result = Message::ToolResult(ToolResultMessage {
            tool_call_id: "t1".into(),
            tool_name: "task".into(),
            content: Vec::new(),
            details: Some(serde_json::json!({
                "subagent": { "usage": { "input": 1000, "output": 50, "cacheRead": 10,
                                         "cacheWrite": 0, "cost": 0.25 } }
            })),
            is_error: false,
            timestamp: 0,
            rewrite: None,
        });
        usage.add(&result);
        assert_eq!(usage.input, 1010);
        assert_eq!(usage.output, 50);
        assert!((usage.cost - 0.25).abs() < 1e-9);
        assert_eq!(usage.context_tokens, 500);
    }
}
