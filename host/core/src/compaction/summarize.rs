//! The summary requests: the same provider as the conversation, no tools, one user message
//! holding the transcript and the instructions.
//!
//! A transcript larger than one request can hold (a long session compacted for the first time,
//! an imported one) is cut into chunks: the first is summarized, each next one updates that
//! summary, so nothing is dropped unread.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::prepare::CompactionPreparation;
use super::prompt;
use super::serialize::serialize_chunks;
use super::CompactionError;
use crate::agent::{
    complete, CompleteError, ModelInfo, Provider, ProviderRequest, ReasoningLevel, RetryPolicy,
};
use crate::message::{Content, Message, UserMessage};

/// Share of the reserve a summary may use as output.
pub const SUMMARY_OUTPUT_SHARE: f64 = 0.8;
/// Share of the reserve the summary of a split turn's prefix may use.
pub const TURN_PREFIX_OUTPUT_SHARE: f64 = 0.5;

/// Tokens of a request that are not transcript: system prompt, instructions, focus.
const PROMPT_OVERHEAD_TOKENS: u64 = 2_000;
/// Transcript characters per token assumed when sizing chunks. Lower than the 4 used for
/// estimates: code and JSON tokenize denser than prose, and a chunk that overflows is worse
/// than one chunk more.
const CHARS_PER_TOKEN: u64 = 3;
/// Smallest chunk, so that a tiny window still makes progress.
const MIN_CHUNK_CHARS: usize = 4_000;

/// Writes summaries with one provider and model.
pub struct Summarizer<'a> {
    pub provider: &'a dyn Provider,
    pub model: &'a ModelInfo,
    pub reasoning: ReasoningLevel,
    /// Provider options from the user's config.
    pub options: &'a Value,
    /// The compaction reserve for this model (see `CompactionSettings::reserve_for`).
    pub reserve_tokens: u64,
    pub retry: &'a RetryPolicy,
    pub cancel: &'a CancellationToken,
}

impl Summarizer<'_> {
    /// The summary of a compaction: the history (updating the previous summary), then the split
    /// turn's prefix if there is one, then the file lists.
    pub async fn compaction(
        &self,
        preparation: &CompactionPreparation,
        focus: Option<&str>,
    ) -> Result<String, CompactionError> {
        let previous = preparation.previous_summary.as_deref();
        let summary = if preparation.is_split_turn() {
            let history = if preparation.messages_to_summarize.is_empty() {
                previous.unwrap_or(prompt::NO_EARLIER_HISTORY).to_owned()
            } else {
                self.history(&preparation.messages_to_summarize, previous, focus)
                    .await?
            };
            let prefix = self.turn_prefix(&preparation.turn_prefix).await?;
            prompt::merge_split_turn(&history, &prefix)
        } else {
            self.history(&preparation.messages_to_summarize, previous, focus)
                .await?
        };
        Ok(summary + &preparation.file_ops.format())
    }

    /// Summarizes `messages`, updating `previous` when there is one; `focus` is what the user
    /// asked the summary to stress.
    pub async fn history(
        &self,
        messages: &[Arc<Message>],
        previous: Option<&str>,
        focus: Option<&str>,
    ) -> Result<String, CompactionError> {
        let max_tokens = self.output_tokens(SUMMARY_OUTPUT_SHARE);
        self.chunked(
            messages,
            previous,
            max_tokens,
            |chunk, previous| match previous {
                None => prompt::initial(chunk, focus),
                Some(previous) => prompt::update(chunk, previous, focus),
            },
        )
        .await
    }

    /// Summarizes the part of a turn before the cut.
    pub async fn turn_prefix(&self, messages: &[Arc<Message>]) -> Result<String, CompactionError> {
        let max_tokens = self.output_tokens(TURN_PREFIX_OUTPUT_SHARE);
        self.chunked(
            messages,
            None,
            max_tokens,
            |chunk, previous| match previous {
                None => prompt::turn_prefix(chunk),
                Some(previous) => prompt::update(chunk, previous, None),
            },
        )
        .await
    }

    /// Summarizes a branch being left.
    pub async fn branch(
        &self,
        messages: &[Arc<Message>],
        focus: Option<&str>,
    ) -> Result<String, CompactionError> {
        let max_tokens = self.output_tokens(SUMMARY_OUTPUT_SHARE);
        self.chunked(
            messages,
            None,
            max_tokens,
            |chunk, previous| match previous {
                None => prompt::branch(chunk, focus),
                Some(previous) => prompt::update(chunk, previous, focus),
            },
        )
        .await
    }

    async fn chunked(
        &self,
        messages: &[Arc<Message>],
        previous: Option<&str>,
        max_tokens: u32,
        prompt_for: impl Fn(&str, Option<&str>) -> String,
    ) -> Result<String, CompactionError> {
        let mut summary = previous.map(str::to_owned);
        for chunk in serialize_chunks(messages, self.chunk_chars(max_tokens)) {
            let text = prompt_for(&chunk, summary.as_deref());
            summary = Some(self.complete(text, max_tokens).await?);
        }
        summary.ok_or(CompactionError::NothingToCompact)
    }

    fn output_tokens(&self, share: f64) -> u32 {
        let wanted = (self.reserve_tokens as f64 * share) as u64;
        let limit = u64::from(self.model.max_output_tokens.max(1));
        u32::try_from(wanted.clamp(1, limit)).unwrap_or(u32::MAX)
    }

    /// Transcript bytes one request holds: the window minus the answer, the previous summary
    /// (at most one answer long) and the instructions.
    fn chunk_chars(&self, max_tokens: u32) -> usize {
        let room = u64::from(self.model.context_window)
            .saturating_sub(2 * u64::from(max_tokens))
            .saturating_sub(PROMPT_OVERHEAD_TOKENS);
        usize::try_from(room.saturating_mul(CHARS_PER_TOKEN))
            .unwrap_or(usize::MAX)
            .max(MIN_CHUNK_CHARS)
    }

    /// One request, retried on retryable errors like the agent's own; returns the text.
    async fn complete(&self, text: String, max_tokens: u32) -> Result<String, CompactionError> {
        let request = || ProviderRequest {
            model: self.model.clone(),
            system_prompt: prompt::SUMMARIZATION_SYSTEM_PROMPT.to_owned(),
            messages: Arc::new(vec![Arc::new(Message::User(UserMessage {
                content: vec![Content::text(text.as_str())],
                timestamp: crate::message::now_ms(),
            }))]),
            tools: Vec::new(),
            max_tokens: Some(max_tokens),
            reasoning: self.reasoning,
            options: self.options.clone(),
            cancel: self.cancel.child_token(),
        };
        let completed = complete(self.provider, request, self.retry, self.cancel)
            .await
            .map_err(|e| match e {
                CompleteError::Aborted => CompactionError::Aborted,
                CompleteError::Provider(error) => CompactionError::Provider(error),
            })?;
        let summary = completed.text("\n");
        if summary.is_empty() {
            return Err(CompactionError::EmptySummary);
        }
        Ok(summary)
    }
}
