//! `config.toml` in the tack home: per-plugin configuration and defaults.
//!
//! ```toml
//! provider = "anthropic"
//!
//! [compaction]
//! reserve_tokens = 16384
//! keep_recent_tokens = 20000
//!
//! [plugins.hello-rust]
//! blocked_word = "deploy"
//!
//! [providers.ollama]          # see catalog.rs for provider entries
//! api = "openai"
//! base_url = "http://localhost:11434/v1"
//! secret = ""
//! models = [{ id = "qwen3:8b", context_window = 32768 }]
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;
use tack_runtime::Manifest;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Default provider id (`--provider` overrides).
    #[serde(default)]
    pub provider: Option<String>,
    /// Default model id (`--model` overrides).
    #[serde(default)]
    pub model: Option<String>,
    /// The models Ctrl+P cycles through (patterns as `--models` takes them; `--models`
    /// overrides). Empty: every model whose provider can be used.
    #[serde(default)]
    pub enabled_models: Vec<String>,
    /// The thinking level of a model that thinks, when neither `--thinking` nor `--model …:level`
    /// says (`/settings`). Read from the user's config only, never a project's.
    #[serde(default)]
    pub default_thinking: Option<String>,
    /// The terminal UI's colours: `dark`, `light`, a file `<tack home>/themes/<name>.toml`, or
    /// a Pi theme `<name>.json` there or in an installed Pi package's `themes/` (`/settings`).
    #[serde(default)]
    pub theme: Option<String>,
    /// How the terminal UI tells a user who looks at another window that a run ended or a
    /// plugin asks something: `auto` (by the terminal), `osc777`, `osc9`, `osc99`, `bell`, `off`.
    #[serde(default)]
    pub notify: Option<String>,
    /// Images in the terminal UI's transcript as thumbnails (default) or a one-line mention
    /// (`/settings`).
    #[serde(default)]
    pub show_images: Option<bool>,
    /// Blank columns on each side of the terminal UI's editor, 0 to 4 (`/settings`).
    #[serde(default)]
    pub editor_padding: Option<u16>,
    /// How queued steering messages reach the model: `one-at-a-time` or `all` (`/settings`).
    #[serde(default)]
    pub steering_mode: Option<QueueDelivery>,
    /// How queued follow-ups reach the model: `one-at-a-time` or `all` (`/settings`).
    #[serde(default)]
    pub follow_up_mode: Option<QueueDelivery>,
    /// The program Ctrl+V runs to read an image from the clipboard as PNG on its standard
    /// output, e.g. `["wl-paste", "--type", "image/png"]`. Unset: `wl-paste` under Wayland,
    /// `xclip` under X11, `pngpaste` on macOS. Read from the user's config only, never a
    /// project's: a repository must not choose a program tack runs.
    #[serde(default)]
    pub paste_image_command: Option<Vec<String>>,
    /// Configuration objects keyed by plugin name, merged over the manifest's defaults.
    #[serde(default)]
    pub plugins: BTreeMap<String, toml::Table>,
    /// Automatic compaction; defaults: enabled, reserve_tokens 16384, keep_recent_tokens 20000.
    #[serde(default)]
    pub compaction: CompactionConfig,
    /// Project packages allowed to replace a global package of the same name.
    #[serde(default)]
    pub project_overrides: Vec<String>,
    /// Per-provider settings keyed by provider id.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderSettings>,
    /// `tack install` and `tack update`.
    #[serde(default)]
    pub packages: PackageSettings,
    /// The host's caps on sub-agents (`[subagents]`). Read from the user's config only, never
    /// a project's: a project must not be able to let children nest deeper or spend more.
    #[serde(default)]
    pub subagents: SubagentSettings,
    /// How session files are written (`[sessions]`).
    #[serde(default)]
    pub sessions: SessionSettings,
    /// File checkpoints for `/rewind` (`[checkpoints]`). Read from the user's config only, never
    /// a project's: a repository must not switch off the user's safety net.
    #[serde(default)]
    pub checkpoints: CheckpointSettings,
    /// The command sandbox (`[sandbox]`). Read from the user's config only, never a project's:
    /// a repository must not let its own commands out.
    #[serde(default)]
    pub sandbox: SandboxSettings,
    /// Load Pi's extension folders as Pi does (`~/.pi/agent/extensions/`, and a trusted
    /// project's `.pi/extensions/`), each extension as `tack -e` loads one. Off unless set. Read
    /// from the user's config only, never a project's: a repository must not load its own code.
    #[serde(default)]
    pub pi_extensions: bool,
    /// What this run's command line says to plugins; never read from a file.
    #[serde(skip)]
    pub command_line: PluginCommandLine,
}

