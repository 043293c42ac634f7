//! Reasoning level → Gemini's `thinkingConfig`.

use serde_json::{json, Value};
use tack_sdk::ReasoningLevel;

use crate::models::{self, Thinking};

/// Budget for the highest level of models outside the catalogue.
const UNKNOWN_MODEL_MAX_BUDGET: u32 = 24_576;

/// The `thinkingConfig` for `level` on `model`, or `None` to leave the model's default.
pub fn config(model: &str, level: ReasoningLevel) -> Option<Value> {
    let thinking = match provider_common::models::find(models::MODELS, model) {
        Some(known) => known.thinking,
        // Models outside the catalogue may not think at all, and refuse a config: send one
        // only when asked to think.
        None if level == ReasoningLevel::Off => return None,
        None => Thinking::Budget {
            min: 0,
            max: UNKNOWN_MODEL_MAX_BUDGET,
        },
    };
    let show = level != ReasoningLevel::Off;
    Some(match thinking {
        Thinking::Level => {
            let level = match level {
                ReasoningLevel::Off | ReasoningLevel::Minimal | ReasoningLevel::Low => "low",
                ReasoningLevel::Medium | ReasoningLevel::High => "high",
            };
            json!({"thinkingLevel": level, "includeThoughts": show})
        }
        Thinking::Budget { min, max } => {
            let budget = match level {
                // The least the model accepts: 0 (off) where it can stop thinking.
                ReasoningLevel::Off => min,
                ReasoningLevel::Minimal => 1024,
                ReasoningLevel::Low => 4096,
                ReasoningLevel::Medium => 8192,
                ReasoningLevel::High => max,
            };
            json!({"thinkingBudget": budget.clamp(min, max), "includeThoughts": show})
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_per_model() {
        assert_eq!(
            config("gemini-2.5-flash", ReasoningLevel::Off),
            Some(json!({"thinkingBudget": 0, "includeThoughts": false}))
        );
        assert_eq!(
            config("gemini-2.5-pro", ReasoningLevel::Off),
            Some(json!({"thinkingBudget": 128, "includeThoughts": false}))
        );
        assert_eq!(
            config("gemini-2.5-pro", ReasoningLevel::High),
            Some(json!({"thinkingBudget": 32_768, "includeThoughts": true}))
        );
        assert_eq!(
            config("gemini-3-pro-preview", ReasoningLevel::Medium),
            Some(json!({"thinkingLevel": "high", "includeThoughts": true}))
        );
        assert_eq!(config("gemma-3", ReasoningLevel::Off), None);
        assert_eq!(
            config("gemma-3", ReasoningLevel::Low),
            Some(json!({"thinkingBudget": 4096, "includeThoughts": true}))
        );
    }
}
