//! Messages queued while the agent runs: steering (before the next provider call) and follow-up
//! (when the agent would otherwise stop).

use std::sync::{Arc, Mutex, MutexGuard};

use crate::event::{AgentEvent, EventSink};
use crate::message::Message;

/// A handle front ends and plugins push to while the loop runs. Cloning shares the queues.
#[derive(Clone)]
pub struct MessageQueues {
    inner: Arc<Mutex<Queues>>,
    sink: Arc<dyn EventSink>,
}

#[derive(Default)]
struct Queues {
    steering: Vec<Message>,
    follow_up: Vec<Message>,
    steering_mode: DeliveryMode,
    follow_up_mode: DeliveryMode,
}

/// How many queued messages the loop takes when it reaches their point: steering after a turn's
/// tool calls, follow-ups when the agent would stop. One at a time unless set otherwise, as in
/// Pi (whose agent and settings default both queues to `one-at-a-time`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DeliveryMode {
    /// Every queued message at once.
    All,
    /// The oldest one; the rest wait for the next such point.
    #[default]
    OneAtATime,
}

impl MessageQueues {
    pub fn new(sink: Arc<dyn EventSink>) -> Self {
        MessageQueues {
            inner: Arc::default(),
            sink,
        }
    }

    /// Queues a message to go to the model before its next call.
    pub fn steer(&self, message: Message) {
        self.change(|q| q.steering.push(message));
    }

    /// Queues a message for when the agent would otherwise stop.
    pub fn follow_up(&self, message: Message) {
        self.change(|q| q.follow_up.push(message));
    }

    /// Empties both queues and returns what they held: `(steering, follow_up)`.
    pub fn clear(&self) -> (Vec<Message>, Vec<Message>) {
        let mut taken = (Vec::new(), Vec::new());
        self.change(|q| {
            taken = (
                std::mem::take(&mut q.steering),
                std::mem::take(&mut q.follow_up),
            )
        });
        taken
    }

    /// `(steering, follow_up)` counts.
    pub fn len(&self) -> (usize, usize) {
        let q = self.lock();
        (q.steering.len(), q.follow_up.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == (0, 0)
    }

    /// `(steering, follow_up)` delivery modes.
    pub fn modes(&self) -> (DeliveryMode, DeliveryMode) {
        let q = self.lock();
        (q.steering_mode, q.follow_up_mode)
    }

    pub fn set_steering_mode(&self, mode: DeliveryMode) {
        self.lock().steering_mode = mode;
    }

    pub fn set_follow_up_mode(&self, mode: DeliveryMode) {
        self.lock().follow_up_mode = mode;
    }

    pub(crate) fn take_steering(&self) -> Vec<Message> {
        self.take(|q| (&mut q.steering, q.steering_mode))
    }

    pub(crate) fn take_follow_up(&self) -> Vec<Message> {
        self.take(|q| (&mut q.follow_up, q.follow_up_mode))
    }

    fn take(
        &self,
        which: impl FnOnce(&mut Queues) -> (&mut Vec<Message>, DeliveryMode),
    ) -> Vec<Message> {
        let mut q = self.lock();
        let (queue, mode) = which(&mut q);
        let taken = match mode {
            DeliveryMode::All => std::mem::take(queue),
            DeliveryMode::OneAtATime if queue.is_empty() => Vec::new(),
            DeliveryMode::OneAtATime => vec![queue.remove(0)],
        };
        if !taken.is_empty() {
            let event = snapshot(&q);
            drop(q);
            self.sink.emit(&event);
        }
        taken
    }

    fn change(&self, f: impl FnOnce(&mut Queues)) {
        let mut q = self.lock();
        f(&mut q);
        let event = snapshot(&q);
        drop(q);
        self.sink.emit(&event);
    }

    fn lock(&self) -> MutexGuard<'_, Queues> {
        // The queues are plain vectors; a panic elsewhere cannot leave them inconsistent.
        crate::sync::lock(&self.inner)
    }
}

fn snapshot(q: &Queues) -> AgentEvent {
    AgentEvent::QueueUpdate {
        steering: q.steering.iter().map(Message::preview_text).collect(),
        follow_up: q.follow_up.iter().map(Message::preview_text).collect(),
    }
}

impl std::fmt::Debug for MessageQueues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (steering, follow_up) = self.len();
        f.debug_struct("MessageQueues")
            .field("steering", &steering)
            .field("follow_up", &follow_up)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::NullSink;

    #[test]
    fn queued_messages_come_one_at_a_time_unless_all_is_set() {
        let queues = MessageQueues::new(Arc::new(NullSink));
        assert_eq!(
            queues.modes(),
            (DeliveryMode::OneAtATime, DeliveryMode::OneAtATime)
        );
        let [a, b, c] = ["a", "b", "c"].map(Message::user);
        for message in [&a, &b] {
            queues.steer(message.clone());
            queues.follow_up(message.clone());
        }
        assert_eq!(queues.take_steering(), std::slice::from_ref(&a));
        assert_eq!(queues.take_follow_up(), [a]);
        assert_eq!(queues.take_steering(), std::slice::from_ref(&b));

        queues.set_follow_up_mode(DeliveryMode::All);
        queues.follow_up(c.clone());
        assert_eq!(queues.take_follow_up(), [b, c]);
    }
}
