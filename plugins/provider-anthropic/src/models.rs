//! The Claude models tack knows, with their limits and prices. Every current Claude model reasons
//! and reads images.

use provider_common::models::Card;
use tack_sdk::ModelCost;

/// Prices in US dollars per million tokens; cache writes are the 5-minute tier.
pub const MODELS: &[Card] = &[
    Card {
        id: "claude-sonnet-4-5",
        name: "Claude Sonnet 4.5",
        context_window: 200_000,
        max_output_tokens: 64_000,
        reasoning: true,
        cost: ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
    },
    Card {
        id: "claude-opus-4-1",
        name: "Claude Opus 4.1",
        context_window: 200_000,
        max_output_tokens: 32_000,
        reasoning: true,
        cost: ModelCost {
            input: 15.0,
            output: 75.0,
            cache_read: 1.5,
            cache_write: 18.75,
        },
    },
    Card {
        id: "claude-haiku-4-5",
        name: "Claude Haiku 4.5",
        context_window: 200_000,
        max_output_tokens: 64_000,
        reasoning: true,
        cost: ModelCost {
            input: 1.0,
            output: 5.0,
            cache_read: 0.1,
            cache_write: 1.25,
        },
    },
];
