//! What plugins reach in an interactive front end. Dialogs are shown on the front end's
//! [`Screen`] and wait for the user (or their timeout, or an abort, or shutdown); notifications,
//! status segments and widgets go to the screen; messages a plugin sends are delivered as the
//! WIT `delivery` says, starting a turn when the agent is idle. The session and the tool
//! registry are the CLI's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tack_core::event::{NoticeLevel, UiRequest};
use tack_protocol::CloseReason;
use tack_runtime::api::{Delivery, Level, OutgoingMessage};
use tack_runtime::bridge::PluginHooks;
use tack_runtime::{
    AgentServices, ComponentFrame, ComponentPlacement, HostServices, PluginAgent, PluginSet,
    PluginUi, ScreenRead, ScreenReading, ScreenSetting, WidgetPlacement,
};
use tokio::sync::oneshot;

use crate::start::inbox::Inbox;
use crate::start::services::{notice_level, Backends};

/// Where a front end shows what plugins and runs have to say, and how it reads answers.
pub trait Screen: Send + Sync + 'static {
    /// The user's answer to a dialog, as this front end gets it.
    type Answer: Send + 'static;

    /// Shows dialog `id`; the answer goes to `reply`.
    fn show_dialog(
        &self,
        id: &str,
        plugin: &str,
        dialog: UiRequest,
        reply: oneshot::Sender<Self::Answer>,
    );
    /// Dialog `id` was not answered in time.
    fn dialog_timed_out(&self, id: &str);
    /// The plugin no longer waits for dialog `id` (answered, timed out or dropped).
    fn dialog_over(&self, _id: &str) {}
    /// Every open dialog ends with its default.
    fn close_dialogs(&self, reason: CloseReason);

    fn is_cancelled(answer: &Self::Answer) -> bool;
    fn confirmed(answer: Self::Answer) -> bool;
    fn selected(answer: Self::Answer, options: &[String]) -> Option<u32>;
    fn text(answer: Self::Answer) -> Option<String>;

    fn notify(&self, plugin: &str, level: NoticeLevel, message: &str);
    fn set_status(&self, plugin: &str, key: &str, text: Option<&str>);
    fn set_widget(&self, plugin: &str, key: &str, lines: &[String], placement: WidgetPlacement);
    fn set_title(&self, _plugin: &str, _title: &str) {}
    fn set_editor_text(&self, _plugin: &str, _text: &str, _paste: bool) {}
    fn set_working_message(&self, _plugin: &str, _message: Option<&str>) {}
    fn set_footer(&self, _plugin: &str, _footer: Option<(&str, &str)>) {}

    /// Shows a frame of `plugin`'s component; the answer comes when the user presses a key or
    /// `wait` is over. `None`: this front end shows no components (Pi's RPC mode has none).
    fn show_component(
        &self,
        _plugin: &str,
        _lines: Vec<String>,
        _wait: Duration,
        _placement: ComponentPlacement,
    ) -> Option<ComponentWait> {
        None
    }
    /// `plugin`'s component is over.
    fn close_component(&self, _plugin: &str) {}
    /// How the working row, the header, thinking and tool output show; a front end that
    /// shows none of it drops it.
    fn set_screen(&self, _plugin: &str, _setting: ScreenSetting) {}
    /// Asks the front end what it shows of `what`; `None` when it shows nothing (RPC mode).
    fn read_screen(&self, _what: ScreenRead) -> Option<ScreenReadWait> {
        None
    }
    /// Binds or unbinds a plugin's key; a front end without keys drops it.
    fn set_shortcut(&self, _plugin: &str, _key: &str, _description: Option<&str>) {}
    /// The themes the user can choose.
    fn themes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Shows the theme called `name` until tack ends, without saving it.
    fn set_theme(&self, _plugin: &str, _name: &str) -> Result<(), String> {
        Err("this front end shows no theme".to_string())
    }

    /// `plugin` asked tack to end (`control.shutdown`) and the agent is idle: the front end
    /// ends as the user's `/quit` ends it.
    fn quit(&self, plugin: &str);
    /// Whether this front end starts again on its session (the user's `/reload`).
    fn reloads(&self) -> bool {
        false
    }
    /// `plugin` asked for a reload (`control.reload`) and the agent is idle; only asked of a
    /// front end that [`reloads`](Screen::reloads).
    fn reload(&self, plugin: &str) {
        self.quit(plugin);
    }
    /// Where a front end that moves to another session (the user's `/new`) takes the new
    /// sessions plugins ask for (`control.new-session`), once the agent is idle: its loop makes
    /// each as its `/new` does, hooks and all.
    fn session_moves(&self) -> Option<&tokio::sync::mpsc::UnboundedSender<SessionMove>> {
        None
    }

    /// An input hook handled the prompt: no `agent_end` follows.
    fn input_handled(&self) {}
    /// A run failed with `message`.
    fn run_failed(&self, message: String);
    /// A run (with whatever was queued meanwhile) is over and the agent idle.
    fn run_finished(&self) {}
}

