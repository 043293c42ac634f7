//! How the run treats queued messages and failed provider calls: `set_steering_mode`,
//! `set_follow_up_mode`, `set_auto_retry` and `abort_retry`.

use tack_core::agent::{DeliveryMode, RetryPolicy};
use tack_protocol::QueueMode;

use super::server::{Reply, Server};
use crate::modes::driver::Queue;
use crate::sync::lock;

impl Server {
    pub fn set_queue_mode(&self, queue: Queue, mode: QueueMode) -> Reply {
        let delivery = match mode {
            QueueMode::All => DeliveryMode::All,
            QueueMode::OneAtATime => DeliveryMode::OneAtATime,
        };
        let queues = self.front.agent.queues();
        match queue {
            Queue::Steer => queues.set_steering_mode(delivery),
            Queue::FollowUp => queues.set_follow_up_mode(delivery),
        }
        Ok(None)
    }

    /// `(steeringMode, followUpMode)` of `get_state`.
    pub fn queue_modes(&self) -> (QueueMode, QueueMode) {
        let wire = |mode| match mode {
            DeliveryMode::All => QueueMode::All,
            DeliveryMode::OneAtATime => QueueMode::OneAtATime,
        };
        let (steering, follow_up) = self.front.agent.queues().modes();
        (wire(steering), wire(follow_up))
    }

    /// Off: a failed call is final at once. On again: the configured retries come back.
    pub fn set_auto_retry(&self, enabled: bool) -> Reply {
        let mut saved = lock(&self.retry_off);
        let agent = &self.front.agent;
        match (enabled, saved.take()) {
            (true, Some(policy)) => agent.update_config(|c| c.retry = policy),
            (true, None) => {}
            (false, Some(policy)) => *saved = Some(policy),
            (false, None) => {
                *saved = Some(agent.config().retry);
                agent.update_config(|c| {
                    c.retry = RetryPolicy {
                        max_attempts: 1,
                        ..c.retry.clone()
                    }
                });
            }
        }
        Ok(None)
    }

    pub fn auto_retry_enabled(&self) -> bool {
        self.front.agent.config().retry.max_attempts > 1
    }

    pub fn abort_retry(&self) -> Reply {
        self.front.agent.abort_retry();
        Ok(None)
    }
}