/// The plugin flags given on the command line (`--plan`, `--permissions ask`), and whether
/// anyone is there to answer a dialog.
#[derive(Debug, Default, Clone)]
pub struct PluginCommandLine {
    /// Flag names without `--`, with the text given after the flag, if it takes one.
    pub flags: Vec<(String, Option<String>)>,
    pub unattended: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    /// For a new provider: the id of the plugin provider that speaks its API ("openai").
    #[serde(default)]
    pub api: Option<String>,
    /// Where requests go instead of the provider's default (Ollama, vLLM, a proxy).
    #[serde(default)]
    pub base_url: Option<String>,
    /// The secret (env var or auth.json key) holding the API key; "" for none.
    #[serde(default)]
    pub secret: Option<String>,
    /// The header the key goes in instead of the plugin's choice (`api-key` for an Azure
    /// deployment URL on the Chat Completions API).
    #[serde(default)]
    pub key_header: Option<String>,
    /// Compatibility flags handed to the provider plugin.
    #[serde(default)]
    pub options: toml::Table,
    /// Headers sent with every request (`{ "X-Title" = "tack" }`); those that route, frame or
    /// authenticate a request are the host's and refused.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Models added to (or replacing same-id models of) the provider's list.
    #[serde(default)]
    pub models: Vec<ModelSettings>,
    /// Seconds to open a connection (default 30).
    #[serde(default)]
    pub connect_timeout_secs: Option<f64>,
    /// Seconds from sending a request to the first event of its answer (default 300: a thinking
    /// model may reason for minutes before it says anything).
    #[serde(default)]
    pub first_byte_timeout_secs: Option<f64>,
    /// Seconds between two events of a streamed answer (default 300).
    #[serde(default)]
    pub idle_timeout_secs: Option<f64>,
}

impl ProviderSettings {
    /// The stream timeouts this section sets, the defaults for the rest. A value that is not a
    /// positive number of seconds is an error naming the key.
    pub fn timeouts(&self, id: &str) -> anyhow::Result<tack_runtime::bridge::StreamTimeouts> {
        let mut timeouts = tack_runtime::bridge::StreamTimeouts::default();
        for (key, value, slot) in [
            (
                "connect_timeout_secs",
                self.connect_timeout_secs,
                &mut timeouts.connect,
            ),
            (
                "first_byte_timeout_secs",
                self.first_byte_timeout_secs,
                &mut timeouts.first_byte,
            ),
            (
                "idle_timeout_secs",
                self.idle_timeout_secs,
                &mut timeouts.idle,
            ),
        ] {
            if let Some(secs) = value {
                *slot = std::time::Duration::try_from_secs_f64(secs)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "config.toml: [providers.{id}] {key} must be a positive number of seconds, not {secs}"
                        )
                    })?;
            }
        }
        Ok(timeouts)
    }
}

/// `[subagents]`: every field optional, the runtime's defaults otherwise (depth 1, 8 at once,
/// 50 turns, 2,000,000 tokens, 900 s).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentSettings {
    pub max_depth: Option<u32>,
    pub max_concurrent: Option<usize>,
    pub max_turns: Option<u32>,
    pub max_tokens: Option<u64>,
    pub timeout_secs: Option<u64>,
}