/// A move to another session a plugin asked for (`control.new-session`, `fork`,
/// `switch-session`), for the front end's loop to make as its `/new`, `/fork` or `/resume`
/// makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionMove {
    pub plugin: String,
    pub to: MoveTo,
}

/// Where a plugin's session move goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveTo {
    /// A new session; its header names the current one as its parent when `with_parent`.
    New { with_parent: bool },
    /// A fork before the user message `entry_id`, or with the entry when `at`.
    Fork { entry_id: String, at: bool },
    /// One of tack's sessions, by id or by the path of its file.
    Switch { session: String },
    /// Entry `entry_id` of the session tree, as `/tree` moves there.
    Tree {
        entry_id: String,
        summarize: bool,
        focus: Option<String>,
    },
}

impl MoveTo {
    /// The arguments of the user's `/tree` that make this move, for a [`MoveTo::Tree`]; the
    /// entry id is one word (the runtime refuses any other).
    pub fn tree_args(entry_id: &str, summarize: bool, focus: Option<&str>) -> String {
        match (summarize, focus) {
            (false, _) => entry_id.to_string(),
            (true, None) => format!("{entry_id} --summarize"),
            (true, Some(focus)) => format!("{entry_id} --summarize {focus}"),
        }
    }
}

impl SessionMove {
    /// The move `end` asks for, if it is one.
    pub fn of(plugin: String, end: tack_runtime::End) -> Option<SessionMove> {
        let to = match end {
            tack_runtime::End::NewSession { with_parent } => MoveTo::New { with_parent },
            tack_runtime::End::Fork { entry_id, at } => MoveTo::Fork { entry_id, at },
            tack_runtime::End::Switch { session } => MoveTo::Switch { session },
            tack_runtime::End::Tree {
                entry_id,
                summarize,
                focus,
            } => MoveTo::Tree {
                entry_id,
                summarize,
                focus,
            },
            tack_runtime::End::Quit | tack_runtime::End::Reload => return None,
        };
        Some(SessionMove { plugin, to })
    }

    /// The parent a new session's header names: `session`'s file, when asked for and the
    /// session has one.
    pub fn parent(&self, session: &tack_core::session::SessionHandle) -> Option<String> {
        if !matches!(self.to, MoveTo::New { with_parent: true }) {
            return None;
        }
        session.lock().path().map(|p| p.display().to_string())
    }
}

/// The session file a plugin's switch names: one of the store's, by id (or the start of one),
/// or by the path of a file the store keeps. A plugin never has tack read a file of its own
/// choosing as a session.
pub fn plugin_switch_target(
    store: &tack_core::session::SessionStore,
    cwd: &std::path::Path,
    session: &str,
) -> anyhow::Result<std::path::PathBuf> {
    use anyhow::Context as _;
    let kept = store.list_all().context("cannot list tack's sessions")?;
    let as_path = std::path::Path::new(session);
    if as_path.is_absolute() || session.contains('/') {
        let wanted = as_path.canonicalize().ok();
        return kept
            .into_iter()
            .map(|s| s.path)
            .find(|p| wanted.is_some() && p.canonicalize().ok() == wanted)
            .with_context(|| format!("{session} is not one of tack's sessions"));
    }
    store
        .resolve(cwd, session)
        .with_context(|| format!("cannot find session '{session}'"))
}

