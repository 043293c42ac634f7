//! `transcript_path`: the session's active branch written as Claude Code writes its transcripts
//! (JSONL; a `user` or `assistant` line per message, tool results as `user` lines of
//! `tool_result` blocks, tool calls under Claude Code's names and inputs), in the plugin's data
//! folder, so a hook that reads the transcript (the last answer for a Stop notification, a copy
//! before compaction) works unchanged. tack's own session file stays the host's.
//!
//! It is brought up to date just before a hook runs, and only then: the lines of entries not yet
//! written are appended; when the branch is no longer the one written (`/tree`, `/fork`), the
//! file is written again whole, and another session's file replaces the last one's.

use std::io::Write as _;

use serde_json::{json, Value};

use crate::claude;

#[derive(Default)]
pub struct Transcript {
    /// The file, the session it is for, and the ids of the entries written to it, in order.
    path: String,
    session: String,
    written: Vec<String>,
    /// The uuid of the last line written: the next line's parent (entries Claude Code's
    /// transcripts do not hold write no line).
    last_line: Option<String>,
}

impl Transcript {
    /// Brings `path` up to date with `entries` (the active branch of `session`).
    pub fn refresh(
        &mut self,
        path: &str,
        session: &str,
        entries: &[Value],
        workspace: &str,
    ) -> std::io::Result<()> {
        let ids: Vec<String> = entries.iter().map(|e| id(e).to_string()).collect();
        let continues = self.session == session
            && ids.len() >= self.written.len()
            && ids[..self.written.len()] == self.written[..]
            && std::path::Path::new(path).exists();
        if !self.path.is_empty() && self.path != path {
            // Another session's (`/new`, `/resume`): one transcript is kept, not one per session.
            let _ = std::fs::remove_file(&self.path);
        }
        let (start, mut file, mut parent) = if continues {
            let file = std::fs::OpenOptions::new().append(true).open(path)?;
            (self.written.len(), file, self.last_line.clone())
        } else {
            (0, std::fs::File::create(path)?, None)
        };
        let mut text = String::new();
        for entry in &entries[start..] {
            if let Some(mut line) = line(entry, workspace) {
                let uuid = id(entry).to_string();
                let common = json!({
                    "parentUuid": parent,
                    "isSidechain": false,
                    "userType": "external",
                    "cwd": workspace,
                    "sessionId": session,
                    "version": "tack",
                    "uuid": uuid,
                    "timestamp": entry["timestamp"],
                });
                if let (Value::Object(line), Value::Object(common)) = (&mut line, common) {
                    for (key, value) in common {
                        line.entry(key).or_insert(value);
                    }
                }
                text.push_str(&line.to_string());
                text.push('\n');
                parent = Some(uuid);
            }
        }
        file.write_all(text.as_bytes())?;
        self.last_line = parent;
        self.path = path.to_string();
        self.session = session.to_string();
        self.written = ids;
        Ok(())
    }
}

fn id(entry: &Value) -> &str {
    entry["id"].as_str().unwrap_or_default()
}

/// Claude Code's line for one session entry; `None` for what its transcripts do not hold
/// (model changes, labels, plugins' entries).
fn line(entry: &Value, workspace: &str) -> Option<Value> {
    match entry["type"].as_str()? {
        "message" => message(&entry["message"], workspace),
        "compaction" => Some(json!({
            "type": "summary",
            "summary": entry["summary"].as_str().unwrap_or_default(),
        })),
        _ => None,
    }
}

fn message(message: &Value, workspace: &str) -> Option<Value> {
    let parts = message["content"].as_array();
    match message["role"].as_str()? {
        "user" => {
            let content = match &message["content"] {
                Value::String(text) => Value::String(text.clone()),
                _ => Value::Array(parts?.iter().filter_map(user_part).collect()),
            };
            Some(json!({"type": "user", "message": {"role": "user", "content": content}}))
        }
        "assistant" => {
            let content: Vec<Value> = parts?
                .iter()
                .filter_map(|part| assistant_part(part, workspace))
                .collect();
            let usage = &message["usage"];
            Some(json!({
                "type": "assistant",
                "message": {
                    "type": "message",
                    "role": "assistant",
                    "model": message["model"],
                    "content": content,
                    "stop_reason": match message["stopReason"].as_str() {
                        Some("toolUse") => "tool_use",
                        Some("length") => "max_tokens",
                        _ => "end_turn",
                    },
                    "usage": {
                        "input_tokens": usage["input"].as_u64().unwrap_or(0),
                        "output_tokens": usage["output"].as_u64().unwrap_or(0),
                        "cache_read_input_tokens": usage["cacheRead"].as_u64().unwrap_or(0),
                        "cache_creation_input_tokens": usage["cacheWrite"].as_u64().unwrap_or(0),
                    },
                },
            }))
        }
        "toolResult" => {
            let text: Vec<&str> = parts
                .into_iter()
                .flatten()
                .filter(|part| part["type"] == "text")
                .filter_map(|part| part["text"].as_str())
                .collect();
            Some(json!({
                "type": "user",
                "message": {"role": "user", "content": [{
                    "type": "tool_result",
                    "tool_use_id": message["toolCallId"],
                    "content": text.join("\n"),
                    "is_error": message["isError"].as_bool().unwrap_or(false),
                }]},
            }))
        }
        _ => None,
    }
}

