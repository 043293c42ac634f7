//! The first stage of start-up: the tack home and settings, project trust, the plugin runtime
//! and plugins, the context files and the start-up report.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use tack_core::system_prompt::{discover_context_files, ContextFile};
use tack_packages::Home;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{HostContext, PluginSet, Runtime};

use super::report::{ProjectFiles, StartupReport};
use super::services::Backends;
use crate::cli::Cli;
use crate::settings::{PluginCommandLine, Settings};

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
    pub prompt_files: crate::start::system_files::SystemPromptFiles,
    /// What the run took from the project, for each front end to say at start-up.
    pub startup: StartupReport,
    /// Where the terminal UI's themes are: `<tack home>/themes`, then installed Pi packages'
    /// `themes/` (the first file of a name wins).
    pub theme_dirs: Vec<PathBuf>,
}

impl Loaded {
    /// The providers and models of this run: its plugins' providers, those they registered
    /// since, the presets and config.toml's.
    pub fn catalog(&self) -> Result<Vec<crate::models::catalog::ProviderEntry>> {
        let registered = tack_runtime::PluginAgent::providers(&*self.backends.agent).list();
        crate::models::catalog::build(
            &self.set,
            &self.settings.providers,
            &self.secrets,
            &registered,
        )
    }
}

/// Reads the settings, decides whether the project is trusted, and loads the plugins.
/// `unattended`: nobody answers dialogs (see [`super::Front`]).
pub(super) async fn load(
    cli: &Cli,
    backends: Backends,
    host_services: tack_runtime::HostServices,
    unattended: bool,
) -> Result<Loaded> {
    let home = Home::locate()?;
    let mut settings = Settings::load(&home.config())?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let project_root = tack_packages::Location::project(&home, &cwd)
        .project
        .unwrap_or_else(|| cwd.clone());
    let trusted = crate::start::packages::project_trusted(
        &home,
        &project_root,
        trust_choice(cli),
        &trust_gated(&project_root),
    )?;
    let mut warnings = Vec::new();
    load_project_settings(&project_root, trusted, &mut settings, &mut warnings)?;
    settings.command_line = PluginCommandLine {
        flags: cli.plugin_flags(),
        unattended: unattended
            && matches!(cli.mode, crate::cli::Mode::Text | crate::cli::Mode::Json),
    };
    let mut config = crate::start::precompiled::runtime_config(&home);
    config.sandbox = settings.sandbox_policy(cli.sandbox, home.root());
    let sandbox = (
        config.sandbox.describe(),
        config.sandbox.missing(tack_runtime::sandbox::probe()),
    );
    let runtime = Runtime::new(config)
        .map_err(|e| anyhow::anyhow!("cannot start the plugin runtime: {e:#}"))?;
    let mut mcp_servers = crate::mcp::servers(
        home.root(),
        trusted.then_some(project_root.as_path()),
        &|name| std::env::var(name).ok(),
        &mut warnings,
    );
    crate::start::mcp_servers::logins(home.root(), &mut mcp_servers, &mut warnings).await;
    let secrets =
        crate::start::mcp_servers::secrets(SecretStore::new(Some(home.auth())), &mcp_servers);
    let host = HostContext {
        workspace: cwd.clone(),
        data_root: Some(home.plugin_data()),
        services: host_services,
        secrets: secrets.clone(),
        project_trusted: trusted,
    };
    let (mut specs, plugin_warnings, pi_packages) = crate::start::plugins::collect(
        &home,
        &settings,
        &cli.plugins,
        &cwd,
        trusted,
        cli.no_plugins,
    )?;
    warnings.extend(plugin_warnings);
    let mut extensions = cli.extensions.clone();
    if settings.pi_extensions {
        let user_home = std::env::var_os("HOME").filter(|h| !h.is_empty());
        let folders = user_home
            .map(|h| PathBuf::from(h).join(".pi/agent/extensions"))
            .into_iter()
            .chain(trusted.then(|| project_root.join(".pi/extensions")));
        extensions.extend(crate::start::pi_extension::discover(folders));
    }
    if !extensions.is_empty() {
        let grants = tack_runtime::grants::GrantStore::load(&home.grants())
            .context("loading plugin grants")?;
        let loaded = crate::start::pi_extension::load_all(
            &extensions,
            None,
            &home.component_cache(),
            &grants,
            &settings,
        )?;
        for (spec, warning) in loaded {
            warnings.extend(warning);
            specs.push(spec);
        }
    }
    let theme_dirs: Vec<PathBuf> = std::iter::once(home.root().join("themes"))
        .chain(
            pi_packages
                .iter()
                .map(|package| package.join("themes"))
                .filter(|dir| dir.is_dir()),
        )
        .collect();
    let places = crate::start::plugin_paths::Places {
        tack_home: home.root().to_path_buf(),
        user_home: std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from),
        trusted_project: trusted.then(|| project_root.clone()),
        cwd: cwd.clone(),
        flags: settings.command_line.flags.clone(),
        file_copies: home.root().join("flag-files"),
        pi_packages,
    };
    crate::start::plugin_paths::apply(&mut specs, &places, &mut warnings);
    if !trusted && crate::mcp::project_file(&project_root).is_file() {
        warnings.push(format!(
            "ignoring the MCP servers of {} (the project is not trusted; pass --trust to use them)",
            crate::mcp::project_file(&project_root).display()
        ));
    }
    crate::start::mcp_servers::apply(&mut specs, &mcp_servers, &mut warnings);
    crate::start::web_origins::apply(&mut specs, &mut warnings);
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
    // Providers registered during `init` are judged now that every id and API is known.
    let plugin_providers: Vec<String> = set.providers().map(|(_, s)| s.id.clone()).collect();
    let taken = plugin_providers
        .iter()
        .cloned()
        .chain(crate::models::catalog::reserved_ids(&settings));
    let registry = tack_runtime::PluginAgent::providers(&*backends.agent);
    warnings.extend(registry.settle(taken, plugin_providers.iter().cloned()));
    let context = if cli.no_context_files {
        Default::default()
    } else {
        discover_context_files(home.root(), &cwd, places.user_home.as_deref())
    };
    warnings.extend(context.warnings);
    let prompt_files = crate::start::system_files::SystemPromptFiles::read(
        cli,
        home.root(),
        trusted.then_some(project_root.as_path()),
    )?;
    let mut startup = StartupReport {
        context_files: context
            .files
            .iter()
            .map(|f| crate::start::report::shown(&f.path, &cwd, &project_root))
            .collect(),
        project_files: ProjectFiles::classify(&project_root, trusted),
        sandbox: sandbox.0,
        sandbox_missing: sandbox.1,
        ..StartupReport::default()
    };
    startup.system_prompt = prompt_files
        .sources
        .iter()
        .map(|p| crate::start::report::shown(p, &cwd, &project_root))
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
        theme_dirs,
    })
}

