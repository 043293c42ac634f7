//! Commands that become prompts. A plugin may register a command whose line is meant for the
//! model (`/review src/lib.rs` from a prompt template, `/skill:pdf` from a skill): before the
//! command runs, the line goes to the input hook of the plugin that registered it, if it has one.
//! A transform is the text sent to the model as the user's message; `handled` ends it there;
//! `continue` runs the command as any other.

use tack_runtime::api::{self, HookKind};
use tack_runtime::LoadedPlugin;

pub enum Routed {
    /// Send this to the model as the prompt.
    Prompt(String),
    /// The plugin dealt with the line.
    Handled,
    /// Run the command.
    Command,
}

/// Where `/name args`, a command of `plugin`, goes.
pub async fn route(plugin: &LoadedPlugin, name: &str, args: &str) -> Routed {
    if !plugin.subscribes(HookKind::Input) || plugin.disabled_reason().is_some() {
        return Routed::Command;
    }
    let line = if args.is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {args}")
    };
    match plugin.on_input(&line).await {
        Ok(api::InputAction::Transform(text)) => Routed::Prompt(text),
        Ok(api::InputAction::Handled) => Routed::Handled,
        Ok(api::InputAction::Continue) | Err(_) => Routed::Command,
    }
}
