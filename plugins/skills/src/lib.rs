//! skills: Agent Skills for tack. Folders holding a `SKILL.md` (the format Pi, Claude Code and
//! Codex share) are found where the host's `[[paths]]` looked (see tack.toml) and listed in the
//! system prompt with their description and path, so the model reads a skill when a task calls
//! for it; `/skill:<name> args` puts the skill's body and the arguments into the user's message.
//!
//! The plugin reads only the folders the host granted it. A skill outside the workspace is read
//! for the model through the `read` tool's failed result: core-tools keeps to the workspace, so
//! this plugin answers a `read` of a skill's own files itself.

mod discover;
mod prompt;
mod reading;

use std::path::PathBuf;

use serde::Deserialize;
use tack_sdk::{
    agent, export_plugin, log, AgentStartPatch, HookKind, InitContext, InputAction, Plugin,
    Registration, ToolCall, ToolResult,
};

use crate::discover::Skill;

/// The prefix of the commands; `/skill:pdf`.
const COMMAND_PREFIX: &str = "skill:";

#[derive(Deserialize)]
struct Config {
    #[serde(default = "enabled")]
    enabled: bool,
    /// The folders (and files) the host found, weakest first.
    #[serde(default)]
    dirs: Vec<Place>,
}

fn enabled() -> bool {
    true
}

#[derive(Deserialize)]
struct Place {
    path: PathBuf,
    scope: String,
}

#[derive(Default)]
struct Skills {
    skills: Vec<Skill>,
}

impl Skills {
    fn named(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }
}

impl Plugin for Skills {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config =
            serde_json::from_str(&ctx.config).map_err(|e| format!("invalid skills config: {e}"))?;
        let mut registration = Registration::new();
        if !config.enabled {
            return Ok(registration);
        }
        let places: Vec<(PathBuf, String)> =
            config.dirs.into_iter().map(|p| (p.path, p.scope)).collect();
        let (skills, warnings) = discover::load(&places);
        for warning in warnings {
            log::warn(format!("skill {warning}"));
        }
        if skills.is_empty() {
            return Ok(registration);
        }
        for skill in &skills {
            registration = registration.command(
                format!("{COMMAND_PREFIX}{}", skill.name),
                format!("{} ({})", skill.description, skill.scope),
            );
        }
        self.skills = skills;
        Ok(registration
            .hook(HookKind::Input)
            .hook(HookKind::BeforeAgentStart)
            .hook(HookKind::AfterToolCall))
    }

    fn on_input(&mut self, text: &str) -> InputAction {
        let Some(rest) = text
            .strip_prefix('/')
            .and_then(|t| t.strip_prefix(COMMAND_PREFIX))
        else {
            return InputAction::Continue;
        };
        let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let Some(skill) = self.named(name) else {
            return InputAction::Continue;
        };
        match std::fs::read_to_string(&skill.file) {
            Ok(text) => {
                let body = front_matter::parse(&text)
                    .map(|doc| doc.body)
                    .unwrap_or(text);
                InputAction::Transform(prompt::expansion(skill, &body, args))
            }
            Err(e) => {
                log::warn(format!("cannot read {}: {e}", skill.file.display()));
                InputAction::Continue
            }
        }
    }

    fn run_command(&mut self, name: &str, args: &str) -> Result<Option<String>, String> {
        // Reached only when the input hook could not expand the line (its file became
        // unreadable), or through RPC's run_command, which has no prompt to send.
        let line = format!("/{name} {args}");
        match self.on_input(line.trim_end()) {
            InputAction::Transform(_) => Err(format!(
                "/{name} puts the skill into a message: send it as a prompt"
            )),
            _ => Err(format!("/{name}: the skill could not be read")),
        }
    }

    fn before_agent_start(&mut self, _prompt: &str, _system_prompt: &str) -> AgentStartPatch {
        // The model reads a skill with `read`; without it, a list of files it cannot open
        // would only mislead.
        let can_read = agent::active_tools().iter().any(|t| t == "read");
        AgentStartPatch {
            append_system_prompt: prompt::listing(&self.skills).filter(|_| can_read),
            ..AgentStartPatch::default()
        }
    }

    fn after_tool_call(&mut self, call: &ToolCall, result: &ToolResult) -> Option<ToolResult> {
        if call.name != "read" || !result.is_error {
            return None;
        }
        reading::read_for_model(&self.skills, call)
    }
}

export_plugin!(Skills);
