//! Loading a plugin: check and compile the component (or take it from the precompiled artifacts
//! or the cache), refuse API versions this host cannot speak, link it, open its directories,
//! and run `init` once to read its registration; or, for a plugin whose registration is already
//! known, all of that but the code, which is loaded on first use.

use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex};

use tack_core::sync::lock;

use super::pool::ALLOW_BLOCKING_CURRENT_THREAD;
use super::validate::validate_registration;
use super::{data_dir_name, Code, Deferred, HostContext, Linked, LoadedPlugin, PluginSpec};
use crate::api::Registration;
use crate::bindings::latest::extensions::exports::tack::plugin::task_runner::GuestIndices as TaskRunnerIndices;
use crate::bindings::latest::PluginIndices;
use crate::bindings::provider_v0_1_0::exports::tack::provider::incremental::GuestIndices as IncrementalIndices;
use crate::bindings::v0_2_0::completions::exports::tack::plugin0_2_0::completions::GuestIndices as CompletionsIndices;
use crate::bindings::v0_2_0::editor::exports::tack::plugin0_2_0::editor::GuestIndices as EditorIndices;
use crate::bindings::v0_2_0::observer::exports::tack::plugin0_2_0::observer::GuestIndices as ObserverIndices;
use crate::bindings::v0_2_0::provider_hooks::exports::tack::plugin0_2_0::provider_hooks::GuestIndices as ProviderHooksIndices;
use crate::bindings::v0_2_0::renderers::exports::tack::plugin0_2_0::renderers::GuestIndices as RenderersIndices;
use crate::bindings::v0_2_0::session_hooks::exports::tack::plugin0_2_0::session_hooks::GuestIndices as SessionHooksIndices;
use crate::bindings::SUPPORTED_API_VERSIONS;
use crate::broker::bus::{Bus, Port};
use crate::cache::CodeOrigin;
use crate::engine::Runtime;
use crate::error::LoadError;
use crate::error::PluginError;
use crate::known_registrations::KnownRegistration;
use crate::manifest::same_series;
use crate::state::PluginEnv;

const WASM_MAGIC: &[u8] = b"\0asm";

impl LoadedPlugin {
    /// Loads one plugin on a bus of its own: it hears no other plugin. [`crate::PluginSet`]
    /// loads its plugins onto one shared bus.
    pub async fn load(
        runtime: &Arc<Runtime>,
        spec: PluginSpec,
        host: &HostContext,
    ) -> Result<Arc<Self>, LoadError> {
        Self::load_on(runtime, spec, host, &Arc::default()).await
    }

    /// Loads one plugin onto `bus`, the plugin set's.
    pub(crate) async fn load_on(
        runtime: &Arc<Runtime>,
        mut spec: PluginSpec,
        host: &HostContext,
        bus: &Arc<Bus>,
    ) -> Result<Arc<Self>, LoadError> {
        let name = spec.manifest.plugin.name.clone();
        let code = Code::of(runtime, &mut spec);
        let (component, api_version, origin) =
            compile(runtime, &name, &spec.wasm_label, code).await?;
        let linked = link(runtime, &name, &component, origin)?;
        let mut plugin =
            Self::assemble(runtime, spec, host, bus, api_version, empty_registration())?;
        let _ = plugin.code.set(linked);
        let (live, registration) =
            plugin
                .instantiate()
                .await
                .map_err(|source| LoadError::Init {
                    plugin: name.clone(),
                    source,
                })?;
        validate_registration(&name, &registration)?;
        plugin.registration = registration;
        plugin.checkin(live);
        Ok(plugin.publish())
    }

    /// A plugin whose registration is already known (see [`crate::known_registrations`]):
    /// nothing of it is compiled, instantiated or run until the first call reaches it.
    pub fn deferred(
        runtime: &Arc<Runtime>,
        mut spec: PluginSpec,
        host: &HostContext,
        bus: &Arc<Bus>,
        known: KnownRegistration,
    ) -> Result<Arc<Self>, LoadError> {
        let name = spec.manifest.plugin.name.clone();
        validate_registration(&name, &known.registration)?;
        let deferred = Deferred {
            code: Code::of(runtime, &mut spec),
            label: spec.wasm_label.clone(),
        };
        let mut plugin = Self::assemble(
            runtime,
            spec,
            host,
            bus,
            known.api_version,
            known.registration,
        )?;
        plugin.deferred = Mutex::new(Some(deferred));
        plugin.remembered = true;
        tracing::debug!(plugin = %name, "plugin deferred until first use");
        Ok(plugin.publish())
    }

