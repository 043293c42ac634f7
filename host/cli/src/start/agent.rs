//! Building the agent: its tools (`--tools` and friends), hooks, system prompt, model and
//! provider, compaction and queue settings, and the sub-agents it may start.

use std::sync::Arc;

use anyhow::{bail, Result};
use tack_core::agent::{ModelInfo, ReasoningLevel};
use tack_core::session::{EntryKind, SessionHandle};
use tack_core::system_prompt::{build_system_prompt, today, PromptInputs};
use tack_core::{Agent, AgentConfig};
use tack_runtime::bridge::{PluginHooks, PluginTools};

use super::load::Loaded;
use crate::cli::Cli;
use crate::models::choose::{model_info, Chosen};

/// The agent over the loaded plugins' tools and hooks, with the chosen provider and model, the
/// system prompt, and the services plugins reach attached.
pub(super) fn build(
    cli: &Cli,
    loaded: &Loaded,
    chosen: Chosen,
    session: SessionHandle,
    sink: Arc<dyn tack_core::EventSink>,
) -> Result<Agent> {
    let tools = Arc::new(PluginTools::new(loaded.set.clone()));
    let hooks = Arc::new(PluginHooks::new(loaded.set.clone()));
    loaded.backends.session.attach(session.clone());
    loaded.backends.agent.attach_tools(tools.clone());

    choose_tools(cli, loaded, &tools)?;
    let active = tack_core::ToolExecutor::tools(tools.as_ref());
    let system_prompt = build_system_prompt(&PromptInputs {
        tools: &active,
        cwd: &loaded.cwd,
        date: today(),
        context_files: &loaded.context_files,
        custom: loaded.prompt_files.replace.as_deref(),
        append: &loaded.prompt_files.append,
    });
    record_model(
        &session,
        &chosen.model,
        chosen.reasoning.map(ReasoningLevel::as_str),
    )?;
    let mut config = AgentConfig::new(chosen.model, system_prompt);
    if let Some(level) = chosen.reasoning {
        config.reasoning = level;
    }
    config.provider_options = chosen.options;
    loaded.settings.compaction.apply(&mut config.compaction);
    let agent = Agent::new(config, chosen.provider, tools.clone(), session.clone())
        .with_hooks(hooks)
        .with_events(sink.clone());
    attach_children(loaded, &agent, session)?;
    if let Some(mode) = loaded.settings.steering_mode {
        agent.queues().set_steering_mode(mode.mode());
    }
    if let Some(mode) = loaded.settings.follow_up_mode {
        agent.queues().set_follow_up_mode(mode.mode());
    }
    loaded.backends.agent.attach_queues(agent.queues());
    loaded.backends.events.attach(sink);
    Ok(agent)
}

/// Sub-agents (`tack:agents`) start from `agent`: its provider, tools, hooks and model, and
/// any model the catalog lists, another provider's set up as `--model provider/id` would be
/// (its key must be there, and the host must let it send requests where it does). The catalog
/// is read anew each time, so a provider a plugin registers while tack runs can serve them.
fn attach_children(loaded: &Loaded, agent: &Agent, session: SessionHandle) -> Result<()> {
    let live = Arc::new(LiveCatalog::of(loaded));
    let children = Arc::new(tack_runtime::children::ChildRuns::new(
        loaded.settings.subagent_limits(),
    ));
    children.attach(agent.child_factory(), session, live.models()?);
    let listing = live.clone();
    children.list_models_with(Arc::new(move || listing.models().unwrap_or_default()));
    let http = loaded.runtime.http().clone();
    let payload_hooks = tack_runtime::bridge::PayloadHooks::new(&loaded.set);
    children.resolve_models_with(Arc::new(move |model: &ModelInfo| {
        let catalog = live.entries().map_err(|e| format!("{e:#}"))?;
        let entry = catalog
            .iter()
            .find(|e| e.id == model.provider)
            .ok_or_else(|| format!("no provider '{}'", model.provider))?;
        if !entry.key_available(&live.secrets) {
            return Err(format!(
                "provider '{}' has no API key set{}",
                entry.id,
                entry
                    .spec
                    .secret
                    .as_deref()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default()
            ));
        }
        if let Some(missing) = &entry.missing {
            return Err(format!(
                "provider '{}' has nowhere to send requests: {missing}",
                entry.id
            ));
        }
        if let Some(denied) = entry.denied() {
            return Err(format!("provider '{}' cannot be used: {denied}", entry.id));
        }
        let provider = entry.provider(crate::models::serve::Serving {
            base_url: entry.base_url.clone(),
            secrets: live.secrets.clone(),
            user_secret: entry.secret_from_user,
            http: &http,
            payload_hooks: payload_hooks.clone(),
            host_credentials: &entry.host_credentials,
        })?;
        Ok(tack_runtime::children::ResolvedModel {
            model: model.clone(),
            provider,
            options: entry.options_for(&model.id),
        })
    }));
    loaded.backends.agent.attach_children(children);
    Ok(())
}

