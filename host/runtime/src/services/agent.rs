//! The agent part of [`HostServices`](super::HostServices): messages a plugin sends the agent,
//! and the active tool set.

use std::sync::{Arc, Mutex, OnceLock, Weak};

use tack_core::agent::MessageQueues;
use tack_core::message::Message;
use tack_core::Agent;

use super::ProviderRegistry;
use crate::api::{Delivery, OutgoingMessage, ToolSpec};
use crate::bridge::{PluginTools, RegisterError, ToolInfo};
use crate::children::ChildRuns;

/// Agent control for plugins. No method has a default: a front end that forgot one would
/// silently refuse what every other mode serves (as run-time tool registration once was in the
/// TUI and RPC modes).
pub trait PluginAgent: Send + Sync + 'static {
    /// Delivers `plugin`'s message, with Pi's `details` when it sent some
    /// (`control.send-custom-message`). Without `trigger`, a message sent to an idle agent is
    /// written to the session at once and starts no turn ([`deliver_quietly`]).
    fn send_message(
        &self,
        plugin: &str,
        message: OutgoingMessage,
        details: Option<serde_json::Value>,
        delivery: Delivery,
        trigger: bool,
    );
    fn all_tools(&self) -> Vec<String>;
    fn active_tools(&self) -> Vec<String>;
    fn set_active_tools(&self, plugin: &str, names: Vec<String>) -> Result<(), String>;
    /// Registers one of `plugin`'s tools after its `init` (`tack:plugin/tools`).
    fn register_tool(&self, plugin: &str, spec: ToolSpec) -> Result<(), RegisterError>;
    /// Removes a tool `plugin` registered after its `init`.
    fn unregister_tool(&self, plugin: &str, name: &str) -> bool;
    /// Every tool of every plugin, with its spec.
    fn tool_infos(&self) -> Vec<ToolInfo>;
    /// The session's plugins, once the agent that runs them exists: where commands registered
    /// after `init` are kept (`tack:plugin/commands`).
    fn plugin_set(&self) -> Option<Arc<crate::PluginSet>>;
    /// The session's child runs (`tack:agents`), once an agent exists to start them from.
    fn children(&self) -> Option<Arc<ChildRuns>>;
    /// The running agent, for what `tack:plugin/control` reads; `None` before it exists.
    fn agent(&self) -> Option<Arc<Agent>>;
    /// `plugin` asks for a compaction once the agent is idle (`tack:plugin/control`).
    fn request_compaction(&self, plugin: &str, instructions: Option<String>);
    /// `plugin` asks tack to end, or to start again, once the agent is idle
    /// (`tack:plugin/control`); `Err` says why this front end cannot.
    fn request_end(&self, plugin: &str, end: End) -> Result<(), String>;
    /// `plugin`'s command waits for the run going on to end (`control.wait-for-idle`): once
    /// the agent is idle, the plugin hears `idle` in a call with a command's powers. `Err` says
    /// why this front end cannot (only the interactive ones run the agent beside a command).
    fn wait_for_idle(&self, plugin: &str) -> Result<(), String>;
    /// What changes the model and thinking level for plugins; `None` where the mode keeps its
    /// model (print and JSON).
    fn model_control(&self) -> Option<Arc<dyn ModelControl>>;
    /// The providers plugins register while tack runs (`tack:plugin/providers`); there from
    /// before the first plugin's `init`.
    fn providers(&self) -> Arc<ProviderRegistry>;
}

/// Model and thinking-level changes a plugin asks for (`tack:plugin/control`), made as the
/// user's `/model` and `/thinking` make them, by the front end's session.
pub trait ModelControl: Send + Sync {
    /// Switches to `model` (`provider/id`, or an id of the current provider).
    fn set_model(&self, plugin: &str, model: &str) -> Result<(), String>;
    /// Sets the thinking level; the level set (clamped to what the model can).
    fn set_thinking_level(&self, plugin: &str, level: &str) -> Result<String, String>;
}

/// How a plugin asks tack to end, or to go on in another session (`tack:plugin/control`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// As the user's `/quit`.
    Quit,
    /// As the user's `/reload`: again on the same session, everything read anew.
    Reload,
    /// As the user's `/new` (`control.new-session`): the front end goes on in a new session,
    /// whose header names the current one as its parent when `with_parent`.
    NewSession { with_parent: bool },
    /// As the user's `/fork` (`control.fork`): before the user message `entry_id`, or with the
    /// entry when `at`.
    Fork { entry_id: String, at: bool },
    /// As the user's `/resume` (`control.switch-session`): one of tack's sessions, by id or by
    /// the path of its file.
    Switch { session: String },
    /// As the user's `/tree <entry> [--summarize [focus]]` (`control.navigate-tree`).
    Tree {
        entry_id: String,
        summarize: bool,
        focus: Option<String>,
    },
}

