//! Wiring a run: the tack home, the plugin runtime and plugins, the provider and model, the
//! session, and the agent.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tack_core::agent::{InputKind, ModelCost, ModelInfo, ReasoningLevel};
use tack_core::session::{EntryKind, Session, SessionHandle, SessionStore};
use tack_core::system_prompt::{
    build_system_prompt, discover_context_files, today, ContextFile, PromptInputs,
};
use tack_core::{Agent, AgentConfig};
use tack_runtime::api::{self, EventKind};
use tack_runtime::bridge::{PluginHooks, PluginProvider, PluginTools};
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{HostContext, PluginSet, Runtime};

use crate::cli::Cli;
use crate::home::Home;
use crate::inbox::Inbox;
use crate::model_pattern::{self, Candidate, Thinking};
use crate::router::ProviderRouter;
use crate::services::Backends;
use crate::settings::{PluginCommandLine, Settings};
use crate::startup::{ProjectFiles, StartupReport};

/// Loaded plugins and everything needed to build an agent over them.
pub struct Loaded {
    pub home: Home,
    pub settings: Settings,
    pub cwd: PathBuf,
    pub runtime: Arc<Runtime>,
    pub set: Arc<PluginSet>,
    /// The session and agent plugins reach, attached once they exist.
    pub backends: Backends,
    pub secrets: SecretStore,
    pub warnings: Vec<String>,
    /// The context files for the system prompt, read once at start-up.
    pub context_files: Vec<ContextFile>,
    /// The system prompt's replacement and additions, read once at start-up.
    pub prompt_files: crate::system_files::SystemPromptFiles,
    /// What the run took from the project, for each front end to say at start-up.
    pub startup: StartupReport,
}

pub async fn load_plugins(cli: &Cli) -> Result<Loaded> {
    let backends = Backends::default();
    let services = backends.headless();
    load_plugins_with(cli, backends, services).await
}

/// [`load_plugins`] for a front end that gives plugins its own services (RPC forwards dialogs to
/// its client) around the CLI's, which hold the session and tools.
pub async fn load_plugins_with(
    cli: &Cli,
    backends: Backends,
    host_services: tack_runtime::HostServices,
) -> Result<Loaded> {
    load(cli, backends, host_services, false).await
}

/// [`load_plugins_with`] for the terminal UI: someone is there to answer dialogs, so the
/// permission gate keeps its configured (or default) mode instead of `auto`.
pub async fn load_plugins_interactive(
    cli: &Cli,
    backends: Backends,
    host_services: tack_runtime::HostServices,
) -> Result<Loaded> {
    load(cli, backends, host_services, true).await
}

async fn load(
    cli: &Cli,
    backends: Backends,
    host_services: tack_runtime::HostServices,
    interactive: bool,
) -> Result<Loaded> {
    let home = Home::locate()?;
    let mut settings = Settings::load(&home.config())?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let project_root = crate::packages::Location::project(&home, &cwd)
        .project
        .unwrap_or_else(|| cwd.clone());
    let trusted = crate::packages::load::project_trusted(
        &home,
        &project_root,
        trust_choice(cli),
        &trust_gated(&project_root),
    )?;
    let mut warnings = Vec::new();
    load_project_settings(&project_root, trusted, &mut settings, &mut warnings)?;
    settings.command_line = PluginCommandLine {
        flags: cli.plugin_flags(),
        unattended: !interactive
            && matches!(cli.mode, crate::cli::Mode::Text | crate::cli::Mode::Json),
    };
    let mut config = crate::precompiled::runtime_config(&home);
    config.sandbox = settings.sandbox_policy(cli.sandbox, home.root());
    let sandbox = (
        config.sandbox.describe(),
        config.sandbox.missing(tack_runtime::sandbox::probe()),
    );
    let runtime = Runtime::new(config)
        .map_err(|e| anyhow::anyhow!("cannot start the plugin runtime: {e:#}"))?;
    let secrets = SecretStore::new(Some(home.auth()));
    let host = HostContext {
        workspace: cwd.clone(),
        data_root: Some(home.plugin_data()),
        services: host_services,
        secrets: secrets.clone(),
        project_trusted: trusted,
    };
    let (mut specs, plugin_warnings) = crate::plugins::collect(
        &home,
        &settings,
        &cli.plugins,
        &cwd,
        trusted,
        cli.no_plugins,
    )?;
    warnings.extend(plugin_warnings);
    let places = crate::plugin_paths::Places {
        tack_home: home.root().to_path_buf(),
        user_home: std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from),
        trusted_project: trusted.then(|| project_root.clone()),
        cwd: cwd.clone(),
        flags: settings.command_line.flags.clone(),
        file_copies: home.root().join("flag-files"),
    };
    crate::plugin_paths::apply(&mut specs, &places, &mut warnings);
    for (flag, _) in &settings.command_line.flags {
        if !specs.iter().any(|s| {
            s.manifest.flags.iter().any(|f| f.name == *flag)
                || s.manifest
                    .paths
                    .iter()
                    .any(|p| p.flag.as_deref() == Some(flag.as_str()))
        }) {
            warnings.push(format!("--{flag}: no loaded plugin answers to this flag"));
        }
    }
    let set = PluginSet::load(&runtime, specs, &host).await;
    warnings.extend(set.errors.iter().map(|e| e.to_string()));
    let context = if cli.no_context_files {
        Default::default()
    } else {
        discover_context_files(home.root(), &cwd, places.user_home.as_deref())
    };
    warnings.extend(context.warnings);
    let prompt_files = crate::system_files::SystemPromptFiles::read(
        cli,
        home.root(),
        trusted.then_some(project_root.as_path()),
    )?;
    let mut startup = StartupReport {
        context_files: context
            .files
            .iter()
            .map(|f| crate::startup::shown(&f.path, &cwd, &project_root))
            .collect(),
        project_files: ProjectFiles::classify(&project_root, trusted),
        sandbox: sandbox.0,
        sandbox_missing: sandbox.1,
        ..StartupReport::default()
    };
    startup.system_prompt = prompt_files
        .sources
        .iter()
        .map(|p| crate::startup::shown(p, &cwd, &project_root))
        .collect();
    startup.add_plugins(&set);
    Ok(Loaded {
        home,
        settings,
        cwd,
        runtime,
        set: Arc::new(set),
        backends,
        secrets,
        warnings,
        context_files: context.files,
        prompt_files,
        startup,
    })
}

