//! The conformance plugin in Rust: a `word_count` tool, a `/hello` command that keeps a counter in
//! the session, a before-tool-call hook that blocks `bash` commands containing a configured word,
//! and a log line. examples/hello-{js,python,c} behave identically (see examples/README.md).
//!
//! Configuration (optional): `{"blocked_word": "forbidden"}`.

use serde::{Deserialize, Serialize};
use serde_json::json;
use tack_sdk::{
    export_plugin, log, session, HookKind, InitContext, Plugin, Registration, ToolCall,
    ToolDecision, ToolResult, ToolSpec,
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
struct BashArgs {
    command: String,
}

#[derive(Serialize, Deserialize, Default)]
struct Counter {
    count: u64,
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
                json!({
                    "type": "object",
                    "properties": {
                        "text": { "type": "string", "description": "The text to count." }
                    },
                    "required": ["text"],
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
        if call.name != "word_count" {
            return ToolResult::error(format!("unknown tool `{}`", call.name));
        }
        let args: WordCountArgs = match call.args() {
            Ok(args) => args,
            Err(e) => return ToolResult::error(e),
        };
        let words = args.text.split(SPACE).filter(|w| !w.is_empty()).count();
        let chars = args.text.chars().count();
        let noun = if words == 1 { "word" } else { "words" };
        ToolResult::text(format!("{words} {noun}"))
            .with_details(json!({ "words": words, "chars": chars }))
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
