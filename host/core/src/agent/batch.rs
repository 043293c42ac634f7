//! Running the tool calls of one assistant message as a batch.
//!
//! Calls are prepared in the assistant's order (lookup, schema validation, before-tool-call
//! hook), then run concurrently, or one by one when any tool of the batch is sequential.
//! `tool_execution_end` fires as each call finishes; result messages are appended to the session
//! in the assistant's order, each as soon as every call before it has its result.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::FuturesUnordered;
use futures::StreamExt;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::hooks::ToolDecision;
use super::tools::{ExecutionMode, ToolError, ToolProgress, ToolSpec};
use super::{Agent, AgentError};
use crate::event::AgentEvent;
use crate::message::{
    now_ms, ArgumentRewrite, AssistantMessage, Message, StopReason, ToolCall, ToolResult,
    ToolResultMessage,
};

const ABORTED_BEFORE_START: &str = "Tool call aborted by the user before it started.";

impl Agent {
    /// Produces one result message per tool call of `assistant`, in order.
    pub(super) async fn run_tools(
        &self,
        assistant: &AssistantMessage,
        bad_arguments: &HashMap<String, String>,
        cancel: &CancellationToken,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<Vec<Arc<Message>>, AgentError> {
        let calls: Vec<&ToolCall> = assistant.tool_calls().collect();
        if calls.is_empty() {
            return Ok(Vec::new());
        }
        let unrun = match assistant.stop_reason {
            StopReason::Length => Some(String::from(
                "This tool call was not run: the response hit its output token limit \
                 (stopReason length), so the call may be incomplete. Make the call again with \
                 less content, for example by splitting a large write into several edits.",
            )),
            StopReason::Aborted => Some(String::from(
                "This tool call was not run: the user aborted the response before it was complete.",
            )),
            StopReason::Error => Some(format!(
                "This tool call was not run: the response failed before it was complete ({}).",
                assistant
                    .error_message
                    .as_deref()
                    .unwrap_or("unknown error")
            )),
            StopReason::Stop | StopReason::ToolUse => None,
        };
        if let Some(reason) = unrun {
            let mut results = Vec::with_capacity(calls.len());
            for call in calls {
                self.emit(start_event(call, None)).await;
                let result = ToolResult::error(reason.clone());
                self.emit(end_event(call, &result)).await;
                results.push(self.persist_result(call, result, None, added).await?);
            }
            return Ok(results);
        }

        let specs: HashMap<String, ToolSpec> = self
            .tools
            .tools()
            .into_iter()
            .map(|spec| (spec.name.clone(), spec))
            .collect();
        let sequential = calls.iter().any(|call| {
            specs
                .get(&call.name)
                .is_some_and(|spec| spec.mode == ExecutionMode::Sequential)
        });
        if sequential {
            self.run_sequential(&calls, &specs, bad_arguments, cancel, added)
                .await
        } else {
            self.run_parallel(&calls, &specs, bad_arguments, cancel, added)
                .await
        }
    }

    async fn run_sequential(
        &self,
        calls: &[&ToolCall],
        specs: &HashMap<String, ToolSpec>,
        bad_arguments: &HashMap<String, String>,
        cancel: &CancellationToken,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<Vec<Arc<Message>>, AgentError> {
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            let prepared = if cancel.is_cancelled() {
                Err(ToolResult::error(ABORTED_BEFORE_START))
            } else {
                self.prepare(call, specs, bad_arguments).await
            };
            let (result, rewrite) = match prepared {
                Err(result) => {
                    self.emit(start_event(call, None)).await;
                    (result, None)
                }
                Ok(prepared) => {
                    self.emit(start_event(call, Some(&prepared))).await;
                    let outcome = self.spawn_call(prepared.call.clone(), cancel).await;
                    let result = self.finish_call(&prepared.call, outcome).await;
                    (result, prepared.into_rewrite())
                }
            };
            self.emit(end_event(call, &result)).await;
            results.push(self.persist_result(call, result, rewrite, added).await?);
        }
        Ok(results)
    }

    async fn run_parallel(
        &self,
        calls: &[&ToolCall],
        specs: &HashMap<String, ToolSpec>,
        bad_arguments: &HashMap<String, String>,
        cancel: &CancellationToken,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<Vec<Arc<Message>>, AgentError> {
        let mut slots: Vec<Option<Finished>> = vec![None; calls.len()];
        let mut ready = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let prepared = if cancel.is_cancelled() {
                Err(ToolResult::error(ABORTED_BEFORE_START))
            } else {
                self.prepare(call, specs, bad_arguments).await
            };
            match prepared {
                Ok(prepared) => {
                    self.emit(start_event(call, Some(&prepared))).await;
                    ready.push((i, prepared));
                }
                Err(result) => {
                    self.emit(start_event(call, None)).await;
                    self.emit(end_event(call, &result)).await;
                    slots[i] = Some((result, None));
                }
            }
        }

        let mut results = Vec::with_capacity(calls.len());
        self.persist_ready(calls, &mut slots, &mut results, added)
            .await?;
        let mut running: FuturesUnordered<_> = ready
            .into_iter()
            .map(|(i, prepared)| {
                let outcome = self.spawn_call(prepared.call.clone(), cancel);
                async move { (i, prepared, outcome.await) }
            })
            .collect();
        while let Some((i, prepared, outcome)) = running.next().await {
            let result = self.finish_call(&prepared.call, outcome).await;
            self.emit(end_event(calls[i], &result)).await;
            slots[i] = Some((result, prepared.into_rewrite()));
            self.persist_ready(calls, &mut slots, &mut results, added)
                .await?;
        }
        Ok(results)
    }

    /// Appends the results that are next in the assistant's order and complete.
    async fn persist_ready(
        &self,
        calls: &[&ToolCall],
        slots: &mut [Option<Finished>],
        results: &mut Vec<Arc<Message>>,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<(), AgentError> {
        while let Some(slot) = slots.get_mut(results.len()) {
            let Some((result, rewrite)) = slot.take() else {
                break;
            };
            let call = calls[results.len()];
            results.push(self.persist_result(call, result, rewrite, added).await?);
        }
        Ok(())
    }

    /// Looks the tool up, validates the arguments and asks the before-tool-call hook. `Err` is
    /// the error result the model gets instead of running the call.
    async fn prepare(
        &self,
        call: &ToolCall,
        specs: &HashMap<String, ToolSpec>,
        bad_arguments: &HashMap<String, String>,
    ) -> Result<Prepared, ToolResult> {
        if let Some(problem) = bad_arguments.get(&call.id) {
            return Err(ToolResult::error(problem.clone()));
        }
        let Some(spec) = specs.get(&call.name) else {
            let mut names: Vec<&str> = specs.keys().map(String::as_str).collect();
            names.sort_unstable();
            return Err(ToolResult::error(format!(
                "Tool `{}` does not exist. Available tools: {}.",
                call.name,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )));
        };
        self.schemas
            .check(spec, &call.arguments)
            .map_err(ToolResult::error)?;
        match self.hooks.before_tool_call(call).await {
            ToolDecision::Allow => Ok(Prepared {
                call: call.clone(),
                rewritten_by: Vec::new(),
            }),
            ToolDecision::Block(reason) => Err(ToolResult::error(if reason.trim().is_empty() {
                "Tool call blocked by a plugin.".to_owned()
            } else {
                format!("Tool call blocked: {reason}")
            })),
            ToolDecision::Rewrite { arguments, by } => {
                let rewritten = ToolCall {
                    arguments,
                    ..call.clone()
                };
                self.schemas
                    .check(spec, &rewritten.arguments)
                    .map_err(|e| {
                        ToolResult::error(format!(
                            "Plugin {} rewrote the arguments of this call and the result is invalid. {e}",
                            by.join(", ")
                        ))
                    })?;
                Ok(Prepared {
                    call: rewritten,
                    rewritten_by: by,
                })
            }
        }
    }

    /// Runs the call on its own task, so that tools run truly in parallel and a panicking tool
    /// cannot take the loop down. After an abort the tool gets `abort_grace` to stop.
    fn spawn_call(
        &self,
        call: ToolCall,
        cancel: &CancellationToken,
    ) -> impl std::future::Future<Output = CallOutcome> + Send + 'static {
        let tools = Arc::clone(&self.tools);
        let mut progress =
            ToolProgress::new(call.id.clone(), call.name.clone(), Arc::clone(&self.sink));
        // Hooks that observe streamed events hear the call's updates in order, on a task of
        // their own: the tool's progress call never waits for them.
        let delivery = self.hooks.observes_streaming().then(|| {
            let (updates, mut queued) = tokio::sync::mpsc::unbounded_channel::<AgentEvent>();
            progress = progress.clone().observed_by(updates);
            let hooks = Arc::clone(&self.hooks);
            tokio::spawn(async move {
                while let Some(event) = queued.recv().await {
                    hooks.on_event(&event).await;
                }
            })
        });
        let token = cancel.child_token();
        let handle = tokio::spawn(async move { tools.execute(call, token, progress).await });
        let cancel = cancel.clone();
        let grace = self.config().abort_grace;
        async move {
            let outcome = await_call(handle, cancel, grace).await;
            if let Some(delivery) = delivery {
                match outcome {
                    // The tool may still hold its progress: its updates are no longer heard.
                    CallOutcome::Abandoned(_) => delivery.abort(),
                    // Every update is heard before the call's end is.
                    _ => {
                        let _ = delivery.await;
                    }
                }
            }
            outcome
        }
    }

    /// Turns the outcome into a result and lets the after-tool-call hook replace it.
    async fn finish_call(&self, call: &ToolCall, outcome: CallOutcome) -> ToolResult {
        let result = match outcome {
            CallOutcome::Done(Ok(result)) => result,
            CallOutcome::Done(Err(error)) => {
                ToolResult::error(format!("Tool `{}` failed: {error}", call.name))
            }
            CallOutcome::Panicked(message) => {
                ToolResult::error(format!("Tool `{}` crashed: {message}", call.name))
            }
            CallOutcome::Abandoned(grace) => ToolResult::error(format!(
                "Tool call aborted by the user; `{}` did not stop within {} ms and was abandoned.",
                call.name,
                grace.as_millis()
            )),
        };
        match self.hooks.after_tool_call(call, &result).await {
            Some(replacement) => replacement,
            None => result,
        }
    }

    async fn persist_result(
        &self,
        call: &ToolCall,
        result: ToolResult,
        rewrite: Option<ArgumentRewrite>,
        added: &mut Vec<Arc<Message>>,
    ) -> Result<Arc<Message>, AgentError> {
        let message = Message::ToolResult(ToolResultMessage {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            content: result.content,
            details: result.details,
            is_error: result.is_error,
            timestamp: now_ms(),
            rewrite,
        });
        self.persist(message, false, added).await
    }
}

/// A call that may run, with the arguments it runs with, and the plugins whose hooks changed the
/// model's arguments into them (none when they are the model's own).
struct Prepared {
    call: ToolCall,
    rewritten_by: Vec<String>,
}

impl Prepared {
    /// What the session records of the change, if there was one.
    fn into_rewrite(self) -> Option<ArgumentRewrite> {
        if self.rewritten_by.is_empty() {
            return None;
        }
        Some(ArgumentRewrite {
            arguments: self.call.arguments,
            by: self.rewritten_by,
        })
    }
}

/// A call's result and, when hooks changed its arguments, what it ran with.
type Finished = (ToolResult, Option<ArgumentRewrite>);

enum CallOutcome {
    Done(Result<ToolResult, ToolError>),
    Panicked(String),
    Abandoned(Duration),
}

async fn await_call(
    mut handle: JoinHandle<Result<ToolResult, ToolError>>,
    cancel: CancellationToken,
    grace: Duration,
) -> CallOutcome {
    let joined = tokio::select! {
        biased;
        joined = &mut handle => Some(joined),
        _ = async { cancel.cancelled().await; tokio::time::sleep(grace).await } => None,
    };
    match joined {
        Some(Ok(result)) => CallOutcome::Done(result),
        Some(Err(error)) => CallOutcome::Panicked(error.to_string()),
        None => {
            handle.abort();
            CallOutcome::Abandoned(grace)
        }
    }
}

/// `prepared` is `None` for a call refused before it runs: it starts with the model's arguments.
fn start_event(call: &ToolCall, prepared: Option<&Prepared>) -> AgentEvent {
    AgentEvent::ToolExecutionStart {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        args: prepared
            .map_or(&call.arguments, |p| &p.call.arguments)
            .clone(),
        rewritten_by: prepared.map(|p| p.rewritten_by.clone()).unwrap_or_default(),
    }
}

fn end_event(call: &ToolCall, result: &ToolResult) -> AgentEvent {
    AgentEvent::ToolExecutionEnd {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        result: result.clone(),
        is_error: result.is_error,
    }
}
