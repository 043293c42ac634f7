//! Permission modes, as in Codex: how much runs without asking when no rule decides.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Reads only: write, edit and bash commands that are not read-only are denied.
    ReadOnly,
    /// Reads run; writes, edits and other commands ask.
    #[default]
    Ask,
    /// Everything inside the workspace runs; what reaches outside it, and what a rule calls
    /// dangerous, asks.
    Auto,
    /// Everything runs, except what the user's own rules deny.
    Yolo,
}

pub const ALL: [Mode; 4] = [Mode::ReadOnly, Mode::Ask, Mode::Auto, Mode::Yolo];

impl Mode {
    pub fn parse(text: &str) -> Option<Mode> {
        match text.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "read-only" | "readonly" => Some(Mode::ReadOnly),
            "ask" => Some(Mode::Ask),
            "auto" => Some(Mode::Auto),
            "yolo" => Some(Mode::Yolo),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only",
            Mode::Ask => "ask",
            Mode::Auto => "auto",
            Mode::Yolo => "yolo",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Mode::ReadOnly => {
                "reads only; writes, edits and commands that are not read-only are denied"
            }
            Mode::Ask => "reads run; writes, edits and commands that are not read-only ask first",
            Mode::Auto => {
                "work inside the workspace runs; anything outside it, or dangerous, asks first"
            }
            Mode::Yolo => "everything runs, except what your own rules deny",
        }
    }

    /// At most as permissive as `ask`: what applies while a rules file cannot be read, since its
    /// deny rules are unknown.
    pub fn capped(self) -> Mode {
        match self {
            Mode::Auto | Mode::Yolo => Mode::Ask,
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in ALL {
            assert_eq!(Mode::parse(mode.name()), Some(mode));
            let json = serde_json::to_string(&mode).expect("json");
            assert_eq!(json, format!("\"{}\"", mode.name()));
        }
        assert_eq!(Mode::parse("READ_ONLY"), Some(Mode::ReadOnly));
        assert_eq!(Mode::parse("never"), None);
        assert_eq!(Mode::Yolo.capped(), Mode::Ask);
    }
}
