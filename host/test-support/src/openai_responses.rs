//! The OpenAI Responses wire, for loopback servers ([`crate::http::MockServer`]) standing in for
//! the API: streamed replies in the event order of `tests/fixtures/sse/openai-responses/`.

use serde_json::{json, Value};

use crate::http::Reply;

/// The model every reply names.
pub const MODEL: &str = "mock-model";

fn stream(events: &[Value]) -> Reply {
    let mut body = String::new();
    for (n, data) in events.iter().enumerate() {
        let mut data = data.clone();
        data["sequence_number"] = json!(n);
        let name = data["type"].as_str().unwrap_or_default().to_owned();
        body.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    }
    Reply::sse(body)
}

fn created(id: &str) -> Value {
    json!({"type": "response.created", "response": {"id": id, "object": "response",
           "status": "in_progress", "model": MODEL, "output": []}})
}

/// Small token counts, so that a long scripted session never reaches the compaction threshold.
fn completed(id: &str) -> Value {
    json!({"type": "response.completed", "response": {"id": id, "object": "response",
           "status": "completed", "usage": {"input_tokens": 1000,
           "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
           "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1020}}})
}

/// A call `id` of `tool` with `arguments`, the arguments in one delta and whole at the end.
pub fn tool_reply(id: &str, tool: &str, arguments: &Value) -> Reply {
    let arguments = arguments.to_string();
    let response = format!("resp_{id}");
    let item = |status: &str, arguments: &str| {
        json!({"id": format!("fc_{id}"), "type": "function_call", "status": status,
               "arguments": arguments, "call_id": id, "name": tool})
    };
    stream(&[
        created(&response),
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": item("in_progress", "")}),
        json!({"type": "response.function_call_arguments.delta", "item_id": format!("fc_{id}"),
               "output_index": 0, "delta": arguments}),
        json!({"type": "response.function_call_arguments.done", "item_id": format!("fc_{id}"),
               "output_index": 0, "arguments": arguments}),
        json!({"type": "response.output_item.done", "output_index": 0,
               "item": item("completed", &arguments)}),
        completed(&response),
    ])
}

/// An answer in text.
pub fn text_reply(answer: &str) -> Reply {
    let message = |status: &str, content: Value| {
        json!({"id": "msg_text", "type": "message", "status": status, "role": "assistant",
               "content": content})
    };
    stream(&[
        created("resp_text"),
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": message("in_progress", json!([]))}),
        json!({"type": "response.output_text.delta", "item_id": "msg_text", "output_index": 0,
               "content_index": 0, "delta": answer}),
        json!({"type": "response.output_item.done", "output_index": 0,
               "item": message("completed",
                   json!([{"type": "output_text", "text": answer, "annotations": []}]))}),
        completed("resp_text"),
    ])
}
