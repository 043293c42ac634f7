//! The tool registry over plugins: every tool a loaded plugin registered, filtered by the active
//! set, each call routed to its plugin.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use tack_core::agent::{ToolError, ToolExecutor, ToolProgress, ToolSpec};
use tack_core::message::{ToolCall, ToolResult};
use tokio_util::sync::CancellationToken;

use super::convert;
use crate::api;
use crate::error::PluginError;
use crate::plugin_set::PluginSet;

pub struct PluginTools {
    set: Arc<PluginSet>,
    /// `None`: every registered tool is active.
    active: Arc<RwLock<Option<Vec<String>>>>,
    /// Tools plugins registered after `init` (`tack:plugin/tools`, 0.2.0): name -> (plugin, spec).
    registered: RwLock<BTreeMap<String, (String, api::ToolSpec)>>,
}

/// How many tools one plugin may register after `init`.
pub const MAX_REGISTERED_TOOLS: usize = 128;
/// The largest spec (name, label, description, schema, snippet) one registration may carry.
pub const MAX_TOOL_SPEC_BYTES: usize = 64 * 1024;

/// Why a registration made while tack runs was refused: a tool's ([`PluginTools::register`]) or
/// a provider's ([`crate::ProviderRegistry::register`]); mirrors the WIT `register-error`s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Taken(String),
    #[error("{0}")]
    Limit(String),
}

/// A tool as `tools.all` lists it.
#[derive(Debug, Clone)]
pub struct ToolInfo {
    pub spec: api::ToolSpec,
    pub plugin: String,
    pub active: bool,
}

/// Whether a tool call's arguments ask for its commands to run outside the command sandbox
/// (`"unsandboxed": true`, which core-tools' `bash` documents; any tool may carry it).
pub fn asks_to_leave_the_sandbox(arguments: &serde_json::Value) -> bool {
    arguments.get("unsandboxed") == Some(&serde_json::Value::Bool(true))
}

impl PluginTools {
    /// Whether some plugin judges requests to leave the sandbox: one holding the `escalation`
    /// grant, enabled, with a before-tool-call hook. Its hook ran before this call (and every
    /// hook allowed it), so the call is approved; with no such plugin, nobody approved it.
    fn escalation_is_judged(&self) -> bool {
        self.set.plugins().iter().any(|p| {
            p.disabled_reason().is_none()
                && p.capabilities.escalation
                && p.subscribes(crate::api::HookKind::BeforeToolCall)
        })
    }

    pub fn new(set: Arc<PluginSet>) -> Self {
        Self {
            set,
            active: Arc::new(RwLock::new(None)),
            registered: RwLock::new(BTreeMap::new()),
        }
    }

    /// The plugins these tools come from.
    pub fn set(&self) -> &Arc<PluginSet> {
        &self.set
    }

