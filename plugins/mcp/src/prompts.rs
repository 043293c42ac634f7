//! A server's prompts as `/` commands, and its resources through `/mcp resources` and
//! `/mcp read`: `/<server>:<prompt> args` asks the server for the prompt (`prompts/get`) and sends
//! what it returns to the model; `/mcp read <server> <uri>` reads a resource (`resources/read`)
//! and attaches it to the user's next prompt, as `@server:uri` does in Claude Code.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::server::{Server, MAX_PAGES};

/// A prompt a server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct RemotePrompt {
    pub name: String,
    pub description: String,
    pub arguments: Vec<PromptArgument>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PromptArgument {
    pub name: String,
    pub required: bool,
}

/// The command a prompt becomes: `<server>:<prompt>`, with characters a command name cannot
/// hold made `_`, cut to 64.
pub fn command_name(server: &str, prompt: &str) -> String {
    let clean: String = prompt
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{server}:{clean}").chars().take(64).collect()
}

/// The most of a server's description a command's line keeps (the host takes 1 KiB).
const DESCRIPTION_BYTES: usize = 800;

/// One line for the command menu: the first line of the server's description (cut to fit), and
/// the arguments the prompt takes.
pub fn describe(server: &str, prompt: &RemotePrompt) -> String {
    let first = prompt.description.lines().next().unwrap_or_default().trim();
    let mut text = if first.is_empty() {
        format!("Prompt '{}' of MCP server '{server}'", prompt.name)
    } else if first.len() > DESCRIPTION_BYTES {
        let mut end = DESCRIPTION_BYTES;
        while !first.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &first[..end])
    } else {
        first.to_string()
    };
    if !prompt.arguments.is_empty() {
        let names: Vec<String> = prompt
            .arguments
            .iter()
            .map(|a| {
                if a.required {
                    format!("<{}>", a.name)
                } else {
                    format!("[{}]", a.name)
                }
            })
            .collect();
        text.push_str(&format!(" — {}", names.join(" ")));
    }
    text
}

/// Every prompt `server` lists (pages followed, up to a bound), by command name.
pub fn list(
    server: &mut Server,
    deadline: Instant,
) -> Result<BTreeMap<String, RemotePrompt>, String> {
    let mut prompts = BTreeMap::new();
    for prompt in pages(server, "prompts/list", "prompts", deadline)? {
        let Some(name) = prompt.get("name").and_then(Value::as_str) else {
            continue;
        };
        let text = |key: &str| prompt.get(key).and_then(Value::as_str).unwrap_or("");
        let arguments = prompt
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| {
                Some(PromptArgument {
                    name: a.get("name")?.as_str()?.to_string(),
                    required: a.get("required").and_then(Value::as_bool).unwrap_or(false),
                })
            })
            .collect();
        let description = if text("description").is_empty() {
            text("title")
        } else {
            text("description")
        };
        let command = command_name(server.name(), name);
        if prompts.contains_key(&command) {
            tack_sdk::log::warn(format!(
                "MCP server '{}': prompt '{name}' is not /{command}: another of its prompts \
                 is called so in tack",
                server.name()
            ));
            continue;
        }
        prompts.insert(
            command,
            RemotePrompt {
                name: name.to_string(),
                description: description.to_string(),
                arguments,
            },
        );
    }
    Ok(prompts)
}

/// Every item under `key` of a paginated list (`prompts/list`, `resources/list`), following
/// `nextCursor` up to a bound.
fn pages(
    server: &mut Server,
    method: &str,
    key: &str,
    deadline: Instant,
) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let mut page = server.call(method, params, deadline, None)?;
        if let Some(Value::Array(listed)) = page.get_mut(key).map(Value::take) {
            items.extend(listed);
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    Ok(items)
}

/// The prompt's arguments from what followed the command: `name=value` words when every word
/// is one for an argument the prompt has, else the words in the order the prompt lists its
/// arguments, the last taking the rest of the line.
pub fn arguments(prompt: &RemotePrompt, args: &str) -> Result<Map<String, Value>, String> {
    let args = args.trim();
    let mut given = Map::new();
    let named: Option<Vec<(&str, &str)>> = if args.is_empty() {
        Some(Vec::new())
    } else {
        args.split_whitespace()
            .map(|word| {
                let (key, value) = word.split_once('=')?;
                prompt
                    .arguments
                    .iter()
                    .any(|a| a.name == key)
                    .then_some((key, value))
            })
            .collect()
    };
    match named {
        Some(pairs) => {
            for (key, value) in pairs {
                given.insert(key.to_string(), Value::String(value.to_string()));
            }
        }
        None => {
            let count = prompt.arguments.len();
            if count == 0 {
                return Err(format!(
                    "prompt '{}' takes no arguments; it was given `{args}`",
                    prompt.name
                ));
            }
            let words: Vec<&str> = args.splitn(count, char::is_whitespace).collect();
            for (argument, word) in prompt.arguments.iter().zip(words) {
                given.insert(
                    argument.name.clone(),
                    Value::String(word.trim().to_string()),
                );
            }
        }
    }
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !given.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "prompt '{}' needs {}: give the values in order, or as name=value",
            prompt.name,
            missing.join(", ")
        ));
    }
    Ok(given)
}

/// What `prompts/get` returned, as the text of one message to the model: each message's text,
/// with the speaker named when the prompt holds more than the user's words.
pub fn message_text(result: &Value) -> Result<String, String> {
    let messages = result
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mixed = messages
        .iter()
        .any(|m| m.get("role").and_then(Value::as_str) != Some("user"));
    let mut parts = Vec::new();
    for message in &messages {
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("user");
        let Some(text) = message.get("content").and_then(content_text) else {
            continue;
        };
        parts.push(if mixed {
            format!("[{role}]\n{text}")
        } else {
            text
        });
    }
    if parts.is_empty() {
        return Err("the server's prompt held no text".into());
    }
    Ok(parts.join("\n\n"))
}

