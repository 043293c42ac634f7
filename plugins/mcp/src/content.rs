//! What a server's tool returns, as a tack tool result, and what a server's tool is called in
//! tack.

use base64::Engine as _;
use serde_json::{json, Value};
use tack_sdk::{ContentBlock, Image, ToolResult};

/// Image types a tack tool result may carry.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The tack name of `tool` of `server`: `<server>_<tool>`, every character outside
/// `[a-zA-Z0-9_-]` made `_`, cut to 64 characters (the longest tool name tack takes).
pub fn tool_name(server: &str, tool: &str) -> String {
    let mut name: String = format!("{server}_{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.truncate(64);
    name
}

/// A `tools/call` result as the model sees it. `structuredContent` and the server's name go to
/// the details, which front ends show and the model does not see.
pub fn tool_result(server: &str, tool: &str, result: &Value) -> ToolResult {
    let mut blocks = Vec::new();
    if let Some(content) = result.get("content").and_then(Value::as_array) {
        for item in content {
            blocks.push(block(item));
        }
    }
    let structured = result.get("structuredContent").filter(|v| !v.is_null());
    if blocks.is_empty() {
        // A result with only structured content still says something to the model.
        blocks.push(ContentBlock::Text(match structured {
            Some(value) => value.to_string(),
            None => "(the tool returned no content)".to_string(),
        }));
    }
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut details = json!({ "server": server, "tool": tool });
    if let Some(value) = structured {
        details["structuredContent"] = value.clone();
    }
    ToolResult {
        content: blocks,
        details: Some(details.to_string()),
        is_error,
    }
}

fn block(item: &Value) -> ContentBlock {
    let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("");
    match text("type") {
        "text" => ContentBlock::Text(text("text").to_string()),
        "image" => {
            let mime = text("mimeType");
            match base64::engine::general_purpose::STANDARD.decode(text("data")) {
                Ok(data) if IMAGE_TYPES.contains(&mime) => ContentBlock::Image(Image {
                    mime_type: mime.to_string(),
                    data,
                }),
                Ok(data) => ContentBlock::Text(format!(
                    "[an image of type {mime}, {} bytes, which tack cannot show]",
                    data.len()
                )),
                Err(_) => ContentBlock::Text(format!(
                    "[an image of type {mime} whose data is not valid base64]"
                )),
            }
        }
        "audio" => ContentBlock::Text(format!("[audio of type {}, not shown]", text("mimeType"))),
        "resource_link" => ContentBlock::Text(format!(
            "[resource {}: {}{}]",
            text("name"),
            text("uri"),
            match item.get("description").and_then(Value::as_str) {
                Some(d) => format!(" ({d})"),
                None => String::new(),
            }
        )),
        "resource" => {
            let resource = item.get("resource").cloned().unwrap_or_default();
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
            match resource.get("text").and_then(Value::as_str) {
                Some(body) => ContentBlock::Text(format!("[resource {uri}]\n{body}")),
                None => ContentBlock::Text(format!(
                    "[binary resource {uri} of type {}, not shown]",
                    resource
                        .get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown")
                )),
            }
        }
        other => ContentBlock::Text(format!("[content of type '{other}', not shown]")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_to_tacks_alphabet_and_length() {
        assert_eq!(tool_name("everything", "get-sum"), "everything_get-sum");
        assert_eq!(tool_name("fs", "read.file/x"), "fs_read_file_x");
        assert_eq!(tool_name("s", &"t".repeat(100)).len(), 64);
    }

    #[test]
    fn every_kind_of_content_says_something() {
        let result = json!({
            "content": [
                { "type": "text", "text": "hi" },
                { "type": "image", "mimeType": "image/png", "data": "iVBORw0K" },
                { "type": "image", "mimeType": "image/bmp", "data": "AAAA" },
                { "type": "resource_link", "uri": "test://1", "name": "one" },
                { "type": "resource", "resource": { "uri": "test://2", "text": "body" } },
                { "type": "audio", "mimeType": "audio/wav", "data": "" }
            ],
            "structuredContent": { "sum": 3 },
            "isError": false
        });
        let out = tool_result("ev", "t", &result);
        assert!(!out.is_error);
        assert_eq!(out.content.len(), 6);
        assert!(matches!(&out.content[1], ContentBlock::Image(i) if i.mime_type == "image/png"));
        assert!(out.text_content().contains("[resource one: test://1]"));
        assert!(out.text_content().contains("body"));
        assert!(out.details.as_deref().unwrap_or("").contains("\"sum\":3"));
        let only_structured = tool_result("ev", "t", &json!({ "structuredContent": { "a": 1 } }));
        assert_eq!(only_structured.text_content(), r#"{"a":1}"#);
        let failed = tool_result("ev", "t", &json!({ "content": [], "isError": true }));
        assert!(failed.is_error);
    }
}