    /// Everything but the code: grants, data directory, sandbox.
    fn assemble(
        runtime: &Arc<Runtime>,
        spec: PluginSpec,
        host: &HostContext,
        bus: &Arc<Bus>,
        api_version: String,
        registration: Registration,
    ) -> Result<Self, LoadError> {
        let name = spec.manifest.plugin.name.clone();
        let capabilities = spec.manifest.capabilities.intersect(&spec.granted);
        let denied = spec.manifest.capabilities.minus(&capabilities);
        let data_dir = match &host.data_root {
            Some(root) => {
                let dir = root.join(data_dir_name(&name, &spec.source));
                std::fs::create_dir_all(&dir).map_err(|source| LoadError::Io {
                    plugin: name.clone(),
                    path: dir.display().to_string(),
                    source,
                })?;
                Some(dir.canonicalize().unwrap_or(dir))
            }
            None => None,
        };
        let workspace = host
            .workspace
            .canonicalize()
            .unwrap_or_else(|_| host.workspace.clone());
        let fs_dirs = crate::broker::fs::granted_dirs(
            &capabilities.fs,
            &workspace,
            data_dir.as_deref(),
            ALLOW_BLOCKING_CURRENT_THREAD,
        )
        .map_err(|source| LoadError::Sandbox {
            plugin: name.clone(),
            source,
        })?;
        let env = Arc::new(PluginEnv {
            name: name.clone(),
            capabilities: capabilities.clone(),
            workspace,
            services: host.services.clone(),
            secrets: host.secrets.clone(),
            http: runtime.http().clone(),
            public_http: runtime.public_http().clone(),
            project_trusted: host.project_trusted,
            budgets: runtime.config().budgets.clone(),
            plugin: std::sync::OnceLock::new(),
            fs_dirs,
            sandbox: runtime.sandbox().clone(),
            processes: Default::default(),
            streams: Default::default(),
            events: Default::default(),
            shortcuts: Default::default(),
            bus: Port::new(bus.clone(), !capabilities.bus.is_empty()),
        });
        bus.join(&env);
        let config_json = serde_json::to_string(&spec.config).unwrap_or_else(|_| "{}".into());
        let host_cap = runtime.config().budgets.live_instances;
        let live_instances = spec
            .manifest
            .plugin
            .instances
            .map_or(host_cap, |asked| (asked as usize).min(host_cap))
            .max(1);
        Ok(LoadedPlugin {
            manifest: spec.manifest,
            source: spec.source,
            capabilities,
            denied,
            registration,
            api_version,
            runtime: runtime.clone(),
            code: tokio::sync::OnceCell::new(),
            deferred: Mutex::new(None),
            remembered: false,
            env,
            data_dir,
            config_json,
            pool: Mutex::new(Vec::new()),
            in_use: Arc::new(tokio::sync::Semaphore::new(live_instances)),
            instance_cap: live_instances,
            faults: AtomicU32::new(0),
            disabled: Mutex::new(None),
        })
    }

    fn publish(self) -> Arc<Self> {
        let plugin = Arc::new(self);
        let _ = plugin.env.plugin.set(Arc::downgrade(&plugin));
        plugin.env.bus.start(Arc::downgrade(&plugin));
        plugin
    }

    /// The linked component, compiling a deferred plugin's on first use. A deferred plugin that
    /// cannot be loaded is disabled, with the reason.
    pub(crate) async fn linked(&self) -> Result<&Linked, PluginError> {
        self.code.get_or_try_init(|| self.load_deferred()).await
    }

    async fn load_deferred(&self) -> Result<Linked, PluginError> {
        let disabled = |reason: String| PluginError::Disabled {
            plugin: self.name().to_string(),
            reason,
        };
        let Some(Deferred { code, label }) = lock(&self.deferred).take() else {
            return Err(disabled(
                self.disabled_reason()
                    .unwrap_or_else(|| "its component is not available".into()),
            ));
        };
        let name = self.name().to_string();
        let loaded = match compile(&self.runtime, &name, &label, code).await {
            Ok((component, _, origin)) => link(&self.runtime, &name, &component, origin),
            Err(e) => Err(e),
        };
        loaded.map_err(|e| {
            let reason = format!("it could not be loaded: {e}");
            *lock(&self.disabled) = Some(reason.clone());
            disabled(reason)
        })
    }
}

/// Links a compiled component against the host's imports, once per plugin.
fn link(
    runtime: &Runtime,
    name: &str,
    component: &wasmtime::component::Component,
    origin: CodeOrigin,
) -> Result<Linked, LoadError> {
    let link_err = |e: wasmtime::Error| LoadError::Link {
        plugin: name.to_string(),
        message: format!("{e:#}"),
    };
    let pre = runtime
        .linker()
        .instantiate_pre(component)
        .map_err(link_err)?;
    let indices = PluginIndices::new(&pre).map_err(link_err)?;
    // Fan-out is optional: a plugin without the export simply cannot be given tasks.
    let task_indices = TaskRunnerIndices::new(&pre).ok();
    // So are incremental requests: a provider without the export is sent whole conversations.
    let incremental_indices = IncrementalIndices::new(&pre).ok();
    // And observing events by name (0.2.0): without the export, nothing is delivered.
    let observer_indices = ObserverIndices::new(&pre).ok();
    // And seeing provider requests (0.2.0), which the host calls only with the grant.
    let provider_hooks_indices = ProviderHooksIndices::new(&pre).ok();
    // And a say on the user's session moves (0.2.0).
    let session_hooks_indices = SessionHooksIndices::new(&pre).ok();
    // And completing what the user types (0.2.0).
    let completions_indices = CompletionsIndices::new(&pre).ok();
    // And drawing its own blocks of the conversation (0.2.0).
    let renderers_indices = RenderersIndices::new(&pre).ok();
    // And an editor of its own in place of tack's (0.2.0).
    let editor_indices = EditorIndices::new(&pre).ok();
    tracing::debug!(plugin = %name, ?origin, "plugin component ready");
    Ok(Linked {
        pre,
        indices,
        task_indices,
        incremental_indices,
        observer_indices,
        provider_hooks_indices,
        session_hooks_indices,
        completions_indices,
        renderers_indices,
        editor_indices,
        origin,
    })
}

