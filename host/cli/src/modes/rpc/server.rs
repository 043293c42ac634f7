//! The server's state and the dispatch of one input line to its command.
//!
//! Quick commands are answered inline, in the order they arrive. Commands that reach plugins or
//! wait (a prompt's run, `run_command`, `bash`, `abort`, session changes, `compact`) run as tasks
//! and answer when done, so the reader keeps serving `abort`, `steer` and dialog answers
//! meanwhile; clients match responses by `id`.

use std::future::Future;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;
use tack_protocol::{Command, Response, UiResponse};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::output::Output;
use super::screen::{RpcScreen, RpcServices};
use super::via::{content, Via};
use crate::modes::driver::{BusyKind, Queue, SessionDriver};
use crate::start::AgentSession;
use crate::sync::lock;

/// What a command answers: its `data` (if any), or an error.
pub type Reply = Result<Option<Value>>;

pub fn data<T: Serialize>(value: T) -> Reply {
    Ok(Some(serde_json::to_value(value)?))
}

pub struct Server {
    pub front: Arc<AgentSession>,
    pub driver: Arc<SessionDriver<RpcScreen>>,
    pub services: Arc<RpcServices>,
    pub out: Output,
    /// Cancels the running `bash` command.
    pub bash: Mutex<Option<CancellationToken>>,
    /// The retry policy `set_auto_retry` turned off, to restore when it is turned on again.
    pub retry_off: Mutex<Option<tack_core::agent::RetryPolicy>>,
    /// A compaction is going on (set from its events).
    pub compacting: Arc<std::sync::atomic::AtomicBool>,
    /// Commands answering later; awaited before exit so that every command gets its response.
    pub tasks: Mutex<JoinSet<()>>,
}

/// Why work cannot start while `kind` keeps the agent busy.
pub fn occupied(kind: BusyKind) -> anyhow::Error {
    anyhow::anyhow!("{}; wait, or abort it first", kind.describe())
}

