//! Responses API errors: HTTP error bodies (`{"error": {"message", "type", "code"}}`), and in
//! the stream an `error` event or a `response.failed` whose `response.error` has a code.

use provider_common::errors::is_overflow_message;
use serde_json::Value;
use tack_sdk::{ErrorKind, ProviderError};

/// An error object from the stream: `{"code": "...", "message": "..."}`.
pub fn from_stream(error: &Value) -> ProviderError {
    let field = |key: &str| error.get(key).and_then(Value::as_str).unwrap_or("");
    let message = match field("message") {
        "" => "OpenAI reported an error in the stream",
        message => message,
    };
    let kind = match field("code") {
        "context_length_exceeded" => ErrorKind::ContextOverflow,
        _ if is_overflow_message(message) => ErrorKind::ContextOverflow,
        "rate_limit_exceeded" => ErrorKind::RateLimited,
        "server_error" | "internal_error" => ErrorKind::Server,
        "server_is_overloaded" | "slow_down" => ErrorKind::Overloaded,
        "invalid_prompt" | "invalid_request_error" => ErrorKind::InvalidRequest,
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
    fn responses_and_stream_errors() {
        let overflow = from_response(
            400,
            &[],
            br#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#,
        );
        assert_eq!(overflow.kind, ErrorKind::ContextOverflow);
        let quota = from_response(
            429,
            &[],
            br#"{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}"#,
        );
        assert_eq!(quota.kind, ErrorKind::Other);
        assert_eq!(
            from_stream(&json!({"code": "server_error", "message": "boom"})),
            ProviderError::new(ErrorKind::Server, "boom")
        );
        assert_eq!(
            from_stream(&json!({"code": "context_length_exceeded", "message": "too long"})).kind,
            ErrorKind::ContextOverflow
        );
        assert_eq!(from_stream(&json!(null)).kind, ErrorKind::Other);
    }
}
