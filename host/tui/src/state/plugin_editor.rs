//! A plugin's editor in place of tack's (`screen.set-editor`, Pi's `setEditorComponent`): the
//! keys typed there go to the plugin, but for tack's own, and what it shows comes back from it.

use crossterm::event::KeyEvent;

use crate::keymap::KeyAction;
use crate::protocol::{Action, EditorInput};

use super::State;

/// A plugin's editor: whose, what it last drew, and for which width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginEditor {
    pub plugin: String,
    pub lines: Vec<String>,
    pub width: u16,
}

impl State {
    /// The plugin editor in place of tack's, if one is.
    pub fn plugin_editor(&self) -> Option<&PluginEditor> {
        self.editors.last()
    }

    /// Asks the editor in place (if any) for its lines after `input`, at the width it was last
    /// drawn in (the screen's, before its first frame).
    pub fn ask_editor(&mut self, input: EditorInput) {
        let screen_width = self.screen_size.0;
        let Some(editor) = self.editors.last_mut() else {
            return;
        };
        if editor.width == 0 {
            editor.width = screen_width;
        }
        let width = editor.width;
        let plugin = editor.plugin.clone();
        self.actions.push(Action::EditorInput {
            plugin,
            input,
            width,
        });
    }

    /// A key typed while a plugin's editor is in place: tack's own keys stay tack's (quitting,
    /// the model and thinking keys, expansion, scrolling, bound shortcuts, and Esc while the
    /// agent works), every other goes to the editor. False when no plugin's editor is there.
    pub fn plugin_editor_key(&mut self, key: KeyEvent, tacks: Option<KeyAction>) -> bool {
        if self.editors.is_empty() {
            return false;
        }
        let busy = self.running || self.busy.is_some();
        let tack_keeps = match tacks {
            Some(KeyAction::Interrupt) => busy,
            Some(
                KeyAction::Exit
                | KeyAction::ModelSelect
                | KeyAction::ModelCycleForward
                | KeyAction::ModelCycleBackward
                | KeyAction::ThinkingCycle
                | KeyAction::ThinkingToggle
                | KeyAction::ToolsExpand
                | KeyAction::PasteImage,
            ) => true,
            _ => false,
        };
        if tack_keeps {
            return false;
        }
        if let Some(name) = crate::panes::component::key_name(&key) {
            self.ask_editor(EditorInput::Key(name));
        }
        true
    }
}
