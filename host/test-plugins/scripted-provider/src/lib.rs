//! A provider that plays back a script, for the host's agent-loop tests.
//!
//! Configuration:
//! ```json
//! {
//!   "script": [
//!     {"thinking": "...", "text": "...",
//!      "tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}],
//!      "stop": "stop" | "length" | "tool_use",
//!      "error": {"kind": "rate_limited", "message": "...", "retry_after_ms": 10},
//!      "usage": {"input": 10, "output": 5}}
//!   ],
//!   "base_url_mode": false,
//!   "context_window": 128000,
//!   "images": false,
//!   "reasoning": false,
//!   "branches": {"CHILD-A": [<turns>]}
//! }
//! ```
//! `branches` gives other conversations their own scripts: a request whose first user message
//! contains a branch's key plays that branch instead of `script` (sub-agent tests give each
//! child a marker in its prompt).
//! Every field of a turn is optional. The answer to a request is turn N, where N is the number of
//! assistant messages in the request; past the end of the script the answer is the text
//! `(script exhausted)`. `stop` defaults to `tool_use` when the turn has tool calls, else
//! `stop`; a turn with `error` ends with that error instead of a stop. Without `usage`, usage is
//! estimated as characters / 4. `context_window` (default 128000) lets compaction tests use a
//! small window; `images` makes the model accept images, `reasoning` makes it think.
//!
//! The answer is an SSE body in the [`tack_sdk::sse_local`] format, returned as
//! `RequestPlan::Local`. With `"base_url_mode": true` the plugin instead asks for
//! `POST /scripted` with the JSON body `{"turn": N, "spec": <turn or null>, "sse": "<the SSE
//! body>"}`, so a test server can stream `sse` back (slowly, or cut short) over real HTTP.
//! Either way the decoder splits text and tool-call arguments into small deltas.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tack_sdk::sse_local::{LocalDecoder, SseWriter};
use tack_sdk::{
    export_plugin, Decoder, ErrorKind, HttpCall, InitContext, ModelSpec, Plugin, ProviderError,
    ProviderRequest, ProviderSpec, Registration, RequestPlan, StopReason, Usage,
};

const EXHAUSTED: &str = "(script exhausted)";
/// Small enough that even short texts and arguments arrive in several deltas.
const DELTA_CHARS: usize = 5;

#[derive(Default)]
struct Scripted {
    script: Vec<Turn>,
    branches: Vec<(String, Vec<Turn>)>,
    base_url_mode: bool,
}

#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    script: Vec<Turn>,
    #[serde(default)]
    base_url_mode: bool,
    #[serde(default)]
    branches: std::collections::BTreeMap<String, Vec<Turn>>,
    context_window: Option<u32>,
    /// The model accepts images.
    #[serde(default)]
    images: bool,
    /// The model thinks (takes a thinking level).
    #[serde(default)]
    reasoning: bool,
}

#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Turn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thinking: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<ScriptedCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stop: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ScriptedError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    usage: Option<ScriptedUsage>,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedCall {
    id: String,
    name: String,
    #[serde(default = "empty_object")]
    arguments: Value,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedError {
    kind: String,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_after_ms: Option<u64>,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedUsage {
    input: u64,
    output: u64,
}

fn empty_object() -> Value {
    json!({})
}

impl Turn {
    fn stop_reason(&self) -> Result<StopReason, String> {
        match &self.stop {
            Some(name) => StopReason::parse(name).ok_or_else(|| format!("unknown stop `{name}`")),
            None if self.tool_calls.is_empty() => Ok(StopReason::Stop),
            None => Ok(StopReason::ToolUse),
        }
    }

    fn error_kind(&self) -> Result<Option<ErrorKind>, String> {
        self.error
            .as_ref()
            .map(|e| {
                ErrorKind::parse(&e.kind).ok_or_else(|| format!("unknown error kind `{}`", e.kind))
            })
            .transpose()
    }

    fn output_chars(&self) -> usize {
        let text = self.text.as_deref().map_or(0, str::len);
        let thinking = self.thinking.as_deref().map_or(0, str::len);
        let calls: usize = self
            .tool_calls
            .iter()
            .map(|c| c.name.len() + c.arguments.to_string().len())
            .sum();
        text + thinking + calls
    }

    fn to_sse(&self, input_chars: usize) -> Result<String, String> {
        let mut sse = SseWriter::new();
        if let Some(thinking) = &self.thinking {
            sse.thinking(thinking);
        }
        if let Some(text) = &self.text {
            sse.text(text);
        }
        for call in &self.tool_calls {
            sse.tool_call(&call.id, &call.name, &call.arguments);
        }
        let usage = match &self.usage {
            Some(u) => Usage {
                input: u.input,
                output: u.output,
                ..Usage::default()
            },
            None => Usage {
                input: (input_chars / 4) as u64,
                output: (self.output_chars() / 4) as u64,
                ..Usage::default()
            },
        };
        sse.usage(&usage);
        match (&self.error, self.error_kind()?) {
            (Some(error), Some(kind)) => {
                sse.error(kind, &error.message, error.retry_after_ms);
            }
            _ => {
                sse.stop(self.stop_reason()?);
            }
        }
        Ok(sse.as_str().to_string())
    }
}

/// Only the roles are read (borrowed, the rest skipped unbuilt), so that a benchmark run through
/// this provider measures the host, not a parse of the whole conversation into values.
fn count_assistant_messages(messages: &str) -> Result<usize, ProviderError> {
    #[derive(serde::Deserialize)]
    struct Role<'a> {
        #[serde(borrow)]
        role: std::borrow::Cow<'a, str>,
    }
    let messages: Vec<Role> = serde_json::from_str(messages).map_err(|e| {
        ProviderError::new(
            ErrorKind::InvalidRequest,
            format!("messages are not a JSON array of messages: {e}"),
        )
    })?;
    Ok(messages.iter().filter(|m| m.role == "assistant").count())
}

