//! What one message may weigh in a provider request. The session keeps everything it was given;
//! the request carries, of a string inside a tool call's arguments or of a tool result's text,
//! at most a bounded head and tail with a marker between, so a session that once took a huge
//! argument (the model writing 40 MiB into a file) or result never makes every later request too
//! large to send. The model has already acted on what was cut; it needs only to know it was.

use serde_json::Value;

use super::{AssistantContent, AssistantMessage, Content, Message, TextContent, ToolResultMessage};

/// Longest string inside a tool call's arguments a request carries whole.
pub const MAX_ARGUMENT_STRING: usize = 64 << 10;
/// Longest text of one tool result a request carries whole.
pub const MAX_RESULT_TEXT: usize = 256 << 10;

/// `message` as a request may carry it: itself when it is within the bounds, else a copy cut
/// down to them.
pub fn bounded(message: &Message) -> Option<Message> {
    match message {
        Message::Assistant(m) if assistant_over(m) => {
            let mut copy = m.clone();
            for block in &mut copy.content {
                if let AssistantContent::ToolCall(call) = block {
                    cut_strings(&mut call.arguments);
                }
            }
            Some(Message::Assistant(copy))
        }
        Message::ToolResult(m) if result_over(m) => {
            let mut copy = m.clone();
            for block in &mut copy.content {
                if let Content::Text(TextContent { text }) = block {
                    if text.len() > MAX_RESULT_TEXT {
                        *text = cut(text, MAX_RESULT_TEXT);
                    }
                }
            }
            Some(Message::ToolResult(copy))
        }
        _ => None,
    }
}

fn assistant_over(message: &AssistantMessage) -> bool {
    message.content.iter().any(|block| match block {
        AssistantContent::ToolCall(call) => has_long_string(&call.arguments),
        _ => false,
    })
}

fn result_over(message: &ToolResultMessage) -> bool {
    message
        .content
        .iter()
        .any(|block| matches!(block, Content::Text(t) if t.text.len() > MAX_RESULT_TEXT))
}

fn has_long_string(value: &Value) -> bool {
    match value {
        Value::String(s) => s.len() > MAX_ARGUMENT_STRING,
        Value::Array(items) => items.iter().any(has_long_string),
        Value::Object(fields) => fields.values().any(has_long_string),
        _ => false,
    }
}

fn cut_strings(value: &mut Value) {
    match value {
        Value::String(s) if s.len() > MAX_ARGUMENT_STRING => *s = cut(s, MAX_ARGUMENT_STRING),
        Value::Array(items) => items.iter_mut().for_each(cut_strings),
        Value::Object(fields) => fields.values_mut().for_each(cut_strings),
        _ => {}
    }
}

/// The first three quarters of `limit` bytes of `text` and its last quarter, on character
/// boundaries, with a marker saying how much is left out between them.
fn cut(text: &str, limit: usize) -> String {
    let head_end = text.floor_char_boundary(limit * 3 / 4);
    let tail_start = text.ceil_char_boundary(text.len().saturating_sub(limit / 4));
    let left_out = tail_start.saturating_sub(head_end);
    format!(
        "{}\n[… {left_out} bytes left out of this request by tack; the session keeps them whole …]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{StopReason, ToolCall};
    use serde_json::json;

    #[test]
    fn huge_arguments_and_results_are_cut_with_a_marker_and_small_ones_kept() {
        let huge = "é".repeat(20 << 20);
        let call = Message::Assistant(AssistantMessage {
            content: vec![AssistantContent::ToolCall(ToolCall {
                id: "c1".into(),
                name: "write".into(),
                arguments: json!({ "path": "big.txt", "content": huge, "more": [huge] }),
            })],
            provider: "p".into(),
            model: "m".into(),
            usage: Default::default(),
            stop_reason: StopReason::ToolUse,
            error_message: None,
            timestamp: 1,
        });
        let Some(Message::Assistant(cut_call)) = bounded(&call) else {
            panic!("cut");
        };
        let AssistantContent::ToolCall(c) = &cut_call.content[0] else {
            panic!("a call");
        };
        assert_eq!(c.arguments["path"], "big.txt");
        for text in [&c.arguments["content"], &c.arguments["more"][0]] {
            let text = text.as_str().expect("text");
            assert!(text.len() < MAX_ARGUMENT_STRING + 200, "{}", text.len());
            assert!(text.contains("bytes left out of this request by tack"));
            assert!(text.starts_with('é') && text.ends_with('é'));
        }
        let result = Message::ToolResult(ToolResultMessage {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            content: vec![Content::text("x".repeat(1 << 20))],
            details: None,
            is_error: false,
            timestamp: 2,
            rewrite: None,
        });
        let Some(Message::ToolResult(r)) = bounded(&result) else {
            panic!("cut");
        };
        let Content::Text(t) = &r.content[0] else {
            panic!("text")
        };
        assert!(t.text.len() < MAX_RESULT_TEXT + 200);
        let small = Message::ToolResult(ToolResultMessage {
            content: vec![Content::text("ok")],
            ..r.clone()
        });
        assert!(bounded(&small).is_none());
    }
}
