//! One model request without tools, read to its end: what compaction's summaries and a plugin's
//! own model calls both need. Retried on retryable errors like the agent's turns, and stopped at
//! once when `cancel` fires.

use std::collections::BTreeMap;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::{Provider, ProviderError, ProviderRequest, RetryPolicy, StreamEvent, TokenUsage};

/// A request's answer: its text blocks in order, and the usage the provider last reported.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completed {
    /// Each non-blank text block, in the order of their indexes.
    pub blocks: Vec<String>,
    pub usage: TokenUsage,
}

impl Completed {
    /// The text blocks joined by `separator`, trimmed.
    pub fn text(&self, separator: &str) -> String {
        self.blocks.join(separator).trim().to_owned()
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompleteError {
    #[error("aborted")]
    Aborted,
    #[error("{0}")]
    Provider(ProviderError),
}

/// Sends the request `request` builds (once per attempt) and reads the whole answer.
pub async fn complete(
    provider: &dyn Provider,
    request: impl Fn() -> ProviderRequest,
    retry: &RetryPolicy,
    cancel: &CancellationToken,
) -> Result<Completed, CompleteError> {
    let max_attempts = retry.max_attempts.max(1);
    let mut attempt = 1;
    loop {
        match complete_once(provider, request(), cancel).await {
            Err(CompleteError::Provider(error))
                if error.kind.is_retryable() && attempt < max_attempts =>
            {
                let Some(delay) = retry.delay(attempt, error.retry_after_ms) else {
                    return Err(CompleteError::Provider(error));
                };
                tokio::select! {
                    biased;
                    _ = cancel.cancelled() => return Err(CompleteError::Aborted),
                    _ = tokio::time::sleep(delay) => {}
                }
                attempt += 1;
            }
            other => return other,
        }
    }
}

async fn complete_once(
    provider: &dyn Provider,
    request: ProviderRequest,
    cancel: &CancellationToken,
) -> Result<Completed, CompleteError> {
    let opened = tokio::select! {
        biased;
        _ = cancel.cancelled() => return Err(CompleteError::Aborted),
        opened = provider.stream(request) => opened,
    };
    let mut stream = opened.map_err(CompleteError::Provider)?;
    let mut blocks: BTreeMap<u32, String> = BTreeMap::new();
    let mut usage = TokenUsage::default();
    loop {
        let next = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(CompleteError::Aborted),
            next = stream.next() => next,
        };
        match next {
            None => break,
            Some(StreamEvent::TextDelta { index, delta }) => {
                blocks.entry(index).or_default().push_str(&delta)
            }
            Some(StreamEvent::Usage(reported)) => usage = reported,
            Some(StreamEvent::Error(error)) => return Err(CompleteError::Provider(error)),
            Some(_) => {}
        }
    }
    Ok(Completed {
        blocks: blocks
            .into_values()
            .filter(|b| !b.trim().is_empty())
            .collect(),
        usage,
    })
}
