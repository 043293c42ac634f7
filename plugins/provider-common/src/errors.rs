//! Classifying provider errors. The status decides most kinds; a context overflow is a plain 400
//! whose only mark is its wording, which differs per API and per compatible server, so that
//! wording is matched here for every provider (the host compacts and retries on an overflow).

use serde_json::Value;
use tack_sdk::{default_decode_error, ErrorKind, ProviderError};

/// How APIs word "the prompt does not fit the context window", lower case.
const OVERFLOW_PHRASES: &[&str] = &[
    // Anthropic: "prompt is too long: 213462 tokens > 200000 maximum".
    "prompt is too long",
    // Anthropic, when input plus max_tokens does not fit.
    "exceed context limit",
    // OpenAI Responses and Chat Completions: "Your input exceeds the context window of this model".
    "exceeds the context window",
    // OpenAI's error code, also used by compatible servers.
    "context_length_exceeded",
    // Google: "The input token count (1196265) exceeds the maximum number of tokens allowed".
    "exceeds the maximum number of tokens",
    // OpenAI (older wording), vLLM and OpenRouter: "maximum context length is 8192 tokens".
    "maximum context length",
    // llama.cpp server.
    "exceeds the available context size",
    // LM Studio.
    "greater than the context length",
    // Groq.
    "reduce the length of the messages",
    // xAI.
    "maximum prompt length",
];

/// Whether an error message says the prompt exceeded the context window.
pub fn is_overflow_message(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    OVERFLOW_PHRASES.iter().any(|phrase| lower.contains(phrase))
}

/// Classifies a non-2xx response: by status as the SDK's [`default_decode_error`] does (401/403
/// auth, 429 rate-limited with the `retry-after` hint, 503/529 overloaded, 5xx server), other
/// 4xx as invalid requests, and an overflow wording anywhere in the body as a context overflow.
pub fn classify_response(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
    let mut error = default_decode_error(status, headers, body);
    if (400..500).contains(&status) && error.kind == ErrorKind::Other {
        error.kind = ErrorKind::InvalidRequest;
    }
    if matches!(error.kind, ErrorKind::InvalidRequest | ErrorKind::Other)
        && (is_overflow_message(&error.message)
            || is_overflow_message(&String::from_utf8_lossy(body)))
    {
        error.kind = ErrorKind::ContextOverflow;
    }
    error
}

/// A non-2xx response from OpenAI (both APIs), whose error body is `{"error": {"message",
/// "type", "code"}}`. `insufficient_quota` comes as a 429 but waiting does not help, so it is
/// not reported as a rate limit.
pub fn openai_response(status: u16, headers: &[(String, String)], body: &[u8]) -> ProviderError {
    let mut error = classify_response(status, headers, body);
    let code = serde_json::from_slice::<Value>(body).ok().and_then(|json| {
        json.pointer("/error/code")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    match code.as_deref() {
        Some("context_length_exceeded") => error.kind = ErrorKind::ContextOverflow,
        Some("insufficient_quota") => {
            error.kind = ErrorKind::Other;
            error.retry_after_ms = None;
        }
        _ => {}
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_wordings_are_recognized() {
        for message in [
            "prompt is too long: 213462 tokens > 200000 maximum",
            "Your input exceeds the context window of this model.",
            "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
            "This model's maximum context length is 128000 tokens.",
            "the request exceeds the available context size, try increasing it",
        ] {
            assert!(is_overflow_message(message), "{message}");
        }
        assert!(!is_overflow_message("Overloaded"));
    }

    #[test]
    fn classification() {
        let overflow = classify_response(
            400,
            &[],
            br#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        );
        assert_eq!(overflow.kind, ErrorKind::ContextOverflow);
        assert_eq!(
            overflow.message,
            "HTTP 400: prompt is too long: 210000 tokens > 200000 maximum"
        );
        assert_eq!(
            classify_response(404, &[], b"no such model").kind,
            ErrorKind::InvalidRequest
        );
        let limited =
            classify_response(429, &[("retry-after".to_string(), "7".to_string())], b"{}");
        assert_eq!(limited.kind, ErrorKind::RateLimited);
        assert_eq!(limited.retry_after_ms, Some(7000));
        assert_eq!(classify_response(500, &[], b"").kind, ErrorKind::Server);
        // A rate limit stays a rate limit whatever its wording.
        assert_eq!(
            classify_response(429, &[], b"maximum context length").kind,
            ErrorKind::RateLimited
        );
    }
}
