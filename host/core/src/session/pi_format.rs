//! tack's session files are Pi's session format, version 3: Pi opens them (`pi --session`) and
//! tack opens Pi's in place.
//!
//! | tack entry (`EntryKind`) | Pi v3 line | tack-only fields Pi ignores (and keeps) |
//! |---|---|---|
//! | `Message` (user, assistant, toolResult, custom, branchSummary, compactionSummary) | `message` | `rewrite` on a tool result, `plugin` on a custom message |
//! | `ModelChange` | `model_change` | |
//! | `ThinkingLevelChange` | `thinking_level_change` | |
//! | `Compaction` | `compaction` | |
//! | `BranchSummary` | `branch_summary` | |
//! | `Custom` (plugin state) | `custom` | `owner` (the plugin) |
//! | `CustomMessage` | `custom_message` | |
//! | `Label` | `label` | |
//! | `SessionInfo` | `session_info` | |
//! | `Unknown` (any other type, and messages of roles tack has no type for, such as Pi's `bashExecution`) | kept verbatim | |
//!
//! Every tack entry has a Pi type, so tack writes no entry type of its own; what only tack knows
//! rides in fields Pi ignores. Pi never rewrites a version 3 file (it appends), and where it copies
//! entries (`/fork`, `/clone`, a migration) it writes back the parsed objects whole, so those
//! fields survive.
//!
//! In messages, tack writes Pi's shapes where its own JSON (the shape plugins receive) differs: a
//! thinking block's signature is `thinkingSignature`, and usage carries `totalTokens` and the
//! cost by category with its `total`, as Pi's does. Fields of Pi's that tack has no place for
//! (`api`, `responseId`, text and tool-call signatures, ...) are kept by keeping such a line
//! verbatim ([`super::Entry::verbatim`]).

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::message::{
    AssistantContent, AssistantMessage, Message, StopReason, TextContent, ToolCall,
};

/// A message as written to a session file, and as tack's RPC and JSON modes send it: Pi's shape.
pub struct PiMessage<'a>(pub &'a Message);

impl Serialize for PiMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Message::Assistant(message) => PiAssistant::from(message).serialize(serializer),
            other => other.serialize(serializer),
        }
    }
}

/// An assistant message in Pi's shape, borrowed (written straight, as loading writes every line
/// it reads once to see whether it round-trips).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PiAssistant<'a> {
    role: &'static str,
    content: Vec<PiBlock<'a>>,
    provider: &'a str,
    model: &'a str,
    usage: PiUsage,
    stop_reason: StopReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_message: Option<&'a str>,
    timestamp: i64,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum PiBlock<'a> {
    Text(&'a TextContent),
    #[serde(rename_all = "camelCase")]
    Thinking {
        thinking: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        thinking_signature: Option<&'a str>,
    },
    ToolCall(&'a ToolCall),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PiUsage {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    total_tokens: u64,
    cost: crate::message::Cost,
}

impl<'a> From<&'a AssistantMessage> for PiAssistant<'a> {
    fn from(message: &'a AssistantMessage) -> Self {
        let usage = &message.usage;
        PiAssistant {
            role: "assistant",
            content: message
                .content
                .iter()
                .map(|block| match block {
                    AssistantContent::Text(text) => PiBlock::Text(text),
                    AssistantContent::Thinking(thinking) => PiBlock::Thinking {
                        thinking: &thinking.thinking,
                        thinking_signature: thinking.signature.as_deref(),
                    },
                    AssistantContent::ToolCall(call) => PiBlock::ToolCall(call),
                })
                .collect(),
            provider: &message.provider,
            model: &message.model,
            usage: PiUsage {
                input: usage.input,
                output: usage.output,
                cache_read: usage.cache_read,
                cache_write: usage.cache_write,
                total_tokens: usage.input + usage.output + usage.cache_read + usage.cache_write,
                cost: usage.cost,
            },
            stop_reason: message.stop_reason,
            error_message: message.error_message.as_deref(),
            timestamp: message.timestamp,
        }
    }
}

/// What Pi shows the model for a `!command` the user ran (a `bashExecution` message).
pub(crate) fn bash_execution_text(message: &Value) -> String {
    let field = |key: &str| message.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut text = format!("Ran `{}`\n", field("command"));
    let output = field("output");
    if output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str(&format!("```\n{output}\n```"));
    }
    if message.get("cancelled").and_then(Value::as_bool) == Some(true) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = message.get("exitCode").and_then(Value::as_i64) {
        if code != 0 {
            text.push_str(&format!("\n\nCommand exited with code {code}"));
        }
    }
    if message.get("truncated").and_then(Value::as_bool) == Some(true) {
        let full = field("fullOutputPath");
        if !full.is_empty() {
            text.push_str(&format!("\n\n[Output truncated. Full output: {full}]"));
        }
    }
    text
}