/// `[sessions]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSettings {
    /// `fdatasync` after every entry (default off): with it, a crash of the machine, not only
    /// of tack, loses at most the line being written, at the cost of a disk flush per entry.
    pub fsync: Option<bool>,
}

/// `[checkpoints]`: every field optional (default: on, files up to 2 MiB, a store of up to
/// 2 GiB per workspace, workspaces of up to 100,000 files).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointSettings {
    pub enabled: Option<bool>,
    /// Bytes; larger files are not recorded (a note names them) and never restored.
    pub max_file_size: Option<u64>,
    /// Bytes per workspace; past it the oldest checkpoints are pruned.
    pub max_store_size: Option<u64>,
    /// A workspace with more files is not checkpointed (a note says so).
    pub max_files: Option<usize>,
}

impl CheckpointSettings {
    pub fn options(&self) -> tack_checkpoints::Options {
        let d = tack_checkpoints::Options::default();
        tack_checkpoints::Options {
            max_file_bytes: self.max_file_size.unwrap_or(d.max_file_bytes),
            max_store_bytes: self.max_store_size.unwrap_or(d.max_store_bytes),
            max_files: self.max_files.unwrap_or(d.max_files),
            exclude: d.exclude,
        }
    }
}

/// `[sandbox]`: how the commands plugins run are confined; every field optional (default:
/// `workspace-write`, network off, 512 processes).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSettings {
    pub mode: Option<tack_runtime::SandboxMode>,
    /// Whether confined commands may use the network.
    pub network: Option<bool>,
    /// The most processes (and threads) a command may have at once; 0 for no limit.
    pub max_processes: Option<u32>,
    /// Folders also writable in `workspace-write` (`~/` is your home): a build tool's cache,
    /// such as `~/.cargo` or `~/.npm`.
    #[serde(default)]
    pub writable: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageSettings {
    /// Refuse packages their publisher did not sign, as `--require-signature` does.
    pub require_signature: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactionConfig {
    pub enabled: Option<bool>,
    pub reserve_tokens: Option<u64>,
    pub keep_recent_tokens: Option<u64>,
}

impl CompactionConfig {
    pub fn apply(&self, to: &mut tack_core::compaction::CompactionSettings) {
        if let Some(v) = self.enabled {
            to.enabled = v;
        }
        if let Some(v) = self.reserve_tokens {
            to.reserve_tokens = v;
        }
        if let Some(v) = self.keep_recent_tokens {
            to.keep_recent_tokens = v;
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    pub id: String,
    pub name: Option<String>,
    pub context_window: Option<u32>,
    pub max_output_tokens: Option<u32>,
    pub reasoning: Option<bool>,
    /// Whether the model accepts images.
    pub images: Option<bool>,
    /// US dollars per million tokens.
    pub cost_input: Option<f64>,
    pub cost_output: Option<f64>,
    pub cost_cache_read: Option<f64>,
    pub cost_cache_write: Option<f64>,
}

/// A queue's delivery as config.toml writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueDelivery {
    OneAtATime,
    All,
}

impl QueueDelivery {
    pub fn as_str(self) -> &'static str {
        match self {
            QueueDelivery::OneAtATime => "one-at-a-time",
            QueueDelivery::All => "all",
        }
    }

    pub fn mode(self) -> tack_core::agent::DeliveryMode {
        match self {
            QueueDelivery::OneAtATime => tack_core::agent::DeliveryMode::OneAtATime,
            QueueDelivery::All => tack_core::agent::DeliveryMode::All,
        }
    }
}

/// Sets `key` (a dotted path: `compaction.enabled`) in the config file at `path`, keeping the
/// rest of the file (comments, order) as it is; the file is replaced in one rename.
pub fn write_key(path: &Path, key: &str, value: toml_edit::Value) -> Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .with_context(|| format!("{} is malformed", path.display()))?;
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().context("an empty settings key")?;
    let mut table = doc.as_table_mut();
    for part in parts {
        let entry = table
            .entry(part)
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        table = entry
            .as_table_mut()
            .with_context(|| format!("`{part}` in {} is not a table", path.display()))?;
    }
    table.insert(last, toml_edit::Item::Value(value));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let partial = path.with_extension("toml.partial");
    std::fs::write(&partial, doc.to_string())
        .and_then(|()| std::fs::rename(&partial, path))
        .with_context(|| format!("cannot write {}", path.display()))
}

