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
    let block = content_block(
        json!({"type": "tool_use", "id": id, "name": tool, "input": {}}),
        [head, tail].map(|piece| json!({"type": "input_json_delta", "partial_json": piece})),
    );
    message(&format!("msg_{id}"), &[block], "tool_use")
}

/// An answer in text.
pub fn text_reply(answer: &str) -> Reply {
    let block = content_block(
        json!({"type": "text", "text": ""}),
        [json!({"type": "text_delta", "text": answer})],
    );
    message("msg_text", &[block], "end_turn")
}

/// Content block 0's events: its start carrying `start`, a delta for each of `deltas`, its stop.
fn content_block(start: Value, deltas: impl IntoIterator<Item = Value>) -> String {
    let mut block = event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": start}),
    );
    for delta in deltas {
        block.push_str(&event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ));
    }
    block.push_str(&event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    block
}
