//! Composes the demo provider's answer from the conversation: deterministic, offline.

use serde_json::Value;

use crate::intents::{self, Intent};

/// A planned tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// One assistant message: text, then tool calls.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub text: String,
    pub calls: Vec<Call>,
}

const PREFIX: &str = "[demo] ";
/// Lines of each tool result quoted in a summary.
const QUOTED_LINES: usize = 5;
/// Characters kept of each quoted line.
const QUOTED_LINE_CHARS: usize = 160;

pub fn respond(messages: &[Value], available_tools: &[String]) -> Answer {
    match messages.last().map(role) {
        Some("toolResult") => summarize_results(messages),
        Some("user") => {
            let prompt = messages.last().map(message_text).unwrap_or_default();
            // Compaction asks for a summary and offers no tools; keyword matching on its
            // instructions would produce nonsense, so give a mechanical summary instead.
            if available_tools.is_empty() && prompt.to_ascii_lowercase().contains("summar") {
                return summarize_conversation(&messages[..messages.len() - 1]);
            }
            let turn = messages.iter().filter(|m| role(m) == "assistant").count();
            act_on(&prompt, turn, available_tools)
        }
        _ => help(),
    }
}

fn act_on(prompt: &str, turn: usize, available_tools: &[String]) -> Answer {
    let parsed = intents::parse(prompt);
    if parsed.intents.is_empty() && parsed.remarks.is_empty() {
        return help();
    }
    let (usable, missing): (Vec<&Intent>, Vec<&Intent>) = parsed
        .intents
        .iter()
        .partition(|intent| available_tools.iter().any(|t| t == intent.tool()));
    let mut sentences = Vec::new();
    if !usable.is_empty() {
        let actions: Vec<String> = usable.iter().map(|intent| intent.describe()).collect();
        sentences.push(format!("I'll {}.", join_and(&actions)));
    }
    for intent in &missing {
        sentences.push(format!(
            "The `{}` tool is not available, so I can't {}.",
            intent.tool(),
            intent.describe()
        ));
    }
    sentences.extend(parsed.remarks.iter().cloned());
    let calls = usable
        .iter()
        .enumerate()
        .map(|(n, intent)| Call {
            id: format!("demo_{turn}_{n}"),
            name: intent.tool().to_string(),
            arguments: intent.arguments(),
        })
        .collect();
    Answer {
        text: format!("{PREFIX}{}", sentences.join(" ")),
        calls,
    }
}

fn help() -> Answer {
    let text = format!(
        "{PREFIX}I'm the offline demo provider: no model runs here, I only recognize a few \
         requests by keyword and turn them into tool calls, so you can see how tack works.\n\
         \n\
         Try one of these (or several in one prompt):\n\
         - `list the files`\n\
         - `read README.md`\n\
         - `search for TODO`\n\
         - `git status`\n\
         - `write a note: remember to run the tests`\n\
         \n\
         To talk to a real model, set ANTHROPIC_API_KEY or OPENAI_API_KEY and choose it with \
         `--provider anthropic` or `--provider openai`."
    );
    Answer {
        text,
        calls: Vec::new(),
    }
}

