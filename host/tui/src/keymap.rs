//! The UI's remappable actions and their keys: the defaults (Pi's), changed by
//! `<tack home>/keybindings.toml`, where each action names one key or a list of keys:
//!
//! ```toml
//! "model.select" = "ctrl+k"
//! "editor.external" = ["ctrl+g", "alt+e"]
//! ```
//!
//! The editing actions (`editor.lineStart`, `editor.deleteWordBackward`, ...) are remappable
//! too; plain keys (letters, arrows, Backspace, Enter to send) are not.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tack_core::keys::{Chord, KeyName};

/// What a remappable key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyAction {
    Interrupt,
    Exit,
    FollowUp,
    ModelSelect,
    ModelCycleForward,
    ModelCycleBackward,
    ThinkingCycle,
    ThinkingToggle,
    ToolsExpand,
    EditorExternal,
    PasteImage,
    LineStart,
    LineEnd,
    WordLeft,
    WordRight,
    DeleteWordBackward,
    DeleteToLineEnd,
    DeleteToLineStart,
    NewLine,
}

impl KeyAction {
    const ALL: [KeyAction; 19] = [
        KeyAction::Interrupt,
        KeyAction::Exit,
        KeyAction::FollowUp,
        KeyAction::ModelSelect,
        KeyAction::ModelCycleForward,
        KeyAction::ModelCycleBackward,
        KeyAction::ThinkingCycle,
        KeyAction::ThinkingToggle,
        KeyAction::ToolsExpand,
        KeyAction::EditorExternal,
        KeyAction::PasteImage,
        KeyAction::LineStart,
        KeyAction::LineEnd,
        KeyAction::WordLeft,
        KeyAction::WordRight,
        KeyAction::DeleteWordBackward,
        KeyAction::DeleteToLineEnd,
        KeyAction::DeleteToLineStart,
        KeyAction::NewLine,
    ];

