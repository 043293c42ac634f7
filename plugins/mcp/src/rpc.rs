//! JSON-RPC 2.0 messages as MCP's stdio transport carries them: one JSON object per line.

use serde_json::{json, Value};

/// A line a server wrote, sorted by what the client must do with it.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests.
    Response {
        id: u64,
        outcome: Result<Value, RpcError>,
    },
    /// A notification (`notifications/tools/list_changed`, a log message, progress).
    Notification { method: String, params: Value },
    /// A request the server makes of the client (`ping`, `roots/list`, `sampling/createMessage`).
    Request { id: Value, method: String },
    /// A line that is not a JSON-RPC message we can use.
    Malformed(String),
}

/// An error object of a response.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (JSON-RPC error {})", self.message, self.code)
    }
}

/// A request line.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
}

/// A notification line.
pub fn notification(method: &str, params: Option<Value>) -> String {
    match params {
        Some(params) => json!({ "jsonrpc": "2.0", "method": method, "params": params }),
        None => json!({ "jsonrpc": "2.0", "method": method }),
    }
    .to_string()
}

/// The result line answering a server's request.
pub fn reply(id: &Value, result: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

/// The error line answering a server's request.
pub fn reply_error(id: &Value, code: i64, message: &str) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string()
}

/// Sorts one line from a server.
pub fn parse(line: &str) -> Incoming {
    let short = || {
        let mut text: String = line.chars().take(200).collect();
        if text.len() < line.len() {
            text.push('…');
        }
        text
    };
    let Ok(Value::Object(message)) = serde_json::from_str::<Value>(line) else {
        return Incoming::Malformed(short());
    };
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").filter(|id| !id.is_null());
    match (method, id) {
        (Some(method), Some(id)) => Incoming::Request {
            id: id.clone(),
            method: method.to_string(),
        },
        (Some(method), None) => Incoming::Notification {
            method: method.to_string(),
            params: message.get("params").cloned().unwrap_or(Value::Null),
        },
        (None, Some(id)) => {
            // Our ids are numbers; a server that answers with another kind of id answered
            // nothing we asked.
            let Some(id) = id.as_u64() else {
                return Incoming::Malformed(short());
            };
            let outcome = match (message.get("result"), message.get("error")) {
                (Some(result), None) => Ok(result.clone()),
                (None, Some(error)) => Err(RpcError {
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("the server gave no message")
                        .to_string(),
                }),
                _ => return Incoming::Malformed(short()),
            };
            Incoming::Response { id, outcome }
        }
        (None, None) => Incoming::Malformed(short()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_sorted_by_what_they_ask_of_the_client() {
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#),
            Incoming::Response {
                id: 3,
                outcome: Ok(json!({ "tools": [] }))
            }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad"}}"#),
            Incoming::Response {
                id: 4,
                outcome: Err(RpcError {
                    code: -32602,
                    message: "bad".into()
                })
            }
        );
        assert_eq!(
            parse(r#"{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}"#),
            Incoming::Notification {
                method: "notifications/tools/list_changed".into(),
                params: Value::Null
            }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
            Incoming::Request {
                id: json!("a"),
                method: "ping".into()
            }
        );
        assert!(matches!(
            parse("Starting server..."),
            Incoming::Malformed(_)
        ));
        assert!(matches!(parse(r#"{"id":1}"#), Incoming::Malformed(_)));
        assert!(matches!(
            parse(r#"{"id":"x","result":1}"#),
            Incoming::Malformed(_)
        ));
    }
}