impl Scripted {
    /// The branch whose key the first user message contains, else the main script.
    fn script_for(&self, messages: &str) -> Result<&[Turn], ProviderError> {
        if self.branches.is_empty() {
            return Ok(&self.script);
        }
        let messages: Vec<Value> = serde_json::from_str(messages).map_err(|e| {
            ProviderError::new(ErrorKind::InvalidRequest, format!("bad messages: {e}"))
        })?;
        let first_user = messages
            .iter()
            .find(|m| m["role"] == "user")
            .map(|m| m["content"].to_string())
            .unwrap_or_default();
        Ok(self
            .branches
            .iter()
            .find(|(key, _)| first_user.contains(key.as_str()))
            .map_or(&self.script[..], |(_, turns)| &turns[..]))
    }
}

impl Plugin for Scripted {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config)
            .map_err(|e| format!("invalid scripted provider config: {e}"))?;
        for (n, turn) in config.script.iter().enumerate() {
            turn.stop_reason()
                .and(turn.error_kind())
                .map_err(|e| format!("invalid scripted provider config: turn {n}: {e}"))?;
        }
        self.script = config.script;
        self.branches = config.branches.into_iter().collect();
        self.base_url_mode = config.base_url_mode;
        let mut model = ModelSpec::new(
            "scripted-1",
            "Scripted",
            config.context_window.unwrap_or(128_000),
            8192,
        );
        if config.images {
            model = model.with_images();
        }
        if config.reasoning {
            model = model.with_reasoning();
        }
        Ok(Registration::new()
            .provider(ProviderSpec::new("scripted", "Scripted (tests)").model(model)))
    }

    fn build_request(&mut self, request: ProviderRequest) -> Result<RequestPlan, ProviderError> {
        let index = count_assistant_messages(&request.messages)?;
        let script = self.script_for(&request.messages)?;
        let scripted = script.get(index).cloned();
        let turn = scripted.clone().unwrap_or_else(|| Turn {
            text: Some(EXHAUSTED.to_string()),
            ..Turn::default()
        });
        let input_chars = request.system_prompt.len() + request.messages.len();
        let sse = turn
            .to_sse(input_chars)
            .map_err(|e| ProviderError::new(ErrorKind::InvalidRequest, e))?;
        if !self.base_url_mode {
            return Ok(RequestPlan::Local(sse.into_bytes()));
        }
        let body = json!({ "turn": index, "spec": scripted, "sse": sse });
        Ok(RequestPlan::Http(HttpCall {
            method: "POST".into(),
            path: "/scripted".into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
        }))
    }

    fn new_decoder(&mut self, _provider: &str, _model: &str) -> Box<dyn Decoder> {
        Box::new(LocalDecoder::with_chunk_chars(DELTA_CHARS))
    }
}

export_plugin!(Scripted);

#[cfg(test)]
mod tests {
    use super::*;
    use tack_sdk::sse_local::parse;
    use tack_sdk::StreamEvent;

    fn decode(sse: &str) -> Vec<StreamEvent> {
        let mut decoder = LocalDecoder::with_chunk_chars(DELTA_CHARS);
        let mut events = Vec::new();
        for event in parse(sse) {
            events.extend(decoder.push(event).unwrap());
        }
        events.extend(decoder.finish().unwrap());
        events
    }

    #[test]
    fn turn_with_tool_calls_streams_fragments_and_stops_on_tool_use() {
        let turn: Turn = serde_json::from_value(json!({
            "text": "Reading the file now.",
            "tool_calls": [{"id": "c1", "name": "read", "arguments": {"path": "src/main.rs"}}]
        }))
        .unwrap();
        let events = decode(&turn.to_sse(40).unwrap());
        let text_deltas = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::TextDelta(_)))
            .count();
        let arg_deltas: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallDelta(d) => Some(d.delta.clone()),
                _ => None,
            })
            .collect();
        assert!(text_deltas > 1);
        assert!(arg_deltas.len() > 1);
        assert_eq!(arg_deltas.concat(), r#"{"path":"src/main.rs"}"#);
        assert_eq!(events.last(), Some(&StreamEvent::Stop(StopReason::ToolUse)));
    }

    #[test]
    fn error_turn_ends_with_error() {
        let turn: Turn = serde_json::from_value(json!({
            "error": {"kind": "overloaded", "message": "busy"}
        }))
        .unwrap();
        let events = decode(&turn.to_sse(0).unwrap());
        assert!(matches!(
            events.last(),
            Some(StreamEvent::Error(ProviderError {
                kind: ErrorKind::Overloaded,
                ..
            }))
        ));
    }

    #[test]
    fn turn_index_counts_assistant_messages() {
        let messages = json!([
            {"role": "user", "content": []},
            {"role": "assistant", "content": []},
            {"role": "toolResult", "content": []},
            {"role": "assistant", "content": []}
        ]);
        assert_eq!(count_assistant_messages(&messages.to_string()).unwrap(), 2);
    }
}
