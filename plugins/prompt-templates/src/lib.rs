//! prompt-templates: Markdown files in `prompts/` folders (the tack home's, a trusted project's
//! `.tack/prompts`, packages') become commands. `/review src/lib.rs` expands the file
//! `review.md` with the arguments (see [`expand`]) and the expansion is what is sent to the
//! model, as the user's message: the input hook transforms the line.
//!
//! Front matter: `description` (else the first line of the body) and `argument-hint`, both shown
//! in `/` completion and RPC `get_commands`.
//!
//! `/init` is built in (any folder's `init.md` replaces it): it asks the model to study the
//! repository and write or improve `AGENTS.md`, as Claude Code's and Codex's `/init` do.

mod expand;
mod templates;

use std::path::PathBuf;

use serde::Deserialize;
use tack_sdk::{export_plugin, log, HookKind, InitContext, InputAction, Plugin, Registration};

use crate::templates::{Layout, Template};

#[derive(Deserialize)]
struct Config {
    /// The folders the host found, weakest first.
    #[serde(default)]
    dirs: Vec<Place>,
    /// Claude Code's `commands/` folders.
    #[serde(default)]
    claude_dirs: Vec<Place>,
    /// Codex's `prompts/` folders.
    #[serde(default)]
    codex_dirs: Vec<Place>,
}

#[derive(Deserialize)]
struct Place {
    path: PathBuf,
    scope: String,
}

#[derive(Default)]
struct PromptTemplates {
    templates: Vec<Template>,
}

impl Plugin for PromptTemplates {
    fn init(&mut self, ctx: &InitContext) -> Result<Registration, String> {
        let config: Config = serde_json::from_str(&ctx.config)
            .map_err(|e| format!("invalid prompt-templates config: {e}"))?;
        // tack's own folders last: they win for a name another tool's folder also has.
        let places: Vec<(PathBuf, String, Layout)> = [
            (config.claude_dirs, Layout::Claude),
            (config.codex_dirs, Layout::Codex),
            (config.dirs, Layout::Tack),
        ]
        .into_iter()
        .flat_map(|(dirs, layout)| dirs.into_iter().map(move |p| (p.path, p.scope, layout)))
        .collect();
        let (templates, warnings) = templates::load(&places);
        for warning in warnings {
            log::warn(format!("prompt template {warning}"));
        }
        let mut registration = Registration::new();
        for template in &templates {
            registration = registration.command(&template.name, template.summary());
        }
        self.templates = templates;
        Ok(registration.hook(HookKind::Input))
    }

    fn on_input(&mut self, text: &str) -> InputAction {
        match self.expand(text) {
            Some(expansion) => InputAction::Transform(expansion),
            None => InputAction::Continue,
        }
    }

    fn run_command(&mut self, name: &str, _args: &str) -> Result<Option<String>, String> {
        // Print mode and the terminal UI send the line through the input hook; RPC's
        // run_command has no message to put the expansion in.
        Err(format!(
            "/{name} expands into a message: send it as a prompt"
        ))
    }
}

impl PromptTemplates {
    /// `/name args` for a known template, split as Pi splits it: at the first space.
    fn expand(&self, text: &str) -> Option<String> {
        let rest = text.strip_prefix('/')?;
        let (name, args) = rest.split_once(' ').unwrap_or((rest, ""));
        let template = self.templates.iter().find(|t| t.name == name)?;
        Some(expand::substitute(
            &template.body,
            &expand::parse_args(args),
        ))
    }
}

export_plugin!(PromptTemplates);