/// What a project brings that only trust unlocks, in words for the trust question.
fn trust_gated(root: &std::path::Path) -> Vec<String> {
    let dot = root.join(".tack");
    let mut gated = Vec::new();
    if dot.join("config.toml").is_file() {
        gated.push("settings (.tack/config.toml)".to_string());
    }
    let packages = crate::packages::lockfile::Lockfile::package_names(&dot.join("tack.lock"));
    if !packages.is_empty() {
        gated.push(format!("plugins: {}", packages.join(", ")));
    }
    let claude = crate::startup::claude_files(root);
    if !claude.is_empty() {
        gated.push(format!("Claude Code files ({})", claude.join(", ")));
    }
    gated
}

/// `.tack/config.toml` of a trusted project, merged over the user's settings. An untrusted
/// project's settings are ignored (with a warning): they could point a provider, and the user's
/// API key, at another server.
fn load_project_settings(
    root: &std::path::Path,
    trusted: bool,
    settings: &mut Settings,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let path = root.join(".tack").join("config.toml");
    if !path.is_file() {
        return Ok(());
    }
    if !trusted {
        warnings.push(format!(
            "ignoring {} (the project is not trusted; pass --trust to use it)",
            path.display()
        ));
        return Ok(());
    }
    settings.merge(Settings::load(&path)?);
    Ok(())
}

fn trust_choice(cli: &Cli) -> crate::packages::load::TrustChoice {
    use crate::packages::load::TrustChoice;
    if cli.trust {
        TrustChoice::Trust
    } else if cli.no_trust {
        TrustChoice::NoTrust
    } else if cli.mode != crate::cli::Mode::Text {
        // JSON and RPC modes own stdin/stdout for their protocol: never ask there.
        TrustChoice::StoredOnly
    } else {
        TrustChoice::AskIfInteractive
    }
}

/// A provider chosen for this run.
pub struct Chosen {
    pub provider: Arc<dyn tack_core::Provider>,
    pub model: ModelInfo,
    pub options: serde_json::Value,
    /// The thinking level asked for (`--thinking`, or `--model …:level`), clamped to the model.
    pub reasoning: Option<ReasoningLevel>,
    /// What to tell the user about the choice: an offline fallback, a clamped level.
    pub notices: Vec<String>,
}

/// [`choose_provider`] for `session`, taking the model it last recorded into account.
pub fn choose_for_session(cli: &Cli, loaded: &Loaded, session: &SessionHandle) -> Result<Chosen> {
    let session_model = session
        .lock()
        .model()
        .map(|(p, m)| (p.to_string(), m.to_string()));
    choose_provider(cli, loaded, session_model)
}

