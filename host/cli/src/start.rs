//! One start-up path for every mode, as Pi's `AgentSession` serves its interactive, print and RPC
//! modes. [`Starting::load`] reads the settings, decides project trust and loads the plugins;
//! [`Starting::open_session`] opens (or creates, resumes, forks) the session file;
//! [`Opened::start`] chooses the provider, builds the agent and tells plugins the session
//! started. The [`AgentSession`] it returns is what every mode drives, and
//! [`AgentSession::end`] tells plugins the session ended: once, whichever way the mode exits.
//!
//! The stages are separate only so that each mode can say what it has to say in between (its
//! warnings, JSON mode's session header) before plugins first hear of the session.

mod agent;
pub mod inbox;
pub mod load;
pub mod mcp_servers;
pub mod package_spec;
pub mod packages;
pub mod pi_extension;
pub mod plugin_paths;
pub mod plugins;
pub mod precompiled;
pub mod report;
pub mod services;
mod session_file;
pub mod system_files;
pub mod web_origins;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Result;
use tack_core::event::EventSink;
use tack_core::session::{Session, SessionHandle, SessionStore};
use tack_core::Agent;
use tack_runtime::api::EventKind;
use tack_runtime::HostServices;

use crate::cli::Cli;
use crate::models::router::ProviderRouter;
use crate::models::switch::ModelSwitch;
use inbox::Inbox;
use services::Backends;

pub use load::Loaded;

/// What a mode gives its plugins: the session and agent services every mode shares, and the
/// user interface they reach (print mode's records each dialog with its safe answer; RPC
/// forwards dialogs to its client; the terminal UI shows them).
pub struct Front {
    backends: Backends,
    host: HostServices,
    /// Nobody is there to answer a dialog (print and JSON modes): policy plugins that would ask
    /// decide by their unattended rules instead.
    unattended: bool,
}

impl Front {
    /// Print and JSON mode, and the subcommands that only list what plugins offer.
    pub fn headless() -> Front {
        let backends = Backends::default();
        let host = backends.headless();
        Front {
            backends,
            host,
            unattended: true,
        }
    }

    /// An interactive mode, whose `host` services answer dialogs (see
    /// [`crate::modes::driver::interactive_host`]).
    pub fn interactive(backends: Backends, host: HostServices) -> Front {
        Front {
            backends,
            host,
            unattended: false,
        }
    }
}

/// Plugins loaded; the session not yet open.
pub struct Starting {
    cli: Cli,
    loaded: Loaded,
}

impl Starting {
    pub async fn load(cli: Cli, front: Front) -> Result<Starting> {
        let loaded = load::load(&cli, front.backends, front.host, front.unattended).await?;
        Ok(Starting { cli, loaded })
    }

    /// What loading found: warnings, the start-up report, the plugins.
    pub fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// For the subcommands that only list what the plugins offer.
    pub fn into_loaded(self) -> Loaded {
        self.loaded
    }

    /// The session the command line asks for: `--no-session`, `--fork`, `--resume`,
    /// `--continue`, else a new one.
    pub fn open_session(self) -> Result<Opened> {
        let store = crate::sessions::store(
            &self.loaded.home,
            self.cli.session_dir.as_deref(),
            &self.loaded.settings.sessions,
        );
        let session = session_file::open(&self.cli, &self.loaded, &store)?;
        Ok(Opened {
            cli: self.cli,
            loaded: self.loaded,
            session: SessionHandle::new(session),
            store,
        })
    }
}

/// The session open; no agent yet, and plugins not yet told.
pub struct Opened {
    cli: Cli,
    loaded: Loaded,
    session: SessionHandle,
    store: SessionStore,
}

impl Opened {
    pub fn session(&self) -> &SessionHandle {
        &self.session
    }

