//! The plugins of one tack process, in load order (built-in, then global, then project), with
//! indexes from tool, command and provider names to the plugin that serves them.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::{CommandSpec, HookKind, ProviderSpec, ToolSpec};
use crate::broker::bus::Bus;
use crate::engine::Runtime;
use crate::error::LoadError;
use crate::known_registrations;
use crate::plugin::{HostContext, LoadedPlugin, PluginSource, PluginSpec};

mod commands;

pub use commands::{check_command_name, MAX_COMMAND_DESCRIPTION, MAX_REGISTERED_COMMANDS};

#[derive(Default)]
pub struct PluginSet {
    plugins: Vec<Arc<LoadedPlugin>>,
    /// Plugins that failed to load, each with a message naming it and the cause.
    pub errors: Vec<LoadError>,
    tools: BTreeMap<String, (usize, ToolSpec)>,
    commands: BTreeMap<String, (usize, CommandSpec)>,
    /// Commands plugins registered after `init` (`tack:plugin/commands`).
    registered_commands: commands::Registered,
    providers: BTreeMap<String, (usize, ProviderSpec)>,
}

impl PluginSet {
    /// Loads every spec in order. A plugin that fails, or that registers a tool, command or
    /// provider another plugin already has, is left out with an error; the rest load. A plugin
    /// whose name is taken (by a built-in, or by an earlier spec) is refused before any of its
    /// code runs, so it never sees the owner's data directory or grants.
    pub async fn load(runtime: &Arc<Runtime>, specs: Vec<PluginSpec>, host: &HostContext) -> Self {
        let mut set = PluginSet::default();
        let specs = set.claim_names(specs);
        // One bus for the set: its plugins hear each other (on the channels granted to both),
        // never a plugin of another set.
        let bus = Arc::new(Bus::default());
        // Compile and instantiate concurrently (a cold start compiles every component), then add
        // in load order so collisions resolve the same way every time.
        let loads = specs
            .into_iter()
            .map(|spec| Self::load_one(runtime, spec, host, &bus));
        let loaded = futures::future::join_all(loads).await;
        runtime.cache().release_unheld();
        for result in loaded {
            match result {
                Ok(plugin) => {
                    if let Err(e) = set.add(plugin) {
                        set.errors.push(e);
                    }
                }
                Err(e) => set.errors.push(e),
            }
        }
        set
    }

    /// Loads one plugin, or defers it when what it registers is remembered from an earlier run
    /// (a built-in provider plugin: see [`crate::known_registrations`]), remembering what a
    /// built-in provider plugin registers the first time it loads.
    async fn load_one(
        runtime: &Arc<Runtime>,
        spec: PluginSpec,
        host: &HostContext,
        bus: &Arc<Bus>,
    ) -> Result<Arc<LoadedPlugin>, LoadError> {
        let memo = Self::memo_path(runtime, &spec);
        if let Some(known) = memo.as_deref().and_then(known_registrations::read) {
            return LoadedPlugin::deferred(runtime, spec, host, bus, known);
        }
        let turned_off = known_registrations::turned_off(&spec.config);
        let plugin = LoadedPlugin::load_on(runtime, spec, host, bus).await?;
        if let Some(path) = memo {
            if known_registrations::rememberable(&plugin.registration, turned_off) {
                known_registrations::write(&path, &plugin.api_version, &plugin.registration);
            }
        }
        Ok(plugin)
    }

    /// Where a built-in plugin's registration is remembered; `None` for other plugins, and
    /// without a cache directory.
    fn memo_path(runtime: &Runtime, spec: &PluginSpec) -> Option<std::path::PathBuf> {
        if spec.source != PluginSource::Builtin {
            return None;
        }
        let cache = runtime.cache();
        let dir = cache.dir()?;
        let name = &spec.manifest.plugin.name;
        let entry = cache.precompiled_for(Some(name), &spec.wasm)?;
        let config = serde_json::to_string(&spec.config).unwrap_or_else(|_| "{}".into());
        Some(known_registrations::path(dir, entry.digest, name, &config))
    }

