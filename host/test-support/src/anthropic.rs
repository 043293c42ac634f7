//! The Anthropic Messages wire, for loopback servers ([`crate::http::MockServer`]) standing in for
//! the API: streamed replies in the event order of `tests/fixtures/sse/anthropic/`.

use serde_json::{json, Value};

use crate::http::Reply;

/// The model every reply names.
pub const MODEL: &str = "claude-mock";

/// Input tokens every reply reports: small, so that a long scripted session never reaches the
/// compaction threshold.
const INPUT_TOKENS: u64 = 1000;

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn message(id: &str, blocks: &[String], stop_reason: &str) -> Reply {
    let mut body = event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "content": [], "model": MODEL,
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": INPUT_TOKENS, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": 1}}}),
    );
    for block in blocks {
        body.push_str(block);
    }
    body.push_str(&event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 20}}),
    ));
    body.push_str(&event("message_stop", json!({"type": "message_stop"})));
    Reply::sse(body)
}

/// A call `id` of `tool` with `arguments`, the arguments split across two deltas as the API
/// streams them.
pub fn tool_reply(id: &str, tool: &str, arguments: &Value) -> Reply {
    let arguments = arguments.to_string();
    let (head, tail) = arguments.split_at(arguments.len() / 2);
    let mut block = event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "tool_use", "id": id, "name": tool, "input": {}}}),
    );
    for piece in [head, tail] {
        block.push_str(&event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": piece}}),
        ));
    }
    block.push_str(&event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    message(&format!("msg_{id}"), &[block], "tool_use")
}

/// An answer in text.
pub fn text_reply(answer: &str) -> Reply {
    let mut block = event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
               "content_block": {"type": "text", "text": ""}}),
    );
    block.push_str(&event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0,
               "delta": {"type": "text_delta", "text": answer}}),
    ));
    block.push_str(&event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    message("msg_text", &[block], "end_turn")
}
