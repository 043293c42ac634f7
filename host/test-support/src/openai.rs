//! The OpenAI Chat Completions wire, for tests whose loopback server ([`crate::http::MockServer`])
//! stands in for the provider: streamed replies to send, and readers for the requests it got.

use serde_json::{json, Value};

use crate::http::Reply;

/// The model every reply names.
pub const MODEL: &str = "mock-model";

/// One `chat.completion.chunk` carrying `delta`, and `finish` as its finish reason.
pub fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
        "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }]
    })
}

/// The closing chunk with the token counts (what `stream_options.include_usage` asks for).
pub fn usage() -> Value {
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
        "choices": [], "usage": { "prompt_tokens": 40, "completion_tokens": 8, "total_tokens": 48 }
    })
}

/// `chunks` as a server-sent event stream, closed by `[DONE]`.
pub fn stream(chunks: &[Value]) -> Reply {
    let mut body = String::new();
    for chunk in chunks {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    Reply::sse(body)
}

/// A delta of reasoning, in the `reasoning_content` field servers such as DeepSeek, vLLM and
/// llama.cpp use.
pub fn thinking(text: &str) -> Value {
    chunk(
        json!({ "role": "assistant", "reasoning_content": text }),
        None,
    )
}

/// A delta of answer text.
pub fn text(text: &str) -> Value {
    chunk(json!({ "role": "assistant", "content": text }), None)
}

/// The call `id` of `tool` with `arguments`, whole in one delta.
pub fn call(id: &str, tool: &str, arguments: &Value) -> Value {
    chunk(
        json!({ "role": "assistant", "tool_calls": [{
            "index": 0, "id": id, "type": "function",
            "function": { "name": tool, "arguments": arguments.to_string() }
        }] }),
        None,
    )
}

/// An answer in text.
pub fn text_reply(answer: &str) -> Reply {
    stream(&[text(answer), chunk(json!({}), Some("stop")), usage()])
}

/// A call of `tool` with `arguments` (the call's id is `call_1`).
pub fn tool_reply(tool: &str, arguments: Value) -> Reply {
    stream(&[
        call("call_1", tool, &arguments),
        chunk(json!({}), Some("tool_calls")),
        usage(),
    ])
}

/// The call `id` of `tool` with `arguments`, after some reasoning.
pub fn thinking_tool_reply(reasoning: &str, id: &str, tool: &str, arguments: Value) -> Reply {
    stream(&[
        thinking(reasoning),
        call(id, tool, &arguments),
        chunk(json!({}), Some("tool_calls")),
        usage(),
    ])
}

/// The messages of a request, as one text to search.
pub fn conversation(request: &Value) -> String {
    request["messages"].to_string()
}

/// The system (or developer) prompt of a request.
pub fn system_prompt(request: &Value) -> String {
    messages(request)
        .find(|m| m["role"] == "system" || m["role"] == "developer")
        .map(text_of)
        .unwrap_or_default()
}

/// The text of a request's user messages, one a line.
pub fn user_text(request: &Value) -> String {
    messages(request)
        .filter(|m| m["role"] == "user")
        .map(text_of)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of each tool result in a request.
pub fn tool_results(request: &Value) -> Vec<String> {
    messages(request)
        .filter(|m| m["role"] == "tool")
        .map(text_of)
        .collect()
}

/// The names of the tools a request offers.
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

fn messages(request: &Value) -> impl Iterator<Item = &Value> {
    request["messages"].as_array().into_iter().flatten()
}

/// A message's text, whether its content is a string or a list of parts.
pub fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}
