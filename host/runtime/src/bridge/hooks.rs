//! Hook chaining over plugins, in load order. before-tool-call fails closed: a hook that traps
//! or times out blocks the call and says which plugin failed. Other hooks fail open (the failure
//! is logged and the chain goes on), since blocking a prompt, a context or a compaction over a
//! broken plugin would leave the user stuck.

use std::sync::Arc;

use tack_core::agent::{
    AgentStartPatch, CompactDecision, CompactRequest, Hooks, InjectedMessage, InputAction,
    ToolDecision, TreeDecision, TreeRequest,
};
use tack_core::event::AgentEvent;
use tack_core::message::{Message, ToolCall, ToolResult};

use super::convert;
use crate::api::{self, EventKind, HookKind, Level};
use crate::bindings::v0_2_0::session_hooks::exports::tack::plugin0_2_0::session_hooks as session_api;
use crate::plugin::LoadedPlugin;
use crate::plugin_set::PluginSet;

/// Rounds of the before-tool-call chain before hooks that keep undoing each other's rewrites
/// are given up on (the call is blocked).
const MAX_HOOK_PASSES: usize = 3;

pub struct PluginHooks {
    set: Arc<PluginSet>,
}

impl PluginHooks {
    pub fn new(set: Arc<PluginSet>) -> Self {
        Self { set }
    }

    /// A plugin may change calls to its own tools, and to others' when granted.
    fn may_rewrite(&self, plugin: &LoadedPlugin, tool: &str) -> bool {
        let owns = self
            .set
            .tool(tool)
            .is_some_and(|(owner, _)| owner.name() == plugin.name());
        owns || plugin
            .capabilities
            .rewrite
            .iter()
            .any(|granted| granted == "*" || granted == tool)
    }

    fn warn(&self, plugin: &LoadedPlugin, message: String) {
        plugin
            .services()
            .ui
            .log(plugin.name(), Level::Warn, &message);
    }
}

#[async_trait::async_trait]
impl Hooks for PluginHooks {
    /// Deciding and rewriting are one chain, re-run until it is stable: a rewrite sends the new
    /// arguments through every subscriber again, so no plugin's allow stands for arguments it
    /// never saw, whatever the load order. Rewriting a tool another plugin provides needs the
    /// `rewrite` grant for that tool; without it the call is blocked (failing closed keeps a
    /// hook that meant to make a call safer from letting the unsafe original run).
    async fn before_tool_call(&self, call: &ToolCall) -> ToolDecision {
        let mut current = call.clone();
        let mut by: Vec<String> = Vec::new();
        for _pass in 0..MAX_HOOK_PASSES {
            let mut changed = false;
            for plugin in self.set.subscribers(HookKind::BeforeToolCall) {
                let arguments = match plugin.before_tool_call(&convert::wit_call(&current)).await {
                    Ok(api::ToolDecision::Allow) => continue,
                    Ok(api::ToolDecision::Block(reason)) => return ToolDecision::Block(reason),
                    Ok(api::ToolDecision::Rewrite(arguments)) => arguments,
                    Err(e) => {
                        return ToolDecision::Block(format!(
                            "blocked because the before-tool-call hook of plugin '{}' failed: {e}",
                            plugin.name()
                        ))
                    }
                };
                let value = match serde_json::from_str(&arguments) {
                    Ok(value @ serde_json::Value::Object(_)) => value,
                    _ => {
                        return ToolDecision::Block(format!(
                            "plugin '{}' rewrote the arguments of '{}' into something that is not a JSON object",
                            plugin.name(),
                            call.name
                        ))
                    }
                };
                if value == current.arguments {
                    continue;
                }
                if !self.may_rewrite(plugin, &call.name) {
                    return ToolDecision::Block(format!(
                        "plugin '{}' tried to change the arguments of this '{}' call, which it \
                         may not do without the `rewrite` grant for that tool; the call was not run",
                        plugin.name(),
                        call.name
                    ));
                }
                current.arguments = value;
                changed = true;
                if !by.iter().any(|name| name == plugin.name()) {
                    by.push(plugin.name().to_string());
                }
            }
            if !changed {
                return if by.is_empty() {
                    ToolDecision::Allow
                } else {
                    ToolDecision::Rewrite {
                        arguments: current.arguments,
                        by,
                    }
                };
            }
        }
        ToolDecision::Block(format!(
            "the before-tool-call hooks of {} kept changing the arguments of this '{}' call and \
             did not agree after {MAX_HOOK_PASSES} rounds; the call was not run",
            by.join(", "),
            call.name
        ))
    }

