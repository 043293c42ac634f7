//! What the panes show and change: the conversation, the prompt being written, the agent's
//! progress, what plugins put on screen, and the actions waiting for the program. Events from
//! the agent and the host change it here; keys change it through the panes.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use tack_core::event::{
    AgentEvent, NoticeLevel, ScreenRead, ScreenReading, ScreenSetting, WorkingIndicator,
};

use crate::attachments::Attachments;
use crate::complete::Completion;
use crate::editor::Editor;
use crate::keymap::Keymap;
use crate::panes::component::ShownComponent;
use crate::panes::dialog::OpenDialog;
use crate::picker::PickerState;
use crate::protocol::{Action, CommandInfo, Display, EditorInput, FooterInfo, UiEvent};
use crate::render::blocks::ViewOptions;
use crate::scroll::Scroll;
use crate::theme::Theme;
use crate::transcript::{Block, Transcript};
use crate::usage::Usage;
use tack_core::keys::Chord;

mod editing;
mod plugin_editor;

pub(crate) use plugin_editor::PluginEditor;

/// How long a dialog ignores keys that would answer it, counted from when it comes on screen:
/// Enter typed to send a message a moment before a permission question pops up must not answer
/// "allow". Esc (the safe answer) and moving the highlight always work.
pub const DIALOG_TYPEAHEAD_GUARD: Duration = Duration::from_millis(300);

/// A plugin's widget: its lines, and whether they go below the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Widget {
    pub lines: Vec<String>,
    pub below: bool,
}

pub(crate) struct State {
    pub theme: Theme,
    pub transcript: Transcript,
    pub options: ViewOptions,
    pub scroll: Scroll,
    /// Height of the transcript view in the last frame, for paging.
    pub view_height: u16,
    pub editor: Editor,
    /// Blank columns on each side of the editor (`editor_padding`).
    pub editor_padding: u16,
    pub completion: Option<Completion>,
    pub completion_dismissed: bool,
    pub commands: Vec<CommandInfo>,
    pub files: Vec<String>,
    pub attachments: Attachments,
    pub keymap: Keymap,
    pub dialogs: VecDeque<OpenDialog>,
    pub dialog_guard: Duration,
    pub picker: Option<PickerState>,
    /// Queued steering and follow-up messages.
    pub queue: (Vec<String>, Vec<String>),
    pub running: bool,
    pub busy: Option<String>,
    pub spinner: usize,
    /// Ctrl+C on an empty, idle editor arms quitting; a second one quits.
    pub quit_armed: bool,
    pub statuses: BTreeMap<(String, String), String>,
    pub widgets: BTreeMap<(String, String), Widget>,
    pub footer: FooterInfo,
    pub usage: Usage,
    pub actions: Vec<Action>,
    /// Texts for the clipboard that the runner has yet to send to the terminal.
    pub clipboard: Vec<String>,
    /// A window title a plugin set that the runner has yet to send (empty: tack's).
    pub title: Option<String>,
    /// A plugin's text beside the spinner, in place of "Working…".
    pub working_message: Option<String>,
    /// Whether the spinner and its message show while the agent works (a plugin may hide them).
    pub working_visible: bool,
    /// A plugin's frames in place of the spinner.
    pub working_indicator: Option<WorkingIndicator>,
    /// Plugins' header lines, newest last: the newest shows over the conversation.
    pub headers: Vec<(String, Vec<String>)>,
    /// The name of the theme shown.
    pub theme_name: String,
    /// Keys plugins bound, in the order they were bound.
    pub shortcuts: Vec<PluginShortcut>,
    /// Whether a session's transcript was shown yet (notices before it are kept when it is).
    pub session_shown: bool,
    /// Plugins' footers (left, right), newest last: the newest shows in place of tack's.
    pub plugin_footers: Vec<(String, (String, String))>,
    /// Ctrl+G was pressed: the runner hands the text to the external editor.
    pub external_edit: bool,
    /// A plugin's component, with the keyboard while it is up.
    pub component: Option<ShownComponent>,
    /// The plugin whose component the user closed with Ctrl+C: its frames are answered
    /// "closed" until the call that drew it ends.
    pub component_refused: Option<String>,
    /// The terminal's columns and rows in the last frame.
    pub screen_size: (u16, u16),
    /// Plugins' editors in place of tack's (`screen.set-editor`), in the order they were put
    /// there: the last shows.
    pub editors: Vec<PluginEditor>,
    /// Plugins that complete the draft as it is typed, in the order they turned it on.
    pub input_completers: Vec<String>,
    /// The last question put to plugins' completions, and its number: an answer to an older
    /// one is stale.
    pub completion_asked: Option<(u64, crate::protocol::CompletionQuery)>,
    pub completion_seq: u64,
    pub quit: bool,
}