    pub fn all_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .set
            .tools()
            .map(|(_, spec)| spec.name.clone())
            .collect();
        names.extend(self.read_registered().keys().cloned());
        names
    }

    fn read_registered(
        &self,
    ) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, (String, api::ToolSpec)>> {
        // A map of plain values: a writer that panicked left it whole.
        self.registered.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers (or replaces) one of `plugin`'s tools after its `init`. A name held by another
    /// plugin, or by any plugin's `init` registration, is refused: no plugin shadows another's
    /// tool.
    pub fn register(&self, plugin: &str, spec: api::ToolSpec) -> Result<(), RegisterError> {
        crate::plugin::validate::check_tool_spec(&spec).map_err(RegisterError::Invalid)?;
        let size = spec.name.len()
            + spec.label.len()
            + spec.description.len()
            + spec.parameters.len()
            + spec.prompt_snippet.as_ref().map_or(0, String::len);
        if size > MAX_TOOL_SPEC_BYTES {
            return Err(RegisterError::Limit(format!(
                "tool '{}': its spec is {size} bytes, over the {MAX_TOOL_SPEC_BYTES}-byte cap",
                spec.name
            )));
        }
        if let Some((owner, _)) = self.set.tool(&spec.name) {
            return Err(RegisterError::Taken(format!(
                "tool '{}' is registered by plugin '{}' at start",
                spec.name,
                owner.name()
            )));
        }
        let mut registered = self.registered.write().unwrap_or_else(|e| e.into_inner());
        match registered.get(&spec.name) {
            Some((owner, _)) if owner != plugin => {
                return Err(RegisterError::Taken(format!(
                    "tool '{}' is registered by plugin '{owner}'",
                    spec.name
                )))
            }
            Some(_) => {}
            None => {
                let held = registered.values().filter(|(o, _)| o == plugin).count();
                if held >= MAX_REGISTERED_TOOLS {
                    return Err(RegisterError::Limit(format!(
                        "plugin '{plugin}' has registered {held} tools, the most it may"
                    )));
                }
            }
        }
        registered.insert(spec.name.clone(), (plugin.to_string(), spec));
        Ok(())
    }

    /// Removes a tool `plugin` registered after `init`; `false` when it has none of that name.
    pub fn unregister(&self, plugin: &str, name: &str) -> bool {
        let mut registered = self.registered.write().unwrap_or_else(|e| e.into_inner());
        if registered
            .get(name)
            .is_some_and(|(owner, _)| owner == plugin)
        {
            registered.remove(name);
            true
        } else {
            false
        }
    }

    /// Every tool of every loaded plugin, with its spec and whether the model may call it now.
    pub fn infos(&self) -> Vec<ToolInfo> {
        let mut infos = Vec::new();
        self.each_tool(|plugin, spec, active| {
            infos.push(ToolInfo {
                spec: spec.clone(),
                plugin: plugin.to_string(),
                active,
            })
        });
        infos
    }

    /// Visits every tool, from `init` and registered later, with its plugin's name and whether
    /// the model may call it now; nothing is copied, so the per-turn tool list clones only what
    /// it keeps.
    fn each_tool(&self, mut visit: impl FnMut(&str, &api::ToolSpec, bool)) {
        let active = self.active.read().ok().and_then(|a| a.clone());
        let is_active = |name: &str| {
            active
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == name))
        };
        for (plugin, spec) in self.set.tools() {
            let on = plugin.disabled_reason().is_none() && is_active(&spec.name);
            visit(plugin.name(), spec, on);
        }
        for (owner, spec) in self.read_registered().values() {
            let enabled = self
                .set
                .get(owner)
                .is_some_and(|p| p.disabled_reason().is_none());
            visit(owner, spec, enabled && is_active(&spec.name));
        }
    }

    /// The plugin serving `name`, from `init` or registered later.
    fn owner_of(&self, name: &str) -> Option<Arc<crate::plugin::LoadedPlugin>> {
        if let Some((plugin, _)) = self.set.tool(name) {
            return Some(plugin.clone());
        }
        let owner = self.read_registered().get(name)?.0.clone();
        self.set.get(&owner).cloned()
    }

    pub fn active_names(&self) -> Vec<String> {
        self.tools().into_iter().map(|t| t.name).collect()
    }

    /// Replaces the active set; names no plugin registered are an error naming them.
    pub fn set_active(&self, names: Vec<String>) -> Result<(), String> {
        let registered = self.read_registered();
        let unknown: Vec<&String> = names
            .iter()
            .filter(|n| self.set.tool(n).is_none() && !registered.contains_key(n.as_str()))
            .collect();
        if !unknown.is_empty() {
            let list: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
            return Err(format!("unknown tools: {}", list.join(", ")));
        }
        drop(registered);
        if let Ok(mut active) = self.active.write() {
            *active = Some(names);
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl ToolExecutor for PluginTools {
    fn tools(&self) -> Vec<ToolSpec> {
        let mut tools = Vec::new();
        self.each_tool(|_, spec, active| {
            if let Some(spec) = active.then(|| convert::tool_spec(spec)).flatten() {
                tools.push(spec);
            }
        });
        tools
    }

    async fn execute(
        &self,
        call: ToolCall,
        cancel: CancellationToken,
        progress: ToolProgress,
    ) -> Result<ToolResult, ToolError> {
        let Some(plugin) = self.owner_of(&call.name) else {
            return Err(ToolError::Failed(format!(
                "no plugin provides the tool '{}'",
                call.name
            )));
        };
        let unsandboxed = asks_to_leave_the_sandbox(&call.arguments);
        if unsandboxed && !self.escalation_is_judged() {
            return Err(ToolError::Failed(format!(
                "the call asks to run outside the command sandbox (`\"unsandboxed\": true`), \
                 but no policy plugin that judges that (the `escalation` grant; \
                 permission-gate has it) is loaded, so it did not run; call {} without it",
                call.name
            )));
        }
        let depth = progress.depth();
        let sink: crate::state::ProgressSink =
            Arc::new(move |partial| progress.update(convert::result(partial)));
        match plugin
            .call_tool_at(
                depth,
                convert::wit_call(&call),
                cancel.clone(),
                Some(sink),
                unsandboxed,
            )
            .await
        {
            Ok(result) => Ok(convert::result(result)),
            Err(PluginError::Timeout { limit, .. }) => Err(ToolError::TimedOut {
                after_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
            }),
            Err(_) if cancel.is_cancelled() => Err(ToolError::Cancelled),
            Err(e) => Err(ToolError::Crashed(e.to_string())),
        }
    }
}
