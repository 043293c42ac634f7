//! Model calls a plugin makes itself (`tack:plugin/models`, new in 0.2.0), outside the agent's
//! turns: a summary, a draft, the questions in the last answer (Pi's `complete`). Needs the
//! `agents` grant; the plugin never holds a key, and each call is recorded in the session.
//!
//! ```rust,no_run
//! use tack_sdk::models::{self, Completion};
//!
//! let answer: Completion = models::Ask::new("List the open questions in:\n\nWhich parser?")
//!     .system_prompt("Answer with one question per line.")
//!     .max_tokens(512)
//!     .send()?;
//! println!("{} ({} tokens out, ${:.4})", answer.text, answer.output_tokens, answer.cost);
//! # Ok::<(), models::CompletionError>(())
//! ```

use crate::additions::tack::plugin0_2_0::models as host;
pub use crate::additions::tack::plugin0_2_0::models::{
    available, Completion, CompletionError, Message, Role,
};

/// One model call, built up and then sent.
#[derive(Debug, Clone)]
pub struct Ask {
    request: host::CompletionRequest,
}

impl Ask {
    /// A call whose conversation is one user message.
    pub fn new(prompt: impl Into<String>) -> Self {
        Self::conversation(vec![Message {
            role: Role::User,
            text: prompt.into(),
        }])
    }

    /// A call with a whole conversation, oldest message first.
    pub fn conversation(messages: Vec<Message>) -> Self {
        Self {
            request: host::CompletionRequest {
                model: None,
                system_prompt: None,
                messages,
                max_tokens: None,
                thinking: None,
            },
        }
    }

    /// The model, as `provider/id` or an id of the session's provider (see [`available`]);
    /// without it, the session's model.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.request.model = Some(model.into());
        self
    }

    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.request.system_prompt = Some(prompt.into());
        self
    }

    pub fn max_tokens(mut self, max: u32) -> Self {
        self.request.max_tokens = Some(max);
        self
    }

    /// `off`, `minimal`, `low`, `medium` or `high`; without it, the session's level.
    pub fn thinking(mut self, level: impl Into<String>) -> Self {
        self.request.thinking = Some(level.into());
        self
    }

    /// Asks, and waits for the whole answer.
    pub fn send(&self) -> Result<Completion, CompletionError> {
        host::complete(&self.request)
    }
}