fn user_part(part: &Value) -> Option<Value> {
    match part["type"].as_str()? {
        "text" => Some(json!({"type": "text", "text": part["text"]})),
        "image" => Some(json!({"type": "image", "source": {
            "type": "base64", "media_type": part["mimeType"], "data": part["data"]}})),
        _ => None,
    }
}

fn assistant_part(part: &Value, workspace: &str) -> Option<Value> {
    match part["type"].as_str()? {
        "text" => Some(json!({"type": "text", "text": part["text"]})),
        "thinking" => Some(json!({"type": "thinking", "thinking": part["thinking"]})),
        "toolCall" => {
            let name = part["name"].as_str().unwrap_or_default();
            Some(json!({
                "type": "tool_use",
                "id": part["id"],
                "name": claude::tool_name(name),
                "input": claude::tool_input(name, &part["arguments"], workspace),
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, message: Value) -> Value {
        json!({"type": "message", "id": id, "timestamp": "2026-12-04T00:00:00Z",
               "message": message})
    }

    fn lines(path: &str) -> Vec<Value> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn a_branch_becomes_claude_codes_lines_appended_as_it_grows() {
        let dir = std::env::temp_dir().join(format!("hooks-transcript-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.jsonl").display().to_string();
        let mut entries = vec![
            json!({"type": "model_change", "id": "m", "provider": "x", "modelId": "y"}),
            entry(
                "u1",
                json!({"role": "user", "content": [{"type": "text", "text": "hi"}]}),
            ),
            entry(
                "a1",
                json!({"role": "assistant", "model": "gpt", "stopReason": "toolUse",
                "usage": {"input": 5, "output": 2, "cacheRead": 1, "cacheWrite": 0},
                "content": [{"type": "text", "text": "Writing."},
                            {"type": "toolCall", "id": "c1", "name": "write",
                             "arguments": {"path": "a.txt", "content": "x"}}]}),
            ),
        ];
        let mut transcript = Transcript::default();
        transcript.refresh(&path, "s1", &entries, "/w").unwrap();
        entries.push(json!({"type": "label", "id": "l1", "targetId": "a1", "label": "x"}));
        entries.push(entry(
            "r1",
            json!({"role": "toolResult", "toolCallId": "c1",
            "toolName": "write", "content": [{"type": "text", "text": "wrote"}],
            "isError": false}),
        ));
        transcript.refresh(&path, "s1", &entries, "/w").unwrap();
        let written = lines(&path);
        assert_eq!(written.len(), 3, "{written:?}");
        assert_eq!(written[0]["type"], "user");
        assert_eq!(written[0]["message"]["content"][0]["text"], "hi");
        assert_eq!(written[0]["parentUuid"], Value::Null);
        assert_eq!(written[1]["parentUuid"], "u1");
        let call = &written[1]["message"]["content"][1];
        assert_eq!(call["name"], "Write");
        assert_eq!(call["input"]["file_path"], "/w/a.txt");
        assert_eq!(written[1]["message"]["stop_reason"], "tool_use");
        assert_eq!(written[2]["message"]["content"][0]["tool_use_id"], "c1");
        assert_eq!(written[2]["parentUuid"], "a1", "the label wrote no line");
        assert_eq!(written[2]["sessionId"], "s1");

        // Another branch: written again whole.
        entries.truncate(2);
        entries.push(entry(
            "a2",
            json!({"role": "assistant", "content": [
            {"type": "text", "text": "Hello."}]}),
        ));
        transcript.refresh(&path, "s1", &entries, "/w").unwrap();
        let written = lines(&path);
        assert_eq!(written.len(), 2, "{written:?}");
        assert_eq!(written[1]["message"]["content"][0]["text"], "Hello.");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
