//! Chat Completions' stream as unified events. Each `data:` chunk holds `choices[0].delta` with
//! text (`content`, or Mistral's chunks of `thinking` and `text` there), reasoning text (compatible servers' `reasoning_content` / `reasoning`), and
//! tool-call fragments keyed by the call's `index` (id and name in the first fragment, the
//! arguments split across many); `finish_reason` comes in the last choice chunk, usage in a
//! chunk of its own, and `data: [DONE]` ends the stream.

use std::collections::HashMap;

use provider_common::stream::{count, cut_short, error_event, json_data, text, BlockKind, Blocks};
use serde_json::Value;
use tack_sdk::{
    BlockDelta, Decoder, ErrorKind, ProviderError, SseEvent, StopReason, StreamEvent,
    ToolCallStart, Usage,
};

use crate::errors;

#[derive(Debug)]
pub struct ChatDecoder {
    reasoning_fields: Vec<String>,
    blocks: Blocks,
    /// The API's tool-call index → (unified block index, call id).
    calls: HashMap<u64, (u32, String)>,
    /// Block of the latest tool call.
    last_call: Option<u32>,
    /// The thinking block whose signature has been sent.
    signed: Option<u32>,
    finish_reason: Option<String>,
    done: bool,
}

impl ChatDecoder {
    pub fn new(reasoning_fields: Vec<String>) -> Self {
        ChatDecoder {
            reasoning_fields,
            blocks: Blocks::default(),
            calls: HashMap::new(),
            last_call: None,
            signed: None,
            finish_reason: None,
            done: false,
        }
    }