    /// Keeps the first spec of each name, built-in ones before all others wherever they stand.
    fn claim_names(&mut self, specs: Vec<PluginSpec>) -> Vec<PluginSpec> {
        let builtin: BTreeSet<String> = specs
            .iter()
            .filter(|s| s.source == PluginSource::Builtin)
            .map(|s| s.manifest.plugin.name.clone())
            .collect();
        let mut owners: BTreeMap<String, String> = BTreeMap::new();
        let mut kept = Vec::with_capacity(specs.len());
        for spec in specs {
            let name = spec.manifest.plugin.name.clone();
            let owner = if spec.source != PluginSource::Builtin && builtin.contains(&name) {
                Some("a built-in plugin".to_string())
            } else {
                owners.get(&name).cloned()
            };
            match owner {
                Some(owner) => self.errors.push(LoadError::NameTaken {
                    plugin: name,
                    source_label: spec.wasm_label.clone(),
                    owner,
                }),
                None => {
                    owners.insert(name, format!("the plugin from {}", spec.wasm_label));
                    kept.push(spec);
                }
            }
        }
        kept
    }

    /// Whether `plugin`'s tool `tool` may take the place of plugin `owner`'s: with the
    /// `replace_tools` grant for that name, over a built-in plugin's tool only.
    fn may_replace(&self, plugin: &LoadedPlugin, tool: &str, owner: usize) -> bool {
        plugin.capabilities.replace_tools.iter().any(|t| t == tool)
            && matches!(self.plugins[owner].source, PluginSource::Builtin)
    }

    /// Adds a loaded plugin, refusing name collisions with a message naming both plugins; a
    /// tool may replace a built-in's of the same name with the `replace_tools` grant.
    pub fn add(&mut self, plugin: Arc<LoadedPlugin>) -> Result<(), LoadError> {
        let name = plugin.name().to_string();
        if self.plugins.iter().any(|p| p.name() == name) {
            return Err(LoadError::Conflict {
                plugin: name,
                message: "a plugin with this name is already loaded".into(),
            });
        }
        let reg = &plugin.registration;
        let clash = |kind: &str, item: &str, other: usize| {
            LoadError::Conflict {
            plugin: name.clone(),
            message: format!(
                "{kind} '{item}' is already provided by plugin '{}'; remove one of them or rename it",
                self.plugins[other].name()
            ),
        }
        };
        for t in &reg.tools {
            if let Some((other, _)) = self.tools.get(&t.name) {
                if !self.may_replace(&plugin, &t.name, *other) {
                    return Err(clash("tool", &t.name, *other));
                }
            }
        }
        for c in &reg.commands {
            if let Some((other, _)) = self.commands.get(&c.name) {
                return Err(clash("command", &format!("/{}", c.name), *other));
            }
        }
        for p in &reg.providers {
            if let Some((other, _)) = self.providers.get(&p.id) {
                return Err(clash("provider", &p.id, *other));
            }
        }
        let index = self.plugins.len();
        for t in &reg.tools {
            self.tools.insert(t.name.clone(), (index, t.clone()));
        }
        for c in &reg.commands {
            self.commands.insert(c.name.clone(), (index, c.clone()));
        }
        for p in &reg.providers {
            self.providers.insert(p.id.clone(), (index, p.clone()));
        }
        self.plugins.push(plugin);
        Ok(())
    }

    pub fn plugins(&self) -> &[Arc<LoadedPlugin>] {
        &self.plugins
    }

    pub fn get(&self, name: &str) -> Option<&Arc<LoadedPlugin>> {
        self.plugins.iter().find(|p| p.name() == name)
    }

    pub fn tool(&self, name: &str) -> Option<(&Arc<LoadedPlugin>, &ToolSpec)> {
        self.tools
            .get(name)
            .map(|(i, spec)| (&self.plugins[*i], spec))
    }

    pub fn tools(&self) -> impl Iterator<Item = (&Arc<LoadedPlugin>, &ToolSpec)> {
        self.tools
            .values()
            .map(|(i, spec)| (&self.plugins[*i], spec))
    }

    pub fn provider(&self, id: &str) -> Option<(&Arc<LoadedPlugin>, &ProviderSpec)> {
        self.providers
            .get(id)
            .map(|(i, spec)| (&self.plugins[*i], spec))
    }

    pub fn providers(&self) -> impl Iterator<Item = (&Arc<LoadedPlugin>, &ProviderSpec)> {
        self.providers
            .values()
            .map(|(i, spec)| (&self.plugins[*i], spec))
    }

    /// Plugins subscribed to `hook`, in load order.
    pub fn subscribers(&self, hook: HookKind) -> impl Iterator<Item = &Arc<LoadedPlugin>> {
        self.plugins
            .iter()
            .filter(move |p| p.subscribes(hook) && p.disabled_reason().is_none())
    }
}
