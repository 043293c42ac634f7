//! Messages plugins send the agent in the interactive modes (RPC and the terminal UI), delivered
//! as the WIT `delivery` says, and how queued messages start a run on an idle agent.

use std::sync::{Mutex, OnceLock};

use tack_core::agent::MessageQueues;
use tack_core::message::Message;
use tack_runtime::api::Delivery;
use tokio::sync::mpsc;

use crate::sync::lock;

pub struct Inbox {
    /// The agent's queues, set once the agent exists (plugins are loaded before it).
    queues: OnceLock<MessageQueues>,
    /// Messages for the user's next prompt (`delivery: next-turn`).
    next_turn: Mutex<Vec<Message>>,
    /// Tells the front end a message was queued, so an idle agent starts a turn for it.
    wake: mpsc::UnboundedSender<()>,
}

impl Inbox {
    pub fn new(wake: mpsc::UnboundedSender<()>) -> Self {
        Inbox {
            queues: OnceLock::new(),
            next_turn: Mutex::default(),
            wake,
        }
    }

    pub fn attach_queues(&self, queues: MessageQueues) {
        let _ = self.queues.set(queues);
    }

    /// Takes the messages plugins queued for the next prompt.
    pub fn take_next_turn(&self) -> Vec<Message> {
        std::mem::take(&mut *lock(&self.next_turn))
    }

    /// Plugin messages meant for the prompt a run starts with go right after it.
    pub fn steer_next_turn(&self, queues: &MessageQueues) {
        for message in self.take_next_turn() {
            queues.steer(message);
        }
    }

    /// A plugin's `send-message`: held for the next prompt, or queued for the agent and the front
    /// end woken.
    /// Delivers a plugin's message (made with `tack_runtime::services::outgoing_message`) as
    /// `delivery` says: queued,
    /// and a turn started on an idle agent, or held for the next prompt.
    pub fn deliver(&self, message: Message, delivery: Delivery) {
        if let Delivery::NextTurn = delivery {
            lock(&self.next_turn).push(message);
            return;
        }
        // Before the agent exists there is nothing to deliver to (plugins only initialize then).
        let Some(queues) = self.queues.get() else {
            return;
        };
        if let Delivery::Steer = delivery {
            queues.steer(message);
        } else {
            queues.follow_up(message);
        }
        self.wake();
    }
}

impl Inbox {
    /// Tells the front end to look for work: a queued message or a compaction a plugin asked for.
    pub fn wake(&self) {
        let _ = self.wake.send(());
    }
}

/// The loop takes follow-ups only after a turn; an idle resume starts with them as steering.
pub fn steer_follow_ups(queues: &MessageQueues) {
    if queues.len().1 == 0 {
        return;
    }
    let (steering, follow_up) = queues.clear();
    for message in steering.into_iter().chain(follow_up) {
        queues.steer(message);
    }
}