impl End {
    /// Why a front end that cannot make this end refuses it: print and JSON mode reload and
    /// move sessions never, RPC mode does not reload. Every front end quits.
    pub fn refusal(&self) -> Option<&'static str> {
        match self {
            End::Quit => None,
            End::Reload => Some("only tack's terminal UI reloads (the user's /reload)"),
            End::NewSession { .. } | End::Fork { .. } | End::Switch { .. } | End::Tree { .. } => {
                Some(
                    "only tack's terminal UI and RPC mode change sessions (the user's /new, \
                     /fork, /resume, /tree)",
                )
            }
        }
    }

    /// Whether it moves the front end to another session.
    pub fn moves_session(&self) -> bool {
        matches!(
            self,
            End::NewSession { .. } | End::Fork { .. } | End::Switch { .. } | End::Tree { .. }
        )
    }
}

/// An end a plugin asked for, waiting for the agent to be idle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndRequest {
    pub plugin: String,
    pub end: End,
}

/// A compaction a plugin asked for, waiting for the agent to be idle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionRequest {
    pub plugin: String,
    pub instructions: Option<String>,
}

/// The agent of a run and its tool registry, attached once they exist. Messages are delivered
/// as a run without a next prompt must: steering as steering, everything else as a follow-up,
/// so nothing is lost. Interactive front ends deliver through their own inbox instead and use
/// this for the tools.
#[derive(Default)]
pub struct AgentServices {
    tools: OnceLock<Arc<PluginTools>>,
    queues: OnceLock<MessageQueues>,
    children: OnceLock<Arc<ChildRuns>>,
    /// Weak: the agent holds the plugins that hold these services.
    agent: OnceLock<Weak<Agent>>,
    compaction: Mutex<Option<CompactionRequest>>,
    /// The end a plugin asked for, if one did (the first asked wins).
    end: Mutex<Option<EndRequest>>,
    /// Plugins whose commands wait for the agent to be idle, in the order they asked.
    idle_waiters: Mutex<Vec<String>>,
    /// Weak: the session that serves it holds the plugins that hold these services.
    models: OnceLock<Weak<dyn ModelControl>>,
    providers: Arc<ProviderRegistry>,
}

impl AgentServices {
    pub fn attach_tools(&self, tools: Arc<PluginTools>) {
        let _ = self.tools.set(tools);
    }

    pub fn attach_queues(&self, queues: MessageQueues) {
        let _ = self.queues.set(queues);
    }

    pub fn attach_children(&self, children: Arc<ChildRuns>) {
        let _ = self.children.set(children);
    }

    pub fn attach_agent(&self, agent: &Arc<Agent>) {
        let _ = self.agent.set(Arc::downgrade(agent));
    }

