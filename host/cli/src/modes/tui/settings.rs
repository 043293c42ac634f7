//! `/settings`: the preferences a user changes often, each picked to step to its next value,
//! applied at once and written to `<tack home>/config.toml` (the rest of the file untouched).

use anyhow::{Context, Result};
use tack_core::agent::DeliveryMode;
use tack_tui::{Picker, PickerItem, PickerKind, UiEvent};

use super::controller::Controller;
use crate::settings::{QueueDelivery, Settings};

const THINKING: [&str; 5] = ["off", "minimal", "low", "medium", "high"];

/// The settings the picker lists, by their config.toml key.
const KEYS: [&str; 7] = [
    "default_thinking",
    "steering_mode",
    "follow_up_mode",
    "compaction.enabled",
    "theme",
    "show_images",
    "editor_padding",
];

impl Controller {
    fn config_path(&self) -> std::path::PathBuf {
        self.front.loaded.home.root().join("config.toml")
    }

    pub fn settings_picker(&self, selected: usize) -> Result<Picker> {
        let saved = Settings::load(&self.config_path())?;
        let (steering, follow_up) = self.front.agent.queues().modes();
        let delivery = |mode: DeliveryMode| match mode {
            DeliveryMode::OneAtATime => "one-at-a-time",
            DeliveryMode::All => "all",
        };
        let compaction = self.front.agent.config().compaction.enabled;
        let display = saved.display();
        let rows = [
            (
                "Default thinking level",
                saved.default_thinking.unwrap_or_else(|| "off".into()),
            ),
            ("Steering delivery", delivery(steering).to_string()),
            ("Follow-up delivery", delivery(follow_up).to_string()),
            (
                "Auto-compaction",
                if compaction { "on" } else { "off" }.to_string(),
            ),
            (
                "Theme",
                saved.theme.clone().unwrap_or_else(|| "dark".into()),
            ),
            (
                "Show images",
                if display.show_images { "on" } else { "off" }.to_string(),
            ),
            ("Editor padding", display.editor_padding.to_string()),
        ];
        let items = rows
            .into_iter()
            .zip(KEYS)
            .map(|((label, value), key)| PickerItem {
                label: format!("{label}: {value}"),
                detail: format!("{key} in config.toml"),
                value: key.to_string(),
                ..Default::default()
            })
            .collect();
        Ok(Picker {
            kind: PickerKind::Settings,
            title: "Settings (Enter changes; Esc closes)".into(),
            items,
            selected,
            ..Default::default()
        })
    }

    /// Steps `key` to its next value, applies it and saves it; the picker opens again on it.
    pub fn change_setting(&self, key: &str) -> Result<Option<String>> {
        let path = self.config_path();
        let saved = Settings::load(&path)?;
        let agent = &self.front.agent;
        let said = match key {
            "default_thinking" => {
                let current = saved.default_thinking.as_deref().unwrap_or("off");
                let at = THINKING.iter().position(|l| *l == current).unwrap_or(0);
                let next = THINKING[(at + 1) % THINKING.len()];
                crate::settings::write_key(&path, key, next.into())?;
                let mut said = format!("Default thinking level: {next}");
                if agent.config().model.reasoning {
                    let (level, _) = self.front.model_switch().set_thinking(next)?;
                    said.push_str(&format!(" (now {})", level.as_str()));
                }
                said
            }
            "steering_mode" | "follow_up_mode" => {
                let (steering, follow_up) = agent.queues().modes();
                let current = if key == "steering_mode" {
                    steering
                } else {
                    follow_up
                };
                let next = match current {
                    DeliveryMode::OneAtATime => QueueDelivery::All,
                    DeliveryMode::All => QueueDelivery::OneAtATime,
                };
                if key == "steering_mode" {
                    agent.queues().set_steering_mode(next.mode());
                } else {
                    agent.queues().set_follow_up_mode(next.mode());
                }
                crate::settings::write_key(&path, key, next.as_str().into())?;
                format!("{key}: {}", next.as_str())
            }
            "compaction.enabled" => {
                let next = !agent.config().compaction.enabled;
                agent.update_config(|c| c.compaction.enabled = next);
                crate::settings::write_key(&path, key, next.into())?;
                format!("Auto-compaction: {}", if next { "on" } else { "off" })
            }
            "theme" => {
                let dirs = &self.front.loaded.theme_dirs;
                let names = tack_tui::Theme::names(dirs);
                let current = saved.theme.as_deref().unwrap_or("dark");
                let at = names.iter().position(|n| n == current).unwrap_or(0);
                let next = names[(at + 1) % names.len()].clone();
                let palette = tack_tui::Theme::palette(&next, dirs).map_err(anyhow::Error::msg)?;
                self.send(UiEvent::Palette {
                    name: next.clone(),
                    palette,
                });
                crate::settings::write_key(&path, key, next.as_str().into())?;
                format!("Theme: {next}")
            }
            "show_images" | "editor_padding" => {
                let mut display = saved.display();
                let said = if key == "show_images" {
                    display.show_images = !display.show_images;
                    crate::settings::write_key(&path, key, display.show_images.into())?;
                    format!(
                        "Show images: {}",
                        if display.show_images { "on" } else { "off" }
                    )
                } else {
                    display.editor_padding =
                        (display.editor_padding + 1) % (tack_tui::Display::MAX_EDITOR_PADDING + 1);
                    crate::settings::write_key(
                        &path,
                        key,
                        i64::from(display.editor_padding).into(),
                    )?;
                    format!("Editor padding: {}", display.editor_padding)
                };
                self.send(UiEvent::Display(display));
                said
            }
            other => return Err(anyhow::anyhow!("no setting '{other}'")),
        };
        let at = KEYS.iter().position(|k| *k == key).unwrap_or(0);
        let picker = self
            .settings_picker(at)
            .context("reading the settings again")?;
        self.send(UiEvent::Picker(picker));
        Ok(Some(format!("{said} (saved to {})", path.display())))
    }
}