    /// Chooses the provider (the model the session last used counts), builds the agent over the
    /// plugins with its events going to `sink`, and tells plugins the session started. The
    /// interactive modes pass the `inbox` that delivers plugin messages to the agent.
    pub async fn start(
        self,
        sink: Arc<dyn EventSink>,
        inbox: Option<&Inbox>,
    ) -> Result<AgentSession> {
        let Opened {
            cli,
            loaded,
            session,
            store,
        } = self;
        let chosen = crate::models::choose::for_session(&cli, &loaded, &session)?;
        let startup_provider = chosen.model.provider.clone();
        let provider_notices = chosen.notices.clone();
        // The provider sits behind a router so that the interactive modes can change the model
        // between runs; print mode's one run goes through it unchanged.
        let (router, chosen) = ProviderRouter::route(chosen);
        let agent = agent::build(&cli, &loaded, chosen, session.clone(), sink)?;
        if let Some(inbox) = inbox {
            inbox.attach_queues(agent.queues());
        }
        let agent = Arc::new(agent);
        loaded.backends.agent.attach_agent(&agent);
        let running = AgentSession {
            cli,
            loaded,
            agent,
            session,
            store,
            router,
            startup_provider,
            provider_notices,
            ended: AtomicBool::new(false),
        };
        let reason = if running.cli.reloaded {
            Lifecycle::Reload
        } else {
            Lifecycle::Startup
        };
        running
            .lifecycle(EventKind::SessionStart, reason, None)
            .await;
        Ok(running)
    }
}

/// The running session every mode drives: the command line it started with, the loaded plugins,
/// the agent and its session, and the router a model change goes through.
pub struct AgentSession {
    pub cli: Cli,
    pub loaded: Loaded,
    pub agent: Arc<Agent>,
    pub session: SessionHandle,
    pub store: SessionStore,
    pub router: Arc<ProviderRouter>,
    /// The provider chosen at start, to which `--api-key` and `--base-url` apply.
    pub startup_provider: String,
    /// What to tell the user about that choice (an offline fallback, a clamped level).
    pub provider_notices: Vec<String>,
    /// `session_end` has been sent for the session the handle holds now.
    ended: AtomicBool,
}

/// A plugin's `/model` and `/thinking` (`tack:plugin/control`), through the same switch.
impl tack_runtime::ModelControl for AgentSession {
    fn set_model(&self, plugin: &str, model: &str) -> std::result::Result<(), String> {
        let (provider, id) = match model.split_once('/') {
            Some((provider, id)) => (provider.to_string(), id.to_string()),
            None => (self.agent.config().model.provider, model.to_string()),
        };
        self.model_switch()
            .set_model(&provider, &id)
            .map_err(|e| format!("{e:#}"))?;
        tracing::info!(plugin, model, "a plugin switched the model");
        Ok(())
    }

    fn set_thinking_level(&self, plugin: &str, level: &str) -> std::result::Result<String, String> {
        let (set, _) = self
            .model_switch()
            .set_thinking(level)
            .map_err(|e| format!("{e:#}"))?;
        tracing::info!(
            plugin,
            level = set.as_str(),
            "a plugin set the thinking level"
        );
        Ok(set.as_str().to_string())
    }
}

impl AgentSession {
    /// Lets the plugins change the model and thinking level (`tack:plugin/control`), in the
    /// modes that change them between runs.
    pub fn serve_model_changes(self: &Arc<Self>) {
        let weak: std::sync::Weak<AgentSession> = Arc::downgrade(self);
        let control: std::sync::Weak<dyn tack_runtime::ModelControl> = weak;
        self.loaded.backends.agent.attach_model_control(control);
    }

    /// Tells plugins the session ended. Every exit path of every mode calls it; only the first
    /// call is heard.
    pub async fn end(&self) {
        self.end_because(Lifecycle::Quit).await;
    }

    /// [`end`](Self::end), saying why (Pi's `session_shutdown` reason).
    pub async fn end_because(&self, reason: Lifecycle) {
        self.end_for(reason, None).await;
    }

    async fn end_for(&self, reason: Lifecycle, target: Option<&str>) {
        if !self.ended.swap(true, Ordering::SeqCst) {
            self.lifecycle(EventKind::SessionEnd, reason, target).await;
        }
    }

