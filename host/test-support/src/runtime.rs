//! Fixtures for tests and benches that load real components into the plugin runtime: plugin
//! specs, the provider a loaded set offers as a model, a recorder of agent events, and tool
//! calls and their results.

mod harness;

pub use harness::{scripted_provider, wire_agent, AgentOptions, Scene, Services, Wired};

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tack_core::event::{AgentEvent, EventSink};
use tack_core::ModelInfo;
use tack_runtime::api::{ContentBlock, ToolCall, ToolResult};
use tack_runtime::bridge::PluginProvider;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{
    Capabilities, Manifest, PluginSet, PluginSource, PluginSpec, Runtime, RuntimeConfig,
};

/// A plugin runtime with default limits that keeps compiled components in `cache`.
pub fn cached_runtime(cache: impl Into<PathBuf>) -> Arc<Runtime> {
    Runtime::new(RuntimeConfig {
        cache_dir: Some(cache.into()),
        ..RuntimeConfig::default()
    })
    .expect("runtime")
}

/// The async runtime the benches measure on: two workers, as on the CI machine.
#[cfg(feature = "tokio")]
pub fn bench_tokio() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio")
}

/// A test component loaded from `wasm` (a path tack-builtin built) under `name`, its manifest
/// asking for nothing; `granted` is what the user granted it.
pub fn spec(name: &str, wasm: &str, granted: Capabilities, config: Value) -> PluginSpec {
    let manifest = format!(
        "[plugin]\nname = \"{name}\"\nversion = \"0.0.1\"\napi = \"0.1\"\ncomponent = \"x.wasm\"\n"
    );
    manifest_spec(&manifest, wasm, granted, config)
}

/// A test component loaded from `wasm` with the manifest `manifest` (TOML).
pub fn manifest_spec(
    manifest: &str,
    wasm: &str,
    granted: Capabilities,
    config: Value,
) -> PluginSpec {
    PluginSpec {
        manifest: Manifest::parse(manifest).expect("manifest"),
        wasm: std::fs::read(wasm)
            .expect("component built by tack-builtin")
            .into(),
        wasm_label: wasm.to_string(),
        source: PluginSource::Path(PathBuf::from(wasm)),
        granted,
        config,
    }
}

/// The built-in plugin `name` as tack ships it, granted what its manifest declares (as the CLI
/// grants first-party plugins).
pub fn builtin_spec(name: &str, config: Value) -> PluginSpec {
    let builtin = tack_builtin::builtin(name).unwrap_or_else(|| panic!("{name} is built in"));
    let manifest = Manifest::parse(builtin.manifest).expect("built-in manifest");
    PluginSpec {
        granted: manifest.capabilities.clone(),
        manifest,
        wasm: builtin.wasm.into(),
        wasm_label: name.into(),
        source: PluginSource::Builtin,
        config,
    }
}

/// The first model of the provider `id` in `set`, and that provider as the agent calls it.
pub fn provider(set: &PluginSet, runtime: &Runtime, id: &str) -> (ModelInfo, Arc<PluginProvider>) {
    let (plugin, spec) = set
        .provider(id)
        .unwrap_or_else(|| panic!("no provider {id}"));
    let first = spec.models.first().expect("a model");
    let model = ModelInfo {
        provider: id.into(),
        id: first.id.clone(),
        name: first.name.clone(),
        context_window: first.context_window,
        max_output_tokens: first.max_output_tokens,
        reasoning: false,
        input: Vec::new(),
        cost: Default::default(),
    };
    let provider = Arc::new(PluginProvider::new(
        plugin.clone(),
        spec.clone(),
        None,
        SecretStore::new(None),
        runtime.http().clone(),
    ));
    (model, provider)
}

/// Every event the agent emitted, in order.
#[derive(Default)]
pub struct Events(Mutex<Vec<AgentEvent>>);

impl EventSink for Events {
    fn emit(&self, event: &AgentEvent) {
        self.0.lock().expect("events").push(event.clone());
    }
}

impl Events {
    pub fn events(&self) -> Vec<AgentEvent> {
        self.0.lock().expect("events").clone()
    }

    /// The compaction start and end events.
    pub fn compaction(&self) -> Vec<AgentEvent> {
        crate::session::compaction_events(self.events())
    }
}

/// A call of the tool `name` with `args`, as the host hands it to a plugin.
pub fn tool_call(name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: format!("call-{name}"),
        name: name.into(),
        arguments: args.to_string(),
    }
}

/// The text of a plugin's tool result, images left out.
pub fn result_text(result: &ToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.as_str()),
            ContentBlock::Image(_) => None,
        })
        .collect()
}