    async fn after_tool_call(&self, call: &ToolCall, result: &ToolResult) -> Option<ToolResult> {
        let wit_call = convert::wit_call(call);
        let mut current: Option<ToolResult> = None;
        for plugin in self.set.subscribers(HookKind::AfterToolCall) {
            let input = convert::wit_result(current.as_ref().unwrap_or(result));
            match plugin.after_tool_call(&wit_call, &input).await {
                Ok(Some(replacement)) => current = Some(convert::result(replacement)),
                Ok(None) => {}
                Err(e) => self.warn(
                    plugin,
                    format!("after-tool-call hook failed; result kept: {e}"),
                ),
            }
        }
        current
    }

    fn rewrites_context(&self) -> bool {
        self.set.subscribers(HookKind::Context).next().is_some()
    }

    async fn context(&self, messages: &[Arc<Message>]) -> Option<Vec<Arc<Message>>> {
        let mut current: Option<Vec<Arc<Message>>> = None;
        for plugin in self.set.subscribers(HookKind::Context) {
            let json = match serde_json::to_string(current.as_deref().unwrap_or(messages)) {
                Ok(json) => json,
                Err(_) => return current,
            };
            match plugin.context(&json).await {
                Ok(Some(replaced)) => match serde_json::from_str::<Vec<Message>>(&replaced) {
                    Ok(parsed) => current = Some(parsed.into_iter().map(Arc::new).collect()),
                    Err(e) => self.warn(
                        plugin,
                        format!("context hook returned messages that do not parse; ignored: {e}"),
                    ),
                },
                Ok(None) => {}
                Err(e) => self.warn(plugin, format!("context hook failed; messages kept: {e}")),
            }
        }
        current
    }

    async fn input(&self, text: &str) -> InputAction {
        let mut current = text.to_string();
        let mut changed = false;
        for plugin in self.set.subscribers(HookKind::Input) {
            match plugin.on_input(&current).await {
                Ok(api::InputAction::Continue) => {}
                Ok(api::InputAction::Transform(t)) => {
                    current = t;
                    changed = true;
                }
                Ok(api::InputAction::Handled) => return InputAction::Handled,
                Err(e) => self.warn(plugin, format!("input hook failed; text kept: {e}")),
            }
        }
        if changed {
            InputAction::Transform(current)
        } else {
            InputAction::Continue
        }
    }

    async fn before_agent_start(&self, prompt: &str, system_prompt: &str) -> AgentStartPatch {
        let mut system = system_prompt.to_string();
        let mut inject = Vec::new();
        for plugin in self.set.subscribers(HookKind::BeforeAgentStart) {
            match plugin.before_agent_start(prompt, &system).await {
                Ok(patch) => {
                    if let Some(replacement) = patch.system_prompt {
                        system = replacement;
                    }
                    if let Some(extra) = patch.append_system_prompt {
                        system = format!("{system}\n\n{extra}");
                    }
                    inject.extend(patch.inject.into_iter().map(|m| InjectedMessage {
                        plugin: plugin.name().to_string(),
                        custom_type: m.custom_type,
                        text: m.text,
                        display: m.display,
                    }));
                }
                Err(e) => self.warn(plugin, format!("before-agent-start hook failed: {e}")),
            }
        }
        AgentStartPatch {
            system_prompt: (system != system_prompt).then_some(system),
            append_system_prompt: None,
            inject,
        }
    }

    /// The first plugin that cancels or supplies a summary decides; the others are not asked.
    async fn before_compact(&self, request: &CompactRequest) -> CompactDecision {
        let mut subscribers = self.set.subscribers(HookKind::BeforeCompact).peekable();
        if subscribers.peek().is_none() {
            return CompactDecision::Proceed;
        }
        let messages = match serde_json::to_string(&request.messages) {
            Ok(json) => json,
            Err(_) => return CompactDecision::Proceed,
        };
        let wit_request = api::CompactRequest {
            messages,
            previous_summary: request.previous_summary.clone(),
            tokens_before: request.tokens_before,
            focus: request.focus.clone(),
        };
        for plugin in subscribers {
            match plugin.before_compact(wit_request.clone()).await {
                Ok(api::CompactDecision::Proceed) => {}
                Ok(api::CompactDecision::Cancel) => return CompactDecision::Cancel,
                Ok(api::CompactDecision::Summary(summary)) => {
                    return CompactDecision::Summary(summary)
                }
                Err(e) => self.warn(
                    plugin,
                    format!("before-compact hook failed; compaction goes on: {e}"),
                ),
            }
        }
        CompactDecision::Proceed
    }

