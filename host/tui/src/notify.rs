//! Telling the user, through the terminal, that the agent is done or needs an answer while they
//! look at another window: a desktop notification in the escape sequence their terminal speaks
//! (OSC 777, OSC 9, OSC 99), or the bell. Sent only when the terminal has said it lost focus
//! (focus reporting, `CSI ? 1004 h`), so a user watching the run is not interrupted.

use std::io;

/// How a notification reaches the desktop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notifier {
    /// `ESC ] 777 ; notify ; title ; body BEL`: Ghostty, WezTerm, rxvt-unicode, foot, Konsole.
    Osc777,
    /// `ESC ] 9 ; body BEL`: iTerm2, Windows Terminal.
    Osc9,
    /// `ESC ] 99 ; ; body ESC \`: kitty.
    Osc99,
    /// The bell: most terminals mark the tab or window.
    Bell,
    Off,
}

impl Notifier {
    /// The `notify` setting: `auto` (the default) picks by the terminal, or one named kind.
    pub fn from_setting(setting: Option<&str>) -> Result<Notifier, String> {
        Ok(match setting.unwrap_or("auto") {
            "auto" => Notifier::detect(|name| std::env::var(name).ok()),
            "osc777" => Notifier::Osc777,
            "osc9" => Notifier::Osc9,
            "osc99" => Notifier::Osc99,
            "bell" => Notifier::Bell,
            "off" => Notifier::Off,
            other => {
                return Err(format!(
                    "notify = \"{other}\" is not one of auto, osc777, osc9, osc99, bell, off"
                ))
            }
        })
    }

    /// The kind the terminal is known to show, from what it says of itself in the environment;
    /// the bell for any other.
    pub fn detect(var: impl Fn(&str) -> Option<String>) -> Notifier {
        let program = var("TERM_PROGRAM").unwrap_or_default();
        let term = var("TERM").unwrap_or_default();
        if var("KITTY_WINDOW_ID").is_some() || term == "xterm-kitty" {
            return Notifier::Osc99;
        }
        match program.as_str() {
            "iTerm.app" => Notifier::Osc9,
            "ghostty" | "WezTerm" => Notifier::Osc777,
            _ if var("WT_SESSION").is_some() => Notifier::Osc9,
            _ if term.starts_with("rxvt") || term.starts_with("foot") => Notifier::Osc777,
            _ if var("KONSOLE_VERSION").is_some() => Notifier::Osc777,
            _ => Notifier::Bell,
        }
    }

    /// The bytes that show `title` and `body`, wrapped for tmux (`inside_tmux`) so it passes
    /// them on to the terminal outside. What a model wrote ends up in `body`: every control
    /// character is dropped, so nothing in it can end the sequence and start another.
    pub fn sequence(self, title: &str, body: &str, inside_tmux: bool) -> Option<String> {
        let title = printable(title, 60);
        let body = printable(body, 200);
        let raw = match self {
            Notifier::Off => return None,
            Notifier::Bell => return Some("\x07".into()),
            // `;` separates the fields.
            Notifier::Osc777 => format!(
                "\x1b]777;notify;{};{}\x07",
                title.replace(';', ","),
                body.replace(';', ",")
            ),
            Notifier::Osc9 => format!("\x1b]9;{title}: {body}\x07"),
            Notifier::Osc99 => format!("\x1b]99;;{title}: {body}\x1b\\"),
        };
        Some(match inside_tmux {
            // DCS passthrough: every ESC inside is doubled.
            true => format!("\x1bPtmux;{}\x1b\\", raw.replace('\x1b', "\x1b\x1b")),
            false => raw,
        })
    }
}

/// `text` on one line, without control characters, at most `max` characters.
fn printable(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

/// Writes a notification between frames, so it never splits a frame's escapes.
pub(crate) fn write(out: &mut impl io::Write, sequence: &str) -> io::Result<()> {
    out.write_all(sequence.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_terminal_gets_the_sequence_it_shows() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            Notifier::detect(env(&[("TERM_PROGRAM", "ghostty")])),
            Notifier::Osc777
        );
        assert_eq!(
            Notifier::detect(env(&[("TERM_PROGRAM", "iTerm.app")])),
            Notifier::Osc9
        );
        assert_eq!(
            Notifier::detect(env(&[("TERM", "xterm-kitty")])),
            Notifier::Osc99
        );
        assert_eq!(
            Notifier::detect(env(&[("TERM", "xterm-256color")])),
            Notifier::Bell
        );
        assert_eq!(
            Notifier::Osc777.sequence("tack", "Ready for input", false),
            Some("\x1b]777;notify;tack;Ready for input\x07".into())
        );
        assert_eq!(
            Notifier::Osc9.sequence("tack", "Ready", true),
            Some("\x1bPtmux;\x1b\x1b]9;tack: Ready\x07\x1b\\".into())
        );
        assert_eq!(Notifier::Off.sequence("tack", "x", false), None);
        assert!(Notifier::from_setting(Some("loud")).is_err());
    }

    #[test]
    fn what_a_model_wrote_cannot_escape_the_notification() {
        let hostile = "done\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J; rm -rf\n\u{9b}31m";
        let sequence = Notifier::Osc777
            .sequence("tack", hostile, false)
            .expect("a sequence");
        let inner = &sequence["\x1b]777;".len()..sequence.len() - 1];
        assert!(
            !inner.chars().any(|c| c.is_control()),
            "no control character inside: {sequence:?}"
        );
        assert_eq!(inner, "notify;tack;done]52,c,cm0gLXJmIH4=[2J, rm -rf 31m");
    }
}
