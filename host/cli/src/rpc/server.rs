//! The server's state and the dispatch of one input line to its command.
//!
//! Quick commands are answered inline, in the order they arrive. Commands that reach plugins or
//! wait (a prompt's run, `run_command`, `bash`, `abort`, session changes, `compact`) run as tasks
//! and answer when done, so the reader keeps serving `abort`, `steer` and dialog answers
//! meanwhile; clients match responses by `id`.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;
use tack::rpc_protocol::{Command, Response, UiResponse};
use tack_core::session::{EntryKind, SessionHandle, SessionStore};
use tack_core::Agent;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::output::Output;
use super::run::Via;
use super::services::RpcServices;
use crate::app::Loaded;
use crate::cli::Cli;
use crate::router::ProviderRouter;
use crate::sync::lock;

/// What a command answers: its `data` (if any), or an error.
pub type Reply = Result<Option<Value>>;

pub fn data<T: Serialize>(value: T) -> Reply {
    Ok(Some(serde_json::to_value(value)?))
}

pub struct Server {
    pub cli: Cli,
    pub loaded: Loaded,
    pub agent: Agent,
    pub session: SessionHandle,
    pub store: SessionStore,
    pub router: Arc<ProviderRouter>,
    pub services: Arc<RpcServices>,
    pub out: Output,
    /// The provider chosen at start, to which `--api-key` and `--base-url` apply.
    pub startup_provider: String,
    /// What keeps the agent busy, if anything.
    pub busy: Mutex<Option<Busy>>,
    /// The current run has emitted `agent_end` (its task is finishing).
    pub run_ended: Arc<AtomicBool>,
    /// Cancels the running `bash` command.
    pub bash: Mutex<Option<CancellationToken>>,
    /// `bash` output finished during a run, recorded in the session when the run ends.
    pub deferred_bash: Mutex<Vec<EntryKind>>,
    /// Commands answering later; awaited before exit so that every command gets its response.
    pub tasks: Mutex<JoinSet<()>>,
}

/// The agent is running, compacting, or its session is being changed.
pub struct Busy {
    pub kind: BusyKind,
    pub cancel: CancellationToken,
    /// Cancelled when the work is over.
    pub finished: CancellationToken,
}

impl Busy {
    pub fn new(kind: BusyKind) -> Busy {
        Busy {
            kind,
            cancel: Default::default(),
            finished: Default::default(),
        }
    }

    /// Another handle on the same work.
    pub fn share(&self) -> Busy {
        Busy {
            kind: self.kind,
            cancel: self.cancel.clone(),
            finished: self.finished.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyKind {
    Running,
    Compacting,
    ChangingSession,
}

impl BusyKind {
    fn describe(self) -> &'static str {
        match self {
            BusyKind::Running => "the agent is running",
            BusyKind::Compacting => "the conversation is being compacted",
            BusyKind::ChangingSession => "the session is being changed",
        }
    }
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
        if kind == "plugin_ui_response" {
            return match serde_json::from_value::<UiResponse>(value) {
                Ok(answer) => {
                    if let Err(e) = self.services.answer(answer) {
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
            } => self.submit(id, Via::Prompt(streaming_behavior), message, images),
            Command::Steer { message, images } => self.submit(id, Via::Steer, message, images),
            Command::FollowUp { message, images } => {
                self.submit(id, Via::FollowUp, message, images)
            }
            Command::Abort => self.later(id, name, |s| async move { s.abort().await }),
            Command::GetState => self.answer(id, name, self.state()),
            Command::GetMessages => self.answer(id, name, self.messages()),
            Command::SetModel { provider, model_id } => {
                self.answer(id, name, self.set_model(&provider, &model_id))
            }
            Command::GetAvailableModels => self.answer(id, name, self.available_models()),
            Command::SetThinkingLevel { level } => {
                self.answer(id, name, self.set_thinking_level(&level))
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
            Command::NewSession => self.later(id, name, |s| async move { s.new_session().await }),
            Command::SwitchSession {
                session_path,
                session_id,
            } => self.later(id, name, |s| async move {
                s.switch_session(session_path, session_id).await
            }),
            Command::Fork { entry_id } => {
                self.later(id, name, |s| async move { s.fork(&entry_id).await })
            }
            Command::GetForkPoints => self.answer(id, name, self.fork_points()),
            Command::GetSessionStats => self.answer(id, name, self.session_stats()),
            Command::GetCommands => self.answer(id, name, self.commands()),
            Command::RunCommand {
                name: command,
                args,
            } => self.later(
                id,
                name,
                |s| async move { s.run_command(&command, &args).await },
            ),
            Command::Bash {
                command,
                exclude_from_context,
            } => self.later(id, name, |s| async move {
                s.bash(&command, exclude_from_context).await
            }),
            Command::AbortBash => self.answer(id, name, self.abort_bash()),
            Command::GetLastAssistantText => self.answer(id, name, self.last_assistant_text()),
            Command::SetSessionName { name: new_name } => {
                self.answer(id, name, self.set_session_name(&new_name))
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

    /// Marks the agent busy with `kind`, unless it already is (a run that has emitted
    /// `agent_end` is waited for: the client already saw it end).
    pub async fn occupy(&self, kind: BusyKind) -> Result<Busy> {
        loop {
            let ending = {
                let mut busy = lock(&self.busy);
                match busy.as_ref() {
                    None => {
                        let work = Busy::new(kind);
                        *busy = Some(work.share());
                        return Ok(work);
                    }
                    Some(current) => match self.ending(current) {
                        Some(finished) => finished,
                        None => {
                            anyhow::bail!("{}; wait, or abort it first", current.kind.describe())
                        }
                    },
                }
            };
            ending.cancelled().await;
        }
    }

    /// For a run whose `agent_end` is out: the token cancelled when its task is done.
    pub fn ending(&self, busy: &Busy) -> Option<CancellationToken> {
        (busy.kind == BusyKind::Running && self.run_ended.load(Ordering::SeqCst))
            .then(|| busy.finished.clone())
    }

    /// Ends what [`Server::occupy`] started.
    pub fn release(&self, work: &Busy) {
        let mut busy = lock(&self.busy);
        self.flush_deferred_bash();
        *busy = None;
        drop(busy);
        work.finished.cancel();
    }

    /// Why a prompt cannot be queued now, if it cannot: only a run takes queued messages.
    pub fn busy_without_run(&self, busy: &Option<Busy>) -> Option<String> {
        busy.as_ref()
            .filter(|b| b.kind != BusyKind::Running)
            .map(|b| format!("{}; send the message when it is done", b.kind.describe()))
    }

    /// A run is going on and has not emitted `agent_end`.
    pub fn is_running(&self) -> bool {
        lock(&self.busy)
            .as_ref()
            .is_some_and(|b| b.kind == BusyKind::Running && self.ending(b).is_none())
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
