//! The `hooks` section of Claude Code's settings files, as Claude Code documents it:
//!
//! ```json
//! { "hooks": { "PreToolUse": [
//!     { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./check.sh", "timeout": 30 } ] }
//! ] } }
//! ```
//!
//! Hooks of every file are merged, in file order; an identical command under one event runs once.
//! A `matcher` is a tool name, or a regular expression over it (`Edit|Write`, `Notebook.*`); `*`,
//! an empty one or none matches every tool. `"disableAllHooks": true` in any file turns them all
//! off, as in Claude Code.

use std::path::Path;

use serde_json::Value;

/// The events tack runs hooks for, by Claude Code's names.
pub const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "SubagentStop",
    "Notification",
];

/// Seconds a hook may run when its settings do not say, as in Claude Code.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// One command to run on an event.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    pub event: String,
    pub matcher: Matcher,
    pub command: String,
    pub timeout_secs: u64,
    /// The settings file it came from.
    pub source: String,
}

#[derive(Debug, Clone)]
pub enum Matcher {
    Any,
    Exact(String),
    Regex(regex::Regex),
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Matcher::Any, Matcher::Any) => true,
            (Matcher::Exact(a), Matcher::Exact(b)) => a == b,
            (Matcher::Regex(a), Matcher::Regex(b)) => a.as_str() == b.as_str(),
            _ => false,
        }
    }
}

impl Matcher {
    fn parse(text: Option<&str>) -> Result<Matcher, String> {
        let text = text.map(str::trim).unwrap_or_default();
        if text.is_empty() || text == "*" {
            return Ok(Matcher::Any);
        }
        if text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Ok(Matcher::Exact(text.to_string()));
        }
        // Claude Code matches the whole tool name.
        regex::Regex::new(&format!("^(?:{text})$"))
            .map(Matcher::Regex)
            .map_err(|e| format!("matcher `{text}` is not a regular expression: {e}"))
    }

    /// Whether a tool called `names` (Claude Code's name first, then tack's) matches.
    pub fn matches(&self, names: &[&str]) -> bool {
        match self {
            Matcher::Any => true,
            Matcher::Exact(name) => names.contains(&name.as_str()),
            Matcher::Regex(re) => names.iter().any(|n| re.is_match(n)),
        }
    }
}

/// The hooks of the settings files (`(path, text)`, in order) and a warning per entry left out.
pub fn parse(files: &[(String, String)]) -> (Vec<Hook>, Vec<String>) {
    let mut hooks: Vec<Hook> = Vec::new();
    let mut warnings = Vec::new();
    let mut disabled = false;
    for (path, text) in files {
        let settings: Value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(e) => {
                warnings.push(format!(
                    "{path} is not valid JSON ({e}); its hooks do not run"
                ));
                continue;
            }
        };
        if settings.get("disableAllHooks") == Some(&Value::Bool(true)) {
            disabled = true;
        }
        let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
            continue;
        };
        for (event, groups) in events {
            if !EVENTS.contains(&event.as_str()) {
                warnings.push(format!(
                    "{path}: tack runs no {event} hooks (it runs {})",
                    EVENTS.join(", ")
                ));
                continue;
            }
            let Some(groups) = groups.as_array() else {
                warnings.push(format!("{path}: hooks.{event} is not a list"));
                continue;
            };
            for group in groups {
                let matcher = match Matcher::parse(group.get("matcher").and_then(Value::as_str)) {
                    Ok(matcher) => matcher,
                    Err(why) => {
                        warnings.push(format!("{path}: hooks.{event}: {why}"));
                        continue;
                    }
                };
                let commands = group.get("hooks").and_then(Value::as_array);
                for entry in commands.into_iter().flatten() {
                    let kind = entry
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("command");
                    let command = entry.get("command").and_then(Value::as_str);
                    let (true, Some(command)) = (kind == "command", command) else {
                        warnings.push(format!(
                            "{path}: hooks.{event}: only `\"type\": \"command\"` hooks run in tack"
                        ));
                        continue;
                    };
                    let timeout_secs = entry
                        .get("timeout")
                        .and_then(Value::as_u64)
                        .filter(|t| *t > 0)
                        .unwrap_or(DEFAULT_TIMEOUT_SECS);
                    let hook = Hook {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        command: command.to_string(),
                        timeout_secs,
                        source: path.clone(),
                    };
                    let duplicate = hooks.iter().any(|h| {
                        h.event == hook.event
                            && h.matcher == hook.matcher
                            && h.command == hook.command
                    });
                    if !duplicate {
                        hooks.push(hook);
                    }
                }
            }
        }
    }
    if disabled {
        hooks.clear();
    }
    (hooks, warnings)
}

/// Reads the settings files that exist; a file that cannot be read is a warning.
pub fn read(paths: &[String]) -> (Vec<(String, String)>, Vec<String>) {
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    for path in paths {
        match std::fs::read_to_string(Path::new(path)) {
            Ok(text) => files.push((path.clone(), text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => warnings.push(format!("cannot read {path} ({e}); its hooks do not run")),
        }
    }
    (files, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(json: &str) -> (Vec<Hook>, Vec<String>) {
        parse(&[("s.json".to_string(), json.to_string())])
    }

    #[test]
    fn hooks_merge_match_and_dedupe() {
        let settings = r#"{"hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "a.sh", "timeout": 5}]},
                {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "b.sh"}]},
                {"hooks": [{"type": "command", "command": "c.sh"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "d.sh"}]}],
            "Notification": [{"hooks": [{"type": "command", "command": "e.sh"}]}],
            "PermissionRequest": [{"hooks": [{"type": "command", "command": "f.sh"}]}]
        }}"#;
        let (hooks, warnings) = parse(&[
            ("user".into(), settings.into()),
            ("project".into(), settings.into()),
        ]);
        assert_eq!(
            hooks.len(),
            5,
            "the second file's copies run once: {hooks:?}"
        );
        // Events come in the order of their names: the Notification hook first.
        assert_eq!(hooks[0].event, "Notification");
        let hooks = &hooks[1..];
        assert_eq!(hooks[0].timeout_secs, 5);
        assert_eq!(hooks[1].timeout_secs, DEFAULT_TIMEOUT_SECS);
        assert!(hooks[0].matcher.matches(&["Bash", "bash"]));
        assert!(!hooks[0].matcher.matches(&["Read", "read"]));
        assert!(hooks[1].matcher.matches(&["Write", "write"]));
        assert!(!hooks[1].matcher.matches(&["WriteX", "writex"]));
        assert!(hooks[2].matcher.matches(&["anything"]));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("PermissionRequest"));
    }

    #[test]
    fn broken_settings_and_disable_all() {
        let (hooks, warnings) = one("{");
        assert!(hooks.is_empty());
        assert!(warnings[0].contains("not valid JSON"));
        let (hooks, _) = one(
            r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#,
        );
        assert!(hooks.is_empty());
        let (hooks, warnings) = one(
            r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]}}"#,
        );
        assert!(hooks.is_empty());
        assert!(warnings[0].contains("regular expression"), "{warnings:?}");
    }
}