/// A key a plugin bound (`tack:plugin/shortcuts`, 0.2.0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginShortcut {
    pub plugin: String,
    /// As the plugin registered it, which is how it is told it was pressed.
    pub key: String,
    pub chord: Chord,
    pub description: String,
}

impl State {
    pub fn new(theme: Theme) -> State {
        State {
            theme,
            transcript: Transcript::default(),
            options: ViewOptions {
                show_images: Display::default().show_images,
                ..ViewOptions::default()
            },
            scroll: Scroll::default(),
            view_height: 20,
            editor: Editor::default(),
            editor_padding: Display::default().editor_padding,
            completion: None,
            completion_dismissed: false,
            commands: Vec::new(),
            files: Vec::new(),
            attachments: Attachments::default(),
            keymap: Keymap::default(),
            dialogs: VecDeque::new(),
            dialog_guard: DIALOG_TYPEAHEAD_GUARD,
            picker: None,
            queue: Default::default(),
            running: false,
            busy: None,
            spinner: 0,
            quit_armed: false,
            statuses: BTreeMap::new(),
            widgets: BTreeMap::new(),
            footer: FooterInfo::default(),
            usage: Usage::default(),
            actions: Vec::new(),
            clipboard: Vec::new(),
            title: None,
            working_message: None,
            working_visible: true,
            working_indicator: None,
            headers: Vec::new(),
            theme_name: "dark".to_string(),
            shortcuts: Vec::new(),
            session_shown: false,
            plugin_footers: Vec::new(),
            external_edit: false,
            component: None,
            component_refused: None,
            screen_size: (80, 24),
            input_completers: Vec::new(),
            editors: Vec::new(),
            completion_asked: None,
            completion_seq: 0,
            quit: false,
        }
    }

