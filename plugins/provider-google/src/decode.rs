//! Gemini's stream as unified events. Each `data:` chunk is a `GenerateContentResponse`: parts of
//! `candidates[0].content` (text, thoughts marked `thought: true`, function calls sent whole),
//! `usageMetadata` so far, and in the last chunk `finishReason`, which is the only terminator.
//!
//! Thought signatures may come on any part. The unified message has no place for a signature on
//! text or on a tool call, so a signature that does not belong to a thought travels as an empty
//! thinking block placed right after the part it belongs to; the request builder puts it back.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use provider_common::ids;
use provider_common::stream::{count, cut_short, error_event, json_data, text, BlockKind, Blocks};
use serde_json::Value;
use tack_sdk::{
    BlockDelta, Decoder, ErrorKind, ProviderError, SseEvent, StopReason, StreamEvent,
    ToolCallStart, Usage,
};

use crate::errors;

#[derive(Debug, Default)]
pub struct GeminiDecoder {
    blocks: Blocks,
    /// Base of generated call ids, from the response id (or random without one).
    id_base: Option<String>,
    calls: u32,
    /// A finish reason arrived: the answer is complete (usage may still follow).
    finished: bool,
    /// An error ended the stream.
    failed: bool,
}

impl Decoder for GeminiDecoder {
    fn push(&mut self, event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.failed || event.data.trim().is_empty() {
            return Ok(Vec::new());
        }
        let data = json_data(&event)?;
        let chunk = match &data {
            Value::Array(items) => items.first().unwrap_or(&Value::Null),
            other => other,
        };
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            self.failed = true;
            return Ok(vec![StreamEvent::Error(errors::from_stream(error))]);
        }
        if self.id_base.is_none() {
            let id = text(chunk, "/responseId");
            if !id.is_empty() {
                self.id_base = Some(ids::sanitize(id, 24));
            }
        }
        let mut out = Vec::new();
        let candidate = chunk.pointer("/candidates/0");
        if !self.finished {
            let parts = candidate
                .and_then(|c| c.pointer("/content/parts"))
                .and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                self.part(part, &mut out);
            }
        }
        if let Some(usage) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            // `promptTokenCount` includes the cached part; thoughts are billed as output.
            let cached = count(usage, "/cachedContentTokenCount");
            out.push(StreamEvent::Usage(Usage {
                input: count(usage, "/promptTokenCount").saturating_sub(cached),
                output: count(usage, "/candidatesTokenCount") + count(usage, "/thoughtsTokenCount"),
                cache_read: cached,
                cache_write: 0,
            }));
        }
        let reason = candidate
            .and_then(|c| c.get("finishReason"))
            .and_then(Value::as_str);
        if let (Some(reason), false) = (reason, self.finished) {
            self.finished = true;
            out.push(self.stop_event(reason));
        }
        let blocked = text(chunk, "/promptFeedback/blockReason");
        if candidate.is_none() && !blocked.is_empty() && !self.finished {
            self.failed = true;
            out.push(error_event(
                ErrorKind::InvalidRequest,
                format!("Gemini refused the prompt (block reason {blocked})"),
            ));
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.finished || self.failed {
            Ok(Vec::new())
        } else {
            Err(cut_short("finishReason"))
        }
    }
}

impl GeminiDecoder {
    fn part(&mut self, part: &Value, out: &mut Vec<StreamEvent>) {
        let signature = text(part, "/thoughtSignature");
        if let Some(call) = part.get("functionCall") {
            let index = self.blocks.start(BlockKind::ToolCall);
            let id = self.call_id(text(call, "/id"));
            out.push(StreamEvent::ToolCallStart(ToolCallStart {
                index,
                id,
                name: text(call, "/name").to_string(),
            }));
            let arguments = match call.get("args") {
                Some(args @ Value::Object(_)) => args.to_string(),
                _ => "{}".to_string(),
            };
            out.push(StreamEvent::ToolCallDelta(BlockDelta {
                index,
                delta: arguments,
            }));
            self.signature_block(signature, out);
        } else if part.get("thought").and_then(Value::as_bool) == Some(true) {
            let index = self.blocks.continue_or_start(BlockKind::Thinking);
            let thought = text(part, "/text");
            if !thought.is_empty() {
                out.push(StreamEvent::ThinkingDelta(BlockDelta {
                    index,
                    delta: thought.to_string(),
                }));
            }
            if !signature.is_empty() {
                out.push(StreamEvent::ThinkingSignature(BlockDelta {
                    index,
                    delta: signature.to_string(),
                }));
                // Signatures append: the next thought must not add to this one.
                self.blocks.close();
            }
        } else {
            let content = text(part, "/text");
            if !content.is_empty() {
                let index = self.blocks.continue_or_start(BlockKind::Text);
                out.push(StreamEvent::TextDelta(BlockDelta {
                    index,
                    delta: content.to_string(),
                }));
            }
            // Parts tack does not show (inline data, code execution) may still be signed.
            self.signature_block(signature, out);
        }
    }

    /// An empty thinking block holding the signature of the part just decoded.
    fn signature_block(&mut self, signature: &str, out: &mut Vec<StreamEvent>) {
        if signature.is_empty() {
            return;
        }
        let index = self.blocks.start(BlockKind::Thinking);
        out.push(StreamEvent::ThinkingSignature(BlockDelta {
            index,
            delta: signature.to_string(),
        }));
        self.blocks.close();
    }

    /// Gemini's API leaves call ids out; tool results must name their call, so one is made,
    /// unique across the session: from the response id, or random without one.
    fn call_id(&mut self, given: &str) -> String {
        self.calls += 1;
        if !given.is_empty() {
            return given.to_string();
        }
        let base = self.id_base.get_or_insert_with(random_base);
        format!("call_{base}_{}", self.calls)
    }

