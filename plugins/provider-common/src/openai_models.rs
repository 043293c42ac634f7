//! OpenAI's models, served by both OpenAI plugins (Chat Completions and Responses), and the
//! reasoning effort each accepts.

use tack_sdk::{AuthScheme, ProviderSpec, ReasoningLevel};

use crate::kit::WithModels;
use crate::models::{self, cost, Card, Entry};

/// `card.reasoning`: accepts a reasoning effort.
pub struct Model {
    pub card: Card,
    /// Accepts the `minimal` effort (the GPT-5 family); others start at `low`.
    pub minimal_effort: bool,
}

impl Entry for Model {
    fn card(&self) -> &Card {
        &self.card
    }
}

/// Prices in US dollars per million tokens, from OpenAI's price list.
pub const MODELS: &[Model] = &[
    Model {
        card: Card {
            id: "gpt-5",
            name: "GPT-5",
            context_window: 400_000,
            max_output_tokens: 128_000,
            reasoning: true,
            cost: cost(1.25, 10.0, 0.125),
        },
        minimal_effort: true,
    },
    Model {
        card: Card {
            id: "gpt-5-mini",
            name: "GPT-5 mini",
            context_window: 400_000,
            max_output_tokens: 128_000,
            reasoning: true,
            cost: cost(0.25, 2.0, 0.025),
        },
        minimal_effort: true,
    },
    Model {
        card: Card {
            id: "gpt-4.1",
            name: "GPT-4.1",
            context_window: 1_047_576,
            max_output_tokens: 32_768,
            reasoning: false,
            cost: cost(2.0, 8.0, 0.5),
        },
        minimal_effort: false,
    },
    Model {
        card: Card {
            id: "gpt-4.1-mini",
            name: "GPT-4.1 mini",
            context_window: 1_047_576,
            max_output_tokens: 32_768,
            reasoning: false,
            cost: cost(0.4, 1.6, 0.1),
        },
        minimal_effort: false,
    },
    Model {
        card: Card {
            id: "gpt-4o",
            name: "GPT-4o",
            context_window: 128_000,
            max_output_tokens: 16_384,
            reasoning: false,
            cost: cost(2.5, 10.0, 1.25),
        },
        minimal_effort: false,
    },
    Model {
        card: Card {
            id: "gpt-4o-mini",
            name: "GPT-4o mini",
            context_window: 128_000,
            max_output_tokens: 16_384,
            reasoning: false,
            cost: cost(0.15, 0.6, 0.075),
        },
        minimal_effort: false,
    },
    Model {
        card: Card {
            id: "o3",
            name: "o3",
            context_window: 200_000,
            max_output_tokens: 100_000,
            reasoning: true,
            cost: cost(2.0, 8.0, 0.5),
        },
        minimal_effort: false,
    },
    Model {
        card: Card {
            id: "o4-mini",
            name: "o4-mini",
            context_window: 200_000,
            max_output_tokens: 100_000,
            reasoning: true,
            cost: cost(1.1, 4.4, 0.275),
        },
        minimal_effort: false,
    },
];

/// A provider serving this catalogue from OpenAI's API, as both OpenAI plugins register.
pub fn provider(id: &str, name: &str) -> ProviderSpec {
    ProviderSpec::new(id, name)
        .base_url("https://api.openai.com/v1")
        .secret("OPENAI_API_KEY", AuthScheme::Bearer)
        .with_models(models::specs(MODELS))
}

/// The reasoning effort to send for `level`, or `None` to send none. `supported` is the user's
/// compat flag; without it only catalogue models marked as reasoning get one, because OpenAI
/// refuses the parameter for other models. Reasoning models cannot switch reasoning off: `off`
/// asks for the least there is (`minimal` where it exists, else the model's default).
pub fn effort(
    model_id: &str,
    level: ReasoningLevel,
    supported: Option<bool>,
) -> Option<&'static str> {
    let known = models::find(MODELS, model_id);
    if !supported.unwrap_or_else(|| known.is_some_and(|m| m.card.reasoning)) {
        return None;
    }
    let minimal = known.is_some_and(|m| m.minimal_effort);
    match level {
        ReasoningLevel::Off => minimal.then_some("minimal"),
        ReasoningLevel::Minimal if minimal => Some("minimal"),
        ReasoningLevel::Minimal | ReasoningLevel::Low => Some("low"),
        ReasoningLevel::Medium => Some("medium"),
        ReasoningLevel::High => Some("high"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efforts_follow_the_model() {
        assert_eq!(effort("gpt-4.1", ReasoningLevel::High, None), None);
        assert_eq!(effort("gpt-5", ReasoningLevel::Off, None), Some("minimal"));
        assert_eq!(
            effort("gpt-5", ReasoningLevel::Minimal, None),
            Some("minimal")
        );
        assert_eq!(effort("o4-mini", ReasoningLevel::Off, None), None);
        assert_eq!(
            effort("o4-mini", ReasoningLevel::Minimal, None),
            Some("low")
        );
        assert_eq!(effort("o4-mini", ReasoningLevel::High, None), Some("high"));
        assert_eq!(effort("qwen3", ReasoningLevel::Medium, None), None);
        assert_eq!(
            effort("qwen3", ReasoningLevel::Medium, Some(true)),
            Some("medium")
        );
        assert_eq!(effort("o3", ReasoningLevel::Medium, Some(false)), None);
    }

    #[test]
    fn specs_cover_the_catalogue() {
        let specs = models::specs(MODELS);
        assert_eq!(specs.len(), MODELS.len());
        assert!(specs.iter().any(|s| s.id == "o4-mini" && s.reasoning));
        assert!(specs.iter().any(|s| s.id == "gpt-4o" && !s.reasoning));
    }
}
