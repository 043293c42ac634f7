//! The list is never held in memory between calls: it is whatever the last successful `todo`
//! result on the session's active branch says. So after `/tree` moves the leaf, or `/fork`, the
//! list is the one that branch built, and several instances of the plugin always agree.

use serde_json::Value;

use crate::list::TodoList;

/// The tool's name, also the `toolName` of its results in the session.
pub const TOOL: &str = "todo";

/// The list as of the newest successful `todo` result among `entries` (the branch, root first);
/// empty when there is none.
pub fn current(entries: &[Value]) -> TodoList {
    entries
        .iter()
        .rev()
        .filter(|entry| entry.get("type").and_then(Value::as_str) == Some("message"))
        .filter_map(|entry| entry.get("message"))
        .filter(|message| {
            message.get("role").and_then(Value::as_str) == Some("toolResult")
                && message.get("toolName").and_then(Value::as_str) == Some(TOOL)
                && !message
                    .get("isError")
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
        })
        // A result whose details do not parse (written by another version, or edited by hand)
        // is skipped rather than trusted.
        .find_map(|message| {
            serde_json::from_value::<TodoList>(message.get("details")?.clone()).ok()
        })
        .unwrap_or_default()
        .normalized()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(name: &str, details: Value, is_error: bool) -> Value {
        json!({
            "type": "message", "id": "x", "parentId": null, "timestamp": "t",
            "message": {
                "role": "toolResult", "toolCallId": "c", "toolName": name,
                "content": [], "details": details, "isError": is_error, "timestamp": 0
            }
        })
    }

    #[test]
    fn newest_successful_result_wins() {
        let one = json!({"todos": [{"id": 1, "text": "a", "done": false}], "nextId": 2});
        let two = json!({"todos": [{"id": 1, "text": "a", "done": true}], "nextId": 2});
        let entries = vec![
            result(TOOL, one, false),
            result(TOOL, two.clone(), false),
            result(TOOL, json!({"todos": []}), true),
            result("other", json!({"todos": []}), false),
            json!({"type": "custom", "customType": "todo", "data": {}}),
        ];
        let list = current(&entries);
        assert!(list.todos[0].done);
        assert_eq!(list.next_id, 2);
        assert!(!current(&entries[..1]).todos[0].done);
        assert!(current(&[]).todos.is_empty());
        assert_eq!(current(&[]).next_id, 1);
    }

    #[test]
    fn malformed_details_are_skipped() {
        let good = json!({"todos": [{"id": 3, "text": "a", "done": false}]});
        let entries = vec![
            result(TOOL, good, false),
            result(TOOL, json!({"todos": "nope"}), false),
        ];
        let list = current(&entries);
        assert_eq!(list.todos[0].id, 3);
        assert_eq!(list.next_id, 4);
    }
}
