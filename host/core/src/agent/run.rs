//! The turn loop of a run.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{Agent, AgentConfig, AgentError, RunOutcome, RunStatus};
use crate::event::AgentEvent;
use crate::message::{llm_view, Message, StopReason};

impl Agent {
    pub(super) async fn run_loop(
        &self,
        initial: Vec<Message>,
        config: AgentConfig,
        system_prompt: String,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, AgentError> {
        let mut pending = initial;
        pending.extend(self.queues.take_steering());
        if pending.is_empty() && !self.can_continue() {
            return Err(AgentError::NothingToContinue);
        }

        self.emit(AgentEvent::AgentStart).await;
        let mut added: Vec<Arc<Message>> = Vec::new();
        let result = self
            .turns(pending, &config, &system_prompt, &cancel, &mut added)
            .await;
        if let Err(AgentError::Session(error)) = &result {
            self.emit(AgentEvent::Error {
                message: error.to_string(),
            })
            .await;
        }
        self.emit(AgentEvent::AgentEnd {
            messages: added.clone(),
        })
        .await;
        let status = result?;
        Ok(RunOutcome {
            status,
            messages: added,
        })
    }

    async fn turns(
        &self,
        mut pending: Vec<Message>,
        config: &AgentConfig,
        system_prompt: &str,
        cancel: &CancellationToken,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<RunStatus, AgentError> {
        // The first turn always runs: either new messages or a continuation asked for it.
        let mut wants_turn = true;
        let mut turn_index: u32 = 0;
        // An overflow is compacted and retried once; a second one in a row is returned.
        let mut retried_overflow = false;
        loop {
            while wants_turn || !pending.is_empty() {
                // No early exit on abort here: the prompt must still be stored, and the stream
                // then ends at once as an aborted message, keeping the session consistent.
                let timestamp = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
                self.emit(AgentEvent::TurnStart {
                    turn_index,
                    timestamp,
                })
                .await;
                for message in pending.drain(..) {
                    self.persist(message, false, added).await?;
                }

                let response = self.respond(config, system_prompt, cancel, added).await?;
                let tool_results = self
                    .run_tools(&response.assistant, &response.bad_arguments, cancel, added)
                    .await?;
                self.emit(AgentEvent::TurnEnd {
                    turn_index,
                    message: Arc::clone(&response.message),
                    tool_results,
                })
                .await;
                turn_index = turn_index.saturating_add(1);

                if let Some(error) = response.overflow {
                    if retried_overflow || !self.compact_after_overflow(config, cancel).await? {
                        return Err(AgentError::ContextOverflow(error));
                    }
                    retried_overflow = true;
                    wants_turn = true;
                    pending = self.queues.take_steering();
                    continue;
                }
                retried_overflow = false;
                match response.assistant.stop_reason {
                    StopReason::Aborted => return Ok(RunStatus::Aborted),
                    StopReason::Error => {
                        return Ok(RunStatus::Failed(
                            response.assistant.error_message.unwrap_or_default(),
                        ))
                    }
                    _ => {}
                }
                if cancel.is_cancelled() {
                    return Ok(RunStatus::Aborted);
                }
                self.compact_if_needed(config, cancel).await?;
                wants_turn = response.assistant.tool_calls().next().is_some();
                pending = self.queues.take_steering();
            }
            pending = self.queues.take_follow_up();
            if pending.is_empty() {
                return Ok(RunStatus::Completed);
            }
        }
    }

    /// Appends a complete message to the session, then announces it (`message_start` too unless
    /// streaming already did).
    pub(super) async fn persist(
        &self,
        message: Message,
        started: bool,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<Arc<Message>, AgentError> {
        let message = Arc::new(message);
        if !started {
            self.emit(AgentEvent::MessageStart {
                message: Arc::clone(&message),
            })
            .await;
        }
        self.session
            .lock()
            .append_message(Arc::clone(&message))
            .map(|_| ())?;
        self.emit(AgentEvent::MessageEnd {
            message: Arc::clone(&message),
        })
        .await;
        added.push(Arc::clone(&message));
        Ok(message)
    }

    /// The projected context, rewritten by the context hook, in the provider's view.
    pub(super) async fn context(&self) -> Arc<Vec<Arc<Message>>> {
        if !self.hooks.rewrites_context() {
            return self.session.lock().shared_llm_view();
        }
        let projected = self.session.lock().project();
        let projected = self.hooks.context(&projected).await.unwrap_or(projected);
        Arc::new(llm_view(&projected))
    }

    fn can_continue(&self) -> bool {
        matches!(
            self.session.lock().llm_view().last().map(|m| &**m),
            Some(Message::User(_) | Message::ToolResult(_))
        )
    }
}
