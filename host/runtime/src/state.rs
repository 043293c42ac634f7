//! Per-instance store data, and the host side of every `tack:plugin` import.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::latest::tack::plugin::{agent, host, session, types, ui};
use crate::broker::secrets::SecretStore;
use crate::budget::{check_bytes, BudgetExceeded};
use crate::limits::PluginLimiter;
use crate::manifest::Capabilities;
use crate::services::{HostServices, WidgetPlacement};
use tack_core::text::neutralize_controls;

/// Who a plugin is and what it may do; shared by all its instances.
pub struct PluginEnv {
    pub name: String,
    pub capabilities: Capabilities,
    pub workspace: PathBuf,
    pub services: HostServices,
    pub secrets: SecretStore,
    pub http: reqwest::Client,
    /// The client for requests only a wildcard grant covers (public addresses only).
    pub public_http: reqwest::Client,
    /// Whether the user trusts the project (`tack:plugin/project`).
    pub project_trusted: bool,
    /// What it may hand the host (the runtime's, fixed at load so `init` is held to them too).
    pub budgets: crate::budget::Budgets,
    /// The directories it may use (its fs grants and its data directory), opened at load.
    pub fs_dirs: crate::broker::fs::GrantedDirs,
    /// The sandbox its commands run in (the runtime's, one per session).
    pub sandbox: Arc<crate::sandbox::SandboxPolicy>,
    /// The plugin these instances belong to, for fan-out; set once loading has finished.
    pub plugin: OnceLock<Weak<crate::plugin::LoadedPlugin>>,
    /// Its long-lived processes (`tack:plugin/process`), reachable from every instance and
    /// killed when the plugin goes.
    pub processes: crate::broker::process::ProcessTable,
    /// The events it subscribed to by name (`tack:plugin/events`).
    pub events: crate::broker::events::Subscriptions,
    /// The keys it bound (`tack:plugin/shortcuts`).
    pub shortcuts: crate::broker::shortcuts::Shortcuts,
    /// Its open response streams (`tack:plugin/http-stream`), closed when the plugin goes.
    pub streams: crate::broker::http::stream::StreamTable,
    /// Its end of its plugin set's bus (`tack:plugin/bus`).
    pub bus: crate::broker::bus::Port,
}

pub type ProgressSink = Arc<dyn Fn(types::ToolResult) + Send + Sync>;

/// What kind of call an instance is running; it decides what the guest may do meanwhile.
pub enum CallKind {
    /// Between calls.
    Idle,
    /// `init`. It may not start tasks: a task instance's own `init` would start more, without
    /// end.
    Init,
    /// A tool call; its partial results go to `progress`. `depth`: how deep the agent making
    /// it is (0: the session's own), which bounds the children it may start.
    Tool {
        call_id: String,
        progress: Option<ProgressSink>,
        depth: u32,
        /// Approved to run its commands outside the command sandbox.
        unsandboxed: bool,
    },
    /// A command the user ran (`/name`, RPC `run_command`): what only the user's own request
    /// may do (`control.new-session`, as Pi's command-only `ctx.newSession`) it may ask.
    /// `after_idle`: the call in which a command that waited for the agent goes on
    /// (`control.wait-for-idle`), which may not wait again.
    Command { after_idle: bool },
    /// A hook, event or provider call.
    Other,
    /// A task of another call's fan-out. It may not start tasks, and running out of time is not
    /// a fault of its own: the call that started it shares its deadline and is counted.
    Task,
}

impl CallKind {
    /// Whether commands this call starts run outside the command sandbox: only a tool call
    /// that asked to and was approved (never a task, a hook or a command).
    pub fn unsandboxed(&self) -> bool {
        matches!(
            self,
            CallKind::Tool {
                unsandboxed: true,
                ..
            }
        )
    }

    pub fn may_fan_out(&self) -> bool {
        matches!(
            self,
            CallKind::Tool { .. } | CallKind::Command { .. } | CallKind::Other
        )
    }

    pub fn is_task(&self) -> bool {
        matches!(self, CallKind::Task)
    }
}

/// The call currently running in this instance.
pub struct CallState {
    /// When the guest's own time runs out. Host imports that block push it back by the time they
    /// blocked, so waiting on a command or a dialog never counts against the plugin.
    pub deadline: Instant,
    pub budget: Duration,
    pub timed_out: bool,
    pub cancel: CancellationToken,
    pub kind: CallKind,
    /// This call's component (`screen.show-component`): whether it put one up, and whether
    /// the user (or the front end) closed it, after which every frame answers closed at once.
    pub component: ComponentState,
}