    /// Puts `session` in the shared handle (a new session, another one, a fork): plugins see
    /// `session_end` for the old one and `session_start` for the new one, and queued messages,
    /// which belonged to the old conversation, are dropped. The model the new session last
    /// recorded is taken up (see [`ModelSwitch::adopt_session_model`] for `warn`). The caller
    /// keeps runs from starting meanwhile.
    pub async fn replace_session(
        &self,
        inbox: &Inbox,
        session: Session,
        reason: Lifecycle,
        warn: impl FnOnce(String),
    ) -> Result<()> {
        let previous = self.session.lock().id().to_string();
        let next = session.id().to_string();
        self.end_for(reason, Some(&next)).await;
        self.session.replace(session);
        self.agent.queues().clear();
        inbox.take_next_turn();
        let adopted = self.model_switch().adopt_session_model(warn);
        self.ended.store(false, Ordering::SeqCst);
        self.lifecycle(EventKind::SessionStart, reason, Some(&previous))
            .await;
        adopted
    }

    /// The plugins' hooks on session moves (`tack:plugin/session-hooks`): ask
    /// [`PluginHooks::before_switch`](tack_runtime::bridge::PluginHooks::before_switch) or
    /// `before_fork` before replacing or forking the session.
    pub fn plugin_hooks(&self) -> tack_runtime::bridge::PluginHooks {
        tack_runtime::bridge::PluginHooks::new(self.loaded.set.clone())
    }

    /// The model switch over this session.
    pub fn model_switch(&self) -> ModelSwitch<'_> {
        ModelSwitch {
            agent: &self.agent,
            session: &self.session,
            router: &self.router,
            loaded: &self.loaded,
            cli: &self.cli,
            startup_provider: &self.startup_provider,
        }
    }

    /// Tells the plugins that observe it that the session started or ended, and why: 0.1.0's
    /// `session-start` / `session-end` events, and 0.2.0's `session_start` / `session_shutdown`
    /// by name (Pi's names). `other` is the session before (for a start) or after (for an end)
    /// a replacement.
    async fn lifecycle(&self, kind: EventKind, reason: Lifecycle, other: Option<&str>) {
        let (id, cwd) = {
            let s = self.session.lock();
            (s.id().to_string(), s.header().cwd.clone())
        };
        let starts = kind == EventKind::SessionStart;
        let mut data = serde_json::json!({
            "type": if starts { "session_start" } else { "session_end" },
            "sessionId": id,
            "cwd": cwd,
            "reason": reason.as_str(),
        });
        if let Some(other) = other {
            let field = if starts {
                "previousSessionId"
            } else {
                "targetSessionId"
            };
            data[field] = other.into();
        }
        let text = data.to_string();
        let named = if starts {
            "session_start"
        } else {
            "session_shutdown"
        };
        data["type"] = named.into();
        let named_text = data.to_string();
        for plugin in self.loaded.set.plugins() {
            if plugin.disabled_reason().is_some() {
                continue;
            }
            if plugin.observes(kind) {
                if let Err(e) = plugin.on_event(kind, &text).await {
                    eprintln!("tack: warning: {e}");
                }
            }
            if plugin.wants_event(named) {
                if let Err(e) = plugin.on_named_event(named, &named_text).await {
                    eprintln!("tack: warning: {e}");
                }
            }
        }
    }
}

/// Why a session started or ended (Pi's `reason` on `session_start` and `session_shutdown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// tack started (a start only).
    Startup,
    /// `/reload` ends the session and starts it again.
    Reload,
    /// `/new` replaced it.
    New,
    /// `/resume` replaced it.
    Resume,
    /// `/fork` or `/clone` replaced it.
    Fork,
    /// tack is exiting (an end only).
    Quit,
}

impl Lifecycle {
    fn as_str(self) -> &'static str {
        match self {
            Lifecycle::Startup => "startup",
            Lifecycle::Reload => "reload",
            Lifecycle::New => "new",
            Lifecycle::Resume => "resume",
            Lifecycle::Fork => "fork",
            Lifecycle::Quit => "quit",
        }
    }
}
