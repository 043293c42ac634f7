//! Chat Completions errors: `{"error": {"message": "...", "type": "...", "code": "..."}}`, as an
//! HTTP error body or as a chunk of the stream. Compatible servers vary the shape (some send the
//! error as a plain string), so every field is optional.

use provider_common::errors::is_overflow_message;
use serde_json::Value;
use tack_sdk::{ErrorKind, ProviderError};

/// An `error` object (or string) found in the stream.
pub fn from_stream(error: &Value) -> ProviderError {
    let field = |key: &str| error.get(key).and_then(Value::as_str).unwrap_or("");
    let message = match error {
        Value::String(text) => text.as_str(),
        _ => field("message"),
    };
    let message = if message.is_empty() {
        "the provider reported an error in the stream"
    } else {
        message
    };
    let code = field("code");
    let kind = match (code, field("type")) {
        ("context_length_exceeded", _) => ErrorKind::ContextOverflow,
        _ if is_overflow_message(message) => ErrorKind::ContextOverflow,
        ("rate_limit_exceeded", _) | (_, "rate_limit_error") => ErrorKind::RateLimited,
        (_, "server_error") | ("server_error", _) => ErrorKind::Server,
        (_, "invalid_request_error") => ErrorKind::InvalidRequest,
        _ => ErrorKind::Other,
    };
    ProviderError::new(kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use provider_common::errors::openai_response as from_response;
    use serde_json::json;

    #[test]
    fn responses() {
        let overflow = from_response(
            400,
            &[],
            br#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
        );
        assert_eq!(overflow.kind, ErrorKind::ContextOverflow);
        let limited = from_response(
            429,
            &[("retry-after".into(), "3".into())],
            br#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
        );
        assert_eq!(
            (limited.kind, limited.retry_after_ms),
            (ErrorKind::RateLimited, Some(3000))
        );
        let quota = from_response(
            429,
            &[("retry-after".into(), "3".into())],
            br#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        );
        assert_eq!((quota.kind, quota.retry_after_ms), (ErrorKind::Other, None));
        assert_eq!(from_response(401, &[], b"{}").kind, ErrorKind::Auth);
    }

    #[test]
    fn stream_errors() {
        assert_eq!(
            from_stream(&json!({"message": "boom", "type": "server_error", "code": null})),
            ProviderError::new(ErrorKind::Server, "boom")
        );
        assert_eq!(
            from_stream(&json!({"message": "too long", "code": "context_length_exceeded"})).kind,
            ErrorKind::ContextOverflow
        );
        assert_eq!(
            from_stream(&json!("exceeds the available context size")).kind,
            ErrorKind::ContextOverflow
        );
        assert_eq!(from_stream(&json!({})).kind, ErrorKind::Other);
    }
}
