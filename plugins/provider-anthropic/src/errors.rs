//! Anthropic's errors: HTTP error responses and `error` events inside a stream, both shaped
//! `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`.

//!
//! A non-2xx response needs nothing of its own: the kit's classification by status (529 is
//! Anthropic's "overloaded") and overflow wording ("prompt is too long") fits it.

use provider_common::errors::is_overflow_message;
use tack_sdk::ErrorKind;

/// The kind of an error by its `error.type`, refined by its message for overflows.
pub fn kind(error_type: &str, message: &str) -> ErrorKind {
    match error_type {
        "overloaded_error" => ErrorKind::Overloaded,
        "rate_limit_error" => ErrorKind::RateLimited,
        "api_error" => ErrorKind::Server,
        "authentication_error" | "permission_error" => ErrorKind::Auth,
        _ if is_overflow_message(message) => ErrorKind::ContextOverflow,
        "invalid_request_error" | "not_found_error" | "request_too_large" => {
            ErrorKind::InvalidRequest
        }
        _ => ErrorKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use provider_common::errors::classify_response as from_response;

    #[test]
    fn responses_and_stream_errors() {
        let overloaded = from_response(
            529,
            &[],
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(overloaded.kind, ErrorKind::Overloaded);
        assert_eq!(overloaded.message, "HTTP 529: Overloaded");
        let overflow = from_response(
            400,
            &[],
            br#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 201234 tokens > 200000 maximum"}}"#,
        );
        assert_eq!(overflow.kind, ErrorKind::ContextOverflow);
        let auth = from_response(401, &[], br#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#);
        assert_eq!(auth.kind, ErrorKind::Auth);
        let limited = from_response(
            429,
            &[("retry-after".into(), "12".into())],
            br#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
        );
        assert_eq!(
            (limited.kind, limited.retry_after_ms),
            (ErrorKind::RateLimited, Some(12_000))
        );

        assert_eq!(
            kind("overloaded_error", "Overloaded"),
            ErrorKind::Overloaded
        );
        assert_eq!(
            kind(
                "invalid_request_error",
                "prompt is too long: 1 tokens > 0 maximum"
            ),
            ErrorKind::ContextOverflow
        );
        assert_eq!(
            kind("invalid_request_error", "bad"),
            ErrorKind::InvalidRequest
        );
        assert_eq!(kind("mystery", "?"), ErrorKind::Other);
    }
}