    /// The name in keybindings.toml.
    pub fn name(self) -> &'static str {
        match self {
            KeyAction::Interrupt => "interrupt",
            KeyAction::Exit => "exit",
            KeyAction::FollowUp => "message.followUp",
            KeyAction::ModelSelect => "model.select",
            KeyAction::ModelCycleForward => "model.cycleForward",
            KeyAction::ModelCycleBackward => "model.cycleBackward",
            KeyAction::ThinkingCycle => "thinking.cycle",
            KeyAction::ThinkingToggle => "thinking.toggle",
            KeyAction::ToolsExpand => "tools.expand",
            KeyAction::EditorExternal => "editor.external",
            KeyAction::PasteImage => "editor.pasteImage",
            KeyAction::LineStart => "editor.lineStart",
            KeyAction::LineEnd => "editor.lineEnd",
            KeyAction::WordLeft => "editor.wordLeft",
            KeyAction::WordRight => "editor.wordRight",
            KeyAction::DeleteWordBackward => "editor.deleteWordBackward",
            KeyAction::DeleteToLineEnd => "editor.deleteToLineEnd",
            KeyAction::DeleteToLineStart => "editor.deleteToLineStart",
            KeyAction::NewLine => "editor.newLine",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            KeyAction::Interrupt => "Abort the run or a `!` command",
            KeyAction::Exit => "Quit when the editor is empty",
            KeyAction::FollowUp => "Queue a follow-up while the agent works",
            KeyAction::ModelSelect => "Open the model picker",
            KeyAction::ModelCycleForward => "Next model of the --models scope",
            KeyAction::ModelCycleBackward => "Previous model of the --models scope",
            KeyAction::ThinkingCycle => "Next thinking level",
            KeyAction::ThinkingToggle => "Show or hide thinking",
            KeyAction::ToolsExpand => "Expand or fold tool output",
            KeyAction::EditorExternal => "Edit the prompt in $VISUAL / $EDITOR",
            KeyAction::PasteImage => "Attach the image on the clipboard",
            KeyAction::LineStart => "Cursor to the start of the line",
            KeyAction::LineEnd => "Cursor to the end of the line",
            KeyAction::WordLeft => "Cursor one word left",
            KeyAction::WordRight => "Cursor one word right",
            KeyAction::DeleteWordBackward => "Delete the word before the cursor",
            KeyAction::DeleteToLineEnd => "Delete to the end of the line",
            KeyAction::DeleteToLineStart => "Delete to the start of the line",
            KeyAction::NewLine => "A new line in the prompt",
        }
    }

    fn defaults(self) -> &'static [&'static str] {
        match self {
            KeyAction::Interrupt => &["escape"],
            KeyAction::Exit => &["ctrl+d"],
            KeyAction::FollowUp => &["alt+enter"],
            KeyAction::ModelSelect => &["ctrl+l"],
            KeyAction::ModelCycleForward => &["ctrl+p"],
            KeyAction::ModelCycleBackward => &["shift+ctrl+p"],
            KeyAction::ThinkingCycle => &["shift+tab"],
            KeyAction::ThinkingToggle => &["ctrl+t"],
            KeyAction::ToolsExpand => &["ctrl+o"],
            KeyAction::EditorExternal => &["ctrl+g"],
            KeyAction::PasteImage => &["ctrl+v"],
            KeyAction::LineStart => &["ctrl+a", "home"],
            KeyAction::LineEnd => &["ctrl+e", "end"],
            KeyAction::WordLeft => &["alt+left", "ctrl+left", "alt+b"],
            KeyAction::WordRight => &["alt+right", "ctrl+right", "alt+f"],
            KeyAction::DeleteWordBackward => &["ctrl+w", "alt+backspace", "ctrl+backspace"],
            KeyAction::DeleteToLineEnd => &["ctrl+k"],
            KeyAction::DeleteToLineStart => &["ctrl+u"],
            KeyAction::NewLine => &["shift+enter", "ctrl+enter", "ctrl+j"],
        }
    }

    fn by_name(name: &str) -> Option<KeyAction> {
        KeyAction::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// The chord a terminal reported, normalised as written chords are.
fn chord_of(key: &KeyEvent) -> Option<Chord> {
    let mods = key.modifiers;
    let mut shift = mods.contains(KeyModifiers::SHIFT);
    let code = match key.code {
        KeyCode::Char(c) => {
            // Terminals report Shift+letter as the upper-case letter, with or without SHIFT.
            if c.is_ascii_uppercase() {
                shift = true;
            }
            KeyName::Char(c.to_ascii_lowercase())
        }
        KeyCode::Enter => KeyName::Enter,
        KeyCode::Tab => KeyName::Tab,
        KeyCode::BackTab => {
            shift = true;
            KeyName::Tab
        }
        KeyCode::Esc => KeyName::Escape,
        KeyCode::Backspace => KeyName::Backspace,
        KeyCode::Up => KeyName::Up,
        KeyCode::Down => KeyName::Down,
        KeyCode::Left => KeyName::Left,
        KeyCode::Right => KeyName::Right,
        KeyCode::Home => KeyName::Home,
        KeyCode::End => KeyName::End,
        KeyCode::PageUp => KeyName::PageUp,
        KeyCode::PageDown => KeyName::PageDown,
        KeyCode::F(n) => KeyName::F(n),
        _ => return None,
    };
    Some(Chord {
        code,
        ctrl: mods.contains(KeyModifiers::CONTROL),
        alt: mods.contains(KeyModifiers::ALT),
        shift,
    })
}

/// Keys with a modifier that tack keeps whatever keybindings.toml says, with what they do.
const FIXED: &[(&str, &str)] = &[
    ("ctrl+c", "abort, clear or quit"),
    ("ctrl+home", "jump to the top"),
    ("ctrl+end", "jump to the end"),
    ("alt+up", "scroll up"),
    ("alt+down", "scroll down"),
];

/// Which keys do what.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: BTreeMap<KeyAction, Vec<Chord>>,
}

impl Default for Keymap {
    fn default() -> Self {
        let bindings = KeyAction::ALL
            .into_iter()
            .map(|action| {
                let chords = action
                    .defaults()
                    .iter()
                    .filter_map(|k| Chord::parse(k).ok())
                    .collect();
                (action, chords)
            })
            .collect();
        Keymap { bindings }
    }
}

