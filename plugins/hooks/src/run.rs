//! Running one hook command the way Claude Code does: through the shell, in the project, with
//! the event's JSON on standard input and `CLAUDE_PROJECT_DIR` set.
//!
//! The `exec` capability gives a command no standard input, so the JSON goes to a file in the
//! plugin's own data directory, and the script the shell runs first points its standard input at
//! that file (`exec 0< 'file'`) and then runs the hook's command line as written. Both the file
//! name and the project folder are single-quoted, so neither can break out of their word; the
//! command itself is the user's (or a trusted project's) shell code, run as such.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tack_sdk::exec::{self, ExecRequest};

use crate::settings::Hook;

/// How much of a hook's stdout or stderr is passed on to the model or the user.
const MAX_FEEDBACK: usize = 16 * 1024;

/// What a hook did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The exit code; `None` when it did not start, timed out or was killed.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Why it did not run to an exit code (could not start, timed out, cancelled).
    pub failure: Option<String>,
}

impl Outcome {
    /// Claude Code's JSON output: stdout of a hook that exited 0, when it is a JSON object.
    pub fn json(&self) -> Option<Value> {
        if self.code != Some(0) {
            return None;
        }
        let text = self.stdout.trim();
        if !text.starts_with('{') {
            return None;
        }
        serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object)
    }

    /// Exit code 2: Claude Code's blocking error.
    pub fn blocks(&self) -> bool {
        self.code == Some(2)
    }

    /// Any exit but 0 and 2, or no exit at all: a non-blocking error, shown to the user.
    pub fn error(&self, hook: &Hook) -> Option<String> {
        let why = match (&self.failure, self.code) {
            (Some(failure), _) => failure.clone(),
            (None, Some(0 | 2)) => return None,
            (None, Some(code)) => format!("exited with {code}"),
            (None, None) => "was killed".to_string(),
        };
        let stderr = clip(self.stderr.trim());
        Some(if stderr.is_empty() {
            format!("{} hook `{}` {why}", hook.event, hook.command)
        } else {
            format!("{} hook `{}` {why}: {stderr}", hook.event, hook.command)
        })
    }
}

/// Cuts what a hook printed to a size fit for a message.
pub fn clip(text: &str) -> String {
    if text.len() <= MAX_FEEDBACK {
        return text.to_string();
    }
    let mut end = MAX_FEEDBACK;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[… cut at {MAX_FEEDBACK} bytes]", &text[..end])
}

/// A word the shell reads as exactly `text`.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The script the shell runs for `command`, reading `input_file` as its standard input.
pub fn script(command: &str, project: &str, input_file: &str) -> String {
    format!(
        "CLAUDE_PROJECT_DIR={}; export CLAUDE_PROJECT_DIR\nexec 0< {}\n{command}\n",
        quote(project),
        quote(input_file)
    )
}

/// Runs `hook` with `input` on its standard input.
pub fn run(hook: &Hook, input: &Value, workspace: &str, data_dir: &str) -> Outcome {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let file = format!(
        "{}/input-{stamp}-{}.json",
        data_dir.trim_end_matches('/'),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    if let Err(e) = std::fs::write(&file, input.to_string()) {
        return Outcome {
            failure: Some(format!("could not be given its input ({file}: {e})")),
            ..Outcome::default()
        };
    }
    let request = ExecRequest::new(script(&hook.command, workspace, &file))
        .timeout(Duration::from_secs(hook.timeout_secs));
    let result = exec::run_streaming(&request, |_| {});
    let _ = std::fs::remove_file(&file);
    match result {
        Ok(output) => Outcome {
            code: output.code,
            failure: if output.timed_out {
                Some(format!("timed out after {} s", hook.timeout_secs))
            } else if output.cancelled {
                Some("was cancelled".into())
            } else {
                None
            },
            stdout: output.stdout,
            stderr: output.stderr,
        },
        Err(e) => Outcome {
            failure: Some(format!("could not run: {}", e.message())),
            ..Outcome::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_every_path_one_word() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        let text = script("./h.sh $1", "/p/it's", "/d/in.json");
        assert_eq!(
            text,
            "CLAUDE_PROJECT_DIR='/p/it'\\''s'; export CLAUDE_PROJECT_DIR\nexec 0< '/d/in.json'\n./h.sh $1\n"
        );
    }

    #[test]
    fn exit_codes_and_json_output() {
        let hook = Hook {
            event: "PreToolUse".into(),
            matcher: crate::settings::Matcher::Any,
            command: "x".into(),
            timeout_secs: 1,
            source: "s".into(),
        };
        let ok = Outcome {
            code: Some(0),
            stdout: "{\"decision\": \"block\"}\n".into(),
            ..Outcome::default()
        };
        assert_eq!(ok.json().expect("json")["decision"], "block");
        assert!(ok.error(&hook).is_none());
        let blocked = Outcome {
            code: Some(2),
            stdout: "{}".into(),
            ..Outcome::default()
        };
        assert!(blocked.blocks() && blocked.json().is_none() && blocked.error(&hook).is_none());
        let failed = Outcome {
            code: Some(1),
            stderr: "oops".into(),
            ..Outcome::default()
        };
        assert_eq!(
            failed.error(&hook).as_deref(),
            Some("PreToolUse hook `x` exited with 1: oops")
        );
        assert!(clip(&"é".repeat(MAX_FEEDBACK)).len() < MAX_FEEDBACK + 40);
    }
}