    pub fn apply(&mut self, event: UiEvent) {
        match event {
            UiEvent::Agent(event) => self.agent_event(event),
            UiEvent::Transcript(messages) => {
                // What plugins said while they loaded, before the first session was shown (a
                // shortcut that is not bound), stays on screen under it.
                let early = if self.session_shown {
                    Vec::new()
                } else {
                    self.transcript.take_notices()
                };
                self.session_shown = true;
                self.transcript.load(&messages);
                for notice in early {
                    self.transcript.push(notice);
                }
                self.usage = Usage::default();
                for message in &messages {
                    self.usage.add(message);
                }
                self.scroll.follow();
            }
            UiEvent::Dialog(request) => {
                let shown = self.dialogs.is_empty().then(Instant::now);
                self.dialogs.push_back(OpenDialog::new(request, shown));
            }
            UiEvent::DialogClosed(id) => {
                self.dialogs.retain(|d| d.request.id != id);
                self.show_next_dialog();
            }
            UiEvent::CloseDialogs => self.dialogs.clear(),
            UiEvent::Component(request) => self.show_component(request),
            UiEvent::ComponentClosed(plugin) => self.component_closed(&plugin),
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
            UiEvent::Widget {
                plugin,
                key,
                lines,
                below,
            } => {
                if lines.is_empty() {
                    self.widgets.remove(&(plugin, key));
                } else {
                    self.widgets.insert((plugin, key), Widget { lines, below });
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
            UiEvent::Title(title) => self.title = Some(title),
            UiEvent::SetEditorText { text, paste } => {
                if paste {
                    self.editor.insert_str(&text);
                } else {
                    self.editor.set_text(&text);
                }
                self.completion = None;
            }
            UiEvent::WorkingMessage(message) => self.working_message = message,
            UiEvent::PluginFooter { plugin, footer } => {
                self.plugin_footers.retain(|(owner, _)| *owner != plugin);
                if let Some(footer) = footer {
                    self.plugin_footers.push((plugin, footer));
                }
            }
            UiEvent::Palette { name, palette } => {
                self.theme = self.theme.with_palette(palette);
                self.theme_name = name;
                self.transcript.invalidate();
            }
            UiEvent::Screen { plugin, setting } => self.screen_setting(plugin, setting),
            UiEvent::Shortcut {
                plugin,
                key,
                description,
            } => self.bind_shortcut(plugin, key, description),
            UiEvent::Hotkeys => {
                let mut text = self.keymap.describe();
                if !self.shortcuts.is_empty() {
                    text.push_str("\n**Plugins' shortcuts**\n\n");
                    for s in &self.shortcuts {
                        text.push_str(&format!(
                            "- {}: {} ({})\n",
                            s.chord.display(),
                            s.description,
                            s.plugin
                        ));
                    }
                }
                self.transcript.push(Block::Info(text));
                self.scroll.follow();
            }
            UiEvent::ReadScreen { what, reply } => {
                let reading = match what {
                    ScreenRead::ToolsExpanded => {
                        ScreenReading::ToolsExpanded(self.options.expand_tools)
                    }
                    ScreenRead::EditorText => ScreenReading::EditorText(self.editor.text()),
                    ScreenRead::Theme => ScreenReading::Theme(self.theme_name.clone()),
                };
                // A plugin that stopped waiting (its call ended) needs no answer.
                let _ = reply.send(reading);
            }
            UiEvent::Shutdown => self.quit(),
            UiEvent::Completions { seq, items, prefix } => {
                self.plugin_completions(seq, items, &prefix)
            }
            UiEvent::PluginEditor {
                plugin,
                lines,
                submitted,
            } => {
                if let Some(editor) = self.editors.iter_mut().find(|e| e.plugin == plugin) {
                    editor.lines = lines;
                }
                if let Some(text) = submitted {
                    self.send_text(&text, false);
                }
            }
            UiEvent::PluginEditorFailed { plugin, error } => {
                // An answer for an editor already taken away (or replaced) says nothing.
                if self.editors.iter().any(|e| e.plugin == plugin) {
                    self.screen_setting(plugin.clone(), ScreenSetting::Editor(false));
                    self.transcript.push(Block::Notice {
                        level: NoticeLevel::Error,
                        text: format!("{plugin}'s editor failed, so tack's is back: {error}"),
                    });
                    self.scroll.follow();
                }
            }
            UiEvent::Rendered {
                key,
                drawing,
                never,
            } => self.transcript.drawn(key, drawing, never),
        }
    }

    /// Binds or unbinds a plugin's key. A key tack or another plugin holds stays theirs, and the
    /// user is told which plugin wanted it.
    fn bind_shortcut(&mut self, plugin: String, key: String, description: Option<String>) {
        self.shortcuts
            .retain(|s| !(s.plugin == plugin && s.key == key));
        let Some(description) = description else {
            return;
        };
        let refused = |state: &mut State, why: String| {
            state.transcript.push(Block::Notice {
                level: NoticeLevel::Warn,
                text: format!("[tack] {plugin}'s shortcut {key} is not bound: {why}"),
            });
        };
        let chord = match Chord::parse_shortcut(&key) {
            Ok(chord) => chord,
            Err(e) => return refused(self, e),
        };
        if let Some(what) = self.keymap.holder(&chord) {
            return refused(self, format!("{} is tack's ({what})", chord.display()));
        }
        if let Some(other) = self.shortcuts.iter().find(|s| s.chord == chord) {
            let why = format!("{} is {}'s shortcut", chord.display(), other.plugin);
            return refused(self, why);
        }
        self.shortcuts.push(PluginShortcut {
            plugin,
            key,
            chord,
            description,
        });
    }

    fn screen_setting(&mut self, plugin: String, setting: ScreenSetting) {
        match setting {
            ScreenSetting::WorkingVisible(visible) => self.working_visible = visible,
            ScreenSetting::WorkingIndicator(indicator) => self.working_indicator = indicator,
            ScreenSetting::HiddenThinkingLabel(label) => {
                self.options.thinking_label = label.map(std::sync::Arc::from);
                self.transcript.invalidate();
            }
            ScreenSetting::Header(lines) => {
                self.headers.retain(|(owner, _)| *owner != plugin);
                if !lines.is_empty() {
                    self.headers.push((plugin, lines));
                }
            }
            ScreenSetting::ToolsExpanded(expanded) => self.options.expand_tools = expanded,
            ScreenSetting::InputCompletion(enabled) => {
                self.input_completers.retain(|p| *p != plugin);
                if enabled {
                    self.input_completers.push(plugin);
                }
            }
            ScreenSetting::Editor(enabled) => {
                // Set again by the editor shown: it has something new to show.
                if enabled && self.plugin_editor().is_some_and(|e| e.plugin == plugin) {
                    return self.ask_editor(EditorInput::View);
                }
                let before = self.editors.last().map(|e| e.plugin.clone());
                self.editors.retain(|e| e.plugin != plugin);
                if enabled {
                    self.editors.push(PluginEditor {
                        plugin,
                        lines: Vec::new(),
                        width: 0,
                    });
                }
                if self.editors.last().map(|e| &e.plugin) != before.as_ref() {
                    self.ask_editor(EditorInput::View);
                }
            }
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

    /// Starts the typeahead guard of the dialog now at the front.
    pub fn show_next_dialog(&mut self) {
        if let Some(front) = self.dialogs.front_mut() {
            front.shown.get_or_insert_with(Instant::now);
        }
    }

    pub fn quit(&mut self) {
        self.quit = true;
        self.actions.push(Action::Quit);
    }
}
