//! `set_model`, `get_available_models` and `set_thinking_level`: the RPC replies around the
//! shared [`ModelSwitch`].

use serde_json::json;
use tack::rpc_protocol::{AvailableModel, ModelChoice};

use super::server::{data, Reply, Server};
use crate::app;

impl Server {
    pub fn set_model(&self, provider: &str, model_id: &str) -> Reply {
        self.front.model_switch().set_model(provider, model_id)?;
        self.model_choice()
    }

    pub fn available_models(&self) -> Reply {
        let catalog = crate::catalog::build(&self.front.loaded.set, &self.front.loaded.settings)?;
        let switch = self.front.model_switch();
        let mut models = Vec::new();
        for entry in &catalog {
            let key_available = switch.key_available(entry);
            for spec in &entry.spec.models {
                models.push(AvailableModel {
                    model: app::model_info(&entry.id, spec),
                    key_available,
                });
            }
        }
        data(json!({ "models": models }))
    }

    pub fn set_thinking_level(&self, level: &str) -> Reply {
        self.front.model_switch().set_thinking(level)?;
        self.model_choice()
    }

    fn model_choice(&self) -> Reply {
        let config = self.front.agent.config();
        data(ModelChoice {
            model: config.model,
            thinking_level: config.reasoning.as_str().to_string(),
        })
    }
}
