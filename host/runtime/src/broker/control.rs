//! The host side of `tack:plugin/control` (0.2.0): the running agent and its session as Pi's
//! `ctx` shows them. Reads go to the agent the front end attached; names and labels are written
//! as the user's `/name` and `/label` write them; a compaction is only asked for here and runs
//! when the front end finds the agent idle.

use tack_core::agent::InputKind;

use crate::bindings::v0_2_0::tack::plugin0_2_0::control;
use crate::services::End;
use crate::state::{CallKind, PluginState};

/// Why a model change is refused where the mode keeps its model.
const NO_MODEL_CHANGES: &str =
    "the model and thinking level change only in the terminal UI and RPC mode";

/// The most a plugin may say about the summary it asks for: the summarizer's prompt carries it.
const MAX_INSTRUCTIONS: usize = 8 * 1024;

impl control::Host for PluginState {
    async fn model(&mut self) -> wasmtime::Result<Option<control::ModelInfo>> {
        let Some(agent) = self.env.services.agent.agent() else {
            return Ok(None);
        };
        Ok(Some(model_info(agent.config().model)))
    }

    async fn thinking_level(&mut self) -> wasmtime::Result<String> {
        let level = self
            .env
            .services
            .agent
            .agent()
            .map(|agent| agent.config().reasoning)
            .unwrap_or_default();
        Ok(level.as_str().to_string())
    }

    async fn context_usage(&mut self) -> wasmtime::Result<Option<control::ContextWindowUsage>> {
        let Some(agent) = self.env.services.agent.agent() else {
            return Ok(None);
        };
        let usage = agent.context_usage();
        Ok(Some(control::ContextWindowUsage {
            tokens: u32::try_from(usage.tokens).unwrap_or(u32::MAX),
            context_window: usage.context_window,
            percent: usage.percent as f32,
        }))
    }

    async fn is_idle(&mut self) -> wasmtime::Result<bool> {
        Ok(self
            .env
            .services
            .agent
            .agent()
            .is_none_or(|agent| !agent.is_running()))
    }

    async fn has_ui(&mut self) -> wasmtime::Result<bool> {
        Ok(self.env.services.ui.has_ui())
    }

    async fn has_pending_messages(&mut self) -> wasmtime::Result<bool> {
        Ok(self
            .env
            .services
            .agent
            .agent()
            .is_some_and(|agent| !agent.queues().is_empty()))
    }

    async fn system_prompt(&mut self) -> wasmtime::Result<String> {
        Ok(self
            .env
            .services
            .agent
            .agent()
            .map(|agent| agent.config().system_prompt)
            .unwrap_or_default())
    }

    async fn session_name(&mut self) -> wasmtime::Result<Option<String>> {
        Ok(self.env.services.session.session_name())
    }

    async fn set_session_name(&mut self, name: String) -> wasmtime::Result<Result<(), String>> {
        Ok(self.env.services.session.set_session_name(&name))
    }

    async fn set_label(
        &mut self,
        entry_id: String,
        label: Option<String>,
    ) -> wasmtime::Result<Result<(), String>> {
        Ok(self
            .env
            .services
            .session
            .set_label(&entry_id, label.as_deref()))
    }

    async fn session_entries(&mut self) -> wasmtime::Result<String> {
        Ok(self.env.services.session.session_entries(&self.env.name))
    }

    async fn session_header(&mut self) -> wasmtime::Result<String> {
        Ok(self.env.services.session.session_header())
    }

    async fn leaf_id(&mut self) -> wasmtime::Result<Option<String>> {
        Ok(self.env.services.session.leaf_id())
    }

    async fn abort(&mut self) -> wasmtime::Result<bool> {
        let stopped = self
            .env
            .services
            .agent
            .agent()
            .is_some_and(|agent| agent.abort_run());
        if stopped {
            self.env.services.ui.notify(
                &self.env.name,
                crate::api::Level::Warn,
                "stopped the agent's run",
            );
        }
        Ok(stopped)
    }

    async fn compact(
        &mut self,
        instructions: Option<String>,
    ) -> wasmtime::Result<Result<(), String>> {
        if let Some(text) = &instructions {
            if text.len() > MAX_INSTRUCTIONS {
                return Ok(Err(format!(
                    "the compaction instructions are {} bytes; at most {MAX_INSTRUCTIONS} are allowed",
                    text.len()
                )));
            }
        }
        let instructions = instructions.filter(|i| !i.trim().is_empty());
        self.env
            .services
            .agent
            .request_compaction(&self.env.name, instructions);
        Ok(Ok(()))
    }

    async fn shutdown(&mut self) -> wasmtime::Result<()> {
        // Every front end takes a quit; the result is for reloads.
        let _ = self
            .env
            .services
            .agent
            .request_end(&self.env.name, End::Quit);
        Ok(())
    }

    async fn reload(&mut self) -> wasmtime::Result<Result<(), String>> {
        Ok(self
            .env
            .services
            .agent
            .request_end(&self.env.name, End::Reload))
    }

