//! The conversation's messages, in the JSON shapes of `wit/README.md` (camelCase, tagged by `role`;
//! content blocks tagged by `type`). The same shapes are stored in session files and sent to plugins.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Milliseconds since the Unix epoch.
pub type Timestamp = i64;

/// Current time in milliseconds since the Unix epoch.
pub fn now_ms() -> Timestamp {
    chrono::Utc::now().timestamp_millis()
}

/// Any message of the conversation, as stored in the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum Message {
    User(UserMessage),
    Assistant(AssistantMessage),
    ToolResult(ToolResultMessage),
    /// A plugin's message; the model sees it as user text. (Pi's version 2 files call the role
    /// `hookMessage`.)
    #[serde(alias = "hookMessage")]
    Custom(CustomMessage),
    /// Summary of a branch the conversation came back from.
    BranchSummary(BranchSummaryMessage),
    /// Summary of the history before a compaction.
    CompactionSummary(CompactionSummaryMessage),
}

/// Content of user messages and tool results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Content {
    Text(TextContent),
    Image(ImageContent),
}

/// Content of assistant messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AssistantContent {
    Text(TextContent),
    Thinking(ThinkingContent),
    ToolCall(ToolCall),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64 of the image bytes.
    pub data: String,
    pub mime_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingContent {
    pub thinking: String,
    /// Opaque provider signature, sent back verbatim. Pi writes it as `thinkingSignature`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        alias = "thinkingSignature"
    )]
    pub signature: Option<String>,
}

/// A tool call as the model made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    #[serde(deserialize_with = "content_string_or_blocks")]
    pub content: Vec<Content>,
    pub timestamp: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    pub content: Vec<AssistantContent>,
    pub provider: String,
    pub model: String,
    #[serde(default)]
    pub usage: Usage,
    pub stop_reason: StopReason,
    /// Set when `stop_reason` is `error` or `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    pub timestamp: Timestamp,
}

/// Token counts of one response, and what it cost in US dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    #[serde(deserialize_with = "cost_number_or_breakdown")]
    pub cost: Cost,
}

/// What a response cost in US dollars, by kind of token and in all, as Pi records it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total: f64,
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.total += other.total;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    Stop,
    Length,
    ToolUse,
    Error,
    Aborted,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    pub tool_call_id: String,
    pub tool_name: String,
    pub content: Vec<Content>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(default)]
    pub is_error: bool,
    pub timestamp: Timestamp,
    /// Present when before-tool-call hooks changed the model's arguments: what actually ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<ArgumentRewrite>,
}

/// The arguments a tool call ran with after plugins changed them, and who changed them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArgumentRewrite {
    pub arguments: Value,
    pub by: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    pub custom_type: String,
    #[serde(deserialize_with = "text_string_or_blocks")]
    pub content: String,
    #[serde(default)]
    pub display: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    pub timestamp: Timestamp,
    /// The plugin that added the message (sent or injected it), shown wherever the message is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    pub summary: String,
    pub from_id: String,
    pub timestamp: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    pub summary: String,
    pub tokens_before: u64,
    pub timestamp: Timestamp,
}

/// The outcome of one tool call, before it becomes a [`ToolResultMessage`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// What the model sees.
    pub content: Vec<Content>,
    /// Structured data for front ends and plugins; never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    #[serde(default)]
    pub is_error: bool,
}

impl Content {
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent { text: text.into() })
    }
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![Content::text(text)],
            details: None,
            is_error: false,
        }
    }

    /// A failed result with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![Content::text(text)],
            details: None,
            is_error: true,
        }
    }

    /// The text blocks joined by newlines.
    pub fn text_content(&self) -> String {
        join_text(&self.content)
    }
}

impl UserMessage {
    pub fn text(text: impl Into<String>) -> Self {
        UserMessage {
            content: vec![Content::text(text)],
            timestamp: now_ms(),
        }
    }

    /// The text blocks joined by newlines.
    pub fn text_content(&self) -> String {
        join_text(&self.content)
    }
}

impl AssistantMessage {
    /// The tool calls, in the order the model made them.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|block| match block {
            AssistantContent::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// The text blocks joined by newlines (thinking and tool calls left out).
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }
}