    /// The first plugin that cancels or supplies a summary decides; a failing hook is logged
    /// and does not cancel.
    async fn before_tree(&self, request: &TreeRequest) -> TreeDecision {
        let mut asked = self.session_hook_plugins().peekable();
        if asked.peek().is_none() {
            return TreeDecision::Proceed;
        }
        let messages_left = serde_json::to_string(&request.messages_left).unwrap_or_default();
        let wit = session_api::TreeRequest {
            target_id: request.target_id.clone(),
            old_leaf_id: request.old_leaf_id.clone(),
            user_wants_summary: request.user_wants_summary,
            focus: request.focus.clone(),
            messages_left,
        };
        for plugin in asked {
            match plugin.before_session_tree(wit.clone()).await {
                Ok(session_api::TreeDecision::Proceed) => {}
                Ok(session_api::TreeDecision::Cancel) => {
                    return TreeDecision::Cancel {
                        by: plugin.name().to_string(),
                    }
                }
                Ok(session_api::TreeDecision::Summary(summary)) => {
                    return TreeDecision::Summary(summary)
                }
                Err(e) => self.warn(
                    plugin,
                    format!("before-tree hook failed; the move goes on: {e}"),
                ),
            }
        }
        TreeDecision::Proceed
    }

    fn observes_streaming(&self) -> bool {
        self.set
            .plugins()
            .iter()
            .any(|p| p.wants_event("message_update") || p.wants_event("tool_execution_update"))
    }

    async fn on_event(&self, event: &AgentEvent) {
        self.deliver_named(event).await;
        let Some(kind) = event_kind(event) else {
            return;
        };
        let observers: Vec<&Arc<LoadedPlugin>> = self
            .set
            .plugins()
            .iter()
            .filter(|p| p.observes(kind) && p.disabled_reason().is_none())
            .collect();
        if observers.is_empty() {
            return;
        }
        let data = event.to_json_line();
        for plugin in observers {
            if let Err(e) = plugin.on_event(kind, &data).await {
                self.warn(plugin, format!("event handler failed: {e}"));
            }
        }
    }
}

/// Who cancelled a session move (`tack:plugin/session-hooks`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plugin '{plugin}' cancelled {what}")]
pub struct MoveCancelled {
    pub plugin: String,
    pub what: &'static str,
}

/// A session replacing the current one (WIT `switch-request`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchReason {
    New,
    Resume,
}

impl PluginHooks {
    /// The plugins that may export `session-hooks`: those built against 0.2.0 and running.
    fn session_hook_plugins(&self) -> impl Iterator<Item = &Arc<LoadedPlugin>> {
        self.set.plugins().iter().filter(|p| {
            p.api_version == crate::bindings::v0_2_0::VERSION && p.disabled_reason().is_none()
        })
    }

    /// Pi's `session_before_switch`: asked before `/new` or `/resume` replaces the session.
    pub async fn before_switch(
        &self,
        reason: SwitchReason,
        target_session_id: Option<&str>,
    ) -> Result<(), MoveCancelled> {
        let request = session_api::SwitchRequest {
            reason: match reason {
                SwitchReason::New => session_api::SwitchReason::New,
                SwitchReason::Resume => session_api::SwitchReason::Resume,
            },
            target_session_id: target_session_id.map(str::to_owned),
        };
        for plugin in self.session_hook_plugins() {
            match plugin.before_session_switch(request.clone()).await {
                Ok(session_api::SessionDecision::Proceed) => {}
                Ok(session_api::SessionDecision::Cancel) => {
                    return Err(MoveCancelled {
                        plugin: plugin.name().to_string(),
                        what: match reason {
                            SwitchReason::New => "the new session",
                            SwitchReason::Resume => "the switch to another session",
                        },
                    })
                }
                Err(e) => self.warn(
                    plugin,
                    format!("before-switch hook failed; it goes on: {e}"),
                ),
            }
        }
        Ok(())
    }

