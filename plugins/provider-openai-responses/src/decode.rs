//! The Responses API's stream as unified events. Every output item (reasoning, message,
//! function call) is numbered by `output_index`, which is used as the unified block index.
//!
//! Events used: `response.output_item.added` (a function call starts), `response.output_text.delta`
//! and `response.refusal.delta` (text), `response.reasoning_summary_text.delta` and
//! `response.reasoning_text.delta` (thinking), `response.function_call_arguments.delta` / `.done`,
//! `response.output_item.done` (a reasoning item complete with its encrypted content, kept as the
//! thinking block's signature for replay), and the terminators `response.completed`,
//! `response.incomplete`, `response.failed` and `error`.

use std::collections::HashMap;

use provider_common::stream::{count, cut_short, error_event, json_data, push_delta, text};
use serde_json::Value;
use tack_sdk::{
    BlockDelta, Decoder, ErrorKind, ProviderError, SseEvent, StopReason, StreamEvent,
    ToolCallStart, Usage,
};

use crate::{call_ids, errors};

#[derive(Debug, Default)]
pub struct ResponsesDecoder {
    items: HashMap<u32, Item>,
    saw_call: bool,
    done: bool,
}

#[derive(Debug)]
enum Item {
    Reasoning {
        /// Summary part of the latest delta; parts are separated by a blank line.
        part: Option<u64>,
    },
    Call {
        /// Whether argument fragments arrived (else the whole arguments are sent at the end).
        streamed: bool,
    },
    Other,
}

impl Decoder for ResponsesDecoder {
    fn push(&mut self, event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done {
            return Ok(Vec::new());
        }
        let data = json_data(&event)?;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(&event.event);
        let mut out = Vec::new();
        match kind {
            "response.output_item.added" => self.item_added(&data, &mut out)?,
            "response.output_text.delta" | "response.refusal.delta" => {
                let index = output_index(&data)?;
                push_delta(
                    &mut out,
                    StreamEvent::TextDelta,
                    index,
                    text(&data, "/delta"),
                );
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.thinking(&data, &mut out)?;
            }
            "response.function_call_arguments.delta" => {
                let index = output_index(&data)?;
                let fragment = text(&data, "/delta");
                if let Some(Item::Call { streamed }) = self.items.get_mut(&index) {
                    *streamed |= !fragment.is_empty();
                }
                push_delta(&mut out, StreamEvent::ToolCallDelta, index, fragment);
            }
            "response.function_call_arguments.done" => {
                let index = output_index(&data)?;
                self.whole_arguments(index, text(&data, "/arguments"), &mut out);
            }
            "response.output_item.done" => self.item_done(&data, &mut out)?,
            "response.completed" => {
                self.done = true;
                out.extend(usage(&data));
                out.push(StreamEvent::Stop(if self.saw_call {
                    StopReason::ToolUse
                } else {
                    StopReason::Stop
                }));
            }
            "response.incomplete" => {
                self.done = true;
                out.extend(usage(&data));
                out.push(match text(&data, "/response/incomplete_details/reason") {
                    "content_filter" => error_event(
                        ErrorKind::Other,
                        "OpenAI's content filter stopped the answer",
                    ),
                    // max_output_tokens, the only other reason.
                    _ => StreamEvent::Stop(StopReason::Length),
                });
            }
            "response.failed" => {
                self.done = true;
                let error = data.pointer("/response/error").unwrap_or(&Value::Null);
                out.push(StreamEvent::Error(errors::from_stream(error)));
            }
            "error" => {
                self.done = true;
                // The fields sit at the top level, or under `error` in some versions.
                let error = data.get("error").filter(|e| e.is_object()).unwrap_or(&data);
                out.push(StreamEvent::Error(errors::from_stream(error)));
            }
            _ => {}
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done {
            Ok(Vec::new())
        } else {
            Err(cut_short("response.completed"))
        }
    }
}

impl ResponsesDecoder {
    fn item_added(
        &mut self,
        data: &Value,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        let index = output_index(data)?;
        let item = data.get("item").unwrap_or(&Value::Null);
        let kind = match text(item, "/type") {
            "function_call" => {
                self.saw_call = true;
                out.push(StreamEvent::ToolCallStart(ToolCallStart {
                    index,
                    id: call_ids::join(text(item, "/call_id"), text(item, "/id")),
                    name: text(item, "/name").to_string(),
                }));
                Item::Call { streamed: false }
            }
            "reasoning" => Item::Reasoning { part: None },
            _ => Item::Other,
        };
        self.items.insert(index, kind);
        Ok(())
    }

    fn thinking(&mut self, data: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let index = output_index(data)?;
        let delta = text(data, "/delta");
        if delta.is_empty() {
            return Ok(());
        }
        let part = data
            .get("summary_index")
            .or_else(|| data.get("content_index"))
            .and_then(Value::as_u64);
        if let Some(Item::Reasoning { part: latest }) = self.items.get_mut(&index) {
            if latest.is_some() && *latest != part {
                push_delta(out, StreamEvent::ThinkingDelta, index, "\n\n");
            }
            *latest = part;
        }
        push_delta(out, StreamEvent::ThinkingDelta, index, delta);
        Ok(())
    }

    /// Sends the complete arguments of a call whose fragments never came.
    fn whole_arguments(&mut self, index: u32, arguments: &str, out: &mut Vec<StreamEvent>) {
        if let Some(Item::Call { streamed }) = self.items.get_mut(&index) {
            if !*streamed && !arguments.is_empty() {
                *streamed = true;
                push_delta(out, StreamEvent::ToolCallDelta, index, arguments);
            }
        }
    }

