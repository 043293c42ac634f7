//! The conversation as plain text for the summary request.
//!
//! The summarizer gets a transcript inside one user message, not the messages themselves, so it
//! reads them as material to summarize instead of a conversation to continue. Tool results and
//! tool-call arguments are cut to [`TOOL_RESULT_MAX_CHARS`]: file contents and command output are
//! the bulk of a coding session, and their gist fits in the first lines.

use std::sync::Arc;

use crate::message::{llm_view, AssistantContent, Content, Message};

/// Longest tool result (and tool-call argument list) kept in the transcript, in bytes.
pub const TOOL_RESULT_MAX_CHARS: usize = 2000;

/// The whole transcript of `messages`.
pub fn serialize_conversation(messages: &[Arc<Message>]) -> String {
    let mut out = String::new();
    for message in llm_view(messages) {
        push_message(&mut out, &message);
    }
    out
}

/// The transcript split at message boundaries into chunks of at most `max_chars` bytes each (a
/// single longer message is cut), so that each fits one summary request.
pub(crate) fn serialize_chunks(messages: &[Arc<Message>], max_chars: usize) -> Vec<String> {
    let max_chars = max_chars.max(1);
    let mut chunks = Vec::new();
    let mut chunk = String::new();
    let mut one = String::new();
    for message in llm_view(messages) {
        one.clear();
        push_message(&mut one, &message);
        if one.is_empty() {
            continue;
        }
        if one.len() > max_chars {
            let cut = truncate(&one, max_chars.saturating_sub(80));
            one = cut;
        }
        let separator = if chunk.is_empty() { 0 } else { 2 };
        if !chunk.is_empty() && chunk.len() + separator + one.len() > max_chars {
            chunks.push(std::mem::take(&mut chunk));
        }
        if !chunk.is_empty() {
            chunk.push_str("\n\n");
        }
        chunk.push_str(&one);
    }
    if !chunk.is_empty() {
        chunks.push(chunk);
    }
    chunks
}

fn push_message(out: &mut String, message: &Message) {
    let mut part = |label: &str, text: &str| {
        if text.is_empty() {
            return;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push('[');
        out.push_str(label);
        out.push_str("]: ");
        out.push_str(text);
    };
    match message {
        Message::User(user) => part("User", &text_of(&user.content)),
        Message::Assistant(assistant) => {
            let mut thinking = Vec::new();
            let mut text = Vec::new();
            let mut calls = Vec::new();
            for block in &assistant.content {
                match block {
                    AssistantContent::Thinking(t) => thinking.push(t.thinking.as_str()),
                    AssistantContent::Text(t) => text.push(t.text.as_str()),
                    AssistantContent::ToolCall(call) => {
                        let arguments = match &call.arguments {
                            serde_json::Value::Object(map) => map
                                .iter()
                                .map(|(k, v)| format!("{k}={v}"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            other => other.to_string(),
                        };
                        calls.push(format!(
                            "{}({})",
                            call.name,
                            truncate(&arguments, TOOL_RESULT_MAX_CHARS)
                        ));
                    }
                }
            }
            part("Assistant thinking", &thinking.join("\n"));
            part("Assistant", &text.join("\n"));
            part("Assistant tool calls", &calls.join("; "));
        }
        Message::ToolResult(result) => {
            let label = if result.is_error {
                format!("Tool result {} (error)", result.tool_name)
            } else {
                format!("Tool result {}", result.tool_name)
            };
            part(
                &label,
                &truncate(&text_of(&result.content), TOOL_RESULT_MAX_CHARS),
            );
        }
        // `llm_view` turned every other role into user text.
        Message::Custom(m) => part("User", &m.content),
        Message::BranchSummary(m) => part("User", &m.summary),
        Message::CompactionSummary(m) => part("User", &m.summary),
    }
}

fn text_of(content: &[Content]) -> String {
    let mut out = String::new();
    for block in content {
        match block {
            Content::Text(t) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&t.text);
            }
            Content::Image(_) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str("[image]");
            }
        }
    }
    out
}

/// `text` cut to at most `max` bytes (at a character boundary) with a note saying how much was
/// left out.
fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let end = text.floor_char_boundary(max);
    format!(
        "{}\n[... {} more characters truncated]",
        &text[..end],
        text.len() - end
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{
        AssistantMessage, StopReason, TextContent, ThinkingContent, ToolCall, ToolResultMessage,
        Usage,
    };
    use serde_json::json;

    fn transcript() -> Vec<Arc<Message>> {
        vec![
            Arc::new(Message::user("Fix the bug")),
            Arc::new(Message::Assistant(AssistantMessage {
                content: vec![
                    AssistantContent::Thinking(ThinkingContent {
                        thinking: "Look first.".into(),
                        signature: None,
                    }),
                    AssistantContent::Text(TextContent {
                        text: "Reading.".into(),
                    }),
                    AssistantContent::ToolCall(ToolCall {
                        id: "c1".into(),
                        name: "read".into(),
                        arguments: json!({"path": "src/lib.rs"}),
                    }),
                ],
                provider: "p".into(),
                model: "m".into(),
                usage: Usage::default(),
                stop_reason: StopReason::ToolUse,
                error_message: None,
                timestamp: 1,
            })),
            Arc::new(Message::ToolResult(ToolResultMessage {
                tool_call_id: "c1".into(),
                tool_name: "read".into(),
                content: vec![Content::text("é".repeat(3000))],
                details: None,
                is_error: false,
                timestamp: 2,
                rewrite: None,
            })),
            Arc::new(Message::custom("plan", "Plan only.", true)),
        ]
    }

    #[test]
    fn transcript_labels_roles_and_truncates_results() {
        let text = serialize_conversation(&transcript());
        assert!(text.starts_with(
            "[User]: Fix the bug\n\n[Assistant thinking]: Look first.\n\n[Assistant]: Reading.\n\n[Assistant tool calls]: read(path=\"src/lib.rs\")\n\n[Tool result read]: éé"
        ));
        assert!(
            text.contains("\n[... 4000 more characters truncated]"),
            "{text}"
        );
        assert!(text.ends_with("\n\n[User]: Plan only."));
        assert!(text.len() < 2300);
    }

    #[test]
    fn chunks_split_at_messages_and_fit() {
        let messages: Vec<Arc<Message>> = (0..10)
            .map(|i| Arc::new(Message::user(format!("{i}").repeat(300))))
            .collect();
        let chunks = serialize_chunks(&messages, 1000);
        assert_eq!(chunks.len(), 4);
        assert!(chunks.iter().all(|c| c.len() <= 1000));
        assert!(chunks[0].starts_with("[User]: 000"));
        assert_eq!(chunks.join("\n\n"), serialize_conversation(&messages));
        let huge = vec![Arc::new(Message::user("x".repeat(5000)))];
        let chunks = serialize_chunks(&huge, 1000);
        assert_eq!(chunks.len(), 1);
        assert!(chunks[0].len() <= 1000);
    }
}
