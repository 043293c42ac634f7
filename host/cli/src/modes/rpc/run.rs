//! Agent runs in the background: `prompt` (or a queued message while running), `steer`,
//! `follow_up` and `abort`, the RPC replies around the [`SessionDriver`].
//!
//! [`SessionDriver`]: crate::modes::driver::SessionDriver

use std::sync::Arc;

use serde_json::json;
use tack_core::message::{Content, Message};

use super::server::{data, Reply, Server};
use super::via::Via;
use crate::modes::driver::{Queue, Submitted};

impl Server {
    /// `prompt`, `steer` and `follow_up`. A prompt is answered once accepted, before its run's
    /// first event. While a run goes on, steering and follow-ups (and prompts with a
    /// `streamingBehavior`) are queued for it; when idle, each starts a run.
    pub fn submit(self: &Arc<Self>, id: Option<String>, via: Via, content: Vec<Content>) {
        let command = via.command();
        self.driver
            .submit(content, via.queue(), |submitted| match submitted {
                Submitted::Started => {
                    let reply = match via {
                        Via::Prompt(_) => Ok(None),
                        Via::Steer | Via::FollowUp => data(json!({ "started": true })),
                    };
                    self.answer(id, command, reply);
                }
                Submitted::Queued(queue) => {
                    let reply = match via {
                        Via::Prompt(_) => json!({ "queued": match queue {
                            Queue::Steer => "steer",
                            Queue::FollowUp => "followUp",
                        } }),
                        Via::Steer | Via::FollowUp => json!({ "started": false }),
                    };
                    self.answer(id, command, data(reply));
                }
                Submitted::Running => self.fail(
                    id,
                    command,
                    "the agent is running; set \"streamingBehavior\" to \"steer\" or \
                     \"followUp\" to queue the prompt, or abort first",
                ),
                Submitted::Busy(kind) => self.fail(
                    id,
                    command,
                    format!("{}; send the message when it is done", kind.describe()),
                ),
                Submitted::ShuttingDown => self.fail(id, command, "tack is shutting down"),
                Submitted::Ending { finished, content } => {
                    // The client saw `agent_end`; decide once the run's task is done.
                    let server = Arc::clone(self);
                    self.track(async move {
                        finished.cancelled().await;
                        server.submit(id, via, content);
                    });
                }
            });
    }

    /// `abort`: stops the run or the compaction (running tools are cancelled, open dialogs close
    /// with their defaults) and answers once it has stopped, with the queued messages it dropped.
    pub async fn abort(self: Arc<Self>) -> Reply {
        let texts = |messages: Vec<Message>| -> Vec<String> {
            messages.iter().map(Message::preview_text).collect()
        };
        let ((steering, follow_up), stopping) = self
            .driver
            .abort(|steering, follow_up| (texts(steering), texts(follow_up)));
        let was_running = stopping.was_running();
        stopping.finished().await;
        data(json!({
            "wasRunning": was_running,
            "steering": steering,
            "followUp": follow_up,
        }))
    }
}
