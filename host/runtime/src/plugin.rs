//! A loaded plugin: its compiled component, its registration, and a small pool of instances that
//! calls check out, run under a deadline, and check back in. An instance that faulted is never
//! reused; a plugin that keeps faulting is disabled.
//!
//! Loading and version checks are in `load`, registration checks in `validate`, the instance
//! pool and the one way into the guest in `pool`, the typed calls in `calls`, provider round
//! trips in `provider_session`, and fan-out in [`crate::fan_out`].

mod calls;
mod completions;
mod editor;
mod load;
mod pool;
mod provider_session;
mod renderers;
pub(crate) mod validate;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use sha2::Digest as _;

use crate::api::{EventKind, HookKind, Registration};
use crate::bindings::latest::extensions::exports::tack::plugin::task_runner::GuestIndices as TaskRunnerIndices;
use crate::bindings::latest::PluginIndices;
use crate::bindings::provider_v0_1_0::exports::tack::provider::incremental::GuestIndices as IncrementalIndices;
use crate::bindings::v0_2_0::completions::exports::tack::plugin0_2_0::completions::GuestIndices as CompletionsIndices;
use crate::bindings::v0_2_0::editor::exports::tack::plugin0_2_0::editor::GuestIndices as EditorIndices;
use crate::bindings::v0_2_0::observer::exports::tack::plugin0_2_0::observer::GuestIndices as ObserverIndices;
use crate::bindings::v0_2_0::provider_hooks::exports::tack::plugin0_2_0::provider_hooks::GuestIndices as ProviderHooksIndices;
use crate::bindings::v0_2_0::renderers::exports::tack::plugin0_2_0::renderers::GuestIndices as RenderersIndices;
use crate::bindings::v0_2_0::session_hooks::exports::tack::plugin0_2_0::session_hooks::GuestIndices as SessionHooksIndices;
use crate::broker::secrets::SecretStore;
use crate::cache::CodeOrigin;
use crate::engine::Runtime;
use crate::manifest::{Capabilities, Manifest};
use crate::services::HostServices;
use crate::state::{PluginEnv, PluginState};
use tack_core::sync::lock;

pub use completions::{CompletionItem, InputCompletion, MAX_COMPLETION_ITEMS};
pub use editor::EditorView;
pub use load::validate_component;
pub(crate) use pool::{CallSetup, Live};
pub use provider_session::ProviderSession;
pub use renderers::{Drawing, RenderedToolCall, ToolCallView, ToolResultView};

/// Where a plugin came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginSource {
    /// Shipped inside the tack binary.
    Builtin,
    /// A package folder on disk.
    Path(PathBuf),
}

/// Everything needed to load one plugin.
pub struct PluginSpec {
    pub manifest: Manifest,
    /// The component. Empty for a built-in plugin (`PluginSource::Builtin`) the runtime holds
    /// precompiled ([`crate::RuntimeConfig::precompiled`], by name): tack hands it no copy.
    /// Shared, not copied, between specs of the same component (every Pi extension runs the one
    /// Pi runtime), which the runtime then compiles and maps once.
    pub wasm: Arc<[u8]>,
    /// Shown in errors ("builtin:core-tools", or the file path).
    pub wasm_label: String,
    pub source: PluginSource,
    /// What the user granted; the effective capabilities are the manifest's ∩ this.
    pub granted: Capabilities,
    /// Configuration object passed to `init` (manifest defaults merged with user config).
    pub config: serde_json::Value,
}

impl PluginSpec {
    /// Whether this is tack's own built-in `name` (a package may take any name it likes).
    pub fn is_builtin(&self, name: &str) -> bool {
        self.manifest.plugin.name == name && matches!(self.source, PluginSource::Builtin)
    }
}

/// Per-process facts every plugin is loaded against.
#[derive(Clone)]
pub struct HostContext {
    pub workspace: PathBuf,
    /// Parent of per-plugin data directories; `None` gives plugins none.
    pub data_root: Option<PathBuf>,
    pub services: HostServices,
    pub secrets: SecretStore,
    /// Whether the user trusts the project in `workspace`; policies read it through
    /// `tack:plugin/project`.
    pub project_trusted: bool,
}

