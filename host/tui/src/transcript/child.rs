//! A sub-agent's run as its parent's card shows it, built from the `subagent` object of the
//! starting call's progress (what the host streams while the child runs: its tool calls, its
//! latest words, usage and time) and of the call's result (what the subagents plugin returns:
//! agent, status, model, usage). Fields a snapshot leaves out keep what an earlier one said.

use serde_json::Value;

use super::ToolState;

/// The most characters kept of any one text field; the host clips its own, a plugin may not.
const MAX_FIELD_CHARS: usize = 4000;
/// The most tool-call lines kept.
const MAX_CALLS: usize = 100;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChildRun {
    /// The agent definition it runs, if one was named.
    pub agent: Option<String>,
    pub description: String,
    pub calls: Vec<ChildCall>,
    /// Calls older than the ones listed.
    pub earlier_calls: u64,
    /// What the child said last.
    pub said: String,
    pub turns: u64,
    pub tool_calls: u64,
    pub tokens: u64,
    pub elapsed_ms: Option<u64>,
    /// `completed`, `limit-reached`, `aborted`, `failed`; `None` while it runs.
    pub status: Option<String>,
    /// `provider/id`.
    pub model: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChildCall {
    pub tool: String,
    pub summary: String,
    pub state: ToolState,
}

impl ChildRun {
    /// Folds `details` into `slot` when they describe a sub-agent; whether they did.
    pub fn observe(slot: &mut Option<Box<ChildRun>>, details: Option<&Value>) -> bool {
        let Some(run) = details
            .and_then(|d| d.get("subagent"))
            .and_then(Value::as_object)
        else {
            return false;
        };
        let child = slot.get_or_insert_with(Box::default);
        let text = |key: &str| run.get(key).and_then(Value::as_str).map(clean);
        if let Some(agent) = text("agent").filter(|a| !a.is_empty()) {
            child.agent = Some(agent);
        }
        if let Some(description) = text("description") {
            child.description = description;
        }
        if let Some(said) = text("said") {
            child.said = said;
        }
        if let Some(status) = text("status") {
            child.status = Some(status);
        }
        if let Some(model) = text("model").filter(|m| !m.is_empty()) {
            child.model = Some(model);
        }
        if let Some(elapsed) = run.get("elapsedMs").and_then(Value::as_u64) {
            child.elapsed_ms = Some(elapsed);
        }
        if let Some(earlier) = run.get("earlierCalls").and_then(Value::as_u64) {
            child.earlier_calls = earlier;
        }
        if let Some(calls) = run.get("calls").and_then(Value::as_array) {
            child.calls = calls.iter().take(MAX_CALLS).map(call).collect();
        }
        if let Some(usage) = run.get("usage").and_then(Value::as_object) {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            child.turns = count("turns");
            child.tool_calls = count("toolCalls");
            child.tokens = ["input", "output", "cacheRead", "cacheWrite"]
                .iter()
                .fold(0u64, |sum, key| sum.saturating_add(count(key)));
        }
        true
    }

    /// Whether the child has ended (its result, or the host's last progress, says how).
    pub fn finished(&self) -> bool {
        self.status.is_some()
    }
}

fn call(value: &Value) -> ChildCall {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(clean)
            .unwrap_or_default()
    };
    ChildCall {
        tool: text("tool"),
        summary: text("summary"),
        state: match value.get("state").and_then(Value::as_str) {
            Some("done") => ToolState::Done,
            Some("error") => ToolState::Failed,
            _ => ToolState::Running,
        },
    }
}

/// Without control characters (a plugin's details reach the terminal) and within a bound.
fn clean(text: &str) -> String {
    text.chars()
        .filter(|c| *c == '\n' || !c.is_control())
        .take(MAX_FIELD_CHARS)
        .collect()
}
