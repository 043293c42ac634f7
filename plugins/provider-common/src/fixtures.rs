//! The request the providers' unit tests start from (feature `test-support`), so that each
//! provider's tests say only what they change.

use serde_json::Value;
use tack_sdk::{ExecutionMode, ProviderRequest, ReasoningLevel, ToolSpec};

/// The `read` tool's parameters.
pub const READ_PARAMETERS: &str = r#"{"type":"object","properties":{"path":{"type":"string"}}}"#;

/// A request to `provider`'s `model` holding `messages`, a terse system prompt and one `read`
/// tool whose schema is `parameters`; 2048 output tokens, medium reasoning, no options.
pub fn request(provider: &str, model: &str, messages: &Value, parameters: &str) -> ProviderRequest {
    ProviderRequest {
        provider: provider.into(),
        model: model.into(),
        system_prompt: "You are terse.".into(),
        messages: messages.to_string(),
        tools: vec![ToolSpec {
            name: "read".into(),
            label: "Read".into(),
            description: "Reads a file".into(),
            parameters: parameters.into(),
            mode: ExecutionMode::Parallel,
            prompt_snippet: None,
        }],
        max_tokens: Some(2048),
        reasoning: ReasoningLevel::Medium,
        options: "{}".into(),
    }
}
