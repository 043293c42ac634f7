//! Token accounting: how much of the model's context window the conversation fills.
//!
//! Providers report exact usage with every assistant message; messages added since then are
//! estimated at four characters per token, which overestimates a little for code and prose, the
//! safe side when deciding whether to compact.

use std::sync::Arc;

use crate::message::{AssistantContent, Content, Message, StopReason};

/// What one image costs in the estimate: providers charge roughly this much for a typical
/// screenshot.
pub const IMAGE_TOKENS: u64 = 1200;

/// Estimated tokens of one message as the provider receives it (characters / 4, rounded up).
///
/// Byte lengths stand in for characters: they are free to compute and only overestimate for
/// non-ASCII text.
pub fn estimate_tokens(message: &Message) -> u64 {
    let (bytes, images) = match message {
        Message::User(m) => content_size(&m.content),
        Message::ToolResult(m) => content_size(&m.content),
        Message::Assistant(m) => {
            let bytes = m
                .content
                .iter()
                .map(|block| match block {
                    AssistantContent::Text(t) => t.text.len(),
                    AssistantContent::Thinking(t) => t.thinking.len(),
                    AssistantContent::ToolCall(call) => call.name.len() + json_len(&call.arguments),
                })
                .sum();
            (bytes, 0)
        }
        Message::Custom(m) => (m.content.len(), 0),
        Message::BranchSummary(m) => (m.summary.len(), 0),
        Message::CompactionSummary(m) => (m.summary.len(), 0),
    };
    chars_to_tokens(bytes) + images * IMAGE_TOKENS
}

/// `chars / 4`, rounded up.
pub fn chars_to_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

fn content_size(content: &[Content]) -> (usize, u64) {
    content
        .iter()
        .fold((0, 0), |(bytes, images), block| match block {
            Content::Text(t) => (bytes + t.text.len(), images),
            Content::Image(_) => (bytes, images + 1),
        })
}

fn json_len(value: &serde_json::Value) -> usize {
    // Arguments are small objects; serializing them is the simplest exact length.
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// The context size of a projected conversation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextEstimate {
    /// `usage_tokens + trailing_tokens`.
    pub tokens: u64,
    /// What the provider reported for the last usable assistant message (0 if none).
    pub usage_tokens: u64,
    /// Estimated tokens of the messages after it (of every message when there is no usage).
    pub trailing_tokens: u64,
}

/// Estimates the context of `messages` (a projection, see [`crate::Session::project`]): the last
/// assistant message's reported usage (input, output and cache tokens together) plus estimates
/// of the messages after it.
///
/// A usage is not used when its message failed or was aborted (the numbers are partial), or when
/// it was recorded before the latest compaction summary: it then measured a context that no
/// longer exists, since compaction replaced most of it.
pub fn estimate_context(messages: &[Arc<Message>]) -> ContextEstimate {
    // A projection holds at most one compaction summary, first; looking for one further on
    // would read every message of a long conversation on every turn.
    let compacted_at = match messages.first().map(|m| &**m) {
        Some(Message::CompactionSummary(summary)) => Some(summary.timestamp),
        _ => None,
    };
    let usage_at = messages.iter().rposition(|m| match &**m {
        Message::Assistant(a) => {
            let total = a.usage.input + a.usage.output + a.usage.cache_read + a.usage.cache_write;
            !matches!(a.stop_reason, StopReason::Error | StopReason::Aborted)
                && total > 0
                && compacted_at.is_none_or(|at| a.timestamp > at)
        }
        _ => false,
    });
    let (usage_tokens, trailing_from) = match usage_at {
        Some(i) => match &*messages[i] {
            Message::Assistant(a) => (
                a.usage.input + a.usage.output + a.usage.cache_read + a.usage.cache_write,
                i + 1,
            ),
            _ => (0, 0),
        },
        None => (0, 0),
    };
    let trailing_tokens = messages[trailing_from..]
        .iter()
        .map(|m| estimate_tokens(m))
        .sum();
    ContextEstimate {
        tokens: usage_tokens + trailing_tokens,
        usage_tokens,
        trailing_tokens,
    }
}

