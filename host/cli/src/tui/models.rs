//! `/model` and `/thinking`, keeping the session's record of the model in step with the agent's
//! configuration, and what the footer shows. The same rules as RPC mode's `set_model`.

use anyhow::{bail, Context, Result};
use clap::Parser;
use tack_core::agent::ReasoningLevel;
use tack_core::message::Message;
use tack_core::session::EntryKind;
use tack_tui::{FooterInfo, Picker, PickerItem, PickerKind};

use super::controller::Controller;
use crate::app::{self, Chosen};
use crate::cli::Cli;

const LEVELS: [&str; 5] = ["off", "minimal", "low", "medium", "high"];

impl Controller {
    pub fn model_picker(&self) -> Result<Picker> {
        let catalog = crate::catalog::build(&self.loaded.set, &self.loaded.settings)?;
        let current = self.agent.config().model;
        let mut items = Vec::new();
        let mut selected = 0;
        for entry in &catalog {
            let key = entry.key_available(&self.loaded.secrets)
                || (entry.id == self.startup_provider && self.cli.api_key.is_some());
            for m in &entry.spec.models {
                if entry.id == current.provider && m.id == current.id {
                    selected = items.len();
                }
                let mut detail = format!("{} · {}k context", m.name, m.context_window / 1000);
                if m.reasoning {
                    detail.push_str(" · thinking");
                }
                if !key {
                    detail.push_str(" · no API key");
                }
                items.push(PickerItem {
                    label: format!("{}/{}", entry.id, m.id),
                    detail,
                    value: format!("{}/{}", entry.id, m.id),
                });
            }
        }
        Ok(Picker {
            kind: PickerKind::Model,
            title: "Model".into(),
            items,
            selected,
        })
    }

    pub fn thinking_picker(&self) -> Picker {
        let current = self.agent.config().reasoning.as_str();
        Picker {
            kind: PickerKind::Thinking,
            title: "Thinking level".into(),
            items: LEVELS
                .iter()
                .map(|l| PickerItem {
                    label: l.to_string(),
                    detail: String::new(),
                    value: l.to_string(),
                })
                .collect(),
            selected: LEVELS.iter().position(|l| *l == current).unwrap_or(0),
        }
    }

    /// `provider/model`, or a model id of the current provider.
    pub fn set_model_arg(&self, arg: &str) -> Result<String> {
        let arg = arg.trim();
        let (provider, model) = match arg.split_once('/') {
            Some((p, m)) => (p.to_string(), m.to_string()),
            None => (self.agent.config().model.provider, arg.to_string()),
        };
        let chosen = self.choose(&provider, &model)?;
        self.use_model(chosen);
        self.record_model()?;
        let config = self.agent.config();
        Ok(format!(
            "Model: {}/{}",
            config.model.provider, config.model.id
        ))
    }

    pub fn set_thinking(&self, level: &str) -> Result<String> {
        let parsed = ReasoningLevel::parse(level.trim()).with_context(|| {
            format!("unknown thinking level '{level}' (off, minimal, low, medium, high)")
        })?;
        let model = self.agent.config().model;
        if parsed != ReasoningLevel::Off && !model.reasoning {
            bail!("model '{}' does not support thinking", model.id);
        }
        self.agent.update_config(|c| c.reasoning = parsed);
        self.record_model()?;
        Ok(format!("Thinking: {}", parsed.as_str()))
    }

    /// After a session change: the model and thinking level the session last recorded, when
    /// still available, else the current ones, recorded in the session.
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
                    Err(e) => self.send(tack_tui::UiEvent::Error(format!(
                        "the session used {provider}/{model}, which is not available ({e:#}); \
                         staying with {}/{}",
                        current.provider, current.id
                    ))),
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

    pub fn footer(&self) -> FooterInfo {
        let config = self.agent.config();
        FooterInfo {
            model: format!("{}/{}", config.model.provider, config.model.id),
            thinking: Some(config.reasoning.as_str().to_string()),
            cwd: super::info::short_path(&self.loaded.cwd),
            git_branch: super::info::git_branch(&self.loaded.cwd),
            context_window: config.model.context_window,
            session_name: self.session.lock().name().map(str::to_string),
        }
    }

    /// The session's prompts, oldest first, for the editor's history.
    pub fn history(&self) -> Vec<String> {
        self.session
            .lock()
            .branch()
            .into_iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Message(m) => match m.as_ref() {
                    Message::User(u) => Some(u.text_content()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }
}
