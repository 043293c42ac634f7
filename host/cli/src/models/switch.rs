//! Changing the model and thinking level in the interactive modes (RPC's `set_model`, the
//! terminal UI's `/model`), and keeping the session's record of them in step with the agent's
//! configuration. How a change is asked for and answered stays with each mode.

use anyhow::{Context, Result};
use clap::Parser;
use serde_json::json;
use tack_core::agent::{ModelInfo, ReasoningLevel};
use tack_core::session::{EntryKind, SessionHandle};
use tack_core::Agent;

use super::choose::{self, Chosen};
use crate::cli::Cli;
use crate::models::catalog::ProviderEntry;
use crate::models::router::ProviderRouter;
use crate::start::load::Loaded;

/// What a model change reaches, borrowed from the mode's state.
pub struct ModelSwitch<'a> {
    pub agent: &'a Agent,
    pub session: &'a SessionHandle,
    pub router: &'a ProviderRouter,
    pub loaded: &'a Loaded,
    pub cli: &'a Cli,
    /// The provider chosen at start, to which `--api-key` and `--base-url` apply.
    pub startup_provider: &'a str,
}

impl ModelSwitch<'_> {
    /// Makes `provider`/`model_id` the model of the next runs and records it in the session.
    pub fn set_model(&self, provider: &str, model_id: &str) -> Result<()> {
        self.set_model_from(provider, model_id, "set")
    }

    /// [`set_model`](Self::set_model), saying why to plugins (Pi's `model_select` source:
    /// `set` or `cycle`).
    pub(crate) fn set_model_from(
        &self,
        provider: &str,
        model_id: &str,
        source: &'static str,
    ) -> Result<()> {
        let chosen = self.choose(provider, model_id)?;
        let previous = self.agent.config().model;
        self.use_model(chosen);
        self.announce_model(&previous, source);
        self.record_model()
    }

    /// Tells the plugins that subscribed to `model_select` (0.2.0 `events`) that the model
    /// changed from `previous`.
    fn announce_model(&self, previous: &ModelInfo, source: &str) {
        let model = self.agent.config().model;
        self.announce(
            "model_select",
            json!({
                "model": model_json(&model),
                "previousModel": model_json(previous),
                "source": source,
            }),
        );
    }

    /// Delivers Pi's `model_select` or `thinking_level_select` to the plugins that subscribed
    /// by name, on the runtime after the change: a mode's model switch never waits for a plugin.
    fn announce(&self, name: &'static str, data: serde_json::Value) {
        if !self
            .loaded
            .set
            .plugins()
            .iter()
            .any(|p| p.wants_event(name))
        {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let hooks = tack_runtime::bridge::PluginHooks::new(self.loaded.set.clone());
        runtime.spawn(async move { hooks.announce(name, data).await });
    }

    /// Sets the thinking level, recorded in the session. A level the model cannot use is
    /// clamped to one it can (as Pi does), with a note saying so.
    pub fn set_thinking(&self, level: &str) -> Result<(ReasoningLevel, Option<String>)> {
        let asked = crate::models::pattern::Thinking::parse(level).with_context(|| {
            format!(
                "unknown thinking level '{level}' ({})",
                crate::models::pattern::LEVELS
            )
        })?;
        let config = self.agent.config();
        let (level, note) =
            crate::models::pattern::clamp(asked, config.model.reasoning, &config.model.id);
        self.agent.update_config(|c| c.reasoning = level);
        self.announce(
            "thinking_level_select",
            json!({ "level": level.as_str(), "previousLevel": config.reasoning.as_str() }),
        );
        self.record_model()?;
        Ok((level, note))
    }

    /// Whether the provider's models can be used: its key is stored, or it was given on the
    /// command line for the startup provider.
    pub fn key_available(&self, entry: &ProviderEntry) -> bool {
        entry.key_available(&self.loaded.secrets)
            || (entry.id == self.startup_provider && self.cli.api_key.is_some())
    }

    /// After a session change: the model and thinking level the session last recorded, when
    /// they are still available, else the current ones, recorded in the session. A recorded
    /// model that is not available goes to `warn`, as each mode reports warnings its own way;
    /// it is told before recording, which may fail.
    pub fn adopt_session_model(&self, warn: impl FnOnce(String)) -> Result<()> {
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
                    Ok(chosen) => {
                        self.use_model(chosen);
                        self.announce_model(&current, "restore");
                    }
                    Err(e) => warn(format!(
                        "the session used {provider}/{model}, which is not available ({e:#}); \
                         staying with {}/{}",
                        current.provider, current.id
                    )),
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
        choose::choose(&cli, self.loaded, None)
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
    fn record_model(&self) -> Result<()> {
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
}

/// A model as `model_select` names it (Pi's `Model` fields a plugin can use; no prices).
fn model_json(model: &ModelInfo) -> serde_json::Value {
    json!({
        "provider": model.provider,
        "id": model.id,
        "name": model.name,
        "contextWindow": model.context_window,
        "reasoning": model.reasoning,
    })
}
