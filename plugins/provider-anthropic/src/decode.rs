//! The Messages API's stream as unified events. Anthropic numbers its content blocks, and those
//! numbers are used as the unified block indices as they are.
//!
//! Events: `message_start` (input and cache usage), `content_block_start` / `_delta` / `_stop`
//! (text, thinking with its signature, tool use with its input as JSON fragments, redacted
//! thinking), `message_delta` (stop reason, output usage), `message_stop` (the terminator),
//! `ping`, and `error`.

use std::collections::HashMap;

use provider_common::stream::{cut_short, error_event, json_data, push_delta, text};
use serde_json::Value;
use tack_sdk::{
    BlockDelta, Decoder, ErrorKind, ProviderError, SseEvent, StopReason, StreamEvent,
    ToolCallStart, Usage,
};

use crate::errors;
use crate::request::REDACTED_PREFIX;

#[derive(Debug, Default)]
pub struct MessagesDecoder {
    blocks: HashMap<u32, Block>,
    usage: Usage,
    stop_reason: Option<String>,
    done: bool,
}

#[derive(Debug)]
enum Block {
    Text,
    Thinking,
    ToolUse {
        /// `input` given whole in the block's start, sent only if no fragments follow.
        initial: Option<String>,
        streamed: bool,
    },
    /// Server tools and blocks this decoder does not know: ignored.
    Other,
}

impl Decoder for MessagesDecoder {
    fn push(&mut self, event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done || event.event == "ping" {
            return Ok(Vec::new());
        }
        let data = json_data(&event)?;
        // Every payload repeats its event name in `type`, which proxies that drop `event:`
        // lines keep.
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(&event.event);
        match kind {
            "message_start" => Ok(self.update_usage(data.pointer("/message/usage"))),
            "content_block_start" => self.start_block(&data),
            "content_block_delta" => self.delta(&data),
            "content_block_stop" => self.stop_block(&data),
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_string());
                }
                Ok(self.update_usage(data.get("usage")))
            }
            "message_stop" => {
                self.done = true;
                Ok(vec![self.stop_event()])
            }
            "error" => {
                self.done = true;
                let message = text(&data, "/error/message");
                let message = if message.is_empty() {
                    "Anthropic reported an error in the stream"
                } else {
                    message
                };
                Ok(vec![error_event(
                    errors::kind(text(&data, "/error/type"), message),
                    message,
                )])
            }
            _ => Ok(Vec::new()),
        }
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done {
            Ok(Vec::new())
        } else {
            Err(cut_short("message_stop"))
        }
    }
}

impl MessagesDecoder {
    fn start_block(&mut self, data: &Value) -> Result<Vec<StreamEvent>, ProviderError> {
        let index = block_index(data)?;
        let block = data.get("content_block").unwrap_or(&Value::Null);
        let mut out = Vec::new();
        let kind = match text(block, "/type") {
            "text" => {
                push_delta(
                    &mut out,
                    StreamEvent::TextDelta,
                    index,
                    text(block, "/text"),
                );
                Block::Text
            }
            "thinking" => {
                let thinking = text(block, "/thinking");
                push_delta(&mut out, StreamEvent::ThinkingDelta, index, thinking);
                let signature = text(block, "/signature");
                push_delta(&mut out, StreamEvent::ThinkingSignature, index, signature);
                Block::Thinking
            }
            "redacted_thinking" => {
                // Encrypted thinking has no text, but must go back verbatim next turn: it
                // travels as the signature of an empty thinking block.
                out.push(StreamEvent::ThinkingSignature(BlockDelta {
                    index,
                    delta: format!("{REDACTED_PREFIX}{}", text(block, "/data")),
                }));
                Block::Thinking
            }
            "tool_use" => {
                out.push(StreamEvent::ToolCallStart(ToolCallStart {
                    index,
                    id: text(block, "/id").to_string(),
                    name: text(block, "/name").to_string(),
                }));
                let initial = block
                    .get("input")
                    .filter(|input| input.as_object().is_some_and(|o| !o.is_empty()))
                    .map(Value::to_string);
                Block::ToolUse {
                    initial,
                    streamed: false,
                }
            }
            _ => Block::Other,
        };
        self.blocks.insert(index, kind);
        Ok(out)
    }

    fn delta(&mut self, data: &Value) -> Result<Vec<StreamEvent>, ProviderError> {
        let index = block_index(data)?;
        let delta = data.get("delta").unwrap_or(&Value::Null);
        let mut out = Vec::new();
        match (text(delta, "/type"), self.blocks.get_mut(&index)) {
            ("text_delta", Some(Block::Text)) => {
                push_delta(
                    &mut out,
                    StreamEvent::TextDelta,
                    index,
                    text(delta, "/text"),
                );
            }
            ("thinking_delta", Some(Block::Thinking)) => {
                let thinking = text(delta, "/thinking");
                push_delta(&mut out, StreamEvent::ThinkingDelta, index, thinking);
            }
            ("signature_delta", Some(Block::Thinking)) => {
                let signature = text(delta, "/signature");
                push_delta(&mut out, StreamEvent::ThinkingSignature, index, signature);
            }
            ("input_json_delta", Some(Block::ToolUse { streamed, .. })) => {
                let fragment = text(delta, "/partial_json");
                if !fragment.is_empty() {
                    *streamed = true;
                }
                push_delta(&mut out, StreamEvent::ToolCallDelta, index, fragment);
            }
            // Citations, server-tool deltas, and deltas of blocks never started.
            _ => {}
        }
        Ok(out)
    }

