//! Carries out what the user asks in the terminal UI: prompts, steering and follow-ups, abort
//! (through the [`SessionDriver`]), and the work behind commands and pickers, which runs as tasks
//! so the UI keeps answering.

use std::sync::Arc;

use tack_core::message::{Content, Message};
use tack_tui::{Action, UiEvent};
use tokio::sync::mpsc;

use super::screen::{TuiScreen, TuiServices};
use crate::session_driver::{Busy, BusyKind, FrontEnd, Queue, SessionDriver, Submitted};

pub struct Controller {
    pub front: Arc<FrontEnd>,
    pub driver: Arc<SessionDriver<TuiScreen>>,
    pub services: Arc<TuiServices>,
    pub ui: mpsc::UnboundedSender<UiEvent>,
    /// The UI's keys, for `/hotkeys`.
    pub keymap: tack_tui::keymap::Keymap,
    /// The user's `!cmd` while it runs: cancelled by Esc.
    pub shell: std::sync::Mutex<Option<tokio_util::sync::CancellationToken>>,
}

impl Controller {
    pub fn send(&self, event: UiEvent) {
        // The UI is gone only while shutting down.
        let _ = self.ui.send(event);
    }

    pub fn handle(self: &Arc<Self>, action: Action) {
        let action = match action {
            Action::Prompt(text) | Action::Steer(text) | Action::FollowUp(text)
                if text.starts_with('!') =>
            {
                let (command, exclude) = match text.strip_prefix("!!") {
                    Some(rest) => (rest.to_string(), true),
                    None => (text[1..].to_string(), false),
                };
                let this = Arc::clone(self);
                tokio::spawn(async move { this.user_shell(command, exclude).await });
                return;
            }
            other => other,
        };
        match action {
            Action::Prompt(text) => self.submit(vec![Content::text(text)], Queue::Steer),
            Action::Steer(text) => self.submit(vec![Content::text(text)], Queue::Steer),
            Action::FollowUp(text) => self.submit(vec![Content::text(text)], Queue::FollowUp),
            Action::Abort => self.abort(),
            Action::Command { name, args } => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.command(&name, &args).await });
            }
            Action::Picked { kind, value } => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.picked(kind, &value).await });
            }
            Action::CycleModel { forward } => self.cycle_model(forward),
            Action::CycleThinking => self.cycle_thinking(),
            Action::Quit => {}
        }
    }

    /// A message from the editor: the prompt of a new run when idle; queued for the running
    /// one otherwise.
    pub(super) fn submit(self: &Arc<Self>, content: Vec<Content>, queue: Queue) {
        self.driver
            .submit(content, Some(queue), |submitted| match submitted {
                Submitted::Started | Submitted::Queued(_) | Submitted::ShuttingDown => {}
                Submitted::Running | Submitted::Busy(_) => self.send(UiEvent::Error(
                    "tack is busy (compacting or changing the session); send it again when done"
                        .into(),
                )),
                Submitted::Ending { finished, content } => {
                    let this = Arc::clone(self);
                    tokio::spawn(async move {
                        finished.cancelled().await;
                        this.submit(content, queue);
                    });
                }
            });
    }

    /// Esc: stops the run or the compaction; running tools are cancelled, open dialogs close
    /// with their defaults, and queued messages go back to the editor rather than being lost.
    pub fn abort(&self) {
        self.stop_shell();
        self.driver.abort(|steering, follow_up| {
            let queued: Vec<String> = steering
                .iter()
                .chain(&follow_up)
                .filter(|m| matches!(m, Message::User(_)))
                .map(Message::preview_text)
                .collect();
            if !queued.is_empty() {
                self.send(UiEvent::EditorText(queued.join("\n\n")));
            }
        });
    }

    /// Marks the agent busy with non-run work, unless it already is.
    pub async fn occupy(&self, kind: BusyKind) -> anyhow::Result<Busy> {
        self.driver.occupy(kind).await.map_err(|busy| {
            anyhow::anyhow!(if busy == BusyKind::Running {
                "the agent is running; wait, or press Esc to abort it first"
            } else {
                "tack is busy; wait until it is done"
            })
        })
    }

    pub fn release(&self, work: &Busy) {
        self.driver.release(work);
    }
}
