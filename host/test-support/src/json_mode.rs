//! Reading what `tack --mode json` printed, and scripting the calls that produce it: the steps
//! every test of a scripted run through the binary takes.

use std::process::Output;

use serde_json::{json, Value};

/// A scripted-provider turn that says "working" and makes one tool call.
pub fn call_turn(id: &str, name: &str, arguments: Value) -> Value {
    json!({ "text": "working", "tool_calls": [{ "id": id, "name": name, "arguments": arguments }] })
}

/// The JSON events of a run's stdout; lines that are not JSON are passed over.
pub fn json_events(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The first event of type `kind` about tool call `call_id`; panics, listing the events, when
/// there is none.
pub fn tool_event<'a>(events: &'a [Value], kind: &str, call_id: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["type"] == kind && e["toolCallId"] == call_id)
        .unwrap_or_else(|| panic!("no {kind} for {call_id} in {events:#?}"))
}

/// Whether tool call `call_id` failed, and its text blocks (one per line); panics, listing the
/// events, when the call never ended.
pub fn tool_result(events: &[Value], call_id: &str) -> (bool, String) {
    let end = tool_event(events, "tool_execution_end", call_id);
    let text = tool_blocks(events, call_id)
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    (end["isError"] == true, text)
}

/// The content blocks tool call `call_id` ended with.
pub fn tool_blocks(events: &[Value], call_id: &str) -> Vec<Value> {
    tool_event(events, "tool_execution_end", call_id)["result"]["content"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}