    /// The compaction a plugin asked for, if one waits; it waits no more.
    pub fn take_compaction(&self) -> Option<CompactionRequest> {
        self.compaction
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

impl AgentServices {
    /// The end a plugin asked for, if one did; it is asked no more.
    pub fn take_end(&self) -> Option<EndRequest> {
        self.end.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Lets plugins change the model and thinking level through `control`.
    pub fn attach_model_control(&self, control: Weak<dyn ModelControl>) {
        let _ = self.models.set(control);
    }

    /// Keeps `plugin` to be told once the agent is idle; asked twice, it is told once.
    pub fn hold_idle_waiter(&self, plugin: &str) {
        let mut waiters = self.idle_waiters.lock().unwrap_or_else(|e| e.into_inner());
        if !waiters.iter().any(|w| w == plugin) {
            waiters.push(plugin.to_string());
        }
    }

    /// The plugins waiting for the agent to be idle; they wait no more.
    pub fn take_idle_waiters(&self) -> Vec<String> {
        std::mem::take(&mut *self.idle_waiters.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Keeps `plugin`'s end for the front end to act on once the agent is idle.
    pub fn hold_end(&self, plugin: &str, end: End) {
        let mut asked = self.end.lock().unwrap_or_else(|e| e.into_inner());
        asked.get_or_insert_with(|| EndRequest {
            plugin: plugin.to_string(),
            end,
        });
    }
}

impl PluginAgent for AgentServices {
    fn send_message(
        &self,
        plugin: &str,
        message: OutgoingMessage,
        details: Option<serde_json::Value>,
        delivery: Delivery,
        trigger: bool,
    ) {
        let Some(queues) = self.queues.get() else {
            return;
        };
        let message = outgoing_message(plugin, message, details);
        let message = match deliver_quietly(self.agent(), message, &delivery, trigger) {
            Some(message) => message,
            None => return,
        };
        match delivery {
            Delivery::Steer => queues.steer(message),
            Delivery::FollowUp | Delivery::NextTurn => queues.follow_up(message),
        }
    }

    fn all_tools(&self) -> Vec<String> {
        self.tools.get().map(|t| t.all_names()).unwrap_or_default()
    }

    fn active_tools(&self) -> Vec<String> {
        self.tools
            .get()
            .map(|t| t.active_names())
            .unwrap_or_default()
    }

    fn set_active_tools(&self, _plugin: &str, names: Vec<String>) -> Result<(), String> {
        self.tools
            .get()
            .ok_or("no agent is running")?
            .set_active(names)
    }

    fn register_tool(&self, plugin: &str, spec: ToolSpec) -> Result<(), RegisterError> {
        match self.tools.get() {
            Some(tools) => tools.register(plugin, spec),
            None => Err(RegisterError::Limit(
                "no agent is running yet: during `init`, return tools in the registration".into(),
            )),
        }
    }

    fn unregister_tool(&self, plugin: &str, name: &str) -> bool {
        self.tools
            .get()
            .is_some_and(|tools| tools.unregister(plugin, name))
    }

    fn tool_infos(&self) -> Vec<ToolInfo> {
        self.tools.get().map(|t| t.infos()).unwrap_or_default()
    }

    fn plugin_set(&self) -> Option<Arc<crate::PluginSet>> {
        self.tools.get().map(|t| t.set().clone())
    }

    fn children(&self) -> Option<Arc<ChildRuns>> {
        self.children.get().cloned()
    }

    fn agent(&self) -> Option<Arc<Agent>> {
        self.agent.get()?.upgrade()
    }

    fn request_compaction(&self, plugin: &str, instructions: Option<String>) {
        *self.compaction.lock().unwrap_or_else(|e| e.into_inner()) = Some(CompactionRequest {
            plugin: plugin.to_string(),
            instructions,
        });
    }

    /// Print and JSON modes end after their run anyway; only the terminal UI reloads.
    fn request_end(&self, plugin: &str, end: End) -> Result<(), String> {
        if let Some(why) = end.refusal() {
            return Err(why.into());
        }
        self.hold_end(plugin, end);
        Ok(())
    }

    /// Print and JSON modes run no agent beside a command, so nothing would end to wait for.
    fn wait_for_idle(&self, _plugin: &str) -> Result<(), String> {
        Err("only the terminal UI and RPC mode run the agent beside a command".into())
    }

    fn model_control(&self) -> Option<Arc<dyn ModelControl>> {
        self.models.get()?.upgrade()
    }

    fn providers(&self) -> Arc<ProviderRegistry> {
        self.providers.clone()
    }
}

/// The conversation message a plugin's `send-message` becomes: always a custom message
/// attributed to `plugin` (the model sees it as user text), so that nothing a plugin says passes
/// for the user's own words in the session, `/tree` or a front end. Without a custom type it is
/// of type `plugin-message`.
pub fn outgoing_message(
    plugin: &str,
    message: OutgoingMessage,
    details: Option<serde_json::Value>,
) -> Message {
    let mut message = Message::from_plugin(
        plugin,
        message
            .custom_type
            .unwrap_or_else(|| PLUGIN_MESSAGE_TYPE.to_string()),
        message.text,
        message.display,
    );
    if let Message::Custom(custom) = &mut message {
        custom.details = details;
    }
    message
}

/// Writes a message that is to start no turn (`trigger` false, Pi's `sendMessage` without
/// `triggerTurn`) to the idle `agent`'s session now, and tells the front ends and the plugins
/// that observe messages on a task of its own: the sending plugin, whose call is still going
/// on, may be among them. `Some(message)` hands it back to be delivered as `delivery` says: it
/// is to start a turn, it waits for the next prompt, a run is going on, or the session could
/// not take it (then it waits in the queues, and the failure is logged).
pub fn deliver_quietly(
    agent: Option<Arc<Agent>>,
    message: Message,
    delivery: &Delivery,
    trigger: bool,
) -> Option<Message> {
    let quiet = !trigger && !matches!(delivery, Delivery::NextTurn);
    let (Some(agent), Ok(runtime)) = (agent, tokio::runtime::Handle::try_current()) else {
        return Some(message);
    };
    if !quiet || agent.is_running() {
        return Some(message);
    }
    let message = Arc::new(message);
    match agent.write_message(Arc::clone(&message)) {
        Ok(()) => {
            runtime.spawn(async move { agent.announce_message(message).await });
            None
        }
        Err(e) => {
            tracing::warn!("a plugin's message could not be written to the session: {e}");
            Some(Arc::unwrap_or_clone(message))
        }
    }
}

/// The custom type of a plain message a plugin sends.
pub const PLUGIN_MESSAGE_TYPE: &str = "plugin-message";