fn summarize_results(messages: &[Value]) -> Answer {
    let start = messages
        .iter()
        .rposition(|m| role(m) != "toolResult")
        .map_or(0, |i| i + 1);
    let results = &messages[start..];
    let calls: Vec<&Value> = messages[..start]
        .last()
        .filter(|m| role(m) == "assistant")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
                .collect()
        })
        .unwrap_or_default();
    let failed = results.iter().filter(|r| is_error(r)).count();
    let noun = if results.len() == 1 { "call" } else { "calls" };
    let mut text = format!(
        "{PREFIX}{} tool {noun} finished: {} ok, {failed} failed.\n",
        results.len(),
        results.len() - failed
    );
    for result in results {
        let call = result
            .get("toolCallId")
            .and_then(Value::as_str)
            .and_then(|id| {
                calls
                    .iter()
                    .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
            });
        let name = result
            .get("toolName")
            .and_then(Value::as_str)
            .unwrap_or("tool");
        let label = match call.and_then(|c| main_argument(c.get("arguments"))) {
            Some(arg) => format!("{name} {arg}"),
            None => name.to_string(),
        };
        let output = message_text(result);
        let lines: Vec<&str> = output.lines().collect();
        let status = if is_error(result) { "failed" } else { "ok" };
        let count = match lines.len() {
            0 => "no output".to_string(),
            1 => "1 line".to_string(),
            n => format!("{n} lines"),
        };
        text.push_str(&format!("\n- `{label}`: {status}, {count}\n"));
        for line in lines.iter().take(QUOTED_LINES) {
            let line: String = line.chars().take(QUOTED_LINE_CHARS).collect();
            text.push_str(&format!("    {line}\n"));
        }
        if lines.len() > QUOTED_LINES {
            text.push_str(&format!(
                "    … {} more lines\n",
                lines.len() - QUOTED_LINES
            ));
        }
    }
    Answer {
        text: text.trim_end().to_string(),
        calls: Vec::new(),
    }
}

/// Most requests and tool calls listed in a conversation summary.
const SUMMARY_ITEMS: usize = 10;
/// Characters kept of each request in a conversation summary.
const SUMMARY_REQUEST_CHARS: usize = 100;

fn summarize_conversation(messages: &[Value]) -> Answer {
    let count = |r: &str| messages.iter().filter(|m| role(m) == r).count();
    let requests: Vec<String> = messages
        .iter()
        .filter(|m| role(m) == "user")
        .map(|m| {
            let text = message_text(m);
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            first.trim().chars().take(SUMMARY_REQUEST_CHARS).collect()
        })
        .filter(|r: &String| !r.is_empty())
        .collect();
    let calls: Vec<String> = messages
        .iter()
        .filter(|m| role(m) == "assistant")
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
        .map(|b| {
            let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
            match main_argument(b.get("arguments")) {
                Some(arg) => format!("`{name} {arg}`"),
                None => format!("`{name}`"),
            }
        })
        .collect();
    let failed = messages
        .iter()
        .filter(|m| role(m) == "toolResult" && is_error(m))
        .count();
    let last = |items: &[String]| -> String {
        let skip = items.len().saturating_sub(SUMMARY_ITEMS);
        items[skip..].join("; ")
    };
    let mut text = format!(
        "{PREFIX}Offline summary (the demo provider runs no model).\n\n## Goal\n{}\n\n## Progress\n\
         - {}, {}, {} ({failed} failed).\n",
        requests.first().map_or("Unknown.", String::as_str),
        plural(count("user"), "user message"),
        plural(count("assistant"), "assistant message"),
        plural(count("toolResult"), "tool result"),
    );
    if !requests.is_empty() {
        text.push_str(&format!("- Requests: {}\n", last(&requests)));
    }
    if !calls.is_empty() {
        text.push_str(&format!("- Tool calls: {}\n", last(&calls)));
    }
    if let Some(latest) = requests.last() {
        text.push_str(&format!(
            "\n## Next Steps\n- Continue with the latest request: {latest}\n"
        ));
    }
    Answer {
        text: text.trim_end().to_string(),
        calls: Vec::new(),
    }
}

/// The argument that says what a core tool call was about.
fn main_argument(arguments: Option<&Value>) -> Option<String> {
    let arguments = match arguments? {
        Value::String(raw) => serde_json::from_str(raw).ok()?,
        other => other.clone(),
    };
    ["path", "pattern", "command"]
        .iter()
        .find_map(|key| arguments.get(key).and_then(Value::as_str))
        .map(str::to_string)
}

fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