impl Keymap {
    /// The defaults changed by a keybindings.toml's text; errors name the entry at fault.
    pub fn from_toml(text: &str) -> Result<Keymap, String> {
        let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut keymap = Keymap::default();
        for (name, value) in table {
            let action = KeyAction::by_name(&name).ok_or_else(|| {
                format!(
                    "unknown action '{name}' (known: {})",
                    KeyAction::ALL.map(KeyAction::name).join(", ")
                )
            })?;
            let keys: Vec<String> = match value {
                toml::Value::String(key) => vec![key],
                toml::Value::Array(keys) => keys
                    .into_iter()
                    .map(|k| match k {
                        toml::Value::String(k) => Ok(k),
                        other => Err(format!("{name}: a key is a string, not {other}")),
                    })
                    .collect::<Result<_, _>>()?,
                other => return Err(format!("{name}: a key or a list of keys, not {other}")),
            };
            let chords = keys
                .iter()
                .map(|k| Chord::parse(k).map_err(|e| format!("{name}: '{k}': {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            keymap.bindings.insert(action, chords);
        }
        Ok(keymap)
    }

    /// The chord a terminal reported, as written chords (and plugins' shortcuts) are compared.
    pub fn chord(key: &KeyEvent) -> Option<Chord> {
        chord_of(key)
    }

    /// What of tack's holds `chord` (an action, with the user's remaps, or a fixed key), so a
    /// plugin cannot take it; `None` when it is free.
    pub fn holder(&self, chord: &Chord) -> Option<&'static str> {
        self.bindings
            .iter()
            .find(|(_, chords)| chords.contains(chord))
            .map(|(action, _)| action.describe())
            .or_else(|| {
                FIXED
                    .iter()
                    .find(|(key, _)| Chord::parse(key).is_ok_and(|fixed| fixed == *chord))
                    .map(|(_, what)| *what)
            })
    }

    /// The action `key` is bound to.
    pub fn action(&self, key: &KeyEvent) -> Option<KeyAction> {
        let chord = chord_of(key)?;
        self.bindings
            .iter()
            .find(|(_, chords)| chords.contains(&chord))
            .map(|(action, _)| *action)
    }

    /// `/hotkeys`: the remappable actions and their keys, then the fixed editing keys.
    pub fn describe(&self) -> String {
        let mut out = String::from("**Keys** (remap them in `keybindings.toml`)\n\n");
        for (action, chords) in &self.bindings {
            let keys: Vec<String> = chords.iter().map(Chord::display).collect();
            let _ = writeln!(
                out,
                "- {}: {} (`{}`)",
                if keys.is_empty() {
                    "(no key)".to_string()
                } else {
                    keys.join(", ")
                },
                action.describe(),
                action.name(),
            );
        }
        out.push_str(
            "\n**Fixed**: Enter sends (`\\` then Enter adds a line); Up/Down walk the history; Tab \
             completes `/commands` and `@files`; Ctrl+C aborts, clears or (twice) quits; \
             PageUp/PageDown and Shift+Up/Down scroll; Ctrl+Home/End jump to the top and the \
             end.\n",
        );
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn defaults_and_remaps() {
        let defaults = Keymap::default();
        assert_eq!(
            defaults.action(&key(KeyCode::Char('l'), KeyModifiers::CONTROL)),
            Some(KeyAction::ModelSelect)
        );
        assert_eq!(
            defaults.action(&key(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(KeyAction::ThinkingCycle)
        );
        assert_eq!(
            defaults.action(&key(
                KeyCode::Char('P'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT
            )),
            Some(KeyAction::ModelCycleBackward)
        );
        let remapped = Keymap::from_toml(
            "\"model.select\" = \"ctrl+k\"\n\"editor.external\" = [\"ctrl+g\", \"alt+e\"]\n",
        )
        .unwrap();
        assert_eq!(
            remapped.action(&key(KeyCode::Char('l'), KeyModifiers::CONTROL)),
            None
        );
        assert_eq!(
            remapped.action(&key(KeyCode::Char('k'), KeyModifiers::CONTROL)),
            Some(KeyAction::ModelSelect)
        );
        assert_eq!(
            remapped.action(&key(KeyCode::Char('e'), KeyModifiers::ALT)),
            Some(KeyAction::EditorExternal)
        );
    }

    #[test]
    fn bad_files_name_what_is_wrong() {
        let unknown = Keymap::from_toml("\"fly\" = \"ctrl+f\"").unwrap_err();
        assert!(unknown.starts_with("unknown action 'fly'"), "{unknown}");
        let bad_key = Keymap::from_toml("\"model.select\" = \"hyper+x\"").unwrap_err();
        assert_eq!(bad_key, "model.select: 'hyper+x': unknown modifier 'hyper'");
        let not_string = Keymap::from_toml("\"model.select\" = 3").unwrap_err();
        assert!(
            not_string.contains("a key or a list of keys"),
            "{not_string}"
        );
    }

    #[test]
    fn the_help_lists_every_action() {
        insta::assert_snapshot!(Keymap::default().describe());
    }
}