impl Settings {
    /// How the terminal UI draws, from `show_images` and `editor_padding`.
    pub fn display(&self) -> tack_tui::Display {
        let default = tack_tui::Display::default();
        tack_tui::Display {
            show_images: self.show_images.unwrap_or(default.show_images),
            editor_padding: self
                .editor_padding
                .unwrap_or(default.editor_padding)
                .min(tack_tui::Display::MAX_EDITOR_PADDING),
        }
    }

    pub fn load(path: &Path) -> Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                toml::from_str(&text).with_context(|| format!("{} is malformed", path.display()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// The caps on sub-agents this run's children get.
    pub fn subagent_limits(&self) -> tack_runtime::children::ChildLimits {
        let mut limits = tack_runtime::children::ChildLimits::default();
        let s = &self.subagents;
        if let Some(v) = s.max_depth {
            limits.max_depth = v;
        }
        if let Some(v) = s.max_concurrent {
            limits.max_concurrent = v.max(1);
        }
        if let Some(v) = s.max_turns {
            limits.max_turns = v.max(1);
        }
        if let Some(v) = s.max_tokens {
            limits.max_tokens = v;
        }
        if let Some(v) = s.timeout_secs {
            limits.timeout = std::time::Duration::from_secs(v);
        }
        limits
    }

    /// The command sandbox of this run: `--sandbox` over `[sandbox] mode`, the user's credential
    /// folders and the tack home (`tack_home`, with the API keys in `auth.json`) hidden.
    pub fn sandbox_policy(
        &self,
        flag: Option<tack_runtime::SandboxMode>,
        tack_home: &Path,
    ) -> tack_runtime::SandboxPolicy {
        let s = &self.sandbox;
        let mut policy = tack_runtime::SandboxPolicy::new(
            flag.or(s.mode).unwrap_or_default(),
            s.network.unwrap_or(false),
            s.max_processes
                .unwrap_or(tack_runtime::sandbox::DEFAULT_MAX_PROCESSES),
        );
        policy.hide(tack_home);
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
        for dir in &s.writable {
            match (dir.strip_prefix("~/"), &home) {
                (Some(rest), Some(home)) => policy.allow_writes(&Path::new(home).join(rest)),
                _ => policy.allow_writes(Path::new(dir)),
            }
        }
        policy
    }

    /// Applies a project's settings over these: its defaults win, its plugin and provider
    /// entries are merged key by key.
    pub fn merge(&mut self, project: Settings) {
        if project.provider.is_some() {
            self.provider = project.provider;
        }
        if project.model.is_some() {
            self.model = project.model;
        }
        for (name, table) in project.plugins {
            let entry = self.plugins.entry(name).or_default();
            for (k, v) in table {
                entry.insert(k, v);
            }
        }
        for (id, provider) in project.providers {
            self.providers.insert(id, provider);
        }
        let c = project.compaction;
        if c.enabled.is_some() {
            self.compaction.enabled = c.enabled;
        }
        if c.reserve_tokens.is_some() {
            self.compaction.reserve_tokens = c.reserve_tokens;
        }
        if c.keep_recent_tokens.is_some() {
            self.compaction.keep_recent_tokens = c.keep_recent_tokens;
        }
        self.project_overrides.extend(project.project_overrides);
    }

    /// A plugin's configuration, from weakest to strongest: its manifest's defaults (replaced
    /// by its `unattended` ones when nobody can answer), the user's config, its command-line
    /// flags.
    pub fn plugin_config(&self, manifest: &Manifest) -> serde_json::Value {
        let mut merged = manifest.config.clone();
        let user = self.plugins.get(&manifest.plugin.name);
        if self.command_line.unattended {
            for (k, v) in &manifest.unattended {
                if !user.is_some_and(|u| u.contains_key(k)) {
                    merged.insert(k.clone(), v.clone());
                }
            }
        }
        for (k, v) in user.into_iter().flatten() {
            merged.insert(k.clone(), v.clone());
        }
        for flag in &manifest.flags {
            for (name, given) in &self.command_line.flags {
                if *name != flag.name {
                    continue;
                }
                let value = match (&flag.value, given) {
                    (Some(value), _) => value.clone(),
                    (None, Some(text)) => toml::Value::String(text.clone()),
                    (None, None) => continue,
                };
                merged.insert(flag.option.clone(), value);
            }
        }
        serde_json::to_value(merged).unwrap_or_else(|_| serde_json::json!({}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GATE: &str = r#"
[plugin]
name = "gate"
version = "0.1.0"
api = "0.1"
component = "gate.wasm"

[config]
mode = "ask"
defaults = true

[unattended]
mode = "auto"

[[flags]]
name = "permissions"
option = "mode"

[[flags]]
name = "strict"
option = "defaults"
value = false
"#;

    #[test]
    fn checkpoints_are_on_by_default_and_their_caps_are_read() {
        let settings = Settings::default();
        assert_eq!(settings.checkpoints.enabled, None);
        assert_eq!(
            settings.checkpoints.options().max_file_bytes,
            2 * 1024 * 1024
        );
        let settings: Settings =
            toml::from_str("[checkpoints]\nenabled = false\nmax_file_size = 1000\n")
                .expect("parse");
        assert_eq!(settings.checkpoints.enabled, Some(false));
        assert_eq!(settings.checkpoints.options().max_file_bytes, 1000);
        let project: Settings = toml::from_str("[checkpoints]\nenabled = true\n").expect("parse");
        let mut user = settings;
        user.merge(project);
        assert_eq!(
            user.checkpoints.enabled,
            Some(false),
            "a project cannot turn them back on"
        );
        assert!(toml::from_str::<Settings>("[checkpoints]\nmax_size = 1\n").is_err());
    }

    fn config(settings: &Settings) -> serde_json::Value {
        settings.plugin_config(&Manifest::parse(GATE).expect("manifest"))
    }

    #[test]
    fn plugin_config_layers_defaults_unattended_user_and_flags() {
        let mut settings = Settings::default();
        assert_eq!(config(&settings)["mode"], "ask");
        settings.command_line.unattended = true;
        assert_eq!(config(&settings)["mode"], "auto", "nobody to ask");
        settings = toml::from_str("[plugins.gate]\nmode = \"read-only\"\n").expect("parse");
        settings.command_line.unattended = true;
        assert_eq!(
            config(&settings)["mode"],
            "read-only",
            "the user's choice beats the unattended default"
        );
        settings.command_line.flags = vec![
            ("permissions".into(), Some("yolo".into())),
            ("strict".into(), None),
            ("plan".into(), None),
        ];
        let merged = config(&settings);
        assert_eq!(merged["mode"], "yolo", "a flag beats config");
        assert_eq!(merged["defaults"], false, "a switch sets its value");
    }

    #[test]
    fn compaction_settings_override_the_defaults() {
        let settings: Settings =
            toml::from_str("[compaction]\nenabled = false\nkeep_recent_tokens = 5000\n")
                .expect("parse");
        let mut compaction = tack_core::compaction::CompactionSettings::default();
        settings.compaction.apply(&mut compaction);
        assert!(!compaction.enabled);
        assert_eq!(compaction.keep_recent_tokens, 5000);
        assert_eq!(
            compaction.reserve_tokens, 16384,
            "unset keys keep their defaults"
        );
        assert!(
            toml::from_str::<Settings>("[compaction]\nreserve = 1\n").is_err(),
            "typos are errors"
        );
    }
}
