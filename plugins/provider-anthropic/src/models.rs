//! The Claude models tack knows, with their limits and prices.

use provider_common::models;
use tack_sdk::{ModelCost, ModelSpec};

pub struct Model {
    pub id: &'static str,
    pub name: &'static str,
    pub context_window: u32,
    pub max_output_tokens: u32,
    pub cost: ModelCost,
}

/// Prices in US dollars per million tokens; cache writes are the 5-minute tier.
pub const MODELS: &[Model] = &[
    Model {
        id: "claude-sonnet-4-5",
        name: "Claude Sonnet 4.5",
        context_window: 200_000,
        max_output_tokens: 64_000,
        cost: ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
    },
    Model {
        id: "claude-opus-4-1",
        name: "Claude Opus 4.1",
        context_window: 200_000,
        max_output_tokens: 32_000,
        cost: ModelCost {
            input: 15.0,
            output: 75.0,
            cache_read: 1.5,
            cache_write: 18.75,
        },
    },
    Model {
        id: "claude-haiku-4-5",
        name: "Claude Haiku 4.5",
        context_window: 200_000,
        max_output_tokens: 64_000,
        cost: ModelCost {
            input: 1.0,
            output: 5.0,
            cache_read: 0.1,
            cache_write: 1.25,
        },
    },
];

pub fn find(id: &str) -> Option<&'static Model> {
    MODELS.iter().find(|model| model.id == id)
}

/// A catalogue entry as registered: every current Claude model reasons and reads images.
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