/// What a project brings that only trust unlocks, in words for the trust question.
fn trust_gated(root: &std::path::Path) -> Vec<String> {
    let dot = root.join(".tack");
    let mut gated = Vec::new();
    if dot.join("config.toml").is_file() {
        gated.push("settings (.tack/config.toml)".to_string());
    }
    let packages = tack_packages::lockfile::Lockfile::package_names(&dot.join("tack.lock"));
    if !packages.is_empty() {
        gated.push(format!("plugins: {}", packages.join(", ")));
    }
    if let Ok(file) = crate::mcp::read(&crate::mcp::project_file(root)) {
        if !file.servers.is_empty() {
            let servers: Vec<String> = file
                .servers
                .iter()
                .map(|(name, entry)| match (&entry.command, &entry.url) {
                    (Some(command), _) => {
                        let mut words = vec![command.clone()];
                        words.extend(entry.args.iter().cloned());
                        format!("{name}: runs `{}`", crate::mcp::join(&words))
                    }
                    (None, Some(url)) => format!("{name}: {url}"),
                    (None, None) => name.clone(),
                })
                .collect();
            gated.push(format!("MCP servers (.mcp.json: {})", servers.join("; ")));
        }
    }
    let claude = crate::start::report::claude_files(root);
    if !claude.is_empty() {
        gated.push(format!("Claude Code files ({})", claude.join(", ")));
    }
    gated
}

/// `.tack/config.toml` of a trusted project, merged over the user's settings. An untrusted
/// project's settings are ignored (with a warning): they could point a provider, and the user's
/// API key, at another server. Not even a trusted one points Bedrock or Vertex elsewhere.
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
    let mut project = Settings::load(&path)?;
    // The credentials the host holds for these presets are the user's accounts (a signed AWS
    // session, a cloud-wide Google token, a ChatGPT login), broader than one provider's key:
    // even a trusted repository does not choose where they go.
    for id in [
        crate::models::bedrock::ID,
        crate::models::vertex::ID,
        crate::subscription::CHATGPT,
    ] {
        if let Some(provider) = project.providers.get_mut(id) {
            if provider.base_url.take().is_some() {
                warnings.push(format!(
                    "ignoring [providers.{id}] base_url in {}: the credentials tack holds for \
                     {id} go only where your own config points",
                    path.display()
                ));
            }
        }
    }
    settings.merge(project);
    Ok(())
}

fn trust_choice(cli: &Cli) -> crate::start::packages::TrustChoice {
    use crate::start::packages::TrustChoice;
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
