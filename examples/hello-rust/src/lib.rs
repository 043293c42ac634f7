//! The conformance plugin in Rust: a `word_count` tool, a `/hello` command that keeps a counter in
//! the session, a before-tool-call hook that blocks `bash` commands containing a configured word,
//! a `count_lines` tool that fans out one task per line (`tasks`), a `file_mode` tool reading
//! permission bits (`files`), and a log line. examples/hello-{js,python,c,zig} behave
//! identically (see examples/README.md).
//!
//! Configuration (optional): `{"blocked_word": "forbidden"}`.

use serde::{Deserialize, Serialize};
use serde_json::json;
use tack_sdk::{
    export_plugin, files, log, session, tasks, HookKind, InitContext, Plugin, Registration,
    ToolCall, ToolDecision, ToolResult, ToolSpec,
};

const DEFAULT_BLOCKED_WORD: &str = "forbidden";
const COUNTER_TYPE: &str = "hello-counter";
/// ASCII whitespace, the same set in every language of the conformance suite.
const SPACE: [char; 5] = [' ', '\t', '\n', '\r', '\x0c'];

struct Hello {
    blocked_word: String,
}

impl Default for Hello {
    fn default() -> Self {
        Hello {
            blocked_word: DEFAULT_BLOCKED_WORD.to_string(),
        }
    }
}

#[derive(Deserialize)]
struct Config {
    blocked_word: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct WordCountArgs {
    text: String,
}

#[derive(Deserialize)]
struct FileModeArgs {
    path: String,
}

#[derive(Deserialize)]
struct BashArgs {
    command: String,
}

#[derive(Serialize, Deserialize, Default)]
struct Counter {
    count: u64,
}

fn count_words(text: &str) -> usize {
    text.split(SPACE).filter(|w| !w.is_empty()).count()
}

fn text_parameter() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "text": { "type": "string", "description": "The text to count." }
        },
        "required": ["text"],
        "additionalProperties": false
    })
}

/// One task per line: the input is the line, the output its word count in decimal.
fn count_lines(text: &str) -> ToolResult {
    let inputs: Vec<Vec<u8>> = text.split('\n').map(|l| l.as_bytes().to_vec()).collect();
    let results = match tasks::run(&inputs) {
        Ok(results) => results,
        Err(e) => return ToolResult::error(format!("tasks failed: {e}")),
    };
    let mut words = Vec::with_capacity(results.len());
    for (i, result) in results.into_iter().enumerate() {
        let count = result.and_then(|output| {
            String::from_utf8_lossy(&output)
                .parse::<u64>()
                .map_err(|e| format!("not a count: {e}"))
        });
        match count {
            Ok(count) => words.push(count),
            Err(e) => return ToolResult::error(format!("task {i} failed: {e}")),
        }
    }
    let total: u64 = words.iter().sum();
    ToolResult::text(format!("{total} words in {} lines", words.len()))
        .with_details(json!({ "words": words, "total": total }))
}

fn file_mode(path: &str) -> ToolResult {
    match files::permissions(path) {
        Ok(mode) => ToolResult::text(format!("{mode:04o}")).with_details(json!({ "mode": mode })),
        Err(e) => ToolResult::error(e),
    }
}

impl Plugin for Hello {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config)
            .map_err(|e| format!("invalid hello-rust config: {e}"))?;
        // Like the other languages: a non-empty string replaces the default, anything else is
        // ignored.
        if let Some(serde_json::Value::String(word)) = config.blocked_word {
            if !word.is_empty() {
                self.blocked_word = word;
            }
        }
        log::info(format!(
            "hello: blocking bash commands containing \"{}\"",
            self.blocked_word
        ));
        Ok(Registration::new()
            .tool(ToolSpec::new(
                "word_count",
                "Word count",
                "Counts the words (whitespace-separated) and characters of a text.",
                text_parameter(),
            ))
            .tool(ToolSpec::new(
                "count_lines",
                "Count lines",
                "Counts the words of each line of a text, one task per line.",
                text_parameter(),
            ))
            .tool(ToolSpec::new(
                "file_mode",
                "File mode",
                "The Unix permission bits of a file, in octal.",
                json!({
                    "type": "object",
                    "properties": {
                        "path": { "type": "string", "description": "The file's absolute path." }
                    },
                    "required": ["path"],
                    "additionalProperties": false
                }),
            ))
            .command(
                "hello",
                "Greet someone (and count greetings in this session)",
            )
            .hook(HookKind::BeforeToolCall))
    }

    fn call_tool(&mut self, call: ToolCall) -> ToolResult {
        if call.name == "file_mode" {
            return match call.args::<FileModeArgs>() {
                Ok(args) => file_mode(&args.path),
                Err(e) => ToolResult::error(e),
            };
        }
        if call.name != "word_count" && call.name != "count_lines" {
            return ToolResult::error(format!("unknown tool `{}`", call.name));
        }
        let args: WordCountArgs = match call.args() {
            Ok(args) => args,
            Err(e) => return ToolResult::error(e),
        };
        if call.name == "count_lines" {
            return count_lines(&args.text);
        }
        let words = count_words(&args.text);
        let chars = args.text.chars().count();
        let noun = if words == 1 { "word" } else { "words" };
        ToolResult::text(format!("{words} {noun}"))
            .with_details(json!({ "words": words, "chars": chars }))
    }

    fn run_task(&mut self, input: Vec<u8>) -> Result<Vec<u8>, String> {
        Ok(count_words(&String::from_utf8_lossy(&input))
            .to_string()
            .into_bytes())
    }

    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        if name != "hello" {
            return Err(format!("unknown command `/{name}`"));
        }
        let who = match args.trim_matches(SPACE) {
            "" => "world",
            who => who,
        };
        // The counter lives in the session, so it follows branches: after `/tree` back to an
        // earlier point the count is what it was there.
        let previous = session::latest_state::<Counter>(COUNTER_TYPE)?.unwrap_or_default();
        let counter = Counter {
            count: previous.count + 1,
        };
        session::append_state(COUNTER_TYPE, &counter)?;
        Ok(Some(format!(
            "Hello, {who}! (greeting {} in this session)",
            counter.count
        )))
    }

    fn before_tool_call(&mut self, call: &ToolCall) -> ToolDecision {
        if call.name != "bash" {
            return ToolDecision::Allow;
        }
        match call.args::<BashArgs>() {
            Ok(args) if args.command.contains(&self.blocked_word) => ToolDecision::Block(format!(
                "bash commands containing \"{}\" are blocked by the hello plugin",
                self.blocked_word
            )),
            // Malformed bash arguments are the bash tool's to report, not this hook's.
            _ => ToolDecision::Allow,
        }
    }
}

export_plugin!(Hello);
