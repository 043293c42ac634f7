//! What a running child shows its parent's front end: one line per tool call (with its outcome)
//! and the child's latest words, streamed as the progress of the tool call that started it, so
//! every front end shows it inside that call's card. The last snapshot, sent as the child
//! ends, says how it ended.

use std::time::Duration;

use serde_json::{json, Value};
use tack_core::event::AgentEvent;
use tack_core::message::Message;

use super::ChildUsage;

/// The most tool-call lines kept; older ones are counted instead.
const MAX_LINES: usize = 40;
/// The most characters of an argument summary or of the child's latest words.
const MAX_CHARS: usize = 160;

/// A snapshot of a running child.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildProgress {
    /// Plain lines for any front end.
    pub text: String,
    /// `{"subagent": {"description", "calls": [{"id", "tool", "summary", "state"}],
    /// "earlierCalls", "said", "usage", "elapsedMs", "status"}}` (`status` only in the last
    /// one), for front ends that draw a nested card.
    pub details: Value,
}

#[derive(Default)]
pub(super) struct ProgressLog {
    description: String,
    calls: Vec<CallLine>,
    dropped: usize,
    said: String,
}

struct CallLine {
    id: String,
    tool: String,
    summary: String,
    state: &'static str,
}

impl ProgressLog {
    pub fn new(description: &str) -> Self {
        ProgressLog {
            description: clip(description),
            ..ProgressLog::default()
        }
    }

    /// Takes in an event; whether the snapshot changed.
    pub fn observe(&mut self, event: &AgentEvent) -> bool {
        match event {
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
                ..
            } => {
                if self.calls.len() == MAX_LINES {
                    self.calls.remove(0);
                    self.dropped += 1;
                }
                self.calls.push(CallLine {
                    id: tool_call_id.clone(),
                    tool: tool_name.clone(),
                    summary: summarize(args),
                    state: "running",
                });
                true
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                is_error,
                ..
            } => {
                if let Some(line) = self.calls.iter_mut().find(|l| &l.id == tool_call_id) {
                    line.state = if *is_error { "error" } else { "done" };
                }
                true
            }
            AgentEvent::MessageEnd { message } => match message.as_ref() {
                Message::Assistant(a) => {
                    let text = a.text_content();
                    if text.trim().is_empty() {
                        return false;
                    }
                    self.said = clip(text.trim());
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// What the child did so far; `status` once it has ended.
    pub fn snapshot(
        &self,
        usage: ChildUsage,
        elapsed: Duration,
        status: Option<&str>,
    ) -> ChildProgress {
        let mut lines = Vec::new();
        if self.dropped > 0 {
            lines.push(format!("… {} earlier calls", self.dropped));
        }
        for call in &self.calls {
            let mark = match call.state {
                "running" => "…",
                "error" => "✗",
                _ => "✓",
            };
            lines.push(format!("{mark} {} {}", call.tool, call.summary));
        }
        if !self.said.is_empty() {
            lines.push(self.said.clone());
        }
        if let Some(status) = status {
            lines.push(format!("[sub-agent {status}]"));
        }
        let calls: Vec<Value> = self
            .calls
            .iter()
            .map(|c| json!({"id": c.id, "tool": c.tool, "summary": c.summary, "state": c.state}))
            .collect();
        let mut subagent = json!({
            "description": self.description,
            "calls": calls,
            "earlierCalls": self.dropped,
            "said": self.said,
            "usage": usage,
            "elapsedMs": u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
        });
        if let (Some(status), Some(fields)) = (status, subagent.as_object_mut()) {
            fields.insert("status".into(), json!(status));
        }
        ChildProgress {
            text: lines.join("\n"),
            details: json!({ "subagent": subagent }),
        }
    }
}

/// One line for a call's arguments: the first string argument, else the JSON.
fn summarize(args: &Value) -> String {
    let first = args
        .as_object()
        .and_then(|o| o.values().find_map(Value::as_str))
        .map(str::to_string)
        .unwrap_or_else(|| args.to_string());
    clip(first.lines().next().unwrap_or_default())
}

fn clip(text: &str) -> String {
    let line: String = text
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_CHARS)
        .collect();
    if text.chars().count() > MAX_CHARS {
        format!("{line}…")
    } else {
        line
    }
}