impl Message {
    /// A user message holding one text block, stamped now.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User(UserMessage::text(text))
    }

    /// A custom message with no plugin named as its author, stamped now.
    pub fn custom(
        custom_type: impl Into<String>,
        content: impl Into<String>,
        display: bool,
    ) -> Self {
        Self::custom_by(None, custom_type.into(), content.into(), display)
    }

    /// A message `plugin` adds to the conversation, attributed to it.
    pub fn from_plugin(
        plugin: impl Into<String>,
        custom_type: impl Into<String>,
        content: impl Into<String>,
        display: bool,
    ) -> Self {
        Self::custom_by(
            Some(plugin.into()),
            custom_type.into(),
            content.into(),
            display,
        )
    }

    fn custom_by(
        plugin: Option<String>,
        custom_type: String,
        content: String,
        display: bool,
    ) -> Self {
        Message::Custom(CustomMessage {
            custom_type,
            content,
            display,
            details: None,
            timestamp: now_ms(),
            plugin,
        })
    }

    pub fn timestamp(&self) -> Timestamp {
        match self {
            Message::User(m) => m.timestamp,
            Message::Assistant(m) => m.timestamp,
            Message::ToolResult(m) => m.timestamp,
            Message::Custom(m) => m.timestamp,
            Message::BranchSummary(m) => m.timestamp,
            Message::CompactionSummary(m) => m.timestamp,
        }
    }

    /// A short plain-text rendering (for queue previews and session lists).
    pub fn preview_text(&self) -> String {
        match self {
            Message::User(m) => m.text_content(),
            Message::Assistant(m) => m.text_content(),
            Message::ToolResult(m) => join_text(&m.content),
            Message::Custom(m) => m.content.clone(),
            Message::BranchSummary(m) => m.summary.clone(),
            Message::CompactionSummary(m) => m.summary.clone(),
        }
    }
}

fn join_text(content: &[Content]) -> String {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|block| match block {
            Content::Text(t) => Some(t.text.as_str()),
            Content::Image(_) => None,
        })
        .collect();
    texts.join("\n")
}

/// Text that tells the model what a compaction summary is.
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// Text that tells the model what a branch summary is.
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch of this conversation that was left, and what it found:\n\n<summary>\n";
const SUMMARY_SUFFIX: &str = "\n</summary>";

/// Turns a projected message list into what a provider receives: only `user`, `assistant` and
/// `toolResult` messages, each within the bounds of [`bounds`] (a huge tool argument or result
/// is cut, with a marker, in the request only).
///
/// Custom messages and summaries become user text (summaries with a short explanation before
/// them). Assistant messages that failed (`stopReason: error`) or carry no content are left out,
/// together with any tool results answering their calls, because providers reject them and they
/// hold nothing the model needs.
pub fn llm_view(messages: &[Arc<Message>]) -> Vec<Arc<Message>> {
    let view = LlmView::of(messages);
    Arc::try_unwrap(view.messages).unwrap_or_else(|shared| (*shared).clone())
}

mod bounds;
pub use bounds::{MAX_ARGUMENT_STRING, MAX_RESULT_TEXT};

/// [`llm_view`] built a message at a time, so a view kept beside a growing conversation costs
/// only what each new message adds.
#[derive(Debug, Clone, Default)]
pub struct LlmView {
    /// Shared with the requests made from it: a push copies the list only while one of them
    /// still holds it.
    messages: Arc<Vec<Arc<Message>>>,
    /// The calls of the left-out assistant messages, whose results are left out too.
    dropped_calls: Vec<String>,
}

impl LlmView {
    /// The view of `messages`, a projection, to be extended with [`push`](Self::push).
    pub fn of(messages: &[Arc<Message>]) -> Self {
        let mut view = LlmView {
            messages: Arc::new(Vec::with_capacity(messages.len())),
            dropped_calls: Vec::new(),
        };
        for message in messages {
            view.push(message);
        }
        view
    }

