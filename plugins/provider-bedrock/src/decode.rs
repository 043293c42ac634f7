//! The Converse stream as unified events. The host frames AWS's event stream; each event comes
//! named by its `:event-type` with its JSON payload: `messageStart`, `contentBlockStart` (a tool
//! use's id and name), `contentBlockDelta` (text, a tool use's input as JSON fragments,
//! reasoning text and signature), `contentBlockStop`, `messageStop` (the stop reason) and
//! `metadata` (usage, which comes last). An error in the stream comes as
//! `exception:<type>` (`throttlingException`, `validationException`, …).
//!
//! Converse numbers its content blocks; those numbers are the unified block indices.

use provider_common::errors::classify_response;
use provider_common::stream::{count, cut_short, error_event, json_data, push_delta, text};
use serde_json::Value;
use tack_sdk::{
    Decoder, ErrorKind, ProviderError, SseEvent, StopReason, StreamEvent, ToolCallStart, Usage,
};

#[derive(Debug, Default)]
pub struct ConverseDecoder {
    /// The stop reason `messageStop` gave, sent once usage has come (or the stream ends).
    stop: Option<StreamEvent>,
    done: bool,
}

impl Decoder for ConverseDecoder {
    fn push(&mut self, event: SseEvent) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done {
            return Ok(Vec::new());
        }
        if let Some(exception) = event.event.strip_prefix("exception:") {
            self.done = true;
            let data: Value = serde_json::from_str(&event.data).unwrap_or(Value::Null);
            return Ok(vec![stream_error(exception, text(&data, "/message"))]);
        }
        let data = json_data(&event)?;
        let index = data
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok());
        let mut out = Vec::new();
        match (event.event.as_str(), index) {
            ("contentBlockStart", Some(index)) => {
                if let Some(tool) = data.pointer("/start/toolUse") {
                    out.push(StreamEvent::ToolCallStart(ToolCallStart {
                        index,
                        id: text(tool, "/toolUseId").to_string(),
                        name: text(tool, "/name").to_string(),
                    }));
                }
            }
            ("contentBlockDelta", Some(index)) => {
                let delta = data.get("delta").unwrap_or(&Value::Null);
                if let Some(text_delta) = delta.get("text").and_then(Value::as_str) {
                    push_delta(&mut out, StreamEvent::TextDelta, index, text_delta);
                } else if let Some(tool) = delta.get("toolUse") {
                    push_delta(
                        &mut out,
                        StreamEvent::ToolCallDelta,
                        index,
                        text(tool, "/input"),
                    );
                } else if let Some(reasoning) = delta.get("reasoningContent") {
                    let thinking = text(reasoning, "/text");
                    push_delta(&mut out, StreamEvent::ThinkingDelta, index, thinking);
                    let signature = text(reasoning, "/signature");
                    push_delta(&mut out, StreamEvent::ThinkingSignature, index, signature);
                }
            }
            ("messageStop", _) => {
                self.stop = Some(stop_event(text(&data, "/stopReason")));
            }
            ("metadata", _) => {
                if let Some(usage) = data.get("usage").filter(|u| u.is_object()) {
                    out.push(StreamEvent::Usage(Usage {
                        input: count(usage, "/inputTokens"),
                        output: count(usage, "/outputTokens"),
                        cache_read: count(usage, "/cacheReadInputTokens"),
                        cache_write: count(usage, "/cacheWriteInputTokens"),
                    }));
                }
                if let Some(stop) = self.stop.take() {
                    self.done = true;
                    out.push(stop);
                }
            }
            // messageStart, contentBlockStop, and anything newer.
            _ => {}
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if self.done {
            return Ok(Vec::new());
        }
        match self.stop.take() {
            // A stream that ended after `messageStop` without usage is still a whole answer.
            Some(stop) => {
                self.done = true;
                Ok(vec![stop])
            }
            None => Err(cut_short("messageStop")),
        }
    }
}

fn stop_event(reason: &str) -> StreamEvent {
    match reason {
        "tool_use" => StreamEvent::Stop(StopReason::ToolUse),
        "max_tokens" | "model_context_window_exceeded" => StreamEvent::Stop(StopReason::Length),
        "guardrail_intervened" | "content_filtered" => error_event(
            ErrorKind::Other,
            format!("Bedrock stopped the answer (stop reason `{reason}`)"),
        ),
        // end_turn, stop_sequence, or none given.
        _ => StreamEvent::Stop(StopReason::Stop),
    }
}

