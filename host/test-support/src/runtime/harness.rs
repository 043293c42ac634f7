//! The one harness of the runtime tests: a tack home and a workspace in temp dirs, the plugin
//! runtime caching components in that home, real components loaded into a plugin set, and an
//! agent over them as the CLI wires one (tools, hooks, the scripted provider's model, a session
//! file, the services plugins reach). Each test file keeps only what it adds on top.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use tack_builtin::artifacts;
use tack_core::session::{SessionHandle, SessionStore};
use tack_core::{Agent, AgentConfig, ModelInfo, ToolExecutor};
use tack_runtime::bridge::{PluginHooks, PluginTools};
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{
    AgentServices, Capabilities, HostContext, HostServices, PluginSet, PluginSpec, PluginUi,
    Runtime, RuntimeConfig, SessionServices,
};
use tempfile::TempDir;

use super::{provider, spec};

/// A tack home and a workspace, each a temp dir, and a runtime whose component cache is in the
/// home.
pub struct Scene {
    pub home: TempDir,
    /// Canonical, because guests see the workspace at its canonical path and absolute paths
    /// given to tools must match it.
    pub workspace: PathBuf,
    pub runtime: Arc<Runtime>,
    _workspace_dir: TempDir,
}

impl Default for Scene {
    fn default() -> Self {
        Scene::new()
    }
}

impl Scene {
    pub fn new() -> Scene {
        Scene::with_config(RuntimeConfig::default())
    }

    /// A scene whose runtime has `config` (limits, a cache shared between tests); without a
    /// cache folder, the cache is in the home.
    pub fn with_config(config: RuntimeConfig) -> Scene {
        let home = tempfile::tempdir().expect("home");
        let workspace_dir = tempfile::tempdir().expect("workspace");
        let workspace = workspace_dir
            .path()
            .canonicalize()
            .expect("canonical workspace");
        let cache_dir = config
            .cache_dir
            .clone()
            .unwrap_or_else(|| home.path().join("cache"));
        let runtime = Runtime::new(RuntimeConfig {
            cache_dir: Some(cache_dir),
            ..config
        })
        .expect("runtime");
        Scene {
            home,
            workspace,
            runtime,
            _workspace_dir: workspace_dir,
        }
    }

    /// A folder outside the workspace (for escape attempts), created empty.
    pub fn outside(&self) -> PathBuf {
        let home = self.home.path().canonicalize().expect("canonical home");
        let outside = home.join("outside");
        std::fs::create_dir_all(&outside).expect("outside");
        outside
    }

    /// Writes `text` to `name` in the workspace.
    pub fn write(&self, name: &str, text: &str) -> &Self {
        let path = self.workspace.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("workspace folder");
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self
    }

    /// What plugins get in this scene: its workspace, a data root in the home, `services`, no
    /// secrets.
    pub fn host(&self, services: HostServices, project_trusted: bool) -> HostContext {
        HostContext {
            workspace: self.workspace.clone(),
            data_root: Some(self.home.path().join("data")),
            services,
            secrets: SecretStore::new(None),
            project_trusted,
        }
    }

    /// Loads `specs` in order; a plugin that fails to load fails the test.
    pub async fn load(&self, specs: Vec<PluginSpec>, host: &HostContext) -> Arc<PluginSet> {
        let set = PluginSet::load(&self.runtime, specs, host).await;
        let errors: Vec<String> = set.errors.iter().map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "plugins failed to load: {errors:?}");
        Arc::new(set)
    }

    /// A new session file in the home's session store.
    pub fn session(&self) -> (SessionStore, SessionHandle) {
        let store = SessionStore::new(self.home.path());
        let session = SessionHandle::new(store.create(&self.workspace).expect("session"));
        (store, session)
    }
}

/// The scripted provider (`host/test-plugins/scripted-provider`) with `config`: its `script` of
/// turns and whatever else it takes (`context_window`, `branches`).
pub fn scripted_provider(config: Value) -> PluginSpec {
    spec(
        "scripted",
        artifacts::TEST_SCRIPTED_PROVIDER,
        Capabilities::default(),
        config,
    )
}

/// The session and agent services plugins reach, attached once the agent exists, around the UI a
/// test chooses.
pub struct Services {
    pub ui: Arc<dyn PluginUi>,
    pub session: Arc<SessionServices>,
    pub agent: Arc<AgentServices>,
}

impl Services {
    pub fn new(ui: Arc<dyn PluginUi>) -> Services {
        Services {
            ui,
            session: Arc::default(),
            agent: Arc::default(),
        }
    }

    pub fn host(&self) -> HostServices {
        HostServices {
            ui: self.ui.clone(),
            session: self.session.clone(),
            agent: self.agent.clone(),
        }
    }
}

/// An agent over a loaded set, wired as the CLI wires one.
pub struct Wired {
    pub agent: Agent,
    pub model: ModelInfo,
    pub tools: Arc<PluginTools>,
    pub hooks: Arc<PluginHooks>,
}

/// How a test shapes the agent: its configuration, and the executor its tool calls go through
/// (the set's tools, or a wrapper around them).
pub struct AgentOptions {
    pub configure: Box<dyn FnOnce(&mut AgentConfig)>,
    pub executor: Box<dyn FnOnce(Arc<PluginTools>) -> Arc<dyn ToolExecutor>>,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            configure: Box::new(|_| {}),
            executor: Box::new(|tools| tools),
        }
    }
}

/// The agent over `set` with the scripted provider's model, the set's tools and hooks, and the
/// system prompt "You are a test."; `services` get the session, the tools and the queues.
pub fn wire_agent(
    scene: &Scene,
    set: &Arc<PluginSet>,
    session: &SessionHandle,
    services: &Services,
    options: AgentOptions,
) -> Wired {
    let (model, provider) = provider(set, &scene.runtime, "scripted");
    let tools = Arc::new(PluginTools::new(set.clone()));
    let hooks = Arc::new(PluginHooks::new(set.clone()));
    services.session.attach(session.clone());
    services.agent.attach_tools(tools.clone());
    let mut config = AgentConfig::new(model.clone(), "You are a test.");
    (options.configure)(&mut config);
    let agent = Agent::new(
        config,
        provider,
        (options.executor)(tools.clone()),
        session.clone(),
    )
    .with_hooks(hooks.clone());
    services.agent.attach_queues(agent.queues());
    Wired {
        agent,
        model,
        tools,
        hooks,
    }
}