/// A component frame waiting for the user.
pub type ComponentWait =
    std::pin::Pin<Box<dyn std::future::Future<Output = ComponentFrame> + Send + 'static>>;

/// The front end's answer to a plugin's read of the screen, on its way.
pub type ScreenReadWait =
    std::pin::Pin<Box<dyn std::future::Future<Output = Option<ScreenReading>> + Send + 'static>>;

pub struct InteractiveServices<S: Screen> {
    /// The tool registry; messages go through the inbox instead.
    agent: Arc<AgentServices>,
    pub screen: S,
    /// Once shutting down, dialogs resolve to their defaults without asking.
    closed: AtomicBool,
    /// Messages plugins send the agent.
    pub inbox: Inbox,
    /// The loaded plugins, told when a dialog starts waiting (`dialog_open`); attached once
    /// they are loaded, since they are loaded with these services.
    plugins: OnceLock<Arc<PluginSet>>,
}

/// The event a plugin subscribes to to hear that another plugin's dialog waits for the user (a
/// Claude Code `Notification` hook).
const DIALOG_OPEN: &str = "dialog_open";

impl<S: Screen> InteractiveServices<S> {
    pub fn new(agent: Arc<AgentServices>, screen: S, inbox: Inbox) -> Self {
        InteractiveServices {
            agent,
            screen,
            closed: AtomicBool::new(false),
            inbox,
            plugins: OnceLock::new(),
        }
    }

    /// The plugins to tell of dialogs, once loaded.
    pub fn attach_plugins(&self, plugins: Arc<PluginSet>) {
        let _ = self.plugins.set(plugins);
    }

    /// Tells the plugins that subscribed to `dialog_open` that `plugin` waits for the user: who
    /// asks and what kind of dialog, never its text. On the runtime, without waiting: a dialog
    /// never waits for an observer.
    fn announce_dialog(&self, plugin: &str, dialog: &UiRequest) {
        let Some(plugins) = self.plugins.get() else {
            return;
        };
        if !plugins
            .plugins()
            .iter()
            .any(|p| p.wants_event(DIALOG_OPEN) && p.name() != plugin)
        {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let kind = match dialog {
            UiRequest::Confirm { .. } => "confirm",
            UiRequest::Select { .. } => "select",
            UiRequest::Input { .. } => "input",
        };
        let data = serde_json::json!({ "plugin": plugin, "kind": kind });
        let hooks = PluginHooks::new(plugins.clone());
        let asker = plugin.to_string();
        runtime.spawn(async move {
            hooks
                .announce_to_others(DIALOG_OPEN, data, Some(&asker))
                .await
        });
    }

    /// From now on dialogs are not shown: nobody is left to answer them.
    pub fn shut(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.screen.close_dialogs(CloseReason::Shutdown);
    }

    pub fn is_shut(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Shows a dialog and waits for the answer; `None` when it closed unanswered.
    async fn ask(&self, plugin: &str, dialog: UiRequest) -> Option<S::Answer> {
        if self.is_shut() {
            return None;
        }
        let id = uuid::Uuid::now_v7().to_string();
        let (reply, answer) = oneshot::channel();
        let _open = OpenDialog {
            screen: &self.screen,
            id: &id,
        };
        let timeout_ms = dialog.timeout_ms();
        self.announce_dialog(plugin, &dialog);
        self.screen.show_dialog(&id, plugin, dialog, reply);
        let answer = match timeout_ms {
            None => answer.await.ok(),
            Some(ms) => {
                match tokio::time::timeout(Duration::from_millis(ms.into()), answer).await {
                    Ok(answer) => answer.ok(),
                    Err(_) => {
                        self.screen.dialog_timed_out(&id);
                        None
                    }
                }
            }
        };
        answer.filter(|a| !S::is_cancelled(a))
    }
}

/// Tells the screen a dialog is over however its plugin call ends, also when it is dropped.
struct OpenDialog<'a, S: Screen> {
    screen: &'a S,
    id: &'a str,
}

impl<S: Screen> Drop for OpenDialog<'_, S> {
    fn drop(&mut self) {
        self.screen.dialog_over(self.id);
    }
}

