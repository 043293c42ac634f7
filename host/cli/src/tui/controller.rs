//! Carries out what the user asks in the terminal UI: runs (a prompt, then whatever was queued
//! meanwhile), steering and follow-ups, abort, and the work behind commands and pickers, which
//! runs as tasks so the UI keeps answering.

use std::sync::{Arc, Mutex};

use tack_core::agent::RunStatus;
use tack_core::message::Message;
use tack_core::session::{SessionHandle, SessionStore};
use tack_core::{Agent, AgentError};
use tack_tui::{Action, UiEvent};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::services::TuiServices;
use crate::app::Loaded;
use crate::cli::Cli;
use crate::inbox::steer_follow_ups;
use crate::router::ProviderRouter;
use crate::sync::lock;

pub struct Controller {
    pub cli: Cli,
    pub loaded: Loaded,
    pub agent: Agent,
    pub session: SessionHandle,
    pub store: SessionStore,
    pub router: Arc<ProviderRouter>,
    pub services: Arc<TuiServices>,
    pub ui: mpsc::UnboundedSender<UiEvent>,
    /// The provider chosen at start, to which `--api-key` and `--base-url` apply.
    pub startup_provider: String,
    /// What keeps the agent busy, if anything.
    pub busy: Mutex<Option<Work>>,
}

/// A run, a compaction or a session change in progress.
pub struct Work {
    pub running: bool,
    pub cancel: CancellationToken,
    /// Cancelled when the work is over.
    pub finished: CancellationToken,
}

impl Work {
    fn new(running: bool) -> Work {
        Work {
            running,
            cancel: CancellationToken::new(),
            finished: CancellationToken::new(),
        }
    }

    pub fn share(&self) -> Work {
        Work {
            running: self.running,
            cancel: self.cancel.clone(),
            finished: self.finished.clone(),
        }
    }
}

/// How a run starts.
enum Start {
    Prompt(String),
    /// The session as it is, with the queued messages.
    Resume,
}

impl Controller {
    pub fn send(&self, event: UiEvent) {
        // The UI is gone only while shutting down.
        let _ = self.ui.send(event);
    }

    pub fn handle(self: &Arc<Self>, action: Action) {
        match action {
            Action::Prompt(text) => self.submit(text, true),
            Action::Steer(text) => self.submit(text, true),
            Action::FollowUp(text) => self.submit(text, false),
            Action::Abort => self.abort(),
            Action::Command { name, args } => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.command(&name, &args).await });
            }
            Action::Picked { kind, value } => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.picked(kind, &value).await });
            }
            Action::Quit => {}
        }
    }

    /// A message from the editor: the prompt of a new run when idle; queued for the running
    /// one otherwise.
    fn submit(self: &Arc<Self>, text: String, steer: bool) {
        let mut busy = lock(&self.busy);
        match busy.as_ref() {
            Some(work) if work.running => {
                let message = Message::user(text);
                if steer {
                    self.agent.queues().steer(message);
                } else {
                    self.agent.queues().follow_up(message);
                }
            }
            Some(_) => {
                drop(busy);
                self.send(UiEvent::Error(
                    "tack is busy (compacting or changing the session); send it again when done"
                        .into(),
                ));
            }
            None => {
                let work = Work::new(true);
                *busy = Some(work.share());
                drop(busy);
                self.spawn_run(Start::Prompt(text), work);
            }
        }
    }

    /// Esc: stops the run or the compaction; running tools are cancelled, open dialogs close
    /// with their defaults, and queued messages go back to the editor rather than being lost.
    pub fn abort(&self) {
        let active = lock(&self.busy).as_ref().map(Work::share);
        let (steering, follow_up) = self.agent.queues().clear();
        let queued: Vec<String> = steering
            .iter()
            .chain(&follow_up)
            .filter(|m| matches!(m, Message::User(_)))
            .map(Message::preview_text)
            .collect();
        if !queued.is_empty() {
            self.send(UiEvent::EditorText(queued.join("\n\n")));
        }
        self.services.close_dialogs();
        if let Some(work) = active {
            work.cancel.cancel();
        }
    }

    /// A plugin queued a message: an idle agent starts a turn for it.
    pub fn wake(self: &Arc<Self>) {
        let mut busy = lock(&self.busy);
        if busy.is_some() || self.agent.queues().is_empty() {
            return;
        }
        let work = Work::new(true);
        *busy = Some(work.share());
        drop(busy);
        self.spawn_run(Start::Resume, work);
    }

    fn spawn_run(self: &Arc<Self>, first: Start, work: Work) {
        let this = Arc::clone(self);
        tokio::spawn(async move {
            let mut next = Some(first);
            while let Some(start) = next.take() {
                let result = match start {
                    Start::Prompt(text) => {
                        this.services.inbox.steer_next_turn(&this.agent.queues());
                        this.agent.prompt_text(&text, work.cancel.clone()).await
                    }
                    Start::Resume => {
                        steer_follow_ups(&this.agent.queues());
                        this.agent.resume(work.cancel.clone()).await
                    }
                };
                let go_on = match result {
                    Ok(outcome) => {
                        matches!(outcome.status, RunStatus::Completed | RunStatus::Handled)
                    }
                    Err(AgentError::NothingToContinue) => false,
                    Err(e) => {
                        this.send(UiEvent::Error(e.to_string()));
                        false
                    }
                };
                // Decided under the lock: a message queued after the loop's last look at the
                // queues is either seen here or finds the agent idle and starts its own run.
                let mut busy = lock(&this.busy);
                if go_on && !work.cancel.is_cancelled() && !this.agent.queues().is_empty() {
                    next = Some(Start::Resume);
                    continue;
                }
                *busy = None;
            }
            work.finished.cancel();
            this.send(UiEvent::Footer(this.footer()));
        });
    }

    /// Marks the agent busy with non-run work, unless it already is.
    pub fn occupy(&self) -> anyhow::Result<Work> {
        let mut busy = lock(&self.busy);
        if let Some(work) = busy.as_ref() {
            anyhow::bail!(if work.running {
                "the agent is running; wait, or press Esc to abort it first"
            } else {
                "tack is busy; wait until it is done"
            });
        }
        let work = Work::new(false);
        *busy = Some(work.share());
        Ok(work)
    }

    pub fn release(&self, work: &Work) {
        *lock(&self.busy) = None;
        work.finished.cancel();
    }

    /// Ends the run (if any) and waits for it: the session is complete on disk afterwards.
    pub async fn shut_down(&self) {
        self.services.shut();
        let active = lock(&self.busy).as_ref().map(Work::share);
        if let Some(work) = active {
            work.cancel.cancel();
            work.finished.cancelled().await;
        }
    }
}