    fn stop_event(&self, reason: &str) -> StreamEvent {
        match reason {
            "MAX_TOKENS" => StreamEvent::Stop(StopReason::Length),
            // Gemini says STOP when it calls functions too.
            "STOP" | "FINISH_REASON_UNSPECIFIED" if self.calls > 0 => {
                StreamEvent::Stop(StopReason::ToolUse)
            }
            "STOP" | "FINISH_REASON_UNSPECIFIED" => StreamEvent::Stop(StopReason::Stop),
            "MALFORMED_FUNCTION_CALL" | "UNEXPECTED_TOOL_CALL" => error_event(
                ErrorKind::Other,
                format!("Gemini produced an unusable function call (finish reason {reason})"),
            ),
            other => error_event(
                ErrorKind::Other,
                format!("Gemini stopped the answer (finish reason {other})"),
            ),
        }
    }
}

/// 16 random hex digits. `RandomState` is seeded from the system's random source, which the
/// guest reaches through WASI.
fn random_base() -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u8(0);
    format!("{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(chunks: &[Value]) -> (Vec<StreamEvent>, Result<Vec<StreamEvent>, ProviderError>) {
        let mut decoder = GeminiDecoder::default();
        let mut out = Vec::new();
        for chunk in chunks {
            let event = SseEvent {
                event: "message".into(),
                data: chunk.to_string(),
            };
            out.extend(decoder.push(event).unwrap());
        }
        (out, decoder.finish())
    }

    fn delta(index: u32, delta: &str) -> BlockDelta {
        BlockDelta {
            index,
            delta: delta.into(),
        }
    }

    fn start(index: u32, id: &str, name: &str) -> StreamEvent {
        StreamEvent::ToolCallStart(ToolCallStart {
            index,
            id: id.into(),
            name: name.into(),
        })
    }

    #[test]
    fn thoughts_text_parallel_calls_with_a_signature_and_usage() {
        let (events, finished) = decode(&[
            json!({"candidates": [{"content": {"role": "model", "parts": [
                {"text": "Two files.", "thought": true}]}, "index": 0}],
                   "responseId": "resp-1"}),
            json!({"candidates": [{"content": {"role": "model", "parts": [
                {"text": "Reading "}]}, "index": 0}], "responseId": "resp-1"}),
            json!({"candidates": [{"content": {"role": "model", "parts": [
                {"text": "both."},
                {"functionCall": {"name": "read", "args": {"path": "a"}},
                 "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "read", "args": {"path": "b"}}}
            ]}, "finishReason": "STOP", "index": 0}],
                   "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 20,
                                     "thoughtsTokenCount": 10, "cachedContentTokenCount": 100,
                                     "totalTokenCount": 150},
                   "responseId": "resp-1"}),
        ]);
        assert_eq!(
            events,
            vec![
                StreamEvent::ThinkingDelta(delta(0, "Two files.")),
                StreamEvent::TextDelta(delta(1, "Reading ")),
                StreamEvent::TextDelta(delta(1, "both.")),
                start(2, "call_resp-1_1", "read"),
                StreamEvent::ToolCallDelta(delta(2, "{\"path\":\"a\"}")),
                StreamEvent::ThinkingSignature(delta(3, "c2ln")),
                start(4, "call_resp-1_2", "read"),
                StreamEvent::ToolCallDelta(delta(4, "{\"path\":\"b\"}")),
                StreamEvent::Usage(Usage {
                    input: 20,
                    output: 30,
                    cache_read: 100,
                    cache_write: 0
                }),
                StreamEvent::Stop(StopReason::ToolUse),
            ]
        );
        assert_eq!(finished, Ok(Vec::new()));
    }

    #[test]
    fn endings() {
        let (events, _) = decode(&[
            json!({"candidates": [{"content": {"parts": [{"text": "a"}]},
                                                          "finishReason": "MAX_TOKENS"}]}),
        ]);
        assert_eq!(events.last(), Some(&StreamEvent::Stop(StopReason::Length)));

        let (events, _) = decode(&[json!({"candidates": [{"finishReason": "SAFETY"}]})]);
        assert!(matches!(&events[..], [StreamEvent::Error(e)] if e.message.contains("SAFETY")));

        let (events, finished) = decode(&[json!({"error": {"code": 503, "status": "UNAVAILABLE",
                                                           "message": "The model is overloaded."}})]);
        assert_eq!(
            events,
            vec![error_event(
                ErrorKind::Overloaded,
                "The model is overloaded."
            )]
        );
        assert_eq!(finished, Ok(Vec::new()));

        let (events, _) = decode(&[json!({"promptFeedback": {"blockReason": "SAFETY"}})]);
        assert!(
            matches!(&events[..], [StreamEvent::Error(e)] if e.kind == ErrorKind::InvalidRequest)
        );

        let (_, cut) = decode(&[json!({"candidates": [{"content": {"parts": [{"text": "a"}]}}]})]);
        assert_eq!(cut.unwrap_err().kind, ErrorKind::Server);
    }

    #[test]
    fn ids_are_kept_or_made_unique() {
        let (events, _) = decode(&[json!({"candidates": [{"content": {"parts": [
            {"functionCall": {"id": "given", "name": "ls", "args": {}}},
            {"functionCall": {"name": "ls"}}
        ]}}]})]);
        let ids: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallStart(s) => Some(s.id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ids[0], "given");
        assert!(
            ids[1].starts_with("call_") && ids[1].ends_with("_2"),
            "{ids:?}"
        );
        assert_eq!(ids[1].len(), "call_".len() + 16 + 2);
        assert_eq!(events[3], StreamEvent::ToolCallDelta(delta(1, "{}")));
    }
}