/// See [`CallState::component`].
#[derive(Debug, Default, Clone, Copy)]
pub struct ComponentState {
    pub shown: bool,
    pub closed: bool,
}

impl CallState {
    pub fn idle() -> Self {
        Self {
            deadline: Instant::now(),
            budget: Duration::ZERO,
            timed_out: false,
            cancel: CancellationToken::new(),
            kind: CallKind::Idle,
            component: ComponentState::default(),
        }
    }
}

pub struct PluginState {
    wasi: WasiCtx,
    pub(crate) table: ResourceTable,
    pub(crate) limiter: PluginLimiter,
    pub(crate) env: Arc<PluginEnv>,
    pub(crate) call: CallState,
    pub(crate) stderr: MemoryOutputPipe,
}

impl PluginState {
    pub fn new(
        wasi: WasiCtx,
        limiter: PluginLimiter,
        env: Arc<PluginEnv>,
        stderr: MemoryOutputPipe,
    ) -> Self {
        Self {
            wasi,
            table: ResourceTable::new(),
            limiter,
            env,
            call: CallState::idle(),
            stderr,
        }
    }

    /// The tail of what the guest wrote to stderr (a Rust panic message lands there).
    pub fn stderr_tail(&self) -> String {
        let bytes = self.stderr.contents();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let start = lines.len().saturating_sub(5);
        lines[start..].join("\n")
    }

    pub(crate) fn resume_after(&mut self, started: Instant) {
        self.call.deadline += started.elapsed();
    }
}

impl WasiView for PluginState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl PluginState {
    /// A text for a front end: within the UI budget, with its control characters made visible.
    pub(crate) fn ui_text(&self, what: &str, text: &str) -> wasmtime::Result<String> {
        check_bytes(what, text.len(), self.env.budgets.ui_text_bytes)?;
        // Drawn in tack's colours: a plugin's own (a Pi theme's) are dropped, not shown as
        // escape sequences.
        Ok(neutralize_controls(&tack_core::text::strip_styles(text)).into_owned())
    }

    fn ui_items(&self, what: &str, count: usize) -> wasmtime::Result<()> {
        let cap = self.env.budgets.ui_items;
        if count > cap {
            return Err(BudgetExceeded::items(what, count, cap).into());
        }
        Ok(())
    }
}

/// Bytes a tool result hands the host: its text, image data and details.
pub fn tool_result_size(result: &types::ToolResult) -> usize {
    let content: usize = result
        .content
        .iter()
        .map(|block| match block {
            types::ContentBlock::Text(text) => text.len(),
            types::ContentBlock::Image(image) => image.data.len() + image.mime_type.len(),
        })
        .sum();
    content + result.details.as_ref().map_or(0, String::len)
}

impl types::Host for PluginState {}

impl host::Host for PluginState {
    async fn log(&mut self, level: types::Level, message: String) -> wasmtime::Result<()> {
        // Logs are not worth failing a call over: a long one is cut, not refused.
        let cap = self.env.budgets.ui_text_bytes;
        let mut message = neutralize_controls(&message).into_owned();
        if message.len() > cap {
            message.truncate(message.floor_char_boundary(cap));
            message.push_str(" … (log line cut)");
        }
        self.env.services.ui.log(&self.env.name, level, &message);
        Ok(())
    }

    async fn tool_progress(
        &mut self,
        call_id: String,
        partial: types::ToolResult,
    ) -> wasmtime::Result<()> {
        check_bytes(
            "a partial tool result",
            tool_result_size(&partial),
            self.env.budgets.tool_result_bytes,
        )?;
        if let CallKind::Tool {
            call_id: running,
            progress: Some(sink),
            ..
        } = &self.call.kind
        {
            if *running == call_id {
                sink(partial);
            }
        }
        Ok(())
    }
}

impl ui::Host for PluginState {
    async fn confirm(
        &mut self,
        title: String,
        message: String,
        timeout_ms: Option<u32>,
    ) -> wasmtime::Result<bool> {
        let title = self.ui_text("a dialog title", &title)?;
        let message = self.ui_text("a dialog message", &message)?;
        let started = Instant::now();
        let env = self.env.clone();
        let answer = env
            .services
            .ui
            .confirm(&env.name, &title, &message, timeout_ms)
            .await;
        self.resume_after(started);
        Ok(answer)
    }

