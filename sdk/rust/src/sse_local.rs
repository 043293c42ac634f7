//! A small server-sent-event format for providers that produce their answer themselves.
//!
//! An offline provider returns [`crate::RequestPlan::Local`] with a body written by
//! [`SseWriter`]; the host frames it into events exactly as it would a streamed HTTP body and
//! feeds them to the provider's decoder, a [`LocalDecoder`]. Test servers can speak the same
//! format over real HTTP. Each event is `event: <name>\ndata: <one line of JSON>\n\n`:
//!
//! | event       | data                                                         |
//! |-------------|--------------------------------------------------------------|
//! | `text`      | `{"text": "..."}`                                            |
//! | `thinking`  | `{"text": "...", "signature": "..."?}`                       |
//! | `tool_call` | `{"id": "...", "name": "...", "arguments": {...} or "json"}` |
//! | `usage`     | `{"input": n, "output": n, "cacheRead": n, "cacheWrite": n}` |
//! | `stop`      | `{"reason": "stop" \| "length" \| "toolUse"}`                  |
//! | `error`     | `{"kind": "rateLimited", "message": "...", "retryAfterMs": n?}` |
//!
//! `text` and `thinking` events continue the open block of the same kind (so a server may send
//! a text in many events); any other block event starts a new block. The decoder splits text and
//! tool-call arguments into small deltas so front ends see a stream. `stop` or `error` ends the
//! stream; a body that ends before either is a (retryable) `server` error. Unknown events, such
//! as keep-alive pings, are ignored.

use serde_json::{json, Value};

use crate::{
    BlockDelta, Decoder, ErrorKind, ProviderError, SseEvent, StopReason, StreamEvent,
    ToolCallStart, Usage,
};

/// Builds a local SSE body.
#[derive(Clone, Debug, Default)]
pub struct SseWriter {
    body: String,
}

impl SseWriter {
    /// An empty body.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one raw event.
    pub fn event(&mut self, event: &str, data: &Value) -> &mut Self {
        // serde_json escapes newlines inside strings, so `data` is always a single line.
        self.body.push_str("event: ");
        self.body.push_str(event);
        self.body.push_str("\ndata: ");
        self.body.push_str(&data.to_string());
        self.body.push_str("\n\n");
        self
    }

    /// Appends text to the answer.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.event("text", &json!({ "text": text }))
    }

    /// Appends reasoning text.
    pub fn thinking(&mut self, text: &str) -> &mut Self {
        self.event("thinking", &json!({ "text": text }))
    }

    /// Appends a tool call.
    pub fn tool_call(&mut self, id: &str, name: &str, arguments: &Value) -> &mut Self {
        self.event(
            "tool_call",
            &json!({ "id": id, "name": name, "arguments": arguments }),
        )
    }

    /// Reports cumulative usage.
    pub fn usage(&mut self, usage: &Usage) -> &mut Self {
        self.event(
            "usage",
            &json!({
                "input": usage.input,
                "output": usage.output,
                "cacheRead": usage.cache_read,
                "cacheWrite": usage.cache_write,
            }),
        )
    }

    /// Ends the answer.
    pub fn stop(&mut self, reason: StopReason) -> &mut Self {
        self.event("stop", &json!({ "reason": reason.as_str() }))
    }

    /// Ends the answer with an error.
    pub fn error(
        &mut self,
        kind: ErrorKind,
        message: &str,
        retry_after_ms: Option<u64>,
    ) -> &mut Self {
        let mut data = json!({ "kind": kind.as_str(), "message": message });
        if let Some(ms) = retry_after_ms {
            data["retryAfterMs"] = json!(ms);
        }
        self.event("error", &data)
    }

    /// The body as text.
    pub fn as_str(&self) -> &str {
        &self.body
    }

    /// The body as bytes, for [`crate::RequestPlan::Local`].
    pub fn into_bytes(self) -> Vec<u8> {
        self.body.into_bytes()
    }
}

