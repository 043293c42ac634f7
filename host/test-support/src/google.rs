//! Gemini's `streamGenerateContent` wire, for loopback servers ([`crate::http::MockServer`])
//! standing in for the API: `data:` chunks as in `tests/fixtures/sse/google/`.

use serde_json::{json, Value};

use crate::http::Reply;

/// The model every reply names.
pub const MODEL: &str = "gemini-mock";

/// One chunk with `parts` and the finish reason; small token counts, so that a long scripted
/// session never reaches the compaction threshold.
fn reply(response_id: &str, parts: Value) -> Reply {
    let chunk = json!({
        "candidates": [{"index": 0, "content": {"parts": parts, "role": "model"},
                        "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 20,
                          "totalTokenCount": 1020},
        "modelVersion": MODEL, "responseId": response_id
    });
    Reply::sse(format!("data: {chunk}\n\n"))
}

/// A call of `tool` with `arguments` in the response `response_id`. Gemini sends calls whole and
/// without ids; tack makes a call's id from the response's, so each response needs its own.
pub fn tool_reply(response_id: &str, tool: &str, arguments: &Value) -> Reply {
    reply(
        response_id,
        json!([{"functionCall": {"name": tool, "args": arguments}}]),
    )
}

/// An answer in text.
pub fn text_reply(answer: &str) -> Reply {
    reply("mock-text", json!([{"text": answer}]))
}
