//! Gemini's errors: `{"error": {"code": 429, "message": "...", "status": "RESOURCE_EXHAUSTED",
//! "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "26s"}]}}`,
//! as an HTTP error body (sometimes wrapped in an array) or as a chunk of the stream.

use provider_common::errors::{classify_response, is_overflow_message};
use serde_json::Value;
use tack_sdk::{ErrorKind, ProviderError};

/// A non-2xx response. Gemini gives its retry hint in the body (`RetryInfo.retryDelay`) rather
/// than in a `retry-after` header.
pub fn from_response(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
    let json: Option<Value> = serde_json::from_slice(body).ok();
    // Some endpoints wrap the error object in a one-element array.
    let error = json.as_ref().map(|j| match j {
        Value::Array(items) => items.first().unwrap_or(&Value::Null),
        other => other,
    });
    let mut classified = match error {
        Some(error) if error.get("error").is_some() => {
            classify_response(status, headers, error.to_string().as_bytes())
        }
        _ => classify_response(status, headers, body),
    };
    if classified.retry_after_ms.is_none() {
        classified.retry_after_ms = error.and_then(|e| e.get("error")).and_then(retry_delay_ms);
    }
    classified
}

/// An `error` object found in the stream.
pub fn from_stream(error: &Value) -> ProviderError {
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    let message = if message.is_empty() {
        "Gemini reported an error in the stream"
    } else {
        message
    };
    let status = error.get("status").and_then(Value::as_str).unwrap_or("");
    let kind = match status {
        _ if is_overflow_message(message) => ErrorKind::ContextOverflow,
        "RESOURCE_EXHAUSTED" => ErrorKind::RateLimited,
        "UNAVAILABLE" => ErrorKind::Overloaded,
        "INTERNAL" | "DEADLINE_EXCEEDED" => ErrorKind::Server,
        "UNAUTHENTICATED" | "PERMISSION_DENIED" => ErrorKind::Auth,
        "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "NOT_FOUND" => ErrorKind::InvalidRequest,
        _ => ErrorKind::Other,
    };
    ProviderError {
        kind,
        message: message.to_string(),
        retry_after_ms: retry_delay_ms(error),
    }
}

/// `RetryInfo.retryDelay` ("26s", "1.5s") in milliseconds.
fn retry_delay_ms(error: &Value) -> Option<u64> {
    error
        .get("details")?
        .as_array()?
        .iter()
        .filter_map(|detail| detail.get("retryDelay").and_then(Value::as_str))
        .find_map(|delay| delay.strip_suffix('s')?.parse::<f64>().ok())
        .filter(|secs| secs.is_finite() && *secs >= 0.0)
        .map(|secs| (secs * 1000.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn responses() {
        let limited = from_response(
            429,
            &[],
            br#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"26s"}]}}"#,
        );
        assert_eq!(limited.kind, ErrorKind::RateLimited);
        assert_eq!(limited.retry_after_ms, Some(26_000));
        assert_eq!(
            limited.message,
            "HTTP 429: Resource has been exhausted (e.g. check quota)."
        );
        let overflow = from_response(
            400,
            &[],
            br#"[{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}]"#,
        );
        assert_eq!(overflow.kind, ErrorKind::ContextOverflow);
        assert!(
            overflow.message.contains("input token count"),
            "{}",
            overflow.message
        );
        assert_eq!(
            from_response(503, &[], br#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#).kind,
            ErrorKind::Overloaded
        );
        assert_eq!(from_response(403, &[], b"denied").kind, ErrorKind::Auth);
    }

    #[test]
    fn stream_errors() {
        let error = from_stream(
            &json!({"code": 500, "message": "An internal error has occurred.",
                                        "status": "INTERNAL"}),
        );
        assert_eq!(error.kind, ErrorKind::Server);
        assert_eq!(
            from_stream(&json!({"status": "RESOURCE_EXHAUSTED", "message": "quota",
                                "details": [{"retryDelay": "1.5s"}]}))
            .retry_after_ms,
            Some(1500)
        );
        assert_eq!(from_stream(&json!({})).kind, ErrorKind::Other);
    }
}
