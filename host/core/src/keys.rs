//! Keys as people write them (`ctrl+shift+p`, `alt+enter`, `f5`): the grammar of
//! `keybindings.toml`, which plugins' shortcuts (`tack:plugin/shortcuts`, 0.2.0) use too, so the
//! plugin runtime refuses a malformed key before the terminal UI ever sees it.

/// A key with its modifiers, normalised so that what terminals report matches what was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Chord {
    pub code: KeyName,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
}

/// The key codes a binding can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyName {
    Char(char),
    Enter,
    Tab,
    Escape,
    Backspace,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    F(u8),
}

impl Chord {
    /// The chord `text` names; the error says what in it is unknown.
    pub fn parse(text: &str) -> Result<Chord, String> {
        let lower = text.trim().to_lowercase();
        let mut parts: Vec<&str> = lower.split('+').collect();
        let key = parts.pop().filter(|k| !k.is_empty()).ok_or("no key")?;
        let (mut ctrl, mut alt, mut shift) = (false, false, false);
        for modifier in parts {
            match modifier {
                "ctrl" | "control" => ctrl = true,
                "alt" | "meta" | "option" => alt = true,
                "shift" => shift = true,
                other => return Err(format!("unknown modifier '{other}'")),
            }
        }
        let code = match key {
            "enter" | "return" => KeyName::Enter,
            "tab" => KeyName::Tab,
            "escape" | "esc" => KeyName::Escape,
            "backspace" => KeyName::Backspace,
            "up" => KeyName::Up,
            "down" => KeyName::Down,
            "left" => KeyName::Left,
            "right" => KeyName::Right,
            "home" => KeyName::Home,
            "end" => KeyName::End,
            "pageup" => KeyName::PageUp,
            "pagedown" => KeyName::PageDown,
            "space" => KeyName::Char(' '),
            f if f.len() > 1 && f.starts_with('f') => match f[1..].parse::<u8>() {
                Ok(n @ 1..=12) => KeyName::F(n),
                _ => return Err(format!("unknown key '{key}'")),
            },
            single if single.chars().count() == 1 => {
                KeyName::Char(single.chars().next().unwrap_or(' '))
            }
            other => return Err(format!("unknown key '{other}'")),
        };
        Ok(Chord {
            code,
            ctrl,
            alt,
            shift,
        })
    }

    /// As `/hotkeys` shows it: `Shift+Ctrl+P`.
    pub fn display(&self) -> String {
        let mut out = String::new();
        if self.shift {
            out.push_str("Shift+");
        }
        if self.ctrl {
            out.push_str("Ctrl+");
        }
        if self.alt {
            out.push_str("Alt+");
        }
        let key = match self.code {
            KeyName::Char(' ') => "Space".to_string(),
            KeyName::Char(c) => c.to_ascii_uppercase().to_string(),
            KeyName::F(n) => format!("F{n}"),
            KeyName::Escape => "Esc".to_string(),
            other => format!("{other:?}"),
        };
        out.push_str(&key);
        out
    }
}

impl Chord {
    /// A chord a plugin may bind (`tack:plugin/shortcuts`): with Ctrl or Alt, or a function key,
    /// so that typing text never runs a plugin.
    pub fn parse_shortcut(text: &str) -> Result<Chord, String> {
        let chord = Chord::parse(text)?;
        if chord.ctrl || chord.alt || matches!(chord.code, KeyName::F(_)) {
            Ok(chord)
        } else {
            Err(format!(
                "'{}' is a key people type: a shortcut holds ctrl or alt, or is f1 to f12",
                text.trim()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortcuts_need_a_modifier_or_a_function_key() {
        assert!(Chord::parse_shortcut("ctrl+shift+p").is_ok());
        assert!(Chord::parse_shortcut("alt+x").is_ok());
        assert!(Chord::parse_shortcut("f5").is_ok());
        let typed = Chord::parse_shortcut("shift+x").expect_err("refused");
        assert!(typed.contains("a key people type"), "{typed}");
        let unknown = Chord::parse_shortcut("hyper+x").expect_err("refused");
        assert_eq!(unknown, "unknown modifier 'hyper'");
        assert_eq!(
            Chord::parse("Ctrl+Shift+U"),
            Chord::parse("shift+ctrl+u"),
            "case and order do not matter"
        );
    }
}
