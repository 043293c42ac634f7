//! `!cmd` and `!!cmd` in the terminal UI: the user's own shell command, judged by the policy
//! hooks, streamed into a card, and (for `!`) recorded for the model to see. Esc stops it.

use std::sync::Arc;

use serde_json::json;
use tack_core::event::AgentEvent;
use tack_core::message::ToolResult;
use tack_tui::UiEvent;
use tokio_util::sync::CancellationToken;

use super::controller::Controller;
use crate::commands::user_bash;
use crate::sync::lock;

/// What the card keeps on screen while the command runs; the session gets the bounded tail.
const SHOWN_BYTES: usize = 64 * 1024;

impl Controller {
    /// `line` without its `!`: `!cmd` when `exclude` is false, `!!cmd` when true.
    pub async fn user_shell(self: Arc<Self>, command: String, exclude: bool) {
        let command = command.trim().to_string();
        if command.is_empty() {
            self.send(UiEvent::Error(
                "nothing to run: type a command after `!`".into(),
            ));
            return;
        }
        let cancel = {
            let mut slot = lock(&self.shell);
            if slot.is_some() {
                self.send(UiEvent::Error(
                    "a shell command is already running (Esc stops it)".into(),
                ));
                return;
            }
            slot.insert(CancellationToken::new()).clone()
        };
        let id = format!("user-bash-{}", uuid::Uuid::now_v7().simple());
        let name = if exclude { "!!" } else { "!" };
        let outcome = self.run_shell(&id, name, &command, cancel).await;
        *lock(&self.shell) = None;
        self.send(UiEvent::Busy(None));
        match outcome {
            Ok((command, result)) if !exclude => {
                if let Err(e) = self
                    .driver
                    .append_when_idle(user_bash::entry(&command, &result))
                {
                    self.send(UiEvent::Error(format!(
                        "cannot record the command in the session: {e:#}"
                    )));
                }
            }
            Ok(_) => {}
            Err(e) => self.send(UiEvent::Error(format!("!{command}: {e:#}"))),
        }
    }

    async fn run_shell(
        &self,
        id: &str,
        name: &str,
        command: &str,
        cancel: CancellationToken,
    ) -> anyhow::Result<(String, tack_protocol::BashResult)> {
        let command = user_bash::judged(&self.front.agent, id, command).await?;
        self.send(UiEvent::Busy(Some(format!(
            "Running `{command}` (Esc stops it)"
        ))));
        self.send(UiEvent::Agent(AgentEvent::ToolExecutionStart {
            tool_call_id: id.to_string(),
            tool_name: name.to_string(),
            args: json!({ "command": command }),
            rewritten_by: Vec::new(),
        }));
        let mut shown = String::new();
        let result = user_bash::run(&command, &self.front.loaded.cwd, cancel, |chunk| {
            shown.push_str(chunk);
            if shown.len() > 2 * SHOWN_BYTES {
                let cut = shown.ceil_char_boundary(shown.len() - SHOWN_BYTES);
                shown.drain(..cut);
            }
            self.send(UiEvent::Agent(AgentEvent::ToolExecutionUpdate {
                tool_call_id: id.to_string(),
                tool_name: name.to_string(),
                partial: ToolResult::text(shown.clone()),
            }));
        })
        .await;
        let (text, is_error) = match &result {
            Ok(r) if r.cancelled => (format!("{}\n(stopped)", r.output), true),
            Ok(r) => match r.exit_code {
                Some(0) => (r.output.clone(), false),
                code => (
                    format!(
                        "{}\n(exit code {})",
                        r.output,
                        code.map_or("unknown".to_string(), |c| c.to_string())
                    ),
                    true,
                ),
            },
            Err(e) => (format!("{e:#}"), true),
        };
        self.send(UiEvent::Agent(AgentEvent::ToolExecutionEnd {
            tool_call_id: id.to_string(),
            tool_name: name.to_string(),
            result: ToolResult::text(text),
            is_error,
        }));
        Ok((command, result?))
    }

    /// Esc also stops the user's shell command.
    pub fn stop_shell(&self) {
        if let Some(cancel) = lock(&self.shell).as_ref() {
            cancel.cancel();
        }
    }
}
