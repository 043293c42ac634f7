//! Helpers for stream decoders: event payloads, block indices, and the errors every decoder
//! reports the same way.

use serde_json::Value;
use tack_sdk::{BlockDelta, ErrorKind, ProviderError, SseEvent, StreamEvent};

/// The event's `data` as JSON. A payload that is not JSON is a decoding error naming the event.
pub fn json_data(event: &SseEvent) -> Result<Value, ProviderError> {
    serde_json::from_str(&event.data).map_err(|e| {
        ProviderError::new(
            ErrorKind::Other,
            format!(
                "the provider sent a malformed `{}` event ({e}): {}",
                event.event,
                excerpt(&event.data)
            ),
        )
    })
}

/// Appends `make(delta)` for a non-empty delta; providers send empty deltas around block
/// boundaries, which carry nothing.
pub fn push_delta(
    out: &mut Vec<StreamEvent>,
    make: fn(BlockDelta) -> StreamEvent,
    index: u32,
    delta: &str,
) {
    if !delta.is_empty() {
        out.push(make(BlockDelta {
            index,
            delta: delta.to_string(),
        }));
    }
}

/// The error `finish` returns when the body ended before the API's terminator. It is a server
/// error so the host retries: the connection was cut, the request itself was fine.
pub fn cut_short(terminator: &str) -> ProviderError {
    ProviderError::new(
        ErrorKind::Server,
        format!("the response ended before its `{terminator}` event (the stream was cut)"),
    )
}

/// An error the provider reported inside the stream.
pub fn error_event(kind: ErrorKind, message: impl Into<String>) -> StreamEvent {
    StreamEvent::Error(ProviderError::new(kind, message))
}

/// A number field, 0 when absent.
pub fn count(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// A string field, "" when absent.
pub fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// Kinds of content block, for [`Blocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Text,
    Thinking,
    ToolCall,
}

/// Assigns unified block indices for APIs whose stream does not number its blocks (Chat
/// Completions' content, Gemini's parts): consecutive text (or thinking) continues the open
/// block, and anything else starts a new one, so the blocks keep the order the model wrote them.
#[derive(Debug, Default)]
pub struct Blocks {
    next: u32,
    open: Option<(BlockKind, u32)>,
}

impl Blocks {
    /// The open block if it is of `kind`, else a new one.
    pub fn continue_or_start(&mut self, kind: BlockKind) -> u32 {
        match self.open {
            Some((open, index)) if open == kind => index,
            _ => self.start(kind),
        }
    }

    /// A new block.
    pub fn start(&mut self, kind: BlockKind) -> u32 {
        let index = self.next;
        self.next += 1;
        self.open = Some((kind, index));
        index
    }

    /// Ends the open block, so that the next one starts a new block whatever its kind.
    pub fn close(&mut self) {
        self.open = None;
    }
}

/// The start of a long payload, for error messages.
fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_continue_only_the_same_kind() {
        let mut blocks = Blocks::default();
        assert_eq!(blocks.continue_or_start(BlockKind::Thinking), 0);
        assert_eq!(blocks.continue_or_start(BlockKind::Thinking), 0);
        assert_eq!(blocks.continue_or_start(BlockKind::Text), 1);
        assert_eq!(blocks.start(BlockKind::ToolCall), 2);
        assert_eq!(blocks.start(BlockKind::ToolCall), 3);
        assert_eq!(blocks.continue_or_start(BlockKind::Text), 4);
        blocks.close();
        assert_eq!(blocks.continue_or_start(BlockKind::Text), 5);
    }

    #[test]
    fn malformed_data_is_an_error_naming_the_event() {
        let err = json_data(&SseEvent {
            event: "message".into(),
            data: "{oops".into(),
        })
        .unwrap_err();
        assert!(err.message.contains("`message`"), "{}", err.message);
        assert_eq!(count(&serde_json::json!({"a": {"b": 3}}), "/a/b"), 3);
        assert_eq!(text(&serde_json::json!({}), "/a"), "");
    }
}