    async fn select(
        &mut self,
        title: String,
        options: Vec<String>,
        timeout_ms: Option<u32>,
    ) -> wasmtime::Result<Option<u32>> {
        let title = self.ui_text("a dialog title", &title)?;
        self.ui_items("the options of a select dialog", options.len())?;
        let options = options
            .iter()
            .map(|option| self.ui_text("a select option", option))
            .collect::<wasmtime::Result<Vec<String>>>()?;
        let started = Instant::now();
        let env = self.env.clone();
        let answer = env
            .services
            .ui
            .select(&env.name, &title, &options, timeout_ms)
            .await;
        self.resume_after(started);
        Ok(answer.filter(|i| (*i as usize) < options.len()))
    }

    async fn input(
        &mut self,
        title: String,
        placeholder: String,
        timeout_ms: Option<u32>,
    ) -> wasmtime::Result<Option<String>> {
        let title = self.ui_text("a dialog title", &title)?;
        let placeholder = self.ui_text("a dialog placeholder", &placeholder)?;
        let started = Instant::now();
        let env = self.env.clone();
        let answer = env
            .services
            .ui
            .input(&env.name, &title, &placeholder, timeout_ms)
            .await;
        self.resume_after(started);
        Ok(answer)
    }

    async fn notify(&mut self, level: types::Level, message: String) -> wasmtime::Result<()> {
        let message = self.ui_text("a notification", &message)?;
        self.env.services.ui.notify(&self.env.name, level, &message);
        Ok(())
    }

    async fn set_status(&mut self, key: String, text: Option<String>) -> wasmtime::Result<()> {
        let key = self.ui_text("a status key", &key)?;
        let text = text
            .map(|text| self.ui_text("a status text", &text))
            .transpose()?;
        self.env
            .services
            .ui
            .set_status(&self.env.name, &key, text.as_deref());
        Ok(())
    }

    async fn set_widget(&mut self, key: String, lines: Vec<String>) -> wasmtime::Result<()> {
        self.show_widget(&key, &lines, WidgetPlacement::AboveEditor)
    }
}

impl PluginState {
    /// A widget of this plugin, checked against the UI budget (0.1.0 `ui` and 0.2.0 `screen`).
    pub(crate) fn show_widget(
        &mut self,
        key: &str,
        lines: &[String],
        placement: WidgetPlacement,
    ) -> wasmtime::Result<()> {
        let key = self.ui_text("a widget key", key)?;
        self.ui_items("the lines of a widget", lines.len())?;
        let lines = lines
            .iter()
            .map(|line| self.ui_styled_line("a widget line", line))
            .collect::<wasmtime::Result<Vec<String>>>()?;
        self.env
            .services
            .ui
            .set_widget(&self.env.name, &key, &lines, placement);
        Ok(())
    }
}

impl session::Host for PluginState {
    async fn id(&mut self) -> wasmtime::Result<String> {
        Ok(self.env.services.session.session_id())
    }

    async fn branch(&mut self) -> wasmtime::Result<String> {
        Ok(self.env.services.session.session_branch(&self.env.name))
    }

    async fn latest_custom(&mut self, custom_type: String) -> wasmtime::Result<Option<String>> {
        Ok(self
            .env
            .services
            .session
            .latest_custom(&self.env.name, &custom_type))
    }

    async fn append_custom(
        &mut self,
        custom_type: String,
        data: String,
    ) -> wasmtime::Result<Result<String, String>> {
        check_bytes(
            "a custom entry's data",
            data.len(),
            self.env.budgets.custom_entry_bytes,
        )?;
        if let Err(e) = serde_json::from_str::<serde_json::Value>(&data) {
            return Ok(Err(format!(
                "data for custom entry '{custom_type}' is not valid JSON: {e}"
            )));
        }
        Ok(self
            .env
            .services
            .session
            .append_custom(&self.env.name, &custom_type, &data))
    }

    async fn send_message(
        &mut self,
        message: session::OutgoingMessage,
        delivery: session::Delivery,
    ) -> wasmtime::Result<()> {
        check_bytes(
            "a message sent to the agent",
            message.text.len(),
            self.env.budgets.message_bytes,
        )?;
        self.env
            .services
            .agent
            .send_message(&self.env.name, message, None, delivery, true);
        Ok(())
    }
}

impl agent::Host for PluginState {
    async fn all_tools(&mut self) -> wasmtime::Result<Vec<String>> {
        Ok(self.env.services.agent.all_tools())
    }

    async fn active_tools(&mut self) -> wasmtime::Result<Vec<String>> {
        Ok(self.env.services.agent.active_tools())
    }

    async fn set_active_tools(
        &mut self,
        names: Vec<String>,
    ) -> wasmtime::Result<Result<(), String>> {
        Ok(self
            .env
            .services
            .agent
            .set_active_tools(&self.env.name, names))
    }
}