/// Splits an SSE body into events the way the host frames them (`event:` and `data:` fields,
/// blank-line separated, multi-line data joined by `\n`, comments ignored). Useful in tests.
pub fn parse(body: &str) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let mut event = String::new();
    let mut data: Vec<&str> = Vec::new();
    let mut seen_field = false;
    for line in body.lines() {
        if line.is_empty() {
            if seen_field {
                events.push(SseEvent {
                    event: std::mem::take(&mut event),
                    data: data.join("\n"),
                });
                data.clear();
                seen_field = false;
            }
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => {
                event = value.to_string();
                seen_field = true;
            }
            "data" => {
                data.push(value);
                seen_field = true;
            }
            _ => {}
        }
    }
    if seen_field {
        events.push(SseEvent {
            event,
            data: data.join("\n"),
        });
    }
    events
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Block {
    Text,
    Thinking,
    ToolCall,
}

/// Decodes the format written by [`SseWriter`] into stream events.
#[derive(Debug)]
pub struct LocalDecoder {
    chunk_chars: usize,
    open: Option<(Block, u32)>,
    next_index: u32,
    done: bool,
}

impl Default for LocalDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl LocalDecoder {
    /// A decoder that splits text and arguments into deltas of at most 12 characters.
    pub fn new() -> Self {
        Self::with_chunk_chars(12)
    }

    /// A decoder that splits text and arguments into deltas of at most `chunk_chars` characters
    /// (at least one).
    pub fn with_chunk_chars(chunk_chars: usize) -> Self {
        LocalDecoder {
            chunk_chars: chunk_chars.max(1),
            open: None,
            next_index: 0,
            done: false,
        }
    }

    fn block(&mut self, kind: Block, continues: bool) -> u32 {
        match self.open {
            Some((open, index)) if continues && open == kind => index,
            _ => {
                let index = self.next_index;
                self.next_index += 1;
                self.open = Some((kind, index));
                index
            }
        }
    }

    fn deltas(&self, index: u32, text: &str) -> Vec<BlockDelta> {
        chunks(text, self.chunk_chars)
            .into_iter()
            .map(|delta| BlockDelta {
                index,
                delta: delta.to_string(),
            })
            .collect()
    }

    fn decode(&mut self, name: &str, data: &Value) -> Result<Vec<StreamEvent>, String> {
        let mut out = Vec::new();
        match name {
            "text" => {
                let text = str_field(data, "text")?;
                let index = self.block(Block::Text, true);
                out.extend(
                    self.deltas(index, text)
                        .into_iter()
                        .map(StreamEvent::TextDelta),
                );
            }
            "thinking" => {
                let text = data.get("text").and_then(Value::as_str).unwrap_or("");
                let index = self.block(Block::Thinking, true);
                out.extend(
                    self.deltas(index, text)
                        .into_iter()
                        .map(StreamEvent::ThinkingDelta),
                );
                if let Some(signature) = data.get("signature").and_then(Value::as_str) {
                    out.push(StreamEvent::ThinkingSignature(BlockDelta {
                        index,
                        delta: signature.to_string(),
                    }));
                }
            }
            "tool_call" => {
                let id = str_field(data, "id")?;
                let name = str_field(data, "name")?;
                let arguments = match data.get("arguments") {
                    None | Some(Value::Null) => "{}".to_string(),
                    Some(Value::String(raw)) => raw.clone(),
                    Some(value) => value.to_string(),
                };
                let index = self.block(Block::ToolCall, false);
                out.push(StreamEvent::ToolCallStart(ToolCallStart {
                    index,
                    id: id.to_string(),
                    name: name.to_string(),
                }));
                out.extend(
                    self.deltas(index, &arguments)
                        .into_iter()
                        .map(StreamEvent::ToolCallDelta),
                );
            }
            "usage" => {
                let field = |key: &str| data.get(key).and_then(Value::as_u64).unwrap_or(0);
                out.push(StreamEvent::Usage(Usage {
                    input: field("input"),
                    output: field("output"),
                    cache_read: field("cacheRead"),
                    cache_write: field("cacheWrite"),
                }));
            }
            "stop" => {
                let reason = str_field(data, "reason")?;
                let reason = StopReason::parse(reason)
                    .ok_or_else(|| format!("unknown stop reason `{reason}`"))?;
                out.push(StreamEvent::Stop(reason));
                self.done = true;
            }
            "error" => {
                let kind = data
                    .get("kind")
                    .and_then(Value::as_str)
                    .and_then(ErrorKind::parse)
                    .unwrap_or(ErrorKind::Other);
                let message = data
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("provider error");
                out.push(StreamEvent::Error(ProviderError {
                    kind,
                    message: message.to_string(),
                    retry_after_ms: data.get("retryAfterMs").and_then(Value::as_u64),
                }));
                self.done = true;
            }
            _ => {}
        }
        Ok(out)
    }
}