/// `--provider`/`--model`, else the model a continued session was using, else config, else the
/// first provider with a key whose API key is available, else an offline provider (one that
/// needs no key and whose plugin has no network grant, such as the demo).
pub fn choose_provider(
    cli: &Cli,
    loaded: &Loaded,
    session_model: Option<(String, String)>,
) -> Result<Chosen> {
    let catalog = crate::catalog::build(&loaded.set, &loaded.settings)?;
    let mut secrets = loaded.secrets.clone();
    let by_pattern = match &cli.model {
        Some(pattern) => Some(model_by_pattern(
            pattern,
            &catalog,
            cli.provider.as_deref(),
            &secrets,
        )?),
        None => None,
    };
    let from_session = session_model.filter(|(p, _)| {
        cli.provider.is_none() && by_pattern.is_none() && catalog.iter().any(|e| &e.id == p)
    });
    let wanted = cli
        .provider
        .clone()
        .or_else(|| by_pattern.as_ref().map(|m| m.provider.clone()))
        .or_else(|| from_session.as_ref().map(|(p, _)| p.clone()))
        .or_else(|| loaded.settings.provider.clone());
    let mut notices = Vec::new();
    let entry = match wanted {
        Some(id) => catalog.iter().find(|e| e.id == id).with_context(|| {
            let known: Vec<&str> = catalog.iter().map(|e| e.id.as_str()).collect();
            format!("unknown provider '{id}' (available: {})", known.join(", "))
        })?,
        // Only providers whose key is set and whose plugin may send it there, first-party before
        // third-party, then by id (the catalog's order): the same choice on every run.
        None => match catalog
            .iter()
            .filter(|e| e.spec.secret.is_some() && e.usable(&secrets))
            .min_by_key(|e| !e.first_party())
        {
            Some(entry) => entry,
            None => {
                let offline = catalog
                    .iter()
                    .filter(|e| e.offline())
                    .min_by_key(|e| !e.first_party())
                    .context(
                        "no provider is usable: set an API key (ANTHROPIC_API_KEY, \
                         OPENAI_API_KEY, …) or pass --provider and --api-key",
                    )?;
                notices.push(format!(
                    "using the offline {} provider (no API key found). Set ANTHROPIC_API_KEY or \
                     OPENAI_API_KEY, or pass --provider and --api-key, to use a real model.",
                    offline.id
                ));
                offline
            }
        },
    };
    let mut user_secret = entry.secret_from_user;
    if let (Some(key), Some(secret)) = (&cli.api_key, &entry.spec.secret) {
        secrets = secrets.with_override(secret, key.clone());
        // `--api-key` is the user handing this provider a key themselves.
        user_secret = true;
    }
    let model_id = by_pattern
        .as_ref()
        .map(|m| m.model.clone())
        .or_else(|| {
            from_session
                .as_ref()
                .filter(|(p, _)| *p == entry.id)
                .map(|(_, m)| m.clone())
        })
        .or_else(|| {
            loaded
                .settings
                .model
                .clone()
                .filter(|_| cli.provider.is_none())
        });
    let spec = &entry.spec;
    let model = match &model_id {
        Some(id) => spec.models.iter().find(|m| &m.id == id).with_context(|| {
            let known: Vec<&str> = spec.models.iter().map(|m| m.id.as_str()).collect();
            format!(
                "provider '{}' has no model '{id}' (available: {})",
                entry.id,
                known.join(", ")
            )
        })?,
        None => spec
            .models
            .first()
            .with_context(|| format!("provider '{}' lists no models", entry.id))?,
    };
    let base_url = cli.base_url.clone().or_else(|| entry.base_url.clone());
    let provider = Arc::new(
        PluginProvider::new(
            entry.plugin.clone(),
            spec.clone(),
            base_url,
            secrets,
            loaded.runtime.http().clone(),
        )
        .with_user_secret(user_secret)
        .with_timeouts(entry.timeouts)
        .map_err(|e| anyhow::anyhow!("provider '{}': {e}", entry.id))?,
    );
    let asked = match &cli.thinking {
        Some(level) => Some(Thinking::parse(level).with_context(|| {
            format!(
                "unknown thinking level '{level}' ({})",
                model_pattern::LEVELS
            )
        })?),
        None => by_pattern.and_then(|m| m.thinking).or_else(|| {
            // The user's default applies to a model that thinks; a bad value is ignored here
            // (and refused when `/settings` writes it).
            let default = loaded.settings.default_thinking.as_deref()?;
            Thinking::parse(default).filter(|_| model.reasoning)
        }),
    };
    let reasoning = asked.map(|asked| {
        let (level, note) = model_pattern::clamp(asked, model.reasoning, &model.id);
        notices.extend(note);
        level
    });
    Ok(Chosen {
        model: model_info(&entry.id, model),
        provider,
        options: entry.options.clone(),
        reasoning,
        notices,
    })
}

