//! The Gemini models tack knows, with their limits, prices and how each controls thinking. Every
//! model here thinks and reads images.

use provider_common::models::{cost, Card, Entry};

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
    pub card: Card,
    pub thinking: Thinking,
}

impl Entry for Model {
    fn card(&self) -> &Card {
        &self.card
    }
}

/// Prices in US dollars per million tokens, for prompts up to 200k tokens.
pub const MODELS: &[Model] = &[
    Model {
        card: Card {
            id: "gemini-2.5-pro",
            name: "Gemini 2.5 Pro",
            context_window: 1_048_576,
            max_output_tokens: 65_536,
            reasoning: true,
            cost: cost(1.25, 10.0, 0.125),
        },
        thinking: Thinking::Budget {
            min: 128,
            max: 32_768,
        },
    },
    Model {
        card: Card {
            id: "gemini-2.5-flash",
            name: "Gemini 2.5 Flash",
            context_window: 1_048_576,
            max_output_tokens: 65_536,
            reasoning: true,
            cost: cost(0.3, 2.5, 0.03),
        },
        thinking: Thinking::Budget {
            min: 0,
            max: 24_576,
        },
    },
    Model {
        card: Card {
            id: "gemini-2.5-flash-lite",
            name: "Gemini 2.5 Flash-Lite",
            context_window: 1_048_576,
            max_output_tokens: 65_536,
            reasoning: true,
            cost: cost(0.1, 0.4, 0.01),
        },
        thinking: Thinking::Budget {
            min: 0,
            max: 24_576,
        },
    },
    Model {
        card: Card {
            id: "gemini-3-pro-preview",
            name: "Gemini 3 Pro (preview)",
            context_window: 1_048_576,
            max_output_tokens: 65_536,
            reasoning: true,
            cost: cost(2.0, 12.0, 0.2),
        },
        thinking: Thinking::Level,
    },
];