/// What the model catalog is built from, held apart from [`Loaded`] so that the sub-agents'
/// resolver can read the catalog as it is when a child starts.
struct LiveCatalog {
    set: Arc<tack_runtime::PluginSet>,
    configured: std::collections::BTreeMap<String, crate::settings::ProviderSettings>,
    secrets: tack_runtime::broker::secrets::SecretStore,
    registry: Arc<tack_runtime::ProviderRegistry>,
}

impl LiveCatalog {
    fn of(loaded: &Loaded) -> LiveCatalog {
        LiveCatalog {
            set: loaded.set.clone(),
            configured: loaded.settings.providers.clone(),
            secrets: loaded.secrets.clone(),
            registry: tack_runtime::PluginAgent::providers(&*loaded.backends.agent),
        }
    }

    fn entries(&self) -> Result<Vec<crate::models::catalog::ProviderEntry>> {
        crate::models::catalog::build(
            &self.set,
            &self.configured,
            &self.secrets,
            &self.registry.list(),
        )
    }

    fn models(&self) -> Result<Vec<ModelInfo>> {
        Ok(self
            .entries()?
            .iter()
            .flat_map(|entry| entry.spec.models.iter().map(|m| model_info(&entry.id, m)))
            .collect())
    }
}

/// `--tools`, `--no-tools`, `--no-builtin-tools`: the tools active from the start.
fn choose_tools(cli: &Cli, loaded: &Loaded, tools: &PluginTools) -> Result<()> {
    let all = tools.all_names();
    let chosen: Vec<String> = if cli.no_tools {
        Vec::new()
    } else if let Some(names) = &cli.tools {
        let names: Vec<String> = names
            .iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        let unknown: Vec<&str> = names
            .iter()
            .filter(|n| !all.contains(n))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            bail!(
                "--tools: unknown tool{} {} (available: {})",
                if unknown.len() == 1 { "" } else { "s" },
                unknown.join(", "),
                all.join(", ")
            );
        }
        names
    } else if cli.no_builtin_tools {
        let builtin: Vec<&str> = loaded
            .set
            .tools()
            .filter(|(p, _)| matches!(p.source, tack_runtime::PluginSource::Builtin))
            .map(|(_, spec)| spec.name.as_str())
            .collect();
        all.iter()
            .filter(|n| !builtin.contains(&n.as_str()))
            .cloned()
            .collect()
    } else {
        return Ok(());
    };
    tools
        .set_active(chosen)
        .map_err(|e| anyhow::anyhow!("cannot choose the tools: {e}"))
}

/// Appends model_change / thinking_level_change entries when the run's choice differs from what
/// the session last recorded, so a resumed session knows which model wrote what.
fn record_model(session: &SessionHandle, model: &ModelInfo, thinking: Option<&str>) -> Result<()> {
    let mut s = session.lock();
    let current = s.model().map(|(p, m)| (p.to_string(), m.to_string()));
    if current.as_ref() != Some(&(model.provider.clone(), model.id.clone())) {
        s.append(EntryKind::ModelChange {
            provider: model.provider.clone(),
            model_id: model.id.clone(),
        })?;
    }
    if let Some(level) = thinking {
        if s.thinking_level() != Some(level) {
            s.append(EntryKind::ThinkingLevelChange {
                thinking_level: level.to_string(),
            })?;
        }
    }
    Ok(())
}