/// An exception in the stream, by its type, with the prefix Pi gives it.
fn stream_error(exception: &str, message: &str) -> StreamEvent {
    let (kind, prefix) = match exception {
        "throttlingException" => (ErrorKind::RateLimited, "Throttling error"),
        "serviceUnavailableException" => (ErrorKind::Overloaded, "Service unavailable"),
        "internalServerException" => (ErrorKind::Server, "Internal server error"),
        "modelStreamErrorException" => (ErrorKind::Server, "Model stream error"),
        "validationException" if is_overflow(message) => {
            (ErrorKind::ContextOverflow, "Validation error")
        }
        "validationException" => (ErrorKind::InvalidRequest, "Validation error"),
        _ => (ErrorKind::Other, "Bedrock error"),
    };
    let message = if message.is_empty() {
        exception
    } else {
        message
    };
    error_event(kind, format!("{prefix}: {message}"))
}

fn is_overflow(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("too long") || lower.contains("context") && lower.contains("exceed")
}

/// A non-2xx response: classified by status, the message from the `{"message"}` body and the
/// exception's name from `x-amzn-errortype`.
pub fn response_error(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
    let mut error = classify_response(status, headers, body);
    let kind = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("x-amzn-errortype"))
        .map(|(_, value)| value.split(':').next().unwrap_or_default().to_string());
    let message = serde_json::from_slice::<Value>(body).ok().and_then(|json| {
        json.get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    if let Some(message) = message {
        error.message = match kind {
            Some(kind) if !kind.is_empty() => format!("{kind}: {message}"),
            _ => message,
        };
    }
    if error.kind == ErrorKind::InvalidRequest && is_overflow(&error.message) {
        error.kind = ErrorKind::ContextOverflow;
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: name.into(),
            data: data.into(),
        }
    }

    #[test]
    fn a_streamed_answer_with_reasoning_and_a_tool_call() {
        let mut decoder = ConverseDecoder::default();
        let mut out = Vec::new();
        for (name, data) in [
            ("messageStart", r#"{"role":"assistant"}"#),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Look first."}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"c2ln"}}}"#,
            ),
            ("contentBlockStop", r#"{"contentBlockIndex":0}"#),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":1,"delta":{"text":"Reading."}}"#,
            ),
            (
                "contentBlockStart",
                r#"{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_1","name":"read"}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"path\":"}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":2,"delta":{"toolUse":{"input":"\"a.txt\"}"}}}"#,
            ),
            ("messageStop", r#"{"stopReason":"tool_use"}"#),
            (
                "metadata",
                r#"{"usage":{"inputTokens":10,"outputTokens":5,"totalTokens":15,"cacheReadInputTokens":3}}"#,
            ),
        ] {
            out.extend(decoder.push(event(name, data)).expect("decoded"));
        }
        assert!(decoder.finish().expect("finished").is_empty());
        assert!(matches!(&out[0], StreamEvent::ThinkingDelta(d) if d.delta == "Look first."));
        assert!(matches!(&out[1], StreamEvent::ThinkingSignature(d) if d.delta == "c2ln"));
        assert!(matches!(&out[2], StreamEvent::TextDelta(d) if d.index == 1));
        assert!(matches!(&out[3], StreamEvent::ToolCallStart(s) if s.id == "tooluse_1"));
        assert!(matches!(&out[6], StreamEvent::Usage(u) if u.cache_read == 3 && u.input == 10));
        assert!(matches!(&out[7], StreamEvent::Stop(StopReason::ToolUse)));
    }

    #[test]
    fn exceptions_and_cut_streams_are_errors() {
        let mut decoder = ConverseDecoder::default();
        let out = decoder
            .push(event(
                "exception:throttlingException",
                r#"{"message":"Too many requests"}"#,
            ))
            .expect("decoded");
        assert!(matches!(&out[0], StreamEvent::Error(e)
            if e.kind == ErrorKind::RateLimited && e.message == "Throttling error: Too many requests"));

        let mut decoder = ConverseDecoder::default();
        decoder
            .push(event(
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"text":"Hi"}}"#,
            ))
            .expect("decoded");
        assert!(decoder.finish().is_err());

        let error = response_error(
            403,
            &[(
                "x-amzn-ErrorType".into(),
                "AccessDeniedException:http://internal".into(),
            )],
            br#"{"message":"not authorized"}"#,
        );
        assert_eq!(error.kind, ErrorKind::Auth);
        assert_eq!(error.message, "AccessDeniedException: not authorized");
    }
}
