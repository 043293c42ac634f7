//! The user's own shell command (`!cmd` in the terminal UI, RPC's `bash`): run on the host in
//! the workspace with the user's environment, not a tool call of the model, in its own process
//! group so an abort kills everything it started. Before it runs, the before-tool-call hooks
//! judge it as a `bash` call, so policy plugins see the user's commands as they see the model's.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use tack_core::agent::ToolDecision;
use tack_core::session::EntryKind;
use tack_core::Agent;
use tack_protocol::BashResult;
use tack_runtime::broker::exec::{ChildEnv, CommandPlan, Observed, ProcessHandle};
use tokio_util::sync::CancellationToken;

/// Output kept: the last 50 KB and at most the last 2000 lines, as the bash tool keeps.
const MAX_BYTES: usize = 50 * 1024;
const MAX_LINES: usize = 2000;

/// The command to run once the hooks have judged `command`: as typed, or as a plugin rewrote
/// it. A block is an error carrying the plugin's reason.
pub async fn judged(agent: &Agent, id: &str, command: &str) -> Result<String> {
    match agent.judge_user_command(id, command).await {
        ToolDecision::Allow => Ok(command.to_string()),
        ToolDecision::Block(reason) => bail!("blocked: {reason}"),
        ToolDecision::Rewrite { arguments, by } => match arguments["command"].as_str() {
            Some(rewritten) => Ok(rewritten.to_string()),
            None => bail!(
                "{} rewrote the command into arguments without a `command` string",
                by.join(", ")
            ),
        },
    }
}

/// Runs `command`; `on_output` hears the output as it comes (for a streaming view).
///
/// Outside the command sandbox and with the user's own environment: the user typed it, with
/// the authority of their own shell; the sandbox is for what plugins (and the model) run.
pub async fn run(
    command: &str,
    cwd: &Path,
    cancel: CancellationToken,
    mut on_output: impl FnMut(&str),
) -> Result<BashResult> {
    let mut process = ProcessHandle::spawn(
        CommandPlan::Shell(command.to_string()),
        ChildEnv::Inherit,
        cwd,
        None,
        cancel,
        None,
    )
    .with_context(|| format!("cannot start `{command}`"))?;
    let mut tail = Tail::default();
    loop {
        match process.next(Duration::from_secs(60)).await {
            Observed::Stdout(bytes) | Observed::Stderr(bytes) => {
                on_output(&String::from_utf8_lossy(&bytes));
                tail.push(&bytes);
            }
            Observed::Idle => {}
            Observed::Exited(exit_code) => return Ok(tail.finish(exit_code, false)),
            Observed::Cancelled | Observed::TimedOut => return Ok(tail.finish(None, true)),
        }
    }
}

/// The session entry that shows the model what the user ran: a custom message it sees as user
/// text, with the numbers in `details` for front ends.
pub fn entry(command: &str, result: &BashResult) -> EntryKind {
    let mut content = format!(
        "I ran `{command}` in the workspace:\n```\n{}",
        result.output
    );
    if !result.output.is_empty() && !result.output.ends_with('\n') {
        content.push('\n');
    }
    content.push_str("```");
    if result.truncated {
        content.push_str("\n(output cut to its last part)");
    }
    if result.cancelled {
        content.push_str("\n(the command was cancelled)");
    } else if let Some(code) = result.exit_code.filter(|c| *c != 0) {
        content.push_str(&format!("\n(exit code {code})"));
    }
    EntryKind::CustomMessage {
        custom_type: "bash".into(),
        content,
        display: true,
        details: Some(serde_json::json!({
            "command": command,
            "exitCode": result.exit_code,
            "cancelled": result.cancelled,
            "truncated": result.truncated,
        })),
    }
}

/// The end of the output, bounded while it streams in.
#[derive(Default)]
struct Tail {
    bytes: Vec<u8>,
    dropped: bool,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        // Trimmed in batches so a chatty command does not shift the buffer on every chunk.
        if self.bytes.len() > 2 * MAX_BYTES {
            let cut = self.bytes.len() - MAX_BYTES;
            self.bytes.drain(..cut);
            self.dropped = true;
        }
    }

    fn finish(mut self, exit_code: Option<i32>, cancelled: bool) -> BashResult {
        if self.bytes.len() > MAX_BYTES {
            let cut = self.bytes.len() - MAX_BYTES;
            self.bytes.drain(..cut);
            self.dropped = true;
        }
        // A cut may have split a character; skip to the next character boundary.
        let start = if self.dropped {
            self.bytes
                .iter()
                .position(|b| (*b & 0xC0) != 0x80)
                .unwrap_or(self.bytes.len())
        } else {
            0
        };
        let text = String::from_utf8_lossy(&self.bytes[start..]).into_owned();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let (output, truncated) = if lines.len() > MAX_LINES {
            (lines[lines.len() - MAX_LINES..].concat(), true)
        } else {
            (text.clone(), self.dropped)
        };
        BashResult {
            output,
            exit_code,
            cancelled,
            truncated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_output_keeps_its_end() {
        let mut tail = Tail::default();
        for i in 0..5000 {
            tail.push(format!("line {i}\n").as_bytes());
        }
        let result = tail.finish(Some(0), false);
        assert!(result.truncated);
        assert!(result.output.ends_with("line 4999\n"));
        assert_eq!(result.output.lines().count(), MAX_LINES);
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let mut tail = Tail::default();
        tail.push(&"é".repeat(MAX_BYTES).into_bytes());
        let result = tail.finish(Some(0), false);
        assert!(result.truncated);
        assert!(!result.output.contains('\u{FFFD}'));
    }

    #[tokio::test]
    async fn runs_in_the_workspace_and_reports_the_exit_code() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("here.txt"), "x").expect("file");
        let result = run(
            "ls; echo oops >&2; exit 3",
            dir.path(),
            CancellationToken::new(),
            |_| {},
        )
        .await
        .expect("runs");
        assert!(result.output.contains("here.txt"), "{}", result.output);
        assert!(result.output.contains("oops"));
        assert_eq!(result.exit_code, Some(3));
        assert!(!result.cancelled && !result.truncated);
    }
}
