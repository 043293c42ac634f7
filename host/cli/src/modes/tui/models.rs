//! `/model` and `/thinking`: the pickers and replies around the shared [`ModelSwitch`], and
//! what the footer shows.

use anyhow::Result;
use tack_core::message::Message;
use tack_core::session::EntryKind;
use tack_tui::{FooterInfo, Picker, PickerItem, PickerKind, UiEvent};

use super::controller::Controller;

const LEVELS: [&str; 5] = ["off", "minimal", "low", "medium", "high"];

impl Controller {
    pub fn model_picker(&self) -> Result<Picker> {
        let catalog = self.front.loaded.catalog()?;
        let current = self.front.agent.config().model;
        let switch = self.front.model_switch();
        let mut items = Vec::new();
        let mut selected = 0;
        for entry in &catalog {
            let key = switch.key_available(entry);
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
                    ..Default::default()
                });
            }
        }
        Ok(Picker {
            kind: PickerKind::Model,
            title: "Model".into(),
            items,
            selected,
            ..Default::default()
        })
    }

    pub fn thinking_picker(&self) -> Picker {
        let current = self.front.agent.config().reasoning.as_str();
        Picker {
            kind: PickerKind::Thinking,
            title: "Thinking level".into(),
            items: LEVELS
                .iter()
                .map(|l| PickerItem {
                    label: l.to_string(),
                    detail: String::new(),
                    value: l.to_string(),
                    ..Default::default()
                })
                .collect(),
            selected: LEVELS.iter().position(|l| *l == current).unwrap_or(0),
            ..Default::default()
        }
    }

    /// `provider/model`, or a model id of the current provider.
    pub fn set_model_arg(&self, arg: &str) -> Result<String> {
        let arg = arg.trim();
        let (provider, model) = match arg.split_once('/') {
            Some((p, m)) => (p.to_string(), m.to_string()),
            None => (self.front.agent.config().model.provider, arg.to_string()),
        };
        self.front.model_switch().set_model(&provider, &model)?;
        let config = self.front.agent.config();
        Ok(format!(
            "Model: {}/{}",
            config.model.provider, config.model.id
        ))
    }

    pub fn set_thinking(&self, level: &str) -> Result<String> {
        let (level, note) = self.front.model_switch().set_thinking(level.trim())?;
        Ok(match note {
            Some(note) => format!("Thinking: {} ({note})", level.as_str()),
            None => format!("Thinking: {}", level.as_str()),
        })
    }

    /// Ctrl+P / Shift+Ctrl+P: the next model of the scope (`--models`, `enabled_models`), else
    /// of every usable one.
    pub fn cycle_model(&self, forward: bool) {
        if self.driver.is_running() {
            self.send(UiEvent::Error(
                "the model changes once the run is over; wait, or press Esc".into(),
            ));
            return;
        }
        match self.front.model_switch().cycle(forward) {
            Ok(Some(cycled)) => {
                let config = self.front.agent.config();
                let mut text = format!("Model: {}/{}", config.model.provider, config.model.id);
                if config.model.reasoning {
                    text.push_str(&format!(" · thinking {}", config.reasoning.as_str()));
                }
                if let Some(note) = cycled.note {
                    text.push_str(&format!(" ({note})"));
                }
                self.send(UiEvent::Info(text));
            }
            Ok(None) => self.send(UiEvent::Info(
                "No other model to switch to (see /model, --models)".into(),
            )),
            Err(e) => self.send(UiEvent::Error(format!("{e:#}"))),
        }
        self.send(UiEvent::Footer(self.footer()));
    }

    /// Shift+Tab: off → minimal → low → medium → high → off.
    pub fn cycle_thinking(&self) {
        let config = self.front.agent.config();
        if !config.model.reasoning {
            self.send(UiEvent::Info(format!(
                "Model '{}' does not think; its thinking level stays off",
                config.model.id
            )));
            return;
        }
        let at = LEVELS
            .iter()
            .position(|l| *l == config.reasoning.as_str())
            .unwrap_or(0);
        let next = LEVELS[(at + 1) % LEVELS.len()];
        match self.set_thinking(next) {
            Ok(text) => self.send(UiEvent::Info(text)),
            Err(e) => self.send(UiEvent::Error(format!("{e:#}"))),
        }
        self.send(UiEvent::Footer(self.footer()));
    }

    pub fn footer(&self) -> FooterInfo {
        super::info::footer(&self.front)
    }

    /// The session's prompts, oldest first, for the editor's history.
    pub fn history(&self) -> Vec<String> {
        self.front
            .session
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