#[async_trait::async_trait]
impl<S: Screen> PluginUi for InteractiveServices<S> {
    async fn confirm(
        &self,
        plugin: &str,
        title: &str,
        message: &str,
        timeout_ms: Option<u32>,
    ) -> bool {
        let dialog = UiRequest::Confirm {
            title: title.to_string(),
            message: message.to_string(),
            timeout_ms,
        };
        self.ask(plugin, dialog).await.is_some_and(S::confirmed)
    }

    async fn select(
        &self,
        plugin: &str,
        title: &str,
        options: &[String],
        timeout_ms: Option<u32>,
    ) -> Option<u32> {
        let dialog = UiRequest::Select {
            title: title.to_string(),
            options: options.to_vec(),
            timeout_ms,
        };
        let answer = self.ask(plugin, dialog).await?;
        S::selected(answer, options).filter(|index| (*index as usize) < options.len())
    }

    async fn input(
        &self,
        plugin: &str,
        title: &str,
        placeholder: &str,
        timeout_ms: Option<u32>,
    ) -> Option<String> {
        let dialog = UiRequest::Input {
            title: title.to_string(),
            placeholder: placeholder.to_string(),
            timeout_ms,
        };
        S::text(self.ask(plugin, dialog).await?)
    }

    fn notify(&self, plugin: &str, level: Level, message: &str) {
        self.screen.notify(plugin, notice_level(level), message);
    }

    fn set_status(&self, plugin: &str, key: &str, text: Option<&str>) {
        self.screen.set_status(plugin, key, text);
    }

    fn set_widget(&self, plugin: &str, key: &str, lines: &[String], placement: WidgetPlacement) {
        self.screen.set_widget(plugin, key, lines, placement);
    }

    fn has_ui(&self) -> bool {
        true
    }

    fn set_title(&self, plugin: &str, title: &str) {
        self.screen.set_title(plugin, title);
    }

    fn set_editor_text(&self, plugin: &str, text: &str, paste: bool) {
        self.screen.set_editor_text(plugin, text, paste);
    }

    fn set_working_message(&self, plugin: &str, message: Option<&str>) {
        self.screen.set_working_message(plugin, message);
    }

    fn set_footer(&self, plugin: &str, footer: Option<(&str, &str)>) {
        self.screen.set_footer(plugin, footer);
    }

    async fn show_component(
        &self,
        plugin: &str,
        lines: Vec<String>,
        wait: Duration,
        placement: ComponentPlacement,
    ) -> ComponentFrame {
        if self.is_shut() {
            return ComponentFrame::closed();
        }
        match self.screen.show_component(plugin, lines, wait, placement) {
            Some(frame) => frame.await,
            None => ComponentFrame::closed(),
        }
    }

    fn close_component(&self, plugin: &str) {
        self.screen.close_component(plugin);
    }

    fn set_screen(&self, plugin: &str, setting: ScreenSetting) {
        self.screen.set_screen(plugin, setting);
    }

    async fn read_screen(&self, _plugin: &str, what: ScreenRead) -> Option<ScreenReading> {
        if self.is_shut() {
            return None;
        }
        self.screen.read_screen(what)?.await
    }

    fn themes(&self) -> Vec<String> {
        self.screen.themes()
    }

    fn set_shortcut(&self, plugin: &str, key: &str, description: Option<&str>) {
        self.screen.set_shortcut(plugin, key, description);
    }

    fn set_theme(&self, plugin: &str, name: &str) -> Result<(), String> {
        self.screen.set_theme(plugin, name)
    }
}