    /// Adds what `message`, the next projected message, gives the provider.
    pub fn push(&mut self, message: &Arc<Message>) {
        let viewed = match &**message {
            Message::User(_) => Arc::clone(message),
            Message::Assistant(m) => {
                if m.stop_reason == StopReason::Error || m.content.is_empty() {
                    self.dropped_calls
                        .extend(m.tool_calls().map(|c| c.id.clone()));
                    return;
                }
                bounds::bounded(message).map_or_else(|| Arc::clone(message), Arc::new)
            }
            Message::ToolResult(m) => {
                if self.dropped_calls.contains(&m.tool_call_id) {
                    return;
                }
                bounds::bounded(message).map_or_else(|| Arc::clone(message), Arc::new)
            }
            Message::Custom(m) => Arc::new(user_text(m.content.clone(), m.timestamp)),
            Message::BranchSummary(m) => Arc::new(user_text(
                format!("{BRANCH_SUMMARY_PREFIX}{}{SUMMARY_SUFFIX}", m.summary),
                m.timestamp,
            )),
            Message::CompactionSummary(m) => Arc::new(user_text(
                format!("{COMPACTION_SUMMARY_PREFIX}{}{SUMMARY_SUFFIX}", m.summary),
                m.timestamp,
            )),
        };
        Arc::make_mut(&mut self.messages).push(viewed);
    }

    pub fn messages(&self) -> &[Arc<Message>] {
        &self.messages
    }

    /// The list itself, for a request to hold without copying it.
    pub fn shared(&self) -> Arc<Vec<Arc<Message>>> {
        Arc::clone(&self.messages)
    }
}

fn user_text(text: String, timestamp: Timestamp) -> Message {
    Message::User(UserMessage {
        content: vec![Content::Text(TextContent { text })],
        timestamp,
    })
}

/// Pi writes short user messages as a plain string; tack always writes blocks.
fn content_string_or_blocks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Content>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Blocks(Vec<Content>),
    }
    Ok(match Either::deserialize(d)? {
        Either::Text(text) => vec![Content::Text(TextContent { text })],
        Either::Blocks(blocks) => blocks,
    })
}

/// Pi allows blocks in custom messages; tack keeps their text.
pub(crate) fn text_string_or_blocks<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Blocks(Vec<Content>),
    }
    Ok(match Either::deserialize(d)? {
        Either::Text(text) => text,
        Either::Blocks(blocks) => join_text(&blocks),
    })
}