    fn stop_block(&mut self, data: &Value) -> Result<Vec<StreamEvent>, ProviderError> {
        let index = block_index(data)?;
        let mut out = Vec::new();
        if let Some(Block::ToolUse {
            initial: Some(input),
            streamed: false,
        }) = self.blocks.get(&index)
        {
            out.push(StreamEvent::ToolCallDelta(BlockDelta {
                index,
                delta: input.clone(),
            }));
        }
        Ok(out)
    }

    /// Applies the counts present in `usage` (a `message_delta` may carry only some) and
    /// reports the cumulative total.
    fn update_usage(&mut self, usage: Option<&Value>) -> Vec<StreamEvent> {
        let Some(usage) = usage.filter(|u| u.is_object()) else {
            return Vec::new();
        };
        let present = |key: &str| usage.get(key).and_then(Value::as_u64);
        if let Some(n) = present("input_tokens") {
            self.usage.input = n;
        }
        if let Some(n) = present("output_tokens") {
            self.usage.output = n;
        }
        if let Some(n) = present("cache_read_input_tokens") {
            self.usage.cache_read = n;
        }
        if let Some(n) = present("cache_creation_input_tokens") {
            self.usage.cache_write = n;
        }
        vec![StreamEvent::Usage(self.usage)]
    }

    fn stop_event(&self) -> StreamEvent {
        match self.stop_reason.as_deref() {
            Some("tool_use") => StreamEvent::Stop(StopReason::ToolUse),
            Some("max_tokens" | "model_context_window_exceeded") => {
                StreamEvent::Stop(StopReason::Length)
            }
            Some("refusal") => error_event(
                ErrorKind::Other,
                "Claude declined to answer (stop reason `refusal`)",
            ),
            // end_turn, stop_sequence, pause_turn, or none given.
            _ => StreamEvent::Stop(StopReason::Stop),
        }
    }
}

fn block_index(data: &Value) -> Result<u32, ProviderError> {
    data.get("index")
        .and_then(Value::as_u64)
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| {
            ProviderError::new(
                ErrorKind::Other,
                format!("Anthropic sent a content block event without an index: {data}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_sdk::sse_local::parse;

    fn decode(body: &str) -> (Vec<StreamEvent>, Result<Vec<StreamEvent>, ProviderError>) {
        let mut decoder = MessagesDecoder::default();
        let mut events = Vec::new();
        for event in parse(body) {
            events.extend(decoder.push(event).unwrap());
        }
        (events, decoder.finish())
    }

    fn delta(index: u32, delta: &str) -> BlockDelta {
        BlockDelta {
            index,
            delta: delta.into(),
        }
    }

    const TOOL_STREAM: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":12,"cache_read_input_tokens":100,"cache_creation_input_tokens":7,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Need the file."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"U2ln"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: ping
data: {"type": "ping"}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading."}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":".txt\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}

event: message_stop
data: {"type":"message_stop"}

"#;

    #[test]
    fn thinking_text_and_a_tool_call() {
        let (events, finished) = decode(TOOL_STREAM);
        let usage = |output| {
            StreamEvent::Usage(Usage {
                input: 12,
                output,
                cache_read: 100,
                cache_write: 7,
            })
        };
        assert_eq!(
            events,
            vec![
                usage(1),
                StreamEvent::ThinkingDelta(delta(0, "Need the file.")),
                StreamEvent::ThinkingSignature(delta(0, "U2ln")),
                StreamEvent::TextDelta(delta(1, "Reading.")),
                StreamEvent::ToolCallStart(ToolCallStart {
                    index: 2,
                    id: "toolu_1".into(),
                    name: "read".into()
                }),
                StreamEvent::ToolCallDelta(delta(2, "{\"path\": \"a")),
                StreamEvent::ToolCallDelta(delta(2, ".txt\"}")),
                usage(42),
                StreamEvent::Stop(StopReason::ToolUse),
            ]
        );
        assert_eq!(finished, Ok(Vec::new()));
    }

    #[test]
    fn cut_streams_errors_and_stop_reasons() {
        let cut = &TOOL_STREAM[..TOOL_STREAM.find("event: message_stop").unwrap()];
        let (_, finished) = decode(cut);
        assert_eq!(finished.unwrap_err().kind, ErrorKind::Server);

        let (events, finished) = decode(
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
        );
        assert_eq!(
            events,
            vec![error_event(ErrorKind::Overloaded, "Overloaded")]
        );
        assert_eq!(finished, Ok(Vec::new()));

        let (events, _) = decode(
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":5}}\n\n\
             event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        assert_eq!(events.last(), Some(&StreamEvent::Stop(StopReason::Length)));
    }

    #[test]
    fn redacted_thinking_and_whole_inputs() {
        let (events, _) = decode(
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"RW5j\"}}\n\n\
             event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ls\",\"input\":{\"path\":\".\"}}}\n\n\
             event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        );
        assert_eq!(
            events,
            vec![
                StreamEvent::ThinkingSignature(delta(0, "redacted:RW5j")),
                StreamEvent::ToolCallStart(ToolCallStart {
                    index: 1,
                    id: "t".into(),
                    name: "ls".into()
                }),
                StreamEvent::ToolCallDelta(delta(1, "{\"path\":\".\"}")),
            ]
        );
        let mut decoder = MessagesDecoder::default();
        let err = decoder
            .push(SseEvent {
                event: "content_block_delta".into(),
                data: "{\"type\":\"content_block_delta\"}".into(),
            })
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Other);
    }
}
