//! `tack plugins`: what is loaded, what each provides, what it may touch.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Result;
use tack_runtime::api::HookKind;
use tack_runtime::{LoadedPlugin, PluginSource};

use crate::cli::Cli;
use crate::models::host_credentials::HostCredentials;
use crate::start::{Front, Loaded, Starting};

pub async fn plugins(cli: Cli) -> Result<ExitCode> {
    let loaded = load(cli).await?;
    let mut out = String::new();
    for plugin in loaded.set.plugins() {
        describe(&mut out, plugin);
    }
    for warning in &loaded.warnings {
        let _ = writeln!(out, "not loaded: {warning}");
    }
    let _ = writeln!(out, "commands run in: {}", loaded.startup.sandbox);
    for missing in &loaded.startup.sandbox_missing {
        let _ = writeln!(out, "  missing: {missing}");
    }
    print!("{out}");
    Ok(if loaded.set.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub async fn models(cli: Cli, search: Option<String>) -> Result<ExitCode> {
    let loaded = load(cli).await?;
    let mut catalog = loaded.catalog()?;
    if let Some(search) = &search {
        for entry in &mut catalog {
            let provider = entry.id.clone();
            entry.spec.models.retain(|m| {
                fuzzy_match(search, &format!("{provider}/{}", m.id)) || fuzzy_match(search, &m.name)
            });
        }
        catalog.retain(|e| !e.spec.models.is_empty());
        if catalog.is_empty() {
            println!("no model matches '{search}'");
            return Ok(ExitCode::FAILURE);
        }
    }
    let mut out = String::new();
    for entry in &catalog {
        let key = match &entry.spec.secret {
            None => match &entry.host_credentials {
                HostCredentials::AwsSigV4 { region, .. } => {
                    format!("AWS credentials, requests signed by tack for {region}")
                }
                HostCredentials::GoogleAdc => {
                    "Google credentials, exchanged for tokens by tack".to_string()
                }
                HostCredentials::ChatGptLogin { auth, .. } => {
                    match crate::subscription::logged_in(auth, &entry.id) {
                        true => "ChatGPT login (signed in)".to_string(),
                        false => format!("ChatGPT login (NOT signed in: tack login {})", entry.id),
                    }
                }
                HostCredentials::None => "no key needed".to_string(),
            },
            Some(name) if loaded.secrets.has(name) => format!("key: {name} (set)"),
            Some(name) => format!("key: {name} (NOT set)"),
        };
        let url = match entry.effective_base_url() {
            "" if entry.missing.is_some() => "no URL set",
            "" => "offline",
            url => url,
        };
        let _ = writeln!(out, "{} ({}) — {url} — {key}", entry.id, entry.spec.name);
        if let Some(missing) = &entry.missing {
            let _ = writeln!(out, "  unusable: {missing}");
        } else if let Some(denied) = entry.denied() {
            let _ = writeln!(out, "  unusable: {denied}");
        }
        if entry.spec.models.is_empty() && entry.discoverable(None) {
            let _ = writeln!(
                out,
                "  (the models the server lists, asked when it is used)"
            );
        }
        for m in &entry.spec.models {
            let mut traits = vec![
                format!("{}k context", m.context_window / 1000),
                format!("{}k out", m.max_output_tokens / 1000),
            ];
            if m.reasoning {
                traits.push("thinking".into());
            }
            if m.input.contains(&tack_runtime::api::InputKind::Image) {
                traits.push("images".into());
            }
            if m.cost.input > 0.0 || m.cost.output > 0.0 {
                traits.push(format!("${}/${} per Mtok", m.cost.input, m.cost.output));
            }
            let _ = writeln!(out, "  {:<32} {}", m.id, traits.join(", "));
        }
    }
    for warning in &loaded.warnings {
        let _ = writeln!(out, "not loaded: {warning}");
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// Whether `text` holds the letters of `search` in order, ignoring case and spaces (Pi's
/// `--list-models` filter).
fn fuzzy_match(search: &str, text: &str) -> bool {
    let mut text = text.chars().flat_map(char::to_lowercase);
    search
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .all(|wanted| text.any(|c| c == wanted))
}

pub(crate) fn describe(out: &mut String, plugin: &LoadedPlugin) {
    let m = &plugin.manifest.plugin;
    let source = match &plugin.source {
        PluginSource::Builtin => "built-in".to_string(),
        PluginSource::Path(p) => p.display().to_string(),
    };
    let _ = writeln!(
        out,
        "{} {} (api {}, {source})",
        m.name, m.version, plugin.api_version
    );
    if !m.description.is_empty() {
        let _ = writeln!(out, "  {}", m.description);
    }
    let reg = &plugin.registration;
    if !reg.tools.is_empty() {
        let names: Vec<&str> = reg.tools.iter().map(|t| t.name.as_str()).collect();
        let _ = writeln!(out, "  tools: {}", names.join(", "));
    }
    if !reg.commands.is_empty() {
        let names: Vec<String> = reg
            .commands
            .iter()
            .map(|c| format!("/{}", c.name))
            .collect();
        let _ = writeln!(out, "  commands: {}", names.join(", "));
    }
    if !reg.hooks.is_empty() {
        let names: Vec<&str> = reg.hooks.iter().map(hook_name).collect();
        let _ = writeln!(out, "  hooks: {}", names.join(", "));
    }
    for provider in &reg.providers {
        let models: Vec<&str> = provider.models.iter().map(|m| m.id.as_str()).collect();
        let _ = writeln!(
            out,
            "  provider {} ({}): {}",
            provider.id,
            provider.name,
            models.join(", ")
        );
    }
    let granted = plugin.capabilities.describe();
    if granted.is_empty() {
        let _ = writeln!(out, "  capabilities: none");
    } else {
        let _ = writeln!(out, "  may: {}", granted.join("; "));
    }
    let denied = plugin.denied.describe();
    if !denied.is_empty() {
        let _ = writeln!(out, "  denied (not granted): {}", denied.join("; "));
    }
    if let Some(reason) = plugin.disabled_reason() {
        let _ = writeln!(out, "  DISABLED: {reason}");
    }
}

fn hook_name(hook: &HookKind) -> &'static str {
    match hook {
        HookKind::BeforeToolCall => "before-tool-call",
        HookKind::AfterToolCall => "after-tool-call",
        HookKind::Input => "input",
        HookKind::BeforeAgentStart => "before-agent-start",
        HookKind::Context => "context",
        HookKind::BeforeCompact => "before-compact",
    }
}

/// The plugins as a run would load them, with nobody to answer dialogs.
async fn load(cli: Cli) -> Result<Loaded> {
    Ok(Starting::load(cli, Front::headless()).await?.into_loaded())
}

#[cfg(test)]
mod tests {
    use super::fuzzy_match;

    #[test]
    fn a_search_matches_letters_in_order() {
        assert!(fuzzy_match("sonnet", "anthropic/claude-sonnet-4-5"));
        assert!(fuzzy_match("oai5", "openai/gpt-5"));
        assert!(fuzzy_match("GPT 5", "openai/gpt-5"));
        assert!(!fuzzy_match("5gpt", "openai/gpt-5"));
        assert!(!fuzzy_match("gemini", "anthropic/claude-sonnet-4-5"));
    }
}