/// Sessions written before tack kept the breakdown store the total as a bare number.
fn cost_number_or_breakdown<'de, D: Deserializer<'de>>(d: D) -> Result<Cost, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(f64),
        Breakdown(Cost),
    }
    Ok(match Either::deserialize(d)? {
        Either::Number(total) => Cost {
            total,
            ..Cost::default()
        },
        Either::Breakdown(cost) => cost,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(text: &str) {
        let message: Message = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&message).unwrap(), text);
    }

    #[test]
    fn user_message_golden() {
        let message = Message::User(UserMessage {
            content: vec![
                Content::text("hello"),
                Content::Image(ImageContent {
                    data: "aGk=".into(),
                    mime_type: "image/png".into(),
                }),
            ],
            timestamp: 1733011200000,
        });
        let golden = r#"{"role":"user","content":[{"type":"text","text":"hello"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"timestamp":1733011200000}"#;
        assert_eq!(serde_json::to_string(&message).unwrap(), golden);
        round_trip(golden);
    }

    #[test]
    fn assistant_message_golden() {
        let golden = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"Reading."},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"src/main.rs"}}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":20,"cacheRead":1,"cacheWrite":2,"cost":{"input":0.1,"output":0.3,"cacheRead":0.05,"cacheWrite":0.05,"total":0.5}},"stopReason":"toolUse","timestamp":1733011200000}"#;
        let message: Message = serde_json::from_str(golden).unwrap();
        let Message::Assistant(a) = &message else {
            panic!("not an assistant message")
        };
        assert_eq!(a.stop_reason, StopReason::ToolUse);
        assert_eq!(a.tool_calls().count(), 1);
        assert_eq!(a.usage.cache_write, 2);
        round_trip(golden);
    }

    #[test]
    fn assistant_error_golden() {
        round_trip(
            r#"{"role":"assistant","content":[],"provider":"demo","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"cost":{"input":0.0,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"total":0.0}},"stopReason":"error","errorMessage":"boom","timestamp":1}"#,
        );
    }

    #[test]
    fn other_roles_golden() {
        round_trip(
            r#"{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"fn main() {}"}],"details":{"lines":1},"isError":false,"timestamp":1733011200000}"#,
        );
        round_trip(
            r#"{"role":"custom","customType":"plan-mode","content":"text","display":true,"timestamp":5}"#,
        );
        round_trip(r#"{"role":"branchSummary","summary":"s","fromId":"a1b2c3d4","timestamp":6}"#);
        round_trip(
            r#"{"role":"compactionSummary","summary":"s","tokensBefore":123456,"timestamp":7}"#,
        );
    }

    #[test]
    fn pi_shapes_are_accepted() {
        let user: Message =
            serde_json::from_value(json!({"role": "user", "content": "hi", "timestamp": 1}))
                .unwrap();
        assert_eq!(
            user,
            Message::User(UserMessage {
                content: vec![Content::text("hi")],
                timestamp: 1
            })
        );
        let assistant: Message = serde_json::from_value(json!({
            "role": "assistant", "api": "anthropic-messages",
            "content": [{"type": "thinking", "thinking": "t", "thinkingSignature": "s"}],
            "provider": "anthropic", "model": "m",
            "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
                      "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.3}},
            "stopReason": "stop", "timestamp": 2
        }))
        .unwrap();
        let Message::Assistant(a) = assistant else {
            panic!("not an assistant message")
        };
        assert_eq!(
            a.usage.cost,
            Cost {
                input: 0.1,
                output: 0.2,
                total: 0.3,
                ..Cost::default()
            }
        );
        let older: Usage = serde_json::from_value(json!({"input": 1, "cost": 0.25})).unwrap();
        assert_eq!(older.cost.total, 0.25, "a bare number is the total");
        let partial: Usage = serde_json::from_value(json!({"input": 7})).unwrap();
        assert_eq!(
            partial,
            Usage {
                input: 7,
                ..Usage::default()
            }
        );
        assert_eq!(
            a.content,
            vec![AssistantContent::Thinking(ThinkingContent {
                thinking: "t".into(),
                signature: Some("s".into())
            })]
        );
    }

    #[test]
    fn llm_view_converts_and_filters() {
        let failed = Message::Assistant(AssistantMessage {
            content: vec![AssistantContent::ToolCall(ToolCall {
                id: "c1".into(),
                name: "read".into(),
                arguments: json!({}),
            })],
            provider: "p".into(),
            model: "m".into(),
            usage: Usage::default(),
            stop_reason: StopReason::Error,
            error_message: Some("boom".into()),
            timestamp: 1,
        });
        let answer = Message::ToolResult(ToolResultMessage {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            content: vec![Content::text("aborted")],
            details: None,
            is_error: true,
            timestamp: 2,
            rewrite: None,
        });
        let messages: Vec<Arc<Message>> = vec![
            Message::CompactionSummary(CompactionSummaryMessage {
                summary: "did things".into(),
                tokens_before: 10,
                timestamp: 0,
            }),
            Message::user("hi"),
            failed,
            answer,
            Message::custom("plan-mode", "plan only", false),
            Message::BranchSummary(BranchSummaryMessage {
                summary: "tried X".into(),
                from_id: "abcd0123".into(),
                timestamp: 3,
            }),
        ]
        .into_iter()
        .map(Arc::new)
        .collect();
        let view = llm_view(&messages);
        let texts: Vec<String> = view
            .iter()
            .map(|m| match &**m {
                Message::User(u) => u.text_content(),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(texts.len(), 4);
        assert!(texts[0].starts_with(COMPACTION_SUMMARY_PREFIX));
        assert!(texts[0].ends_with("did things\n</summary>"));
        assert_eq!(texts[1], "hi");
        assert_eq!(texts[2], "plan only");
        assert!(texts[3].starts_with(BRANCH_SUMMARY_PREFIX));
    }
}
