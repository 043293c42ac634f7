//! Compat flags for servers that speak Chat Completions with differences, set per provider in
//! the user's config:
//!
//! ```toml
//! [providers.openai]
//! base_url = "http://localhost:11434/v1"
//! options = { max_tokens_field = "max_tokens", supports_developer_role = false }
//! ```
//!
//! | option | default | meaning |
//! |---|---|---|
//! | `max_tokens_field` | `"max_completion_tokens"` | field carrying the output limit (`"max_tokens"` for older servers) |
//! | `supports_usage_in_stream` | `true` | ask for usage in the stream (`stream_options.include_usage`) |
//! | `supports_developer_role` | OpenAI reasoning models | send the system prompt as a `developer` message instead of `system` |
//! | `supports_reasoning_effort` | OpenAI reasoning models | send `reasoning_effort` for the reasoning level |
//! | `reasoning_field` | `reasoning_content`, else `reasoning` | delta field carrying reasoning text, shown as thinking |
//! | `thinking_format` | `"openai"` | `"deepseek"`: thinking is switched with `thinking = {type = "enabled" \| "disabled"}` and its depth sent as `reasoning_effort` (DeepSeek's API); `"mistral"`: `prompt_mode = "reasoning"`, or `reasoning_effort = "high"` for the models that take it (Mistral's API) |
//!
//! Reasoning a model streamed in `reasoning_content`, `reasoning` or `reasoning_text` goes back
//! in the same field of its assistant message on the next turns, to the same provider and model
//! (DeepSeek requires it while tools are called in thinking mode; Pi replays it alike); to
//! DeepSeek (`--provider deepseek`) an assistant message without any carries an empty
//! `reasoning_content`, which its API requires of every assistant message.

use provider_common::openai_models;
use provider_common::options::Options;
use tack_sdk::ProviderError;

/// Delta fields compatible servers stream reasoning in: `reasoning_content` (DeepSeek, vLLM,
/// llama.cpp) and `reasoning` (OpenRouter, Ollama).
pub const DEFAULT_REASONING_FIELDS: &[&str] = &["reasoning_content", "reasoning"];

#[derive(Clone, Debug, PartialEq)]
pub struct Compat {
    pub max_tokens_field: &'static str,
    pub usage_in_stream: bool,
    pub developer_role: bool,
    /// `None`: decide by the model catalogue.
    pub reasoning_effort: Option<bool>,
    pub reasoning_fields: Vec<String>,
    pub thinking_format: ThinkingFormat,
}

/// How a request says whether the model should think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThinkingFormat {
    /// `reasoning_effort` alone, for the models that take it.
    OpenAi,
    /// `thinking: {type}` and `reasoning_effort`, as DeepSeek's API takes them.
    DeepSeek,
    /// `prompt_mode: "reasoning"` (Magistral), or `reasoning_effort` for the Mistral models that
    /// take one, as Mistral's API takes them.
    Mistral,
}

impl Compat {
    pub fn from_options(options: &Options, model: &str) -> Result<Self, ProviderError> {
        let reasoning_model = provider_common::models::find(openai_models::MODELS, model)
            .is_some_and(|m| m.card.reasoning);
        Ok(Compat {
            max_tokens_field: options
                .choice("max_tokens_field", &["max_completion_tokens", "max_tokens"])?
                .unwrap_or("max_completion_tokens"),
            usage_in_stream: options.bool("supports_usage_in_stream")?.unwrap_or(true),
            developer_role: options
                .bool("supports_developer_role")?
                .unwrap_or(reasoning_model),
            reasoning_effort: options.bool("supports_reasoning_effort")?,
            reasoning_fields: match options.string("reasoning_field")? {
                Some(field) => vec![field.to_string()],
                None => default_reasoning_fields(),
            },
            thinking_format: match options
                .choice("thinking_format", &["openai", "deepseek", "mistral"])?
            {
                Some("deepseek") => ThinkingFormat::DeepSeek,
                Some("mistral") => ThinkingFormat::Mistral,
                _ => ThinkingFormat::OpenAi,
            },
        })
    }
}

pub fn default_reasoning_fields() -> Vec<String> {
    DEFAULT_REASONING_FIELDS
        .iter()
        .map(|field| field.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_openai_and_flags_override() {
        let none = Options::default();
        let gpt = Compat::from_options(&none, "gpt-4.1").unwrap();
        assert_eq!(gpt.max_tokens_field, "max_completion_tokens");
        assert!(gpt.usage_in_stream && !gpt.developer_role);
        assert_eq!(gpt.reasoning_fields, default_reasoning_fields());
        assert!(
            Compat::from_options(&none, "o4-mini")
                .unwrap()
                .developer_role
        );

        let options = Options::parse(
            r#"{"max_tokens_field": "max_tokens", "supports_usage_in_stream": false,
                "supports_developer_role": false, "reasoning_field": "thoughts",
                "supports_reasoning_effort": true, "thinking_format": "deepseek"}"#,
        )
        .unwrap();
        let custom = Compat::from_options(&options, "o4-mini").unwrap();
        assert_eq!(
            custom,
            Compat {
                max_tokens_field: "max_tokens",
                usage_in_stream: false,
                developer_role: false,
                reasoning_effort: Some(true),
                reasoning_fields: vec!["thoughts".into()],
                thinking_format: ThinkingFormat::DeepSeek,
            }
        );
        let bad = Options::parse(r#"{"max_tokens_field": "limit"}"#).unwrap();
        assert!(Compat::from_options(&bad, "gpt-4o").is_err());
        let unknown = Options::parse(r#"{"thinking_format": "qwen"}"#).unwrap();
        assert!(Compat::from_options(&unknown, "gpt-4o").is_err());
    }
}