impl Server {
    /// Handles one line of input.
    pub fn handle_line(self: &Arc<Self>, line: &[u8]) {
        let value: Value = match serde_json::from_slice(line) {
            Ok(value) => value,
            Err(e) => return self.fail(None, "parse", format!("the line is not JSON: {e}")),
        };
        let Some(object) = value.as_object() else {
            return self.fail(None, "parse", "a command must be a JSON object");
        };
        let id = match object.get("id") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) => Some(id.clone()),
            Some(_) => return self.fail(None, "parse", "`id` must be a string"),
        };
        let Some(kind) = object
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return self.fail(id, "parse", "the object has no string `type`");
        };
        if kind == "extension_ui_response" {
            return match serde_json::from_value::<UiResponse>(value) {
                Ok(answer) => {
                    if let Err(e) = self.services.screen.answer(answer) {
                        self.fail(id, &kind, e);
                    }
                }
                Err(e) => self.fail(id, &kind, format!("invalid dialog answer: {e}")),
            };
        }
        match serde_json::from_value::<Command>(value) {
            Ok(command) => self.dispatch(id, command),
            Err(e) => self.fail(id, &kind, format!("invalid command: {e}")),
        }
    }

    fn dispatch(self: &Arc<Self>, id: Option<String>, command: Command) {
        let name = command.name();
        match command {
            Command::Prompt {
                message,
                images,
                streaming_behavior,
            } => self.submit(
                id,
                Via::Prompt(streaming_behavior),
                content(message, images),
            ),
            Command::Steer { message, images } => {
                self.submit(id, Via::Steer, content(message, images))
            }
            Command::FollowUp { message, images } => {
                self.submit(id, Via::FollowUp, content(message, images))
            }
            Command::Abort => self.later(id, name, |s| async move { s.abort().await }),
            Command::NewSession { parent_session } => {
                self.later(
                    id,
                    name,
                    |s| async move { s.new_session(parent_session).await },
                )
            }
            Command::GetState => self.answer(id, name, self.state()),
            Command::GetMessages => self.answer(id, name, self.messages()),
            Command::SetModel { provider, model_id } => {
                self.answer(id, name, self.set_model(&provider, &model_id))
            }
            Command::CycleModel => self.answer(id, name, self.cycle_model()),
            Command::GetAvailableModels => self.answer(id, name, self.available_models()),
            Command::SetThinkingLevel { level } => {
                self.answer(id, name, self.set_thinking_level(&level))
            }
            Command::CycleThinkingLevel => self.answer(id, name, self.cycle_thinking_level()),
            Command::SetSteeringMode { mode } => {
                self.answer(id, name, self.set_queue_mode(Queue::Steer, mode))
            }
            Command::SetFollowUpMode { mode } => {
                self.answer(id, name, self.set_queue_mode(Queue::FollowUp, mode))
            }
            Command::Compact {
                custom_instructions,
            } => self.later(
                id,
                name,
                |s| async move { s.compact(custom_instructions).await },
            ),
            Command::SetAutoCompaction { enabled } => {
                self.answer(id, name, self.set_auto_compaction(enabled))
            }
            Command::SetAutoRetry { enabled } => {
                self.answer(id, name, self.set_auto_retry(enabled))
            }
            Command::AbortRetry => self.answer(id, name, self.abort_retry()),
            Command::Bash {
                command,
                exclude_from_context,
            } => self.later(id, name, |s| async move {
                s.bash(&command, exclude_from_context).await
            }),
            Command::AbortBash => self.answer(id, name, self.abort_bash()),
            Command::GetSessionStats => self.answer(id, name, self.session_stats()),
            Command::ExportHtml { output_path } => {
                self.answer(id, name, self.export_html(output_path.as_deref()))
            }
            Command::SwitchSession {
                session_path,
                session_id,
            } => self.later(id, name, |s| async move {
                s.switch_session(session_path, session_id).await
            }),
            Command::Fork { entry_id } => {
                self.later(id, name, |s| async move { s.fork(&entry_id).await })
            }
            Command::Clone => self.later(id, name, |s| async move { s.clone_session().await }),
            Command::GetForkMessages => self.answer(id, name, self.fork_messages()),
            Command::GetLastAssistantText => self.answer(id, name, self.last_assistant_text()),
            Command::SetSessionName { name: new_name } => {
                self.answer(id, name, self.set_session_name(&new_name))
            }
            Command::GetCommands => self.answer(id, name, self.commands()),
            Command::RunCommand {
                name: command,
                args,
            } => self.later(
                id,
                name,
                |s| async move { s.run_command(&command, &args).await },
            ),
            Command::GetRewindPoints => {
                self.later(id, name, |s| async move { s.rewind_points().await })
            }
            Command::Rewind { entry_id, mode } => {
                self.later(id, name, |s| async move { s.rewind(&entry_id, mode).await })
            }
        }
    }

    /// Sends the response for `reply`.
    pub fn answer(&self, id: Option<String>, command: &str, reply: Reply) {
        self.out.respond(match reply {
            Ok(data) => Response::ok(id, command, data),
            Err(e) => Response::err(id, command, format!("{e:#}")),
        });
    }

    pub fn fail(&self, id: Option<String>, command: &str, error: impl Into<String>) {
        self.out.respond(Response::err(id, command, error));
    }

    /// Runs a command as a task that answers when it is done.
    fn later<F, Fut>(self: &Arc<Self>, id: Option<String>, command: &'static str, f: F)
    where
        F: FnOnce(Arc<Self>) -> Fut,
        Fut: Future<Output = Reply> + Send + 'static,
    {
        let server = Arc::clone(self);
        let work = f(Arc::clone(self));
        self.track(async move {
            let reply = work.await;
            server.answer(id, command, reply);
        });
    }

    /// Spawns work that must finish (and answer) before the process exits.
    pub fn track(&self, work: impl Future<Output = ()> + Send + 'static) {
        let mut tasks = lock(&self.tasks);
        // Reap what finished, so the set holds only running commands.
        while tasks.try_join_next().is_some() {}
        tasks.spawn(work);
    }

    /// Waits for every command still answering.
    pub async fn drain_tasks(&self) {
        loop {
            let mut tasks = std::mem::take(&mut *lock(&self.tasks));
            if tasks.is_empty() {
                return;
            }
            while tasks.join_next().await.is_some() {}
        }
    }
}