/// Checks that `wasm` is a component this host can load (a tack plugin for a supported API
/// version) and compiles it into the cache, without instantiating it. Returns the API version.
/// Used at install time, so a broken package is refused before it is recorded.
pub async fn validate_component(
    runtime: &Arc<Runtime>,
    plugin: &str,
    label: &str,
    wasm: Vec<u8>,
) -> Result<String, LoadError> {
    compile(runtime, plugin, label, Code::Bytes(wasm.into()))
        .await
        .map(|(_, version, _)| version)
}

/// Checks the header, compiles (or loads from the cache) and reads the supported API version.
async fn compile(
    runtime: &Arc<Runtime>,
    plugin: &str,
    label: &str,
    code: Code,
) -> Result<(wasmtime::component::Component, String, CodeOrigin), LoadError> {
    let wasm = match &code {
        Code::Builtin(entry) => entry.wasm,
        Code::Bytes(bytes) => &bytes[..],
    };
    check_wasm_header(plugin, label, wasm)?;
    let engine = runtime.engine().clone();
    let cache_runtime = runtime.clone();
    let invalid = |message: String| LoadError::InvalidComponent {
        plugin: plugin.to_string(),
        path: label.to_string(),
        message,
    };
    // Compilation is CPU-bound and can take seconds for large components.
    let (component, origin) = tokio::task::spawn_blocking(move || {
        let cache = cache_runtime.cache();
        match &code {
            Code::Builtin(entry) => cache.load_precompiled(&engine, entry),
            Code::Bytes(bytes) => cache.load_shared(&engine, bytes),
        }
    })
    .await
    .map_err(|e| invalid(e.to_string()))?
    .map_err(|e| invalid(format!("{e:#}")))?;
    let version = guest_api_version(plugin, runtime, &component)?;
    Ok((component, version, origin))
}

fn empty_registration() -> Registration {
    Registration {
        tools: Vec::new(),
        commands: Vec::new(),
        hooks: Vec::new(),
        events: Vec::new(),
        providers: Vec::new(),
    }
}

fn check_wasm_header(plugin: &str, path: &str, bytes: &[u8]) -> Result<(), LoadError> {
    if bytes.len() < 8 || &bytes[..4] != WASM_MAGIC {
        return Err(LoadError::NotWasm {
            plugin: plugin.into(),
            path: path.into(),
        });
    }
    // Core modules carry version 1 (01 00 00 00); components carry 0d 00 01 00.
    if bytes[4..8] == [1, 0, 0, 0] {
        return Err(LoadError::CoreModule {
            plugin: plugin.into(),
            path: path.into(),
        });
    }
    Ok(())
}

/// Orders `X.Y.Z` versions numerically; anything unparsable sorts first.
fn version_key(version: &str) -> Vec<u64> {
    version
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// The `tack:plugin` version a component speaks: the newest one among its `tack:plugin`
/// imports and exports (a 0.2.0 plugin exports 0.1.0's `guest` and imports 0.2.0's additions),
/// refusing versions this host cannot speak. A component without the `guest` export is no plugin.
fn guest_api_version(
    plugin: &str,
    runtime: &Runtime,
    component: &wasmtime::component::Component,
) -> Result<String, LoadError> {
    let ty = component.component_type();
    let engine = runtime.engine();
    let mut is_plugin = false;
    let mut found: Option<String> = None;
    let mut note = |version: &str| {
        let newer = match &found {
            None => true,
            Some(seen) => version_key(version) > version_key(seen),
        };
        if newer {
            found = Some(version.to_string());
        }
    };
    for (name, _) in ty.exports(engine) {
        if let Some(version) = name.strip_prefix("tack:plugin/guest@") {
            is_plugin = true;
            note(version);
        } else if name == "tack:plugin/guest" {
            is_plugin = true;
            note("");
        }
    }
    for (name, _) in ty.imports(engine) {
        if let Some((_, version)) = name
            .strip_prefix("tack:plugin/")
            .and_then(|rest| rest.split_once('@'))
        {
            note(version);
        }
    }
    let found = if is_plugin { found } else { None };
    let Some(version) = found else {
        return Err(LoadError::NotAPlugin {
            plugin: plugin.into(),
        });
    };
    if SUPPORTED_API_VERSIONS
        .iter()
        .any(|v| same_series(v, &version))
    {
        Ok(version)
    } else {
        Err(LoadError::UnsupportedApi {
            plugin: plugin.into(),
            found: if version.is_empty() {
                "(unversioned)".into()
            } else {
                version
            },
            supported: SUPPORTED_API_VERSIONS.join(", "),
        })
    }
}