/// Messages go through the inbox, which starts a turn on an idle agent.
impl<S: Screen> PluginAgent for InteractiveServices<S> {
    fn send_message(
        &self,
        plugin: &str,
        message: OutgoingMessage,
        details: Option<serde_json::Value>,
        delivery: Delivery,
        trigger: bool,
    ) {
        let message = tack_runtime::services::outgoing_message(plugin, message, details);
        if let Some(message) =
            tack_runtime::services::deliver_quietly(self.agent.agent(), message, &delivery, trigger)
        {
            self.inbox.deliver(message, delivery);
        }
    }

    fn all_tools(&self) -> Vec<String> {
        self.agent.all_tools()
    }

    fn active_tools(&self) -> Vec<String> {
        self.agent.active_tools()
    }

    fn set_active_tools(&self, plugin: &str, names: Vec<String>) -> Result<(), String> {
        self.agent.set_active_tools(plugin, names)
    }

    fn register_tool(
        &self,
        plugin: &str,
        spec: tack_runtime::api::ToolSpec,
    ) -> Result<(), tack_runtime::bridge::RegisterError> {
        self.agent.register_tool(plugin, spec)
    }

    fn unregister_tool(&self, plugin: &str, name: &str) -> bool {
        self.agent.unregister_tool(plugin, name)
    }

    fn tool_infos(&self) -> Vec<tack_runtime::bridge::ToolInfo> {
        self.agent.tool_infos()
    }

    fn plugin_set(&self) -> Option<Arc<tack_runtime::PluginSet>> {
        self.agent.plugin_set()
    }

    fn children(&self) -> Option<Arc<tack_runtime::children::ChildRuns>> {
        self.agent.children()
    }

    fn agent(&self) -> Option<Arc<tack_core::Agent>> {
        self.agent.agent()
    }

    /// Held until the driver finds the agent idle; woken now in case it already is.
    fn request_compaction(&self, plugin: &str, instructions: Option<String>) {
        self.agent.request_compaction(plugin, instructions);
        self.inbox.wake();
    }

    /// As a compaction: held until the driver finds the agent idle.
    fn wait_for_idle(&self, plugin: &str) -> Result<(), String> {
        self.agent.hold_idle_waiter(plugin);
        self.inbox.wake();
        Ok(())
    }

    fn model_control(&self) -> Option<Arc<dyn tack_runtime::ModelControl>> {
        self.agent.model_control()
    }

    fn providers(&self) -> Arc<tack_runtime::ProviderRegistry> {
        self.agent.providers()
    }

    /// As a compaction: held until the driver finds the agent idle.
    fn request_end(&self, plugin: &str, end: tack_runtime::End) -> Result<(), String> {
        let possible = match &end {
            tack_runtime::End::Quit => true,
            tack_runtime::End::Reload => self.screen.reloads(),
            moving => moving.moves_session() && self.screen.session_moves().is_some(),
        };
        if let (false, Some(why)) = (possible, end.refusal()) {
            return Err(why.into());
        }
        self.agent.hold_end(plugin, end);
        self.inbox.wake();
        Ok(())
    }
}

impl<S: Screen> InteractiveServices<S> {
    /// The compaction a plugin asked for, if one waits.
    pub fn take_compaction(&self) -> Option<tack_runtime::CompactionRequest> {
        self.agent.take_compaction()
    }

    /// The end a plugin asked for, if one did.
    pub fn take_end(&self) -> Option<tack_runtime::EndRequest> {
        self.agent.take_end()
    }

    /// The plugins whose commands wait for the agent to be idle.
    pub fn take_idle_waiters(&self) -> Vec<String> {
        self.agent.take_idle_waiters()
    }
}

/// What an interactive front end gives plugins: its screen and inbox, over the CLI's session.
pub fn interactive_host<S: Screen>(
    services: &Arc<InteractiveServices<S>>,
    backends: &Backends,
) -> HostServices {
    HostServices {
        ui: services.clone(),
        session: backends.session.clone(),
        agent: services.clone(),
    }
}
