//! What the agent loop needs from an LLM provider: one streamed assistant response per request.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;

use futures::Stream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::tools::ToolSpec;
use crate::message::Message;

/// Streams assistant responses. The plugin runtime implements it over provider plugins (and does
/// the HTTP); tests implement it in process.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    /// Starts one response. An error here (bad credentials, HTTP status, ...) means nothing was
    /// streamed; errors after the start arrive as [`StreamEvent::Error`].
    async fn stream(&self, request: ProviderRequest) -> Result<ProviderStream, ProviderError>;
}

pub type ProviderStream = Pin<Box<dyn Stream<Item = StreamEvent> + Send>>;

/// The unified request of WIT `provider-request`.
#[derive(Debug, Clone)]
pub struct ProviderRequest {
    pub model: ModelInfo,
    pub system_prompt: String,
    /// The LLM view: only `user`, `assistant` and `toolResult` messages. Shared with the
    /// session's kept view, which grows at the next append without copying it once this
    /// request is gone.
    pub messages: Arc<Vec<Arc<Message>>>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: Option<u32>,
    pub reasoning: ReasoningLevel,
    /// Provider options from the user's config (a JSON object).
    pub options: Value,
    /// Cancelled when the user aborts; the stream may also simply be dropped.
    pub cancel: CancellationToken,
}

/// A model and the provider serving it (WIT `model-spec` plus the provider id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// Provider id ("anthropic").
    pub provider: String,
    /// Model id sent to the API.
    pub id: String,
    pub name: String,
    pub context_window: u32,
    pub max_output_tokens: u32,
    pub reasoning: bool,
    pub input: Vec<InputKind>,
    pub cost: ModelCost,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum InputKind {
    Text,
    Image,
}

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReasoningLevel {
    #[default]
    Off,
    Minimal,
    Low,
    Medium,
    High,
}

impl ReasoningLevel {
    /// The name stored in `thinking_level_change` entries.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningLevel::Off => "off",
            ReasoningLevel::Minimal => "minimal",
            ReasoningLevel::Low => "low",
            ReasoningLevel::Medium => "medium",
            ReasoningLevel::High => "high",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "off" => ReasoningLevel::Off,
            "minimal" => ReasoningLevel::Minimal,
            "low" => ReasoningLevel::Low,
            "medium" => ReasoningLevel::Medium,
            "high" => ReasoningLevel::High,
            _ => return None,
        })
    }
}

/// WIT `stream-event`. Text, thinking and tool-call blocks are keyed by `index`; deltas append.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta {
        index: u32,
        delta: String,
    },
    ThinkingDelta {
        index: u32,
        delta: String,
    },
    /// Opaque signature of a thinking block (appended like a delta).
    ThinkingSignature {
        index: u32,
        delta: String,
    },
    ToolCallStart {
        index: u32,
        id: String,
        name: String,
    },
    /// A fragment of the call's JSON arguments.
    ToolCallDelta {
        index: u32,
        delta: String,
    },
    /// Cumulative usage so far; the last one wins.
    Usage(TokenUsage),
    Stop(StopKind),
    Error(ProviderError),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

/// How a response ended, as the provider reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopKind {
    Stop,
    /// The output limit was hit; the response's tool calls are failed, never executed.
    Length,
    ToolUse,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct ProviderError {
    pub kind: ProviderErrorKind,
    pub message: String,
    /// How long the server asked to wait before retrying.
    pub retry_after_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderErrorKind {
    Auth,
    RateLimited,
    Overloaded,
    Server,
    /// The connection failed or broke (reported by the host, which does the I/O).
    Network,
    /// The response stream held an event the provider plugin could not decode. The request is
    /// safe to repeat, so it is retried once, like a broken stream.
    Malformed,
    /// The prompt exceeded the context window.
    ContextOverflow,
    InvalidRequest,
    Other,
}

impl ProviderErrorKind {
    /// Errors worth trying again after a pause.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ProviderErrorKind::RateLimited
                | ProviderErrorKind::Overloaded
                | ProviderErrorKind::Server
                | ProviderErrorKind::Network
                | ProviderErrorKind::Malformed
        )
    }
}

impl fmt::Display for ProviderErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderErrorKind::Auth => "authentication failed",
            ProviderErrorKind::RateLimited => "rate limited",
            ProviderErrorKind::Overloaded => "provider overloaded",
            ProviderErrorKind::Server => "provider server error",
            ProviderErrorKind::Network => "network error",
            ProviderErrorKind::Malformed => "malformed response stream",
            ProviderErrorKind::ContextOverflow => "context window exceeded",
            ProviderErrorKind::InvalidRequest => "invalid request",
            ProviderErrorKind::Other => "provider error",
        })
    }
}

impl ProviderError {
    pub fn new(kind: ProviderErrorKind, message: impl Into<String>) -> Self {
        ProviderError {
            kind,
            message: message.into(),
            retry_after_ms: None,
        }
    }
}

impl ModelCost {
    /// Dollars for `usage`, by kind of token (the prices are per million tokens).
    pub fn of(&self, usage: &TokenUsage) -> crate::message::Cost {
        let dollars = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        let input = dollars(usage.input, self.input);
        let output = dollars(usage.output, self.output);
        let cache_read = dollars(usage.cache_read, self.cache_read);
        let cache_write = dollars(usage.cache_write, self.cache_write);
        crate::message::Cost {
            input,
            output,
            cache_read,
            cache_write,
            total: input + output + cache_read + cache_write,
        }
    }
}