/// How full the model's context window is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextUsage {
    pub tokens: u64,
    pub context_window: u32,
    /// `tokens` as a percentage of `context_window` (may exceed 100).
    pub percent: f64,
}

impl ContextUsage {
    pub fn new(tokens: u64, context_window: u32) -> Self {
        let percent = if context_window == 0 {
            0.0
        } else {
            tokens as f64 * 100.0 / f64::from(context_window)
        };
        ContextUsage {
            tokens,
            context_window,
            percent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{
        AssistantMessage, CompactionSummaryMessage, ImageContent, ToolCall, Usage, UserMessage,
    };
    use serde_json::json;

    fn assistant(text: &str, input: u64, timestamp: i64, stop: StopReason) -> Arc<Message> {
        Arc::new(Message::Assistant(AssistantMessage {
            content: vec![AssistantContent::Text(crate::message::TextContent {
                text: text.into(),
            })],
            provider: "p".into(),
            model: "m".into(),
            usage: Usage {
                input,
                output: 10,
                ..Usage::default()
            },
            stop_reason: stop,
            error_message: None,
            timestamp,
        }))
    }

    #[test]
    fn estimates_round_up_and_count_images() {
        assert_eq!(estimate_tokens(&Message::user("abcde")), 2);
        let with_image = Message::User(UserMessage {
            content: vec![
                Content::text("abcd"),
                Content::Image(ImageContent {
                    data: "x".repeat(100_000),
                    mime_type: "image/png".into(),
                }),
            ],
            timestamp: 0,
        });
        assert_eq!(estimate_tokens(&with_image), 1 + IMAGE_TOKENS);
        let call = Message::Assistant(AssistantMessage {
            content: vec![AssistantContent::ToolCall(ToolCall {
                id: "c".into(),
                name: "read".into(),
                arguments: json!({"path": "a"}),
            })],
            provider: "p".into(),
            model: "m".into(),
            usage: Usage::default(),
            stop_reason: StopReason::ToolUse,
            error_message: None,
            timestamp: 0,
        });
        // "read" + {"path":"a"} = 4 + 12 bytes.
        assert_eq!(estimate_tokens(&call), 4);
    }

    #[test]
    fn usage_plus_trailing_estimates() {
        let messages = vec![
            Arc::new(Message::user("x".repeat(400))),
            assistant("ok", 1000, 5, StopReason::Stop),
            Arc::new(Message::user("y".repeat(40))),
        ];
        let estimate = estimate_context(&messages);
        assert_eq!(estimate.usage_tokens, 1010);
        assert_eq!(estimate.trailing_tokens, 10);
        assert_eq!(estimate.tokens, 1020);
    }

    #[test]
    fn failed_and_stale_usage_is_ignored() {
        let failed = vec![
            Arc::new(Message::user("x".repeat(40))),
            assistant("", 99_999, 5, StopReason::Error),
        ];
        assert_eq!(estimate_context(&failed).usage_tokens, 0);
        assert_eq!(estimate_context(&failed).tokens, 10);

        // Kept after a compaction at t=10: its usage measured the old, larger context.
        let compacted = vec![
            Arc::new(Message::CompactionSummary(CompactionSummaryMessage {
                summary: "s".repeat(40),
                tokens_before: 50_000,
                timestamp: 10,
            })),
            assistant("kept", 50_000, 5, StopReason::Stop),
        ];
        let estimate = estimate_context(&compacted);
        assert_eq!(estimate.usage_tokens, 0);
        assert_eq!(estimate.tokens, 10 + 1);

        let fresh = vec![
            compacted[0].clone(),
            compacted[1].clone(),
            assistant("new", 3000, 11, StopReason::Stop),
        ];
        assert_eq!(estimate_context(&fresh).tokens, 3010);
    }

    #[test]
    fn usage_percent() {
        let usage = ContextUsage::new(50_000, 200_000);
        assert_eq!(usage.percent, 25.0);
        assert_eq!(ContextUsage::new(5, 0).percent, 0.0);
    }
}