/// What `--model` named: a provider's model and maybe a thinking level.
struct ModelByPattern {
    provider: String,
    model: String,
    thinking: Option<Thinking>,
}

/// Resolves `--model` (see [`model_pattern`]) among the models of `--provider` when given, else
/// among the models that can be used right away (their key set, or offline), else among all.
fn model_by_pattern(
    pattern: &str,
    catalog: &[crate::catalog::ProviderEntry],
    provider: Option<&str>,
    secrets: &SecretStore,
) -> Result<ModelByPattern> {
    let candidates = |keep: &dyn Fn(&crate::catalog::ProviderEntry) -> bool| {
        catalog
            .iter()
            .filter(|e| keep(e))
            .flat_map(|e| {
                e.spec.models.iter().map(|m| Candidate {
                    provider: e.id.clone(),
                    id: m.id.clone(),
                    name: m.name.clone(),
                })
            })
            .collect::<Vec<_>>()
    };
    let pools = match provider {
        Some(id) => vec![candidates(&|e| e.id == id)],
        None => vec![
            candidates(&|e| e.offline() || e.usable(secrets)),
            candidates(&|_| true),
        ],
    };
    for pool in &pools {
        if let Some(found) = model_pattern::resolve(pattern, pool) {
            let c = &pool[found.index];
            return Ok(ModelByPattern {
                provider: c.provider.clone(),
                model: c.id.clone(),
                thinking: found.thinking,
            });
        }
    }
    match provider {
        Some(id) if catalog.iter().any(|e| e.id == id) => {
            let known: Vec<String> = pools[0].iter().map(|c| c.id.clone()).collect();
            bail!(
                "provider '{id}' has no model '{pattern}' (available: {})",
                known.join(", ")
            )
        }
        Some(id) => {
            let known: Vec<&str> = catalog.iter().map(|e| e.id.as_str()).collect();
            bail!("unknown provider '{id}' (available: {})", known.join(", "))
        }
        None => bail!(
            "no model matches '{pattern}' (an id, provider/id or part of a model's id or name, \
             optionally with :level; `tack models` lists them)"
        ),
    }
}

pub fn model_info(provider: &str, model: &api::ModelSpec) -> ModelInfo {
    ModelInfo {
        provider: provider.to_string(),
        id: model.id.clone(),
        name: model.name.clone(),
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
        reasoning: model.reasoning,
        input: model
            .input
            .iter()
            .map(|k| match k {
                api::InputKind::Text => InputKind::Text,
                api::InputKind::Image => InputKind::Image,
            })
            .collect(),
        cost: ModelCost {
            input: model.cost.input,
            output: model.cost.output,
            cache_read: model.cost.cache_read,
            cache_write: model.cost.cache_write,
        },
    }
}

pub fn open_session(cli: &Cli, loaded: &Loaded) -> Result<Session> {
    let store = crate::sessions::store(
        &loaded.home,
        cli.session_dir.as_deref(),
        &loaded.settings.sessions,
    );
    if cli.no_session {
        return Ok(Session::in_memory(&loaded.cwd));
    }
    if let Some(arg) = &cli.fork {
        let path = store
            .resolve(&loaded.cwd, arg)
            .with_context(|| format!("cannot find session '{arg}' to fork"))?;
        // Read, not locked: forking is how to go on from a session another process holds.
        let (source, warnings) = store
            .open_copy(&path)
            .with_context(|| format!("cannot open session {}", path.display()))?;
        for w in warnings {
            eprintln!("tack: warning: {}: {}", path.display(), w.report());
        }
        let Some(leaf) = source.leaf_id().map(str::to_owned) else {
            // Nothing to copy: a fork of an empty session is a new session.
            return store
                .create(&loaded.cwd)
                .context("cannot create a session file");
        };
        return store
            .fork(&source, &leaf)
            .with_context(|| format!("cannot fork session {}", path.display()));
    }
    let path = if let Some(arg) = &cli.resume {
        Some(
            store
                .resolve(&loaded.cwd, arg)
                .with_context(|| format!("cannot find session '{arg}'"))?,
        )
    } else if cli.continue_session {
        store.most_recent(&loaded.cwd)?.map(|s| s.path)
    } else {
        None
    };
    match path {
        Some(path) => {
            let (session, warnings) = store
                .open(&path)
                .with_context(|| format!("cannot open session {}", path.display()))?;
            for w in warnings {
                eprintln!("tack: warning: {}: {}", path.display(), w.report());
            }
            Ok(session)
        }
        None => store
            .create(&loaded.cwd)
            .context("cannot create a session file"),
    }
}