    fn item_done(&mut self, data: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        let index = output_index(data)?;
        let item = data.get("item").unwrap_or(&Value::Null);
        match text(item, "/type") {
            // Without its encrypted content an unstored item cannot be replayed; then the
            // thinking block keeps only its summary text.
            "reasoning" if !text(item, "/encrypted_content").is_empty() => {
                out.push(StreamEvent::ThinkingSignature(BlockDelta {
                    index,
                    delta: item.to_string(),
                }));
            }
            "function_call" => self.whole_arguments(index, text(item, "/arguments"), out),
            _ => {}
        }
        Ok(())
    }
}

/// Usage of a terminal event's response; `input_tokens` includes the cached part, which unified
/// usage counts apart.
fn usage(data: &Value) -> Option<StreamEvent> {
    let usage = data.pointer("/response/usage").filter(|u| u.is_object())?;
    let cached = count(usage, "/input_tokens_details/cached_tokens");
    Some(StreamEvent::Usage(Usage {
        input: count(usage, "/input_tokens").saturating_sub(cached),
        output: count(usage, "/output_tokens"),
        cache_read: cached,
        cache_write: 0,
    }))
}

fn output_index(data: &Value) -> Result<u32, ProviderError> {
    data.get("output_index")
        .and_then(Value::as_u64)
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| {
            ProviderError::new(
                ErrorKind::Other,
                format!("OpenAI sent an output event without an output_index: {data}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(events: &[Value]) -> (Vec<StreamEvent>, Result<Vec<StreamEvent>, ProviderError>) {
        let mut decoder = ResponsesDecoder::default();
        let mut out = Vec::new();
        for data in events {
            let event = SseEvent {
                event: data["type"].as_str().unwrap_or("message").to_string(),
                data: data.to_string(),
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

    #[test]
    fn reasoning_text_and_a_call() {
        let reasoning_done = json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA",
                                    "summary": [{"type": "summary_text", "text": "A"},
                                                {"type": "summary_text", "text": "B"}]});
        let (events, finished) = decode(&[
            json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}),
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
            json!({"type": "response.reasoning_summary_text.delta", "output_index": 0,
                   "item_id": "rs_1", "summary_index": 0, "delta": "A"}),
            json!({"type": "response.reasoning_summary_text.delta", "output_index": 0,
                   "item_id": "rs_1", "summary_index": 1, "delta": "B"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": reasoning_done}),
            json!({"type": "response.output_item.added", "output_index": 1,
                   "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
            json!({"type": "response.output_text.delta", "output_index": 1, "content_index": 0,
                   "item_id": "msg_1", "delta": "Reading."}),
            json!({"type": "response.output_item.added", "output_index": 2,
                   "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                            "name": "read", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 2,
                   "item_id": "fc_1", "delta": "{\"path\":"}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 2,
                   "item_id": "fc_1", "delta": "\"a\"}"}),
            json!({"type": "response.function_call_arguments.done", "output_index": 2,
                   "item_id": "fc_1", "arguments": "{\"path\":\"a\"}"}),
            json!({"type": "response.completed", "response": {"status": "completed",
                   "usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 40},
                             "output_tokens": 9}}}),
        ]);
        assert_eq!(
            events,
            vec![
                StreamEvent::ThinkingDelta(delta(0, "A")),
                StreamEvent::ThinkingDelta(delta(0, "\n\n")),
                StreamEvent::ThinkingDelta(delta(0, "B")),
                StreamEvent::ThinkingSignature(delta(0, &reasoning_done.to_string())),
                StreamEvent::TextDelta(delta(1, "Reading.")),
                StreamEvent::ToolCallStart(ToolCallStart {
                    index: 2,
                    id: "call_1|fc_1".into(),
                    name: "read".into()
                }),
                StreamEvent::ToolCallDelta(delta(2, "{\"path\":")),
                StreamEvent::ToolCallDelta(delta(2, "\"a\"}")),
                StreamEvent::Usage(Usage {
                    input: 10,
                    output: 9,
                    cache_read: 40,
                    cache_write: 0
                }),
                StreamEvent::Stop(StopReason::ToolUse),
            ]
        );
        assert_eq!(finished, Ok(Vec::new()));
    }

    #[test]
    fn endings() {
        let (events, _) = decode(&[json!({"type": "response.incomplete", "response": {
            "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}})]);
        assert_eq!(events, vec![StreamEvent::Stop(StopReason::Length)]);

        let (events, _) = decode(&[json!({"type": "response.failed", "response": {
            "status": "failed", "error": {"code": "server_error", "message": "boom"}}})]);
        assert_eq!(events, vec![error_event(ErrorKind::Server, "boom")]);

        let (events, _) = decode(&[json!({"type": "error", "code": "rate_limit_exceeded",
                                          "message": "slow", "sequence_number": 3})]);
        assert_eq!(events, vec![error_event(ErrorKind::RateLimited, "slow")]);

        let (_, cut) = decode(&[json!({"type": "response.output_text.delta",
                                        "output_index": 0, "delta": "Hel"})]);
        assert_eq!(cut.unwrap_err().kind, ErrorKind::Server);
    }

    #[test]
    fn whole_arguments_are_sent_once() {
        let (events, _) = decode(&[
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"type": "function_call", "id": "fc_9", "call_id": "call_9",
                            "name": "ls", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.done", "output_index": 0,
                   "arguments": "{}"}),
            json!({"type": "response.output_item.done", "output_index": 0,
                   "item": {"type": "function_call", "id": "fc_9", "call_id": "call_9",
                            "name": "ls", "arguments": "{}"}}),
        ]);
        assert_eq!(events[1..], [StreamEvent::ToolCallDelta(delta(0, "{}"))]);
    }
}