impl Decoder for LocalDecoder {
    fn push(&mut self, event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done || !is_known(&event.event) {
            return Ok(Vec::new());
        }
        let data: Value = serde_json::from_str(&event.data).map_err(|e| {
            ProviderError::new(
                ErrorKind::Other,
                format!("malformed `{}` event: {e}", event.event),
            )
        })?;
        self.decode(&event.event, &data).map_err(|e| {
            ProviderError::new(
                ErrorKind::Other,
                format!("malformed `{}` event: {e}", event.event),
            )
        })
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done {
            Ok(Vec::new())
        } else {
            Err(ProviderError::new(
                ErrorKind::Server,
                "the response ended before its stop event",
            ))
        }
    }
}

fn is_known(event: &str) -> bool {
    matches!(
        event,
        "text" | "thinking" | "tool_call" | "usage" | "stop" | "error"
    )
}

fn str_field<'a>(data: &'a Value, key: &str) -> Result<&'a str, String> {
    data.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing string field `{key}`"))
}

/// Splits `text` into pieces of at most `size` characters, on character boundaries.
pub fn chunks(text: &str, size: usize) -> Vec<&str> {
    let size = size.max(1);
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (offset, _) in text.char_indices() {
        if count == size {
            pieces.push(&text[start..offset]);
            start = offset;
            count = 0;
        }
        count += 1;
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(body: &str) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut decoder = LocalDecoder::with_chunk_chars(4);
        let mut out = Vec::new();
        for event in parse(body) {
            out.extend(decoder.push(event)?);
        }
        out.extend(decoder.finish()?);
        Ok(out)
    }

    #[test]
    fn round_trip_splits_into_deltas() {
        let mut w = SseWriter::new();
        w.text("héllo wörld")
            .tool_call("c1", "ls", &json!({"path": "."}))
            .usage(&Usage {
                input: 3,
                output: 4,
                cache_read: 0,
                cache_write: 0,
            })
            .stop(StopReason::ToolUse);
        let events = decode_all(w.as_str()).unwrap();
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta(d) => Some(d.delta.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "héllo wörld");
        let args: Vec<&BlockDelta> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallDelta(d) => Some(d),
                _ => None,
            })
            .collect();
        assert!(args.len() > 1);
        assert!(args.iter().all(|d| d.index == 1));
        let joined: String = args.iter().map(|d| d.delta.as_str()).collect();
        assert_eq!(joined, r#"{"path":"."}"#);
        assert_eq!(events.last(), Some(&StreamEvent::Stop(StopReason::ToolUse)));
    }

    #[test]
    fn consecutive_text_events_share_a_block() {
        let body = "event: text\ndata: {\"text\":\"ab\"}\n\nevent: ping\ndata: {}\n\n\
                    event: text\ndata: {\"text\":\"cd\"}\n\nevent: stop\ndata: {\"reason\":\"stop\"}\n\n";
        let events = decode_all(body).unwrap();
        assert_eq!(
            events,
            vec![
                StreamEvent::TextDelta(BlockDelta {
                    index: 0,
                    delta: "ab".into()
                }),
                StreamEvent::TextDelta(BlockDelta {
                    index: 0,
                    delta: "cd".into()
                }),
                StreamEvent::Stop(StopReason::Stop),
            ]
        );
    }

    #[test]
    fn cut_stream_and_errors() {
        let err = decode_all("event: text\ndata: {\"text\":\"ab\"}\n\n").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Server);
        let mut w = SseWriter::new();
        w.error(ErrorKind::RateLimited, "slow down", Some(10));
        let events = decode_all(w.as_str()).unwrap();
        assert_eq!(
            events,
            vec![StreamEvent::Error(ProviderError {
                kind: ErrorKind::RateLimited,
                message: "slow down".into(),
                retry_after_ms: Some(10),
            })]
        );
        assert!(decode_all("event: text\ndata: nope\n\n").is_err());
    }

    #[test]
    fn chunks_respect_char_boundaries() {
        assert_eq!(chunks("ééé", 2), vec!["éé", "é"]);
        assert!(chunks("", 3).is_empty());
    }
}
