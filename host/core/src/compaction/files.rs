//! The files the summarized work read and modified, taken from `read`, `write` and `edit` tool
//! calls and carried from one compaction to the next in the entry's `details`
//! (`{"readFiles": [...], "modifiedFiles": [...]}`), so that the lists survive any number of
//! compactions even though the calls themselves leave the context.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::message::Message;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOps {
    read: BTreeSet<String>,
    modified: BTreeSet<String>,
}

impl FileOps {
    /// The lists stored in an earlier compaction's or branch summary's `details`; anything else
    /// there (a plugin's own data) is ignored.
    pub fn from_details(details: Option<&Value>) -> Self {
        let mut ops = FileOps::default();
        let list = |key: &str| -> Vec<String> {
            details
                .and_then(|d| d.get(key))
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        ops.read.extend(list("readFiles"));
        ops.modified.extend(list("modifiedFiles"));
        ops
    }

    /// Adds the files of the tool calls in `message`.
    pub fn add_message(&mut self, message: &Message) {
        let Message::Assistant(assistant) = message else {
            return;
        };
        for call in assistant.tool_calls() {
            let path = call
                .arguments
                .get("path")
                .or_else(|| call.arguments.get("file_path"))
                .and_then(Value::as_str);
            let Some(path) = path else { continue };
            match call.name.as_str() {
                "read" => {
                    self.read.insert(path.to_owned());
                }
                "write" | "edit" => {
                    self.modified.insert(path.to_owned());
                }
                _ => {}
            }
        }
    }

    pub fn merge(&mut self, other: FileOps) {
        self.read.extend(other.read);
        self.modified.extend(other.modified);
    }

    /// Files read and never modified, sorted.
    pub fn read_files(&self) -> Vec<String> {
        self.read.difference(&self.modified).cloned().collect()
    }

    /// Files written or edited, sorted.
    pub fn modified_files(&self) -> Vec<String> {
        self.modified.iter().cloned().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.read.is_empty() && self.modified.is_empty()
    }

    /// The `details` value stored in the entry.
    pub fn to_details(&self) -> Value {
        json!({ "readFiles": self.read_files(), "modifiedFiles": self.modified_files() })
    }

    /// The lists as tagged sections appended to a summary (empty when there are none), so the
    /// model sees them too.
    pub fn format(&self) -> String {
        let mut out = String::new();
        for (tag, files) in [
            ("read-files", self.read_files()),
            ("modified-files", self.modified_files()),
        ] {
            if !files.is_empty() {
                out.push_str(&format!("\n\n<{tag}>\n{}\n</{tag}>", files.join("\n")));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{AssistantContent, AssistantMessage, StopReason, ToolCall, Usage};

    fn calls(calls: &[(&str, Value)]) -> Message {
        Message::Assistant(AssistantMessage {
            content: calls
                .iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    AssistantContent::ToolCall(ToolCall {
                        id: format!("c{i}"),
                        name: (*name).into(),
                        arguments: arguments.clone(),
                    })
                })
                .collect(),
            provider: "p".into(),
            model: "m".into(),
            usage: Usage::default(),
            stop_reason: StopReason::ToolUse,
            error_message: None,
            timestamp: 0,
        })
    }

    #[test]
    fn tracks_reads_and_modifications_across_details() {
        let mut ops = FileOps::from_details(Some(
            &json!({"readFiles": ["old.rs", "both.rs"], "modifiedFiles": ["gone.rs"], "other": 1}),
        ));
        ops.add_message(&calls(&[
            ("read", json!({"path": "a.rs"})),
            ("edit", json!({"path": "both.rs", "old_text": "x"})),
            ("write", json!({"file_path": "w.rs"})),
            ("bash", json!({"command": "ls"})),
            ("read", json!({"path": 5})),
        ]));
        assert_eq!(ops.read_files(), ["a.rs", "old.rs"]);
        assert_eq!(ops.modified_files(), ["both.rs", "gone.rs", "w.rs"]);
        assert_eq!(
            ops.to_details(),
            json!({"readFiles": ["a.rs", "old.rs"], "modifiedFiles": ["both.rs", "gone.rs", "w.rs"]})
        );
        assert_eq!(
            ops.format(),
            "\n\n<read-files>\na.rs\nold.rs\n</read-files>\n\n<modified-files>\nboth.rs\ngone.rs\nw.rs\n</modified-files>"
        );
        assert_eq!(FileOps::default().format(), "");
        assert!(FileOps::from_details(None).is_empty());
    }
}
