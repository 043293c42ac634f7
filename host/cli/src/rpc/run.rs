//! Agent runs in the background: `prompt` (or a queued message while running), `steer`,
//! `follow_up`, `abort`, and turns started by messages plugins send while the agent is idle.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::json;
use tack::rpc_protocol::{CloseReason, RpcEvent, StreamingBehavior};
use tack_core::agent::RunStatus;
use tack_core::event::AgentEvent;
use tack_core::message::{Content, Message, UserMessage};
use tack_core::AgentError;

use super::server::{data, Busy, BusyKind, Reply, Server};
use crate::inbox::steer_follow_ups;
use crate::sync::lock;

/// How a user message arrived.
#[derive(Debug, Clone, Copy)]
pub enum Via {
    Prompt(Option<StreamingBehavior>),
    Steer,
    FollowUp,
}

impl Via {
    fn command(self) -> &'static str {
        match self {
            Via::Prompt(_) => "prompt",
            Via::Steer => "steer",
            Via::FollowUp => "follow_up",
        }
    }
}

/// How a run starts.
enum Start {
    /// The user's prompt, through the input and before-agent-start hooks.
    Prompt(Vec<Content>),
    /// The session as it is, with the queued messages.
    Resume,
}

impl Server {
    /// `prompt`, `steer` and `follow_up`. A prompt is answered once accepted, before its run's
    /// first event. While a run goes on, steering and follow-ups (and prompts with a
    /// `streamingBehavior`) are queued for it; when idle, each starts a run.
    pub fn submit(
        self: &Arc<Self>,
        id: Option<String>,
        via: Via,
        message: String,
        images: Vec<Content>,
    ) {
        if self.services.is_shut() {
            return self.fail(id, via.command(), "tack is shutting down");
        }
        // The busy slot stays locked while deciding, so a run cannot end in between and leave
        // a queued message behind.
        let mut busy = lock(&self.busy);
        if let Some(finished) = busy.as_ref().and_then(|b| self.ending(b)) {
            // The client saw `agent_end`; decide once the run's task is done.
            drop(busy);
            let server = Arc::clone(self);
            return self.track(async move {
                finished.cancelled().await;
                server.submit(id, via, message, images);
            });
        }
        let command = via.command();
        if let Some(why) = self.busy_without_run(&busy) {
            drop(busy);
            return self.fail(id, command, why);
        }
        let content = content(message, images);
        if busy.is_some() {
            let steer = match via {
                Via::Steer | Via::Prompt(Some(StreamingBehavior::Steer)) => true,
                Via::FollowUp | Via::Prompt(Some(StreamingBehavior::FollowUp)) => false,
                Via::Prompt(None) => {
                    drop(busy);
                    return self.fail(
                        id,
                        command,
                        "the agent is running; set \"streamingBehavior\" to \"steer\" or \
                         \"followUp\" to queue the prompt, or abort first",
                    );
                }
            };
            if steer {
                self.agent.queues().steer(user(content));
            } else {
                self.agent.queues().follow_up(user(content));
            }
            drop(busy);
            let reply = match via {
                Via::Prompt(_) => json!({ "queued": if steer { "steer" } else { "followUp" } }),
                Via::Steer | Via::FollowUp => json!({ "started": false }),
            };
            return self.answer(id, command, data(reply));
        }
        let run = self.begin_run(&mut busy);
        drop(busy);
        let reply = match via {
            Via::Prompt(_) => Ok(None),
            Via::Steer | Via::FollowUp => data(json!({ "started": true })),
        };
        self.answer(id, command, reply);
        self.spawn_run(Start::Prompt(content), run);
    }

    /// `abort`: stops the run or the compaction (running tools are cancelled, open dialogs close
    /// with their defaults) and answers once it has stopped, with the queued messages it dropped.
    pub async fn abort(self: Arc<Self>) -> Reply {
        let active = lock(&self.busy).as_ref().map(Busy::share);
        let (steering, follow_up) = self.agent.queues().clear();
        self.services.close_dialogs(CloseReason::Aborted);
        let was_running = active.as_ref().is_some_and(|b| b.kind == BusyKind::Running);
        if let Some(run) = active {
            run.cancel.cancel();
            run.finished.cancelled().await;
        }
        let texts = |messages: Vec<Message>| -> Vec<String> {
            messages.iter().map(Message::preview_text).collect()
        };
        data(json!({
            "wasRunning": was_running,
            "steering": texts(steering),
            "followUp": texts(follow_up),
        }))
    }

    /// A plugin queued a message: an idle agent starts a turn for it.
    pub fn wake(self: &Arc<Self>) {
        let mut busy = lock(&self.busy);
        if busy.is_some() || self.agent.queues().is_empty() || self.services.is_shut() {
            return;
        }
        let run = self.begin_run(&mut busy);
        drop(busy);
        self.spawn_run(Start::Resume, run);
    }

    fn spawn_run(self: &Arc<Self>, first: Start, run: Busy) {
        let server = Arc::clone(self);
        tokio::spawn(async move {
            let mut next = Some(first);
            while let Some(start) = next.take() {
                let result = match start {
                    Start::Prompt(content) => {
                        server
                            .services
                            .inbox
                            .steer_next_turn(&server.agent.queues());
                        server.agent.prompt(content, run.cancel.clone()).await
                    }
                    Start::Resume => {
                        steer_follow_ups(&server.agent.queues());
                        server.agent.resume(run.cancel.clone()).await
                    }
                };
                let go_on = match result {
                    Ok(outcome) => {
                        if outcome.status == RunStatus::Handled {
                            // No `agent_end` follows a handled input: this event ends the run
                            // for clients, so the state they ask for next must say so.
                            server.run_ended.store(true, Ordering::SeqCst);
                            server.out.send(&RpcEvent::InputHandled);
                        }
                        matches!(outcome.status, RunStatus::Completed | RunStatus::Handled)
                    }
                    Err(AgentError::NothingToContinue) => false,
                    Err(e) => {
                        server.out.send(&AgentEvent::Error {
                            message: e.to_string(),
                        });
                        false
                    }
                };
                // Decided under the lock: a message queued after the loop's last look at the
                // queues is either seen here or finds the agent idle and starts its own run.
                let mut busy = lock(&server.busy);
                if go_on && !run.cancel.is_cancelled() && !server.agent.queues().is_empty() {
                    server.run_ended.store(false, Ordering::SeqCst);
                    next = Some(Start::Resume);
                    continue;
                }
                server.flush_deferred_bash();
                *busy = None;
            }
            run.finished.cancel();
        });
    }

    /// Marks the agent running (the slot is locked by the caller).
    fn begin_run(&self, busy: &mut Option<Busy>) -> Busy {
        let run = Busy::new(BusyKind::Running);
        self.run_ended.store(false, Ordering::SeqCst);
        *busy = Some(run.share());
        run
    }
}

fn content(message: String, images: Vec<Content>) -> Vec<Content> {
    let mut content = vec![Content::text(message)];
    content.extend(images);
    content
}

fn user(content: Vec<Content>) -> Message {
    Message::User(UserMessage {
        content,
        timestamp: tack_core::message::now_ms(),
    })
}