    fn choice(&mut self, choice: &Value, out: &mut Vec<StreamEvent>) {
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        // The first field that has text: some servers send the same text under both names.
        let thinking = self
            .reasoning_fields
            .iter()
            .map(|field| (field, text(delta, &format!("/{field}"))))
            .find(|(_, thinking)| !thinking.is_empty());
        if let Some((field, thinking)) = thinking {
            let index = self.blocks.continue_or_start(BlockKind::Thinking);
            out.push(StreamEvent::ThinkingDelta(block_delta(index, thinking)));
            // The block's signature is the field it came in, as Pi records it
            // (`thinkingSignature`), so that a replay can send it back under that name.
            if self.signed != Some(index) {
                self.signed = Some(index);
                out.push(StreamEvent::ThinkingSignature(block_delta(index, field)));
            }
        }
        let content = text(delta, "/content");
        if !content.is_empty() {
            let index = self.blocks.continue_or_start(BlockKind::Text);
            out.push(StreamEvent::TextDelta(block_delta(index, content)));
        }
        // Mistral's reasoning models send content as chunks: `thinking` (itself chunks of text)
        // and `text`. Their thinking is not replayed, so it has no signature.
        for chunk in delta
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match chunk.get("type").and_then(Value::as_str) {
                Some("thinking") => {
                    let thinking: String = chunk
                        .get("thinking")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .map(|part| text(part, "/text"))
                        .collect();
                    if !thinking.is_empty() {
                        let index = self.blocks.continue_or_start(BlockKind::Thinking);
                        out.push(StreamEvent::ThinkingDelta(block_delta(index, &thinking)));
                    }
                }
                Some("text") => {
                    let said = text(chunk, "/text");
                    if !said.is_empty() {
                        let index = self.blocks.continue_or_start(BlockKind::Text);
                        out.push(StreamEvent::TextDelta(block_delta(index, said)));
                    }
                }
                _ => {}
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                self.tool_call(call, out);
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
    }

    fn tool_call(&mut self, call: &Value, out: &mut Vec<StreamEvent>) {
        let key = call.get("index").and_then(Value::as_u64);
        let id = text(call, "/id");
        let name = text(call, "/function/name");
        let known = match key {
            Some(key) => self
                .calls
                .get(&key)
                // Some servers number every call 0 and tell them apart only by id.
                .filter(|(_, known_id)| id.is_empty() || id == known_id)
                .map(|(index, _)| *index),
            // Without an index, a fragment naming no call continues the latest one; anything
            // else is a new call sent whole.
            None if id.is_empty() && name.is_empty() => self.last_call,
            None => None,
        };
        let index = match known {
            Some(index) => index,
            None => {
                let index = self.blocks.start(BlockKind::ToolCall);
                let id = if id.is_empty() {
                    format!("call_{index}")
                } else {
                    id.to_string()
                };
                out.push(StreamEvent::ToolCallStart(ToolCallStart {
                    index,
                    id: id.clone(),
                    name: name.to_string(),
                }));
                if let Some(key) = key {
                    self.calls.insert(key, (index, id));
                }
                index
            }
        };
        self.last_call = Some(index);
        let arguments = text(call, "/function/arguments");
        if !arguments.is_empty() {
            out.push(StreamEvent::ToolCallDelta(block_delta(index, arguments)));
        }
    }

    fn stop_event(&self) -> StreamEvent {
        match self.finish_reason.as_deref() {
            Some("length") => StreamEvent::Stop(StopReason::Length),
            Some("tool_calls" | "function_call") => StreamEvent::Stop(StopReason::ToolUse),
            Some("content_filter") => error_event(
                ErrorKind::Other,
                "the provider's content filter stopped the answer",
            ),
            // "stop", or none given (the assembler still sees any tool calls).
            _ => StreamEvent::Stop(StopReason::Stop),
        }
    }
}

impl Decoder for ChatDecoder {
    fn push(&mut self, event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done {
            return Ok(Vec::new());
        }
        if event.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(vec![self.stop_event()]);
        }
        let data = json_data(&event)?;
        if let Some(error) = data.get("error").filter(|e| !e.is_null()) {
            self.done = true;
            return Ok(vec![StreamEvent::Error(errors::from_stream(error))]);
        }
        let mut out = Vec::new();
        // Only the first choice: tack never asks for more than one.
        if let Some(choice) = data
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        {
            self.choice(choice, &mut out);
        }
        if let Some(usage) = data.get("usage").filter(|u| u.is_object()) {
            // `prompt_tokens` includes the cached part; unified usage counts it apart.
            let cached = count(usage, "/prompt_tokens_details/cached_tokens");
            out.push(StreamEvent::Usage(Usage {
                input: count(usage, "/prompt_tokens").saturating_sub(cached),
                output: count(usage, "/completion_tokens"),
                cache_read: cached,
                cache_write: 0,
            }));
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done {
            return Ok(Vec::new());
        }
        // Some compatible servers end the body after the finish reason without `[DONE]`; the
        // answer is complete then, only a body cut before it is not.
        if self.finish_reason.is_some() {
            self.done = true;
            return Ok(vec![self.stop_event()]);
        }
        Err(cut_short("[DONE]"))
    }
}

fn block_delta(index: u32, delta: &str) -> BlockDelta {
    BlockDelta {
        index,
        delta: delta.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compat::default_reasoning_fields;

    fn decode(chunks: &[&str]) -> (Vec<StreamEvent>, Result<Vec<StreamEvent>, ProviderError>) {
        let mut decoder = ChatDecoder::new(default_reasoning_fields());
        let mut events = Vec::new();
        for chunk in chunks {
            let event = SseEvent {
                event: "message".into(),
                data: chunk.to_string(),
            };
            events.extend(decoder.push(event).unwrap());
        }
        (events, decoder.finish())
    }

    fn start(index: u32, id: &str, name: &str) -> StreamEvent {
        StreamEvent::ToolCallStart(ToolCallStart {
            index,
            id: id.into(),
            name: name.into(),
        })
    }

    #[test]
    fn text_reasoning_parallel_calls_and_usage() {
        let (events, finished) = decode(&[
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"Two files."},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Reading "},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"both."},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read","arguments":"{\"path\""}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a\"}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":\"b\"}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":100}}}"#,
            "[DONE]",
        ]);
        let d = block_delta;
        assert_eq!(
            events,
            vec![
                StreamEvent::ThinkingDelta(d(0, "Two files.")),
                StreamEvent::ThinkingSignature(d(0, "reasoning_content")),
                StreamEvent::TextDelta(d(1, "Reading ")),
                StreamEvent::TextDelta(d(1, "both.")),
                start(2, "call_a", "read"),
                StreamEvent::ToolCallDelta(d(2, "{\"pa")),
                start(3, "call_b", "read"),
                StreamEvent::ToolCallDelta(d(3, "{\"path\"")),
                StreamEvent::ToolCallDelta(d(2, "th\":\"a\"}")),
                StreamEvent::ToolCallDelta(d(3, ":\"b\"}")),
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
    fn servers_that_number_every_call_zero_or_skip_ids() {
        let (events, _) = decode(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"ls","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"y","function":{"name":"ls","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"pwd","arguments":"{}"}}]}}]}"#,
        ]);
        let starts: Vec<&StreamEvent> = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::ToolCallStart(_)))
            .collect();
        assert_eq!(
            starts,
            vec![
                &start(0, "x", "ls"),
                &start(1, "y", "ls"),
                &start(2, "call_2", "pwd")
            ]
        );
    }

    #[test]
    fn endings() {
        let (_, cut) = decode(&[r#"{"choices":[{"delta":{"content":"Hel"}}]}"#]);
        assert_eq!(cut.unwrap_err().kind, ErrorKind::Server);

        let (_, finished) = decode(&[r#"{"choices":[{"delta":{},"finish_reason":"length"}]}"#]);
        assert_eq!(finished, Ok(vec![StreamEvent::Stop(StopReason::Length)]));

        let (events, finished) = decode(&[
            r#"{"choices":[{"delta":{"content":"Hel"}}]}"#,
            r#"{"error":{"message":"The server had an error","type":"server_error"}}"#,
        ]);
        assert_eq!(
            events.last(),
            Some(&error_event(ErrorKind::Server, "The server had an error"))
        );
        assert_eq!(finished, Ok(Vec::new()));

        let (events, _) =
            decode(&[r#"{"choices":[{"delta":{"reasoning_content":"once","reasoning":"once"}}]}"#]);
        assert_eq!(
            events,
            vec![
                StreamEvent::ThinkingDelta(block_delta(0, "once")),
                StreamEvent::ThinkingSignature(block_delta(0, "reasoning_content")),
            ]
        );

        let mut decoder = ChatDecoder::new(vec!["thoughts".into()]);
        let events = decoder
            .push(SseEvent {
                event: "message".into(),
                data: r#"{"choices":[{"delta":{"thoughts":"hm","reasoning_content":"no"}}]}"#
                    .into(),
            })
            .unwrap();
        assert_eq!(
            events,
            vec![
                StreamEvent::ThinkingDelta(block_delta(0, "hm")),
                StreamEvent::ThinkingSignature(block_delta(0, "thoughts")),
            ]
        );
        assert!(decoder
            .push(SseEvent {
                event: "message".into(),
                data: "{not json".into()
            })
            .is_err());
    }

    #[test]
    fn mistrals_thinking_and_text_chunks() {
        let (events, end) = decode(&[
            r#"{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Check "},{"type":"text","text":"first."}]}]}}]}"#,
            r#"{"choices":[{"delta":{"content":[{"type":"text","text":"Done."}]},"finish_reason":"stop"}]}"#,
        ]);
        assert_eq!(
            events,
            vec![
                StreamEvent::ThinkingDelta(block_delta(0, "Check first.")),
                StreamEvent::TextDelta(block_delta(1, "Done.")),
            ]
        );
        assert!(end.is_ok());
    }
}
