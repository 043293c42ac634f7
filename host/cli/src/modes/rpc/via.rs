//! How a user message reached the server (`prompt`, `steer`, `follow_up`) and where it goes
//! while a run goes on.

use tack_core::message::Content;
use tack_protocol::StreamingBehavior;

use crate::modes::driver::Queue;

/// How a user message arrived.
#[derive(Debug, Clone, Copy)]
pub enum Via {
    Prompt(Option<StreamingBehavior>),
    Steer,
    FollowUp,
}

impl Via {
    pub fn command(self) -> &'static str {
        match self {
            Via::Prompt(_) => "prompt",
            Via::Steer => "steer",
            Via::FollowUp => "follow_up",
        }
    }

    /// Where the message goes while a run goes on; a plain prompt is refused then.
    pub fn queue(self) -> Option<Queue> {
        match self {
            Via::Steer | Via::Prompt(Some(StreamingBehavior::Steer)) => Some(Queue::Steer),
            Via::FollowUp | Via::Prompt(Some(StreamingBehavior::FollowUp)) => Some(Queue::FollowUp),
            Via::Prompt(None) => None,
        }
    }
}

/// A message's text and images as one user message's content.
pub fn content(message: String, images: Vec<Content>) -> Vec<Content> {
    let mut content = vec![Content::text(message)];
    content.extend(images);
    content
}