fn is_error(message: &Value) -> bool {
    message
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// The text of a message's content, which is an array of blocks (or, leniently, a string).
fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => {
            let parts: Vec<String> = blocks
                .iter()
                .filter_map(|block| match block.get("type").and_then(Value::as_str) {
                    Some("text") => block
                        .get("text")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    Some("image") => Some("[image]".to_string()),
                    _ => None,
                })
                .collect();
            parts.join("\n")
        }
        _ => String::new(),
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    fn user(text: &str) -> Value {
        json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1})
    }

    #[test]
    fn intents_become_parallel_tool_calls() {
        let answer = respond(
            &[user("list the files and read README.md")],
            &tools(&["ls", "read", "grep"]),
        );
        assert_eq!(
            answer.text,
            "[demo] I'll list the files in `.` and read `README.md`."
        );
        assert_eq!(
            answer.calls,
            vec![
                Call {
                    id: "demo_0_0".into(),
                    name: "ls".into(),
                    arguments: json!({"path": "."})
                },
                Call {
                    id: "demo_0_1".into(),
                    name: "read".into(),
                    arguments: json!({"path": "README.md"})
                },
            ]
        );
    }

    #[test]
    fn missing_tools_are_explained() {
        let answer = respond(&[user("git status and ls")], &tools(&["ls"]));
        assert_eq!(answer.calls.len(), 1);
        assert!(answer
            .text
            .starts_with("[demo] I'll list the files in `.`."));
        assert!(answer.text.contains("The `bash` tool is not available"));
    }

    #[test]
    fn unknown_prompt_gets_help() {
        let answer = respond(&[user("tell me a joke")], &tools(&["ls"]));
        assert!(answer.calls.is_empty());
        assert!(answer
            .text
            .starts_with("[demo] I'm the offline demo provider"));
        assert!(answer.text.contains("ANTHROPIC_API_KEY"));
        assert!(answer.text.contains("--provider"));
    }

    #[test]
    fn tool_results_are_summarized() {
        let messages = vec![
            user("ls and read nope.txt"),
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "[demo] ..."},
                {"type": "toolCall", "id": "demo_0_0", "name": "ls", "arguments": {"path": "."}},
                {"type": "toolCall", "id": "demo_0_1", "name": "read", "arguments": {"path": "nope.txt"}}
            ], "stopReason": "toolUse"}),
            json!({"role": "toolResult", "toolCallId": "demo_0_0", "toolName": "ls",
                   "content": [{"type": "text", "text": "a\nb\nc\nd\ne\nf\ng"}], "isError": false}),
            json!({"role": "toolResult", "toolCallId": "demo_0_1", "toolName": "read",
                   "content": [{"type": "text", "text": "file not found: nope.txt"}], "isError": true}),
        ];
        let answer = respond(&messages, &tools(&["ls", "read"]));
        assert!(answer.calls.is_empty());
        assert_eq!(
            answer.text,
            "[demo] 2 tool calls finished: 1 ok, 1 failed.\n\
             \n- `ls .`: ok, 7 lines\n    a\n    b\n    c\n    d\n    e\n    … 2 more lines\n\
             \n- `read nope.txt`: failed, 1 line\n    file not found: nope.txt"
        );
    }

    #[test]
    fn summary_requests_without_tools_get_a_mechanical_summary() {
        let messages = vec![
            user("list the files"),
            json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "demo_0_0", "name": "ls", "arguments": {"path": "."}}
            ]}),
            json!({"role": "toolResult", "toolCallId": "demo_0_0", "toolName": "ls",
                   "content": [{"type": "text", "text": "a"}], "isError": false}),
            user("Summarize the conversation above. Read the files list carefully."),
        ];
        let answer = respond(&messages, &[]);
        assert!(answer.calls.is_empty());
        assert_eq!(
            answer.text,
            "[demo] Offline summary (the demo provider runs no model).\n\n## Goal\nlist the files\n\n\
             ## Progress\n- 1 user message, 1 assistant message, 1 tool result (0 failed).\n\
             - Requests: list the files\n- Tool calls: `ls .`\n\n\
             ## Next Steps\n- Continue with the latest request: list the files"
        );
    }

    #[test]
    fn deterministic() {
        let messages = [user("search for TODO in src, git status")];
        let available = tools(&["grep", "bash"]);
        assert_eq!(
            respond(&messages, &available),
            respond(&messages, &available)
        );
    }
}
