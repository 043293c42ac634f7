//! The Gemini models tack knows, with their limits, prices and how each controls thinking.

use provider_common::models::{self, cost};
use tack_sdk::{ModelCost, ModelSpec};

/// How a model is told how much to think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thinking {
    /// Gemini 2.5: a token budget up to `max`; `min` is the least it accepts when thinking
    /// cannot be switched off (0 switches it off where it can).
    Budget { min: u32, max: u32 },
    /// Gemini 3: a level, `low` or `high`; thinking cannot be switched off.
    Level,
}

pub struct Model {
    pub id: &'static str,
    pub name: &'static str,
    pub context_window: u32,
    pub max_output_tokens: u32,
    pub thinking: Thinking,
    pub cost: ModelCost,
}

/// Prices in US dollars per million tokens, for prompts up to 200k tokens.
pub const MODELS: &[Model] = &[
    Model {
        id: "gemini-2.5-pro",
        name: "Gemini 2.5 Pro",
        context_window: 1_048_576,
        max_output_tokens: 65_536,
        thinking: Thinking::Budget {
            min: 128,
            max: 32_768,
        },
        cost: cost(1.25, 10.0, 0.125),
    },
    Model {
        id: "gemini-2.5-flash",
        name: "Gemini 2.5 Flash",
        context_window: 1_048_576,
        max_output_tokens: 65_536,
        thinking: Thinking::Budget {
            min: 0,
            max: 24_576,
        },
        cost: cost(0.3, 2.5, 0.03),
    },
    Model {
        id: "gemini-2.5-flash-lite",
        name: "Gemini 2.5 Flash-Lite",
        context_window: 1_048_576,
        max_output_tokens: 65_536,
        thinking: Thinking::Budget {
            min: 0,
            max: 24_576,
        },
        cost: cost(0.1, 0.4, 0.01),
    },
    Model {
        id: "gemini-3-pro-preview",
        name: "Gemini 3 Pro (preview)",
        context_window: 1_048_576,
        max_output_tokens: 65_536,
        thinking: Thinking::Level,
        cost: cost(2.0, 12.0, 0.2),
    },
];

pub fn find(id: &str) -> Option<&'static Model> {
    MODELS.iter().find(|model| model.id == id)
}

/// A catalogue entry as registered: every model here thinks and reads images.
impl From<&Model> for ModelSpec {
    fn from(m: &Model) -> Self {
        models::spec(
            m.id,
            m.name,
            m.context_window,
            m.max_output_tokens,
            true,
            m.cost,
        )
    }
}

/// The catalogue as registration entries.
pub fn specs() -> Vec<ModelSpec> {
    models::specs(MODELS)
}