    /// Pi's `session_before_fork`: asked before `/fork` (`at == false`: the new session holds
    /// what came before `entry_id`) or `/clone` (`at == true`: up to and with it).
    pub async fn before_fork(&self, entry_id: &str, at: bool) -> Result<(), MoveCancelled> {
        let request = session_api::ForkRequest {
            entry_id: entry_id.to_string(),
            position: if at {
                session_api::ForkPosition::At
            } else {
                session_api::ForkPosition::Before
            },
        };
        for plugin in self.session_hook_plugins() {
            match plugin.before_session_fork(request.clone()).await {
                Ok(session_api::SessionDecision::Proceed) => {}
                Ok(session_api::SessionDecision::Cancel) => {
                    return Err(MoveCancelled {
                        plugin: plugin.name().to_string(),
                        what: "the fork",
                    })
                }
                Err(e) => self.warn(plugin, format!("before-fork hook failed; it goes on: {e}")),
            }
        }
        Ok(())
    }

    /// Delivers an event the host raises outside the agent loop (Pi's `session_tree`) to the
    /// plugins that subscribed to `name`, in load order.
    pub async fn announce(&self, name: &str, data: serde_json::Value) {
        self.announce_to_others(name, data, None).await;
    }

    /// [`PluginHooks::announce`], but not to `except`: the plugin the event is about, busy in a
    /// call of its own (a dialog it opened), which the others must not wait for.
    pub async fn announce_to_others(
        &self,
        name: &str,
        mut data: serde_json::Value,
        except: Option<&str>,
    ) {
        let subscribers: Vec<&Arc<LoadedPlugin>> = self
            .set
            .plugins()
            .iter()
            .filter(|p| p.wants_event(name) && p.disabled_reason().is_none())
            .filter(|p| except != Some(p.name()))
            .collect();
        if subscribers.is_empty() {
            return;
        }
        data["type"] = name.into();
        let text = data.to_string();
        for plugin in subscribers {
            if let Err(e) = plugin.on_named_event(name, &text).await {
                self.warn(plugin, format!("event observer failed on {name}: {e}"));
            }
        }
    }

    /// 0.2.0's events by name: to each plugin that subscribed to this one, in load order. With
    /// no subscriber this is one atomic load per plugin, so a streamed delta costs nothing.
    async fn deliver_named(&self, event: &AgentEvent) {
        let Some(name) = event_name(event) else {
            return;
        };
        let mut data: Option<String> = None;
        for plugin in self.set.plugins() {
            if !plugin.wants_event(name) || plugin.disabled_reason().is_some() {
                continue;
            }
            let data = data.get_or_insert_with(|| event.to_json_line());
            if let Err(e) = plugin.on_named_event(name, data).await {
                self.warn(plugin, format!("event observer failed on {name}: {e}"));
            }
        }
    }
}

/// The event's `type` in `tack --mode json`, for the events a plugin may subscribe to
/// ([`crate::broker::events::EVENT_NAMES`]). Another plugin's dialog and the host's own notices
/// are not among them.
fn event_name(event: &AgentEvent) -> Option<&'static str> {
    Some(match event {
        AgentEvent::AgentStart => "agent_start",
        AgentEvent::AgentEnd { .. } => "agent_end",
        AgentEvent::TurnStart { .. } => "turn_start",
        AgentEvent::TurnEnd { .. } => "turn_end",
        AgentEvent::MessageStart { .. } => "message_start",
        AgentEvent::MessageUpdate { .. } => "message_update",
        AgentEvent::MessageEnd { .. } => "message_end",
        AgentEvent::ToolExecutionStart { .. } => "tool_execution_start",
        AgentEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
        AgentEvent::ToolExecutionEnd { .. } => "tool_execution_end",
        AgentEvent::QueueUpdate { .. } => "queue_update",
        AgentEvent::CompactionStart { .. } => "compaction_start",
        AgentEvent::CompactionEnd { .. } => "compaction_end",
        AgentEvent::AutoRetryStart { .. } => "auto_retry_start",
        AgentEvent::AutoRetryEnd { .. } => "auto_retry_end",
        AgentEvent::PluginUiRequest { .. }
        | AgentEvent::Error { .. }
        | AgentEvent::Notice { .. } => return None,
    })
}

fn event_kind(event: &AgentEvent) -> Option<EventKind> {
    Some(match event {
        AgentEvent::AgentStart => EventKind::AgentStart,
        AgentEvent::AgentEnd { .. } => EventKind::AgentEnd,
        AgentEvent::TurnStart { .. } => EventKind::TurnStart,
        AgentEvent::TurnEnd { .. } => EventKind::TurnEnd,
        AgentEvent::MessageEnd { .. } => EventKind::MessageEnd,
        AgentEvent::ToolExecutionStart { .. } => EventKind::ToolExecutionStart,
        AgentEvent::ToolExecutionEnd { .. } => EventKind::ToolExecutionEnd,
        _ => return None,
    })
}
