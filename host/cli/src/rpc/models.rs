//! `set_model`, `get_available_models` and `set_thinking_level`, and keeping the session's
//! record of the model in step with the agent's configuration.

use anyhow::{bail, Context, Result};
use clap::Parser;
use serde_json::json;
use tack::rpc_protocol::{AvailableModel, ModelChoice};
use tack_core::agent::ReasoningLevel;
use tack_core::session::EntryKind;

use super::server::{data, Reply, Server};
use crate::app::{self, Chosen};
use crate::cli::Cli;

impl Server {
    pub fn set_model(&self, provider: &str, model_id: &str) -> Reply {
        let chosen = self.choose(provider, model_id)?;
        self.use_model(chosen);
        self.record_model()?;
        self.model_choice()
    }

    pub fn available_models(&self) -> Reply {
        let catalog = crate::catalog::build(&self.loaded.set, &self.loaded.settings)?;
        let mut models = Vec::new();
        for entry in &catalog {
            let key_available = entry.key_available(&self.loaded.secrets)
                || (entry.id == self.startup_provider && self.cli.api_key.is_some());
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
        let parsed = ReasoningLevel::parse(level).with_context(|| {
            format!("unknown thinking level '{level}' (off, minimal, low, medium, high)")
        })?;
        let model = self.agent.config().model;
        if parsed != ReasoningLevel::Off && !model.reasoning {
            bail!("model '{}' does not support thinking", model.id);
        }
        self.agent.update_config(|c| c.reasoning = parsed);
        self.record_model()?;
        self.model_choice()
    }

    /// After a session change: the model and thinking level the session last recorded, when
    /// they are still available, else the current ones, recorded in the session.
    pub fn adopt_session_model(&self) -> Result<()> {
        let (recorded, thinking) = {
            let s = self.session.lock();
            (
                s.model().map(|(p, m)| (p.to_string(), m.to_string())),
                s.thinking_level().and_then(ReasoningLevel::parse),
            )
        };
        let current = self.agent.config().model;
        if let Some((provider, model)) = recorded {
            if (provider.as_str(), model.as_str())
                != (current.provider.as_str(), current.id.as_str())
            {
                match self.choose(&provider, &model) {
                    Ok(chosen) => self.use_model(chosen),
                    Err(e) => eprintln!(
                        "tack: warning: the session used {provider}/{model}, which is not available \
                         ({e:#}); staying with {}/{}",
                        current.provider, current.id
                    ),
                }
            }
        }
        if let Some(level) = thinking {
            if level == ReasoningLevel::Off || self.agent.config().model.reasoning {
                self.agent.update_config(|c| c.reasoning = level);
            }
        }
        self.record_model()
    }

    /// Resolves a provider and model the way `--provider` and `--model` do; the key and base URL
    /// given on the command line stay with the provider they were given for.
    fn choose(&self, provider: &str, model_id: &str) -> Result<Chosen> {
        let mut args = vec![
            "tack".to_string(),
            format!("--provider={provider}"),
            format!("--model={model_id}"),
        ];
        if provider == self.startup_provider {
            if let Some(key) = &self.cli.api_key {
                args.push(format!("--api-key={key}"));
            }
            if let Some(url) = &self.cli.base_url {
                args.push(format!("--base-url={url}"));
            }
        }
        let cli = Cli::try_parse_from(args).map_err(|e| anyhow::anyhow!("{e}"))?;
        app::choose_provider(&cli, &self.loaded, None)
    }

    /// Makes `chosen` the model of the next runs (a running run keeps its own).
    fn use_model(&self, chosen: Chosen) {
        self.router.add(&chosen.model.provider, chosen.provider);
        let model = chosen.model;
        let options = chosen.options;
        self.agent.update_config(|c| {
            if !model.reasoning {
                c.reasoning = ReasoningLevel::Off;
            }
            c.model = model;
            c.provider_options = options;
        });
    }

    /// Appends model_change / thinking_level_change entries where the session's latest ones
    /// differ from the configuration, so the session knows which model wrote what.
    pub fn record_model(&self) -> Result<()> {
        let config = self.agent.config();
        let mut s = self.session.lock();
        let model = (config.model.provider.as_str(), config.model.id.as_str());
        if s.model() != Some(model) {
            s.append(EntryKind::ModelChange {
                provider: config.model.provider.clone(),
                model_id: config.model.id.clone(),
            })?;
        }
        let level = config.reasoning.as_str();
        if s.thinking_level().unwrap_or("off") != level {
            s.append(EntryKind::ThinkingLevelChange {
                thinking_level: level.to_string(),
            })?;
        }
        Ok(())
    }

    fn model_choice(&self) -> Reply {
        let config = self.agent.config();
        data(ModelChoice {
            model: config.model,
            thinking_level: config.reasoning.as_str().to_string(),
        })
    }
}