pub struct Wired {
    pub agent: Agent,
}

pub fn build_agent(
    cli: &Cli,
    loaded: &Loaded,
    chosen: Chosen,
    session: SessionHandle,
    sink: Arc<dyn tack_core::EventSink>,
) -> Result<Wired> {
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
    Ok(Wired { agent })
}

/// Sub-agents (`tack:agents`) start from `agent`: its provider, tools, hooks and model, and
/// any model the catalog lists, another provider's set up as `--model provider/id` would be
/// (its key must be there, and the host must let it send requests where it does).
fn attach_children(loaded: &Loaded, agent: &Agent, session: SessionHandle) -> Result<()> {
    let catalog = crate::catalog::build(&loaded.set, &loaded.settings)?;
    let models = catalog
        .iter()
        .flat_map(|entry| entry.spec.models.iter().map(|m| model_info(&entry.id, m)))
        .collect();
    let children = Arc::new(tack_runtime::children::ChildRuns::new(
        loaded.settings.subagent_limits(),
    ));
    children.attach(agent.child_factory(), session, models);
    let secrets = loaded.secrets.clone();
    let http = loaded.runtime.http().clone();
    children.resolve_models_with(Arc::new(move |model: &ModelInfo| {
        let entry = catalog
            .iter()
            .find(|e| e.id == model.provider)
            .ok_or_else(|| format!("no provider '{}'", model.provider))?;
        if !entry.key_available(&secrets) {
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
        if let Some(denied) = entry.denied() {
            return Err(format!("provider '{}' cannot be used: {denied}", entry.id));
        }
        let provider = PluginProvider::new(
            entry.plugin.clone(),
            entry.spec.clone(),
            entry.base_url.clone(),
            secrets.clone(),
            http.clone(),
        )
        .with_user_secret(entry.secret_from_user)
        .with_timeouts(entry.timeouts)
        .map_err(|e| e.to_string())?;
        Ok(tack_runtime::children::ResolvedModel {
            model: model.clone(),
            provider: Arc::new(provider),
            options: entry.options.clone(),
        })
    }));
    loaded.backends.agent.attach_children(children);
    Ok(())
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

/// The session and agent of an interactive mode (RPC, the terminal UI).
pub struct Interactive {
    pub session: SessionHandle,
    pub store: SessionStore,
    pub agent: Agent,
    /// The agent's provider, so the model can change between runs.
    pub router: Arc<ProviderRouter>,
    /// The provider chosen at start, to which `--api-key` and `--base-url` apply.
    pub startup_provider: String,
    /// What to tell the user about that choice (an offline fallback, a clamped level).
    pub provider_notices: Vec<String>,
}

/// Wires an interactive mode as the others are wired, but with the provider behind a router and
/// plugin messages delivered through `inbox`; plugins see `session_start` before it returns.
pub async fn start_interactive(
    cli: &Cli,
    loaded: &Loaded,
    inbox: &Inbox,
    sink: Arc<dyn tack_core::EventSink>,
) -> Result<Interactive> {
    let session = SessionHandle::new(open_session(cli, loaded)?);
    let chosen = choose_for_session(cli, loaded, &session)?;
    let startup_provider = chosen.model.provider.clone();
    let provider_notices = chosen.notices.clone();
    let (router, chosen) = ProviderRouter::route(chosen);
    let wired = build_agent(cli, loaded, chosen, session.clone(), sink)?;
    inbox.attach_queues(wired.agent.queues());
    session_event(loaded, EventKind::SessionStart, &session).await;
    Ok(Interactive {
        session,
        store: crate::sessions::store(
            &loaded.home,
            cli.session_dir.as_deref(),
            &loaded.settings.sessions,
        ),
        agent: wired.agent,
        router,
        startup_provider,
        provider_notices,
    })
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

/// Tells plugins observing session lifecycle events.
pub async fn session_event(loaded: &Loaded, kind: EventKind, session: &SessionHandle) {
    let (id, cwd) = {
        let s = session.lock();
        (s.id().to_string(), s.header().cwd.clone())
    };
    let name = if kind == EventKind::SessionStart {
        "session_start"
    } else {
        "session_end"
    };
    let data = serde_json::json!({ "type": name, "sessionId": id, "cwd": cwd }).to_string();
    for plugin in loaded.set.plugins() {
        if plugin.observes(kind) && plugin.disabled_reason().is_none() {
            if let Err(e) = plugin.on_event(kind, &data).await {
                eprintln!("tack: warning: {e}");
            }
        }
    }
}
