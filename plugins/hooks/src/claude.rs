//! What a Claude Code hook expects to read: tool names and tool inputs in Claude Code's shapes,
//! so that a hook written for it (`jq -r .tool_input.command`, `.tool_input.file_path`) works
//! unchanged.

use serde_json::{json, Map, Value};

/// tack's tool names and Claude Code's for the same tool.
const TOOL_NAMES: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("read", "Read"),
    ("write", "Write"),
    ("edit", "Edit"),
    ("grep", "Grep"),
    ("find", "Glob"),
    ("ls", "LS"),
    ("task", "Task"),
    ("todo", "TodoWrite"),
];

/// Claude Code's name for a tack tool; a tool Claude Code does not have keeps its name.
pub fn tool_name(tack: &str) -> &str {
    TOOL_NAMES
        .iter()
        .find(|(t, _)| *t == tack)
        .map_or(tack, |(_, claude)| claude)
}

/// The path a file tool's `path` argument names, absolute.
fn absolute(workspace: &str, path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!(
            "{}/{}",
            workspace.trim_end_matches('/'),
            path.trim_start_matches("./")
        )
    }
}

/// `tool_input`: tack's arguments with Claude Code's names added beside them (`file_path` for
/// `path`, `old_string`/`new_string` for an edit's texts), so hooks written for either read it.
pub fn tool_input(tool: &str, args: &Value, workspace: &str) -> Value {
    let mut input = args.as_object().cloned().unwrap_or_else(Map::new);
    let path = args.get("path").and_then(Value::as_str);
    match (tool, path) {
        ("read" | "write" | "edit", Some(path)) => {
            input.insert("file_path".into(), json!(absolute(workspace, path)));
        }
        ("grep" | "find" | "ls", Some(path)) => {
            input.insert("path".into(), json!(absolute(workspace, path)));
        }
        _ => {}
    }
    if tool == "edit" {
        let single = args.get("old_text").zip(args.get("new_text")).or_else(|| {
            match args.get("edits").and_then(Value::as_array) {
                Some(edits) if edits.len() == 1 => {
                    edits[0].get("old_text").zip(edits[0].get("new_text"))
                }
                _ => None,
            }
        });
        if let Some((old, new)) = single {
            input.insert("old_string".into(), old.clone());
            input.insert("new_string".into(), new.clone());
        }
    }
    Value::Object(input)
}

/// The arguments for tack's `tool` from a PreToolUse hook's `updatedInput`, which is in Claude
/// Code's shape (usually the `tool_input` it was given, changed): `file_path` is `path`, an
/// edit's `old_string`/`new_string` its one replacement. A path or edit text the hook left as it
/// was shown keeps the call's own form, so echoing the input back changes nothing.
pub fn tack_arguments(tool: &str, original: &Value, updated: &Value, workspace: &str) -> Value {
    let mut args = updated.as_object().cloned().unwrap_or_else(Map::new);
    let original_path = original.get("path").and_then(Value::as_str);
    let shown_path = original_path.map(|p| absolute(workspace, p));
    let file_path = args.remove("file_path");
    if matches!(tool, "read" | "write" | "edit") {
        if let Some(new) = file_path.as_ref().and_then(Value::as_str) {
            args.insert("path".into(), json!(new));
        }
    }
    if let (Some(original), Some(shown)) = (original_path, shown_path) {
        if args.get("path").and_then(Value::as_str) == Some(shown.as_str()) {
            args.insert("path".into(), json!(original));
        }
    }
    if tool == "edit" {
        let old = args.remove("old_string");
        let new = args.remove("new_string");
        let shown = tool_input(tool, original, workspace);
        let changed =
            old.as_ref() != shown.get("old_string") || new.as_ref() != shown.get("new_string");
        if let (Some(old), Some(new), true) = (old, new, changed) {
            args.remove("edits");
            args.insert("old_text".into(), old);
            args.insert("new_text".into(), new);
        }
    }
    Value::Object(args)
}

/// `tool_response` for PostToolUse: what the tool returned, in the fields Claude Code's tools
/// use most (`filePath` and `success` for file tools, `stdout` for Bash).
pub fn tool_response(tool: &str, input: &Value, text: &str, is_error: bool) -> Value {
    let mut response = json!({ "success": !is_error, "content": text });
    if tool == "bash" {
        response["stdout"] = json!(text);
        response["stderr"] = json!("");
        response["interrupted"] = json!(false);
    }
    if let Some(path) = input.get("file_path") {
        response["filePath"] = path.clone();
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_inputs_in_claude_codes_shapes() {
        assert_eq!(tool_name("bash"), "Bash");
        assert_eq!(tool_name("find"), "Glob");
        assert_eq!(tool_name("my_tool"), "my_tool");
        let input = tool_input(
            "edit",
            &json!({"path": "src/a.rs", "old_text": "x", "new_text": "y"}),
            "/ws",
        );
        assert_eq!(input["file_path"], "/ws/src/a.rs");
        assert_eq!(input["old_string"], "x");
        assert_eq!(input["new_string"], "y");
        assert_eq!(input["path"], "src/a.rs", "tack's own names stay");
        let input = tool_input("bash", &json!({"command": "ls"}), "/ws");
        assert_eq!(input, json!({"command": "ls"}));
        let response = tool_response("write", &json!({"file_path": "/ws/a"}), "wrote", false);
        assert_eq!(response["filePath"], "/ws/a");
        assert_eq!(response["success"], true);
    }

    #[test]
    fn an_updated_input_maps_back_and_an_echo_changes_nothing() {
        let call = json!({"path": "src/a.rs", "edits": [{"old_text": "x", "new_text": "y"}]});
        let shown = tool_input("edit", &call, "/ws");
        assert_eq!(tack_arguments("edit", &call, &shown, "/ws"), {
            let mut same = shown.clone();
            let object = same.as_object_mut().unwrap();
            object.remove("file_path");
            object.remove("old_string");
            object.remove("new_string");
            same
        });
        let mut changed = shown.clone();
        changed["file_path"] = json!("/ws/src/b.rs");
        changed["new_string"] = json!("z");
        let args = tack_arguments("edit", &call, &changed, "/ws");
        assert_eq!(
            args,
            json!({"path": "/ws/src/b.rs", "old_text": "x", "new_text": "z"})
        );
        let bash = json!({"command": "rm -rf build"});
        assert_eq!(
            tack_arguments(
                "bash",
                &bash,
                &json!({"command": "rm -rf build --dry-run"}),
                "/ws"
            ),
            json!({"command": "rm -rf build --dry-run"})
        );
    }
}
