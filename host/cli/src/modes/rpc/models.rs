//! `set_model`, `cycle_model`, `get_available_models`, `set_thinking_level` and
//! `cycle_thinking_level`: the RPC replies around the shared [`ModelSwitch`].
//!
//! [`ModelSwitch`]: crate::models::switch::ModelSwitch

use serde_json::{json, Value};
use tack_core::agent::ReasoningLevel;
use tack_protocol::{AvailableModel, CycledModel, Model, ModelChoice};

use super::server::{data, Reply, Server};

/// The order `cycle_thinking_level` goes through.
const THINKING_LEVELS: [ReasoningLevel; 5] = [
    ReasoningLevel::Off,
    ReasoningLevel::Minimal,
    ReasoningLevel::Low,
    ReasoningLevel::Medium,
    ReasoningLevel::High,
];

impl Server {
    /// Answers with the model now in use, as Pi does.
    pub fn set_model(&self, provider: &str, model_id: &str) -> Reply {
        self.front.model_switch().set_model(provider, model_id)?;
        data(Model::from(self.front.agent.config().model))
    }

    /// Moves to the next scoped model (`--models`, `enabled_models`), else the next one whose
    /// provider can be used; `null` when there is no other.
    pub fn cycle_model(&self) -> Reply {
        let Some(cycled) = self.front.model_switch().cycle(true)? else {
            return Ok(Some(Value::Null));
        };
        let config = self.front.agent.config();
        data(CycledModel {
            model: config.model.into(),
            thinking_level: config.reasoning.as_str().to_string(),
            is_scoped: cycled.is_scoped,
        })
    }

    pub fn available_models(&self) -> Reply {
        let catalog = self.front.loaded.catalog()?;
        let switch = self.front.model_switch();
        let mut models = Vec::new();
        for entry in &catalog {
            let key_available = switch.key_available(entry);
            for spec in &entry.spec.models {
                models.push(AvailableModel {
                    model: crate::models::choose::model_info(&entry.id, spec).into(),
                    key_available,
                });
            }
        }
        data(json!({ "models": models }))
    }

    pub fn set_thinking_level(&self, level: &str) -> Reply {
        self.front.model_switch().set_thinking(level)?;
        let config = self.front.agent.config();
        data(ModelChoice {
            model: config.model.into(),
            thinking_level: config.reasoning.as_str().to_string(),
        })
    }

    /// The next level, wrapping around; `null` for a model without thinking.
    pub fn cycle_thinking_level(&self) -> Reply {
        let config = self.front.agent.config();
        if !config.model.reasoning {
            return Ok(Some(Value::Null));
        }
        let at = THINKING_LEVELS
            .iter()
            .position(|l| *l == config.reasoning)
            .unwrap_or(0);
        let next = THINKING_LEVELS[(at + 1) % THINKING_LEVELS.len()];
        self.front.model_switch().set_thinking(next.as_str())?;
        data(json!({ "level": next.as_str() }))
    }
}