    async fn wait_for_idle(&mut self) -> wasmtime::Result<Result<bool, String>> {
        // Heard in a call with a command's powers, so only a command the user ran may ask,
        // and only once: a plugin does not keep those powers over every run after it.
        match self.call.kind {
            CallKind::Command { after_idle: false } => {}
            CallKind::Command { after_idle: true } => {
                return Ok(Err(
                    "a command waits for idle once: it went on after the run it waited for".into(),
                ))
            }
            _ => {
                return Ok(Err(
                    "only a command the user runs may wait for idle (Pi's ctx.waitForIdle is a command's)"
                        .into(),
                ))
            }
        }
        let services = &self.env.services.agent;
        // A message waiting in the queues starts a run (the one a command just sent, say):
        // that run is waited for too.
        let busy = services
            .agent()
            .is_some_and(|agent| agent.is_running() || !agent.queues().is_empty());
        if !busy {
            return Ok(Ok(false));
        }
        Ok(services.wait_for_idle(&self.env.name).map(|()| true))
    }

    async fn new_session(&mut self, with_parent: bool) -> wasmtime::Result<Result<(), String>> {
        // The user's own request: a new session starts without the session's policy state
        // (plan mode, say), so a tool, hook or event may not move the user there.
        if !matches!(self.call.kind, CallKind::Command { .. }) {
            return Ok(Err(
                "only a command the user runs may start a new session (Pi's ctx.newSession is a command's)"
                    .into(),
            ));
        }
        Ok(self
            .env
            .services
            .agent
            .request_end(&self.env.name, End::NewSession { with_parent }))
    }

    async fn fork(&mut self, entry_id: String, at: bool) -> wasmtime::Result<Result<(), String>> {
        if !matches!(self.call.kind, CallKind::Command { .. }) {
            return Ok(Err(
                "only a command the user runs may fork the session (Pi's ctx.fork is a command's)"
                    .into(),
            ));
        }
        let entry_id = self.ui_text("an entry id", &entry_id)?;
        Ok(self
            .env
            .services
            .agent
            .request_end(&self.env.name, End::Fork { entry_id, at }))
    }

    async fn navigate_tree(
        &mut self,
        entry_id: String,
        summarize: bool,
        focus: Option<String>,
    ) -> wasmtime::Result<Result<(), String>> {
        if !matches!(self.call.kind, CallKind::Command { .. }) {
            return Ok(Err(
                "only a command the user runs may move in the session tree (Pi's ctx.navigateTree is a command's)"
                    .into(),
            ));
        }
        let entry_id = self.ui_line("an entry id", &entry_id)?;
        // The front end runs the user's `/tree <entry> …`: an id is one word, so nothing of it
        // reads as the command's options.
        if entry_id.is_empty() || entry_id.contains(char::is_whitespace) {
            return Ok(Err(format!("'{entry_id}' is not an entry id")));
        }
        let focus = focus
            .map(|f| self.ui_line("a summary's focus", &f))
            .transpose()?;
        Ok(self.env.services.agent.request_end(
            &self.env.name,
            End::Tree {
                entry_id,
                summarize,
                focus,
            },
        ))
    }

    async fn switch_session(&mut self, session: String) -> wasmtime::Result<Result<(), String>> {
        if !matches!(self.call.kind, CallKind::Command { .. }) {
            return Ok(Err(
                "only a command the user runs may switch sessions (Pi's ctx.switchSession is a command's)"
                    .into(),
            ));
        }
        let session = self.ui_text("a session", &session)?;
        Ok(self
            .env
            .services
            .agent
            .request_end(&self.env.name, End::Switch { session }))
    }

    async fn set_model(&mut self, model: String) -> wasmtime::Result<Result<(), String>> {
        let Some(control) = self.env.services.agent.model_control() else {
            return Ok(Err(NO_MODEL_CHANGES.into()));
        };
        Ok(control.set_model(&self.env.name, &model))
    }

    async fn set_thinking_level(
        &mut self,
        level: String,
    ) -> wasmtime::Result<Result<String, String>> {
        let Some(control) = self.env.services.agent.model_control() else {
            return Ok(Err(NO_MODEL_CHANGES.into()));
        };
        Ok(control.set_thinking_level(&self.env.name, &level))
    }

    async fn send_custom_message(
        &mut self,
        message: control::OutgoingMessage,
        details: Option<String>,
        delivery: control::Delivery,
        trigger_turn: bool,
    ) -> wasmtime::Result<Result<(), String>> {
        let size = message.text.len() + details.as_ref().map_or(0, String::len);
        if size > self.env.budgets.message_bytes {
            return Ok(Err(format!(
                "a message with its details takes {size} bytes; at most {} may be sent",
                self.env.budgets.message_bytes
            )));
        }
        let details = match details.map(|d| serde_json::from_str::<serde_json::Value>(&d)) {
            None => None,
            Some(Ok(details)) => Some(details),
            Some(Err(e)) => return Ok(Err(format!("the details are not JSON: {e}"))),
        };
        self.env.services.agent.send_message(
            &self.env.name,
            message,
            details,
            delivery,
            trigger_turn,
        );
        Ok(Ok(()))
    }
}

/// A model as `tack:plugin/control` (and `models.available`) describe one.
pub(super) fn model_info(model: tack_core::agent::ModelInfo) -> control::ModelInfo {
    control::ModelInfo {
        images: model.input.contains(&InputKind::Image),
        provider: model.provider,
        id: model.id,
        name: model.name,
        context_window: model.context_window,
        reasoning: model.reasoning,
    }
}