pub struct LoadedPlugin {
    pub manifest: Manifest,
    pub source: PluginSource,
    /// Declared and granted.
    pub capabilities: Capabilities,
    /// Declared but not granted.
    pub denied: Capabilities,
    pub registration: Registration,
    /// The `tack:plugin` version the component speaks.
    pub api_version: String,
    pub(crate) runtime: Arc<Runtime>,
    /// The compiled and linked component: set at load, or on first use for a deferred plugin.
    code: tokio::sync::OnceCell<Linked>,
    /// A deferred plugin's component until its first use compiles it.
    deferred: Mutex<Option<Deferred>>,
    /// Its registration was remembered from an earlier run, not read from this process's `init`.
    remembered: bool,
    pub(crate) env: Arc<PluginEnv>,
    data_dir: Option<PathBuf>,
    config_json: String,
    pool: Mutex<Vec<Live>>,
    /// Permits for checked-out instances: `Budgets::live_instances`, or fewer where the
    /// manifest's `instances` asks for fewer.
    in_use: Arc<tokio::sync::Semaphore>,
    instance_cap: usize,
    faults: AtomicU32,
    disabled: Mutex<Option<String>>,
}

/// A component compiled (or deserialized) and linked, ready to instantiate.
pub(crate) struct Linked {
    pre: wasmtime::component::InstancePre<PluginState>,
    indices: PluginIndices,
    pub(crate) task_indices: Option<TaskRunnerIndices>,
    pub(crate) incremental_indices: Option<IncrementalIndices>,
    pub(crate) observer_indices: Option<ObserverIndices>,
    pub(crate) provider_hooks_indices: Option<ProviderHooksIndices>,
    pub(crate) session_hooks_indices: Option<SessionHooksIndices>,
    pub(crate) completions_indices: Option<CompletionsIndices>,
    pub(crate) renderers_indices: Option<RenderersIndices>,
    pub(crate) editor_indices: Option<EditorIndices>,
    origin: CodeOrigin,
}

/// What a deferred plugin needs to load on first use.
struct Deferred {
    code: Code,
    label: String,
}

/// Where a plugin's component comes from.
pub(crate) enum Code {
    /// Built into tack, with its precompiled artifact.
    Builtin(crate::cache::Precompiled),
    /// Bytes read from a package.
    Bytes(Arc<[u8]>),
}

impl Code {
    /// The spec's component: the runtime's precompiled built-in when the spec is one.
    pub(crate) fn of(runtime: &Runtime, spec: &mut PluginSpec) -> Code {
        let builtin =
            (spec.source == PluginSource::Builtin).then_some(spec.manifest.plugin.name.as_str());
        match runtime.cache().precompiled_for(builtin, &spec.wasm) {
            Some(entry) => Code::Builtin(entry),
            None => Code::Bytes(std::mem::take(&mut spec.wasm)),
        }
    }
}

/// The folder under the data root that belongs to a plugin. A built-in keeps its name (names of
/// built-ins are reserved); a package's folder is keyed by where it is installed as well, so a
/// package that takes a name another one had, or one loaded from elsewhere under the same name,
/// never reads what the other left. `tack remove` deletes the folder with the package.
pub fn data_dir_name(name: &str, source: &PluginSource) -> String {
    match source {
        PluginSource::Builtin => name.to_string(),
        PluginSource::Path(dir) => {
            let dir = dir.canonicalize().unwrap_or_else(|_| dir.clone());
            let digest = sha2::Sha256::digest(dir.as_os_str().as_encoded_bytes());
            let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
            format!("{name}-{short}")
        }
    }
}

impl LoadedPlugin {
    pub fn name(&self) -> &str {
        &self.env.name
    }

    /// Its data folder (`plugin-data/<name>`), when tack keeps plugin data.
    pub fn data_dir(&self) -> Option<&std::path::Path> {
        self.data_dir.as_deref()
    }

    pub fn services(&self) -> &HostServices {
        &self.env.services
    }

    pub fn subscribes(&self, hook: HookKind) -> bool {
        self.registration.hooks.contains(&hook)
    }

    pub fn observes(&self, event: EventKind) -> bool {
        self.registration.events.contains(&event)
    }

    /// `Some(reason)` once the plugin has been disabled.
    pub fn disabled_reason(&self) -> Option<String> {
        lock(&self.disabled).clone()
    }

    /// Whether its component is compiled and linked: false for a deferred plugin no call has
    /// reached yet.
    pub fn is_loaded(&self) -> bool {
        self.code.initialized()
    }

    /// Where its machine code came from, once it is loaded.
    pub fn code_origin(&self) -> Option<CodeOrigin> {
        self.code.get().map(|linked| linked.origin)
    }

    pub fn fault_count(&self) -> u32 {
        self.faults.load(Ordering::Relaxed)
    }

    pub(crate) fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    pub(crate) fn limits(&self) -> &crate::engine::CallLimits {
        &self.runtime.config().limits
    }
}