/// A prompt message's content as text: its text, an embedded resource's text, or a line
/// naming what cannot be sent as text.
fn content_text(content: &Value) -> Option<String> {
    match content.get("type").and_then(Value::as_str)? {
        "text" => content
            .get("text")
            .and_then(Value::as_str)
            .map(str::to_string),
        "resource" => {
            let resource = content.get("resource")?;
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
            Some(match resource.get("text").and_then(Value::as_str) {
                Some(text) => format!("<resource uri=\"{uri}\">\n{text}\n</resource>"),
                None => format!("(a binary resource, {uri})"),
            })
        }
        "resource_link" => {
            let uri = content.get("uri").and_then(Value::as_str).unwrap_or("");
            Some(format!("(resource link: {uri})"))
        }
        other => Some(format!(
            "(a {other} part the prompt held, not shown as text)"
        )),
    }
}

/// `resources/list` of one server, as lines for `/mcp resources`.
pub fn resource_lines(server: &mut Server, deadline: Instant) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    for resource in pages(server, "resources/list", "resources", deadline)? {
        let text = |key: &str| resource.get(key).and_then(Value::as_str).unwrap_or("");
        let mut line = format!("  {}", text("uri"));
        if !text("name").is_empty() {
            line.push_str(&format!(" ({})", text("name")));
        }
        if !text("mimeType").is_empty() {
            line.push_str(&format!(", {}", text("mimeType")));
        }
        lines.push(line);
    }
    Ok(lines)
}

/// `resources/read` of `uri`, as text for the model: each text content in a `<resource>` block;
/// a binary one named with its type and size.
pub fn read_resource(server: &mut Server, uri: &str, deadline: Instant) -> Result<String, String> {
    let result = server.call("resources/read", json!({ "uri": uri }), deadline, None)?;
    let mut parts = Vec::new();
    for content in result
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let text = |key: &str| content.get(key).and_then(Value::as_str);
        let at = text("uri").unwrap_or(uri);
        let kind = text("mimeType").unwrap_or("");
        match (text("text"), text("blob")) {
            (Some(body), _) => parts.push(format!(
                "<resource server=\"{}\" uri=\"{at}\">\n{body}\n</resource>",
                server.name()
            )),
            (None, Some(blob)) => parts.push(format!(
                "(resource {at} is binary{}, about {} bytes; not attached)",
                if kind.is_empty() {
                    String::new()
                } else {
                    format!(" {kind}")
                },
                blob.len() / 4 * 3
            )),
            (None, None) => {}
        }
    }
    if parts.is_empty() {
        return Err(format!(
            "MCP server '{}' returned nothing for {uri}",
            server.name()
        ));
    }
    Ok(parts.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(arguments: &[(&str, bool)]) -> RemotePrompt {
        RemotePrompt {
            name: "p".into(),
            description: "A prompt.".into(),
            arguments: arguments
                .iter()
                .map(|(name, required)| PromptArgument {
                    name: name.to_string(),
                    required: *required,
                })
                .collect(),
        }
    }

    #[test]
    fn arguments_come_by_name_or_in_order_with_the_last_taking_the_rest() {
        let p = prompt(&[("city", true), ("state", false)]);
        assert_eq!(
            Value::Object(arguments(&p, "state=CA city=Fresno").expect("named")),
            json!({ "city": "Fresno", "state": "CA" })
        );
        assert_eq!(
            Value::Object(arguments(&p, "Fresno Central Valley").expect("in order")),
            json!({ "city": "Fresno", "state": "Central Valley" })
        );
        let why = arguments(&p, "").expect_err("city is required");
        assert!(why.contains("city"), "{why}");
        assert!(arguments(&prompt(&[]), "extra").is_err());
        assert!(arguments(&prompt(&[]), "").expect("none").is_empty());
    }

    #[test]
    fn a_prompt_is_a_command_named_for_its_server() {
        assert_eq!(command_name("ev", "args-prompt"), "ev:args-prompt");
        assert_eq!(command_name("ev", "a b/c"), "ev:a_b_c");
        assert_eq!(
            describe("ev", &prompt(&[("city", true), ("state", false)])),
            "A prompt. — <city> [state]"
        );
        // A long, many-line description keeps its first line, cut, and the arguments after it.
        let long = RemotePrompt {
            description: format!("{}\nmore", "é".repeat(600)),
            ..prompt(&[("city", true)])
        };
        let line = describe("ev", &long);
        assert!(
            line.ends_with("… — <city>") && !line.contains('\n'),
            "{line}"
        );
        assert!(line.len() < 1024);
    }

    #[test]
    fn prompt_messages_become_one_text() {
        let user_only = json!({ "messages": [
            { "role": "user", "content": { "type": "text", "text": "What's the weather?" } }
        ] });
        assert_eq!(
            message_text(&user_only).expect("text"),
            "What's the weather?"
        );
        let mixed = json!({ "messages": [
            { "role": "user", "content": { "type": "text", "text": "Hi" } },
            { "role": "assistant", "content": { "type": "text", "text": "Hello" } },
            { "role": "user", "content": { "type": "resource",
              "resource": { "uri": "demo://a", "text": "body" } } }
        ] });
        assert_eq!(
            message_text(&mixed).expect("text"),
            "[user]\nHi\n\n[assistant]\nHello\n\n[user]\n<resource uri=\"demo://a\">\nbody\n</resource>"
        );
        assert!(message_text(&json!({ "messages": [] })).is_err());
    }
}
