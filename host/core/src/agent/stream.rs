//! One assistant response: streaming it from the provider, with bounded retries.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::assemble::{Assembled, AssistantBuilder, Ending};
use super::provider::{ProviderError, ProviderErrorKind, ProviderRequest, StreamEvent};
use super::{Agent, AgentConfig, AgentError};
use crate::event::AgentEvent;
use crate::message::{AssistantMessage, Message, StopReason};

/// The turn's assistant message, stored in the session.
pub(super) struct Response {
    pub message: Arc<Message>,
    pub assistant: AssistantMessage,
    /// Tool call id → why its arguments could not be used.
    pub bad_arguments: HashMap<String, String>,
    /// Set when the provider reported a context overflow.
    pub overflow: Option<ProviderError>,
}

impl Agent {
    pub(super) async fn respond(
        &self,
        config: &AgentConfig,
        system_prompt: &str,
        cancel: &CancellationToken,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<Response, AgentError> {
        let policy = &config.retry;
        let max_attempts = policy.max_attempts.max(1);
        let mut attempt = 1;
        // A stream that could not be decoded once may be a fluke; twice, it is the provider's
        // answer, and repeating the request would only spend the budget.
        let mut malformed_retried = false;
        loop {
            let request = ProviderRequest {
                model: config.model.clone(),
                system_prompt: system_prompt.to_owned(),
                messages: self.context().await,
                tools: self.tools.tools(),
                max_tokens: config.max_tokens,
                reasoning: config.reasoning,
                options: config.provider_options.clone(),
                cancel: cancel.child_token(),
            };
            let (assembled, error, started) = self.stream_once(request, cancel).await;

            let retry_delay = match &error {
                Some(e)
                    if e.kind.is_retryable()
                        && attempt < max_attempts
                        && !cancel.is_cancelled()
                        && !(e.kind == ProviderErrorKind::Malformed && malformed_retried) =>
                {
                    malformed_retried |= e.kind == ProviderErrorKind::Malformed;
                    policy.delay(attempt, e.retry_after_ms)
                }
                _ => None,
            };
            if let (Some(delay), Some(error)) = (retry_delay, &error) {
                // The failed attempt streamed something front ends showed: close it.
                let closed = if started {
                    Some(
                        self.persist(Message::Assistant(assembled.message.clone()), true, added)
                            .await?,
                    )
                } else {
                    None
                };
                self.emit(AgentEvent::AutoRetryStart {
                    attempt,
                    max_attempts,
                    delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                    error_message: error.to_string(),
                })
                .await;
                let waited = tokio::select! {
                    biased;
                    _ = cancel.cancelled() => RetryWait::Aborted,
                    _ = self.retry_abort.notified() => RetryWait::Skipped,
                    _ = tokio::time::sleep(delay) => RetryWait::Elapsed,
                };
                match waited {
                    RetryWait::Elapsed => {}
                    RetryWait::Aborted => {
                        self.emit(AgentEvent::AutoRetryEnd {
                            success: false,
                            attempt,
                            final_error: Some("aborted by the user".into()),
                        })
                        .await;
                        let aborted = AssistantBuilder::new(&config.model).finish(Ending::Aborted);
                        return self.store(aborted, None, false, added).await;
                    }
                    // The user gave up on retrying: this attempt's failure is the turn's answer.
                    RetryWait::Skipped => {
                        let error = error.clone();
                        self.emit(AgentEvent::AutoRetryEnd {
                            success: false,
                            attempt,
                            final_error: Some(error.to_string()),
                        })
                        .await;
                        return match closed {
                            Some(message) => Ok(Response {
                                message,
                                assistant: assembled.message,
                                bad_arguments: assembled.bad_arguments,
                                overflow: None,
                            }),
                            None => self.store(assembled, Some(error), false, added).await,
                        };
                    }
                }
                attempt += 1;
                continue;
            }

            if attempt > 1 {
                let success =
                    error.is_none() && assembled.message.stop_reason != StopReason::Aborted;
                self.emit(AgentEvent::AutoRetryEnd {
                    success,
                    attempt,
                    final_error: (!success).then(|| {
                        assembled
                            .message
                            .error_message
                            .clone()
                            .unwrap_or_else(|| "aborted by the user".into())
                    }),
                })
                .await;
            }
            return self.store(assembled, error, started, added).await;
        }
    }

    async fn store(
        &self,
        assembled: Assembled,
        error: Option<ProviderError>,
        started: bool,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<Response, AgentError> {
        let assistant = assembled.message;
        let message = self
            .persist(Message::Assistant(assistant.clone()), started, added)
            .await?;
        Ok(Response {
            message,
            assistant,
            bad_arguments: assembled.bad_arguments,
            overflow: error.filter(|e| e.kind == ProviderErrorKind::ContextOverflow),
        })
    }

    /// Streams one response. Returns the assembled message, the provider error that ended it (if
    /// any) and whether `message_start` was emitted.
    async fn stream_once(
        &self,
        request: ProviderRequest,
        cancel: &CancellationToken,
    ) -> (Assembled, Option<ProviderError>, bool) {
        let mut builder = AssistantBuilder::new(&request.model);
        let opened = tokio::select! {
            biased;
            _ = cancel.cancelled() => None,
            opened = self.provider.stream(request) => Some(opened),
        };
        let mut stream = match opened {
            None => return (builder.finish(Ending::Aborted), None, false),
            Some(Err(error)) => {
                return (
                    builder.finish(Ending::Failed(error.clone())),
                    Some(error),
                    false,
                )
            }
            Some(Ok(stream)) => stream,
        };
        self.emit(AgentEvent::MessageStart {
            message: builder.snapshot(),
        })
        .await;
        let ending = loop {
            let next = tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                next = stream.next() => Some(next),
            };
            match next {
                None => break Ending::Aborted,
                Some(None) => break Ending::Complete,
                Some(Some(StreamEvent::Error(error))) => break Ending::Failed(error),
                Some(Some(event)) => {
                    if let Some(delta) = builder.apply(event) {
                        self.emit(AgentEvent::MessageUpdate {
                            message: builder.snapshot(),
                            delta,
                        })
                        .await;
                    }
                }
            }
        };
        // Dropping the stream ends the provider's response (and its HTTP request).
        drop(stream);
        let error = match &ending {
            Ending::Failed(error) => Some(error.clone()),
            _ => None,
        };
        (builder.finish(ending), error, true)
    }
}

/// How the wait before a retry ended.
enum RetryWait {
    Elapsed,
    /// The run was aborted.
    Aborted,
    /// `abort_retry`: no more tries.
    Skipped,
}
