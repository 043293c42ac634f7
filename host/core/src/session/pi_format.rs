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
//! thinking block's signature is `thinkingSignature`, and usage carries `totalTokens` and a cost
//! object (`total` is tack's figure; tack does not split it by category, so those are 0). Fields
//! of Pi's that tack has no place for (`api`, `responseId`, text and tool-call signatures, cost
//! per category, ...) are kept by keeping such a line verbatim ([`super::Entry::verbatim`]).

use serde::{Serialize, Serializer};
use serde_json::{json, Map, Value};

use crate::message::Message;

/// A message as written to a session file.
pub(crate) struct PiMessage<'a>(pub &'a Message);

impl Serialize for PiMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Message::Assistant(_) = self.0 else {
            return self.0.serialize(serializer);
        };
        let mut value = serde_json::to_value(self.0).map_err(serde::ser::Error::custom)?;
        if let Some(message) = value.as_object_mut() {
            to_pi_assistant(message);
        }
        value.serialize(serializer)
    }
}

fn to_pi_assistant(message: &mut Map<String, Value>) {
    if let Some(Value::Array(blocks)) = message.get_mut("content") {
        for block in blocks.iter_mut().filter_map(Value::as_object_mut) {
            if block.get("type").and_then(Value::as_str) == Some("thinking") {
                if let Some(signature) = block.remove("signature") {
                    block.insert("thinkingSignature".into(), signature);
                }
            }
        }
    }
    if let Some(Value::Object(usage)) = message.get_mut("usage") {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        let total_tokens =
            count("input") + count("output") + count("cacheRead") + count("cacheWrite");
        let total_cost = usage.get("cost").and_then(Value::as_f64).unwrap_or(0.0);
        usage.insert("totalTokens".into(), json!(total_tokens));
        usage.insert(
            "cost".into(),
            json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": total_cost}),
        );
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
