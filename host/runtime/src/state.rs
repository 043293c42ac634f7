//! Per-instance store data, and the host side of every `tack:plugin` import.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use wasmtime::component::{Resource, ResourceTable};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::latest::tack::plugin::{agent, exec, host, http, session, types, ui};
use crate::broker::exec::{
    authorize as authorize_exec, child_env, AuthorizeError, ChildEnv, Observed, ProcessHandle,
};
use crate::broker::http::{self as http_broker, FetchError, FetchRequest};
use crate::broker::secrets::SecretStore;
use crate::budget::{check_bytes, BudgetExceeded};
use crate::limits::PluginLimiter;
use crate::manifest::Capabilities;
use crate::services::HostServices;
use tack_core::text::neutralize_controls;

/// Who a plugin is and what it may do; shared by all its instances.
pub struct PluginEnv {
    pub name: String,
    pub capabilities: Capabilities,
    pub workspace: PathBuf,
    pub services: Arc<dyn HostServices>,
    pub secrets: SecretStore,
    pub http: reqwest::Client,
    /// Whether the user trusts the project (`tack:plugin/project`).
    pub project_trusted: bool,
    /// What it may hand the host (the runtime's, fixed at load so `init` is held to them too).
    pub budgets: crate::budget::Budgets,
    /// The directories it may use (its fs grants and its data directory), opened at load.
    pub fs_dirs: crate::broker::fs::GrantedDirs,
    /// The plugin these instances belong to, for fan-out; set once loading has finished.
    pub plugin: OnceLock<Weak<crate::plugin::LoadedPlugin>>,
}

pub type ProgressSink = Arc<dyn Fn(types::ToolResult) + Send + Sync>;

/// The call currently running in this instance.
pub struct CallState {
    /// When the guest's own time runs out. Host imports that block push it back by the time they
    /// blocked, so waiting on a command or a dialog never counts against the plugin.
    pub deadline: Instant,
    pub budget: Duration,
    pub timed_out: bool,
    pub cancel: CancellationToken,
    pub tool_call_id: Option<String>,
    pub progress: Option<ProgressSink>,
    /// Whether this call may start tasks: not during `init` (a task instance's own `init`
    /// would start more, without end) and not from inside a task.
    pub may_fan_out: bool,
    /// Whether this call is a task of another call's fan-out. A task that runs out of time is
    /// not a fault of its own: the call that started it shares its deadline and is counted.
    pub is_task: bool,
}

impl CallState {
    pub fn idle() -> Self {
        Self {
            deadline: Instant::now(),
            budget: Duration::ZERO,
            timed_out: false,
            cancel: CancellationToken::new(),
            tool_call_id: None,
            progress: None,
            may_fan_out: false,
            is_task: false,
        }
    }
}

pub struct PluginState {
    wasi: WasiCtx,
    table: ResourceTable,
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

    fn resume_after(&mut self, started: Instant) {
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
    fn ui_text(&self, what: &str, text: &str) -> wasmtime::Result<String> {
        check_bytes(what, text.len(), self.env.budgets.ui_text_bytes)?;
        Ok(neutralize_controls(text).into_owned())
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
            let mut end = cap;
            while !message.is_char_boundary(end) {
                end -= 1;
            }
            message.truncate(end);
            message.push_str(" … (log line cut)");
        }
        self.env.services.log(&self.env.name, level, &message);
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
        if self.call.tool_call_id.as_deref() == Some(call_id.as_str()) {
            if let Some(sink) = &self.call.progress {
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
            .input(&env.name, &title, &placeholder, timeout_ms)
            .await;
        self.resume_after(started);
        Ok(answer)
    }

    async fn notify(&mut self, level: types::Level, message: String) -> wasmtime::Result<()> {
        let message = self.ui_text("a notification", &message)?;
        self.env.services.notify(&self.env.name, level, &message);
        Ok(())
    }

    async fn set_status(&mut self, key: String, text: Option<String>) -> wasmtime::Result<()> {
        let key = self.ui_text("a status key", &key)?;
        let text = text
            .map(|text| self.ui_text("a status text", &text))
            .transpose()?;
        self.env
            .services
            .set_status(&self.env.name, &key, text.as_deref());
        Ok(())
    }

    async fn set_widget(&mut self, key: String, lines: Vec<String>) -> wasmtime::Result<()> {
        let key = self.ui_text("a widget key", &key)?;
        self.ui_items("the lines of a widget", lines.len())?;
        let lines = lines
            .iter()
            .map(|line| self.ui_text("a widget line", line))
            .collect::<wasmtime::Result<Vec<String>>>()?;
        self.env.services.set_widget(&self.env.name, &key, &lines);
        Ok(())
    }
}

impl session::Host for PluginState {
    async fn id(&mut self) -> wasmtime::Result<String> {
        Ok(self.env.services.session_id())
    }

    async fn branch(&mut self) -> wasmtime::Result<String> {
        Ok(self.env.services.session_branch(&self.env.name))
    }

    async fn latest_custom(&mut self, custom_type: String) -> wasmtime::Result<Option<String>> {
        Ok(self
            .env
            .services
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
            .send_message(&self.env.name, message, delivery);
        Ok(())
    }
}

impl agent::Host for PluginState {
    async fn all_tools(&mut self) -> wasmtime::Result<Vec<String>> {
        Ok(self.env.services.all_tools())
    }

    async fn active_tools(&mut self) -> wasmtime::Result<Vec<String>> {
        Ok(self.env.services.active_tools())
    }

    async fn set_active_tools(
        &mut self,
        names: Vec<String>,
    ) -> wasmtime::Result<Result<(), String>> {
        Ok(self.env.services.set_active_tools(&self.env.name, names))
    }
}

impl exec::Host for PluginState {
    async fn spawn(
        &mut self,
        request: exec::ExecRequest,
    ) -> wasmtime::Result<Result<Resource<ProcessHandle>, exec::ExecError>> {
        let plan = match authorize_exec(&request.command, &self.env.capabilities.exec) {
            Ok(plan) => plan,
            Err(e @ (AuthorizeError::NoGrant | AuthorizeError::NotCovered { .. })) => {
                return Ok(Err(exec::ExecError::Denied(e.to_string())))
            }
            Err(e @ AuthorizeError::Invalid(_)) => {
                return Ok(Err(exec::ExecError::Invalid(e.to_string())))
            }
        };
        let cwd = match &request.cwd {
            None => self.env.workspace.clone(),
            Some(dir) => {
                let dir = self.env.workspace.join(dir);
                match dir.canonicalize() {
                    Ok(real) if real.starts_with(&self.env.workspace) => real,
                    Ok(_) => {
                        return Ok(Err(exec::ExecError::Denied(format!(
                            "working directory {} is outside the workspace {}",
                            dir.display(),
                            self.env.workspace.display()
                        ))))
                    }
                    Err(e) => {
                        return Ok(Err(exec::ExecError::Invalid(format!(
                            "working directory {}: {e}",
                            dir.display()
                        ))))
                    }
                }
            }
        };
        let timeout = request.timeout_ms.map(Duration::from_millis);
        let env = ChildEnv::Only(child_env(
            std::env::vars_os(),
            &self.env.capabilities.env,
            |name| self.env.secrets.holds(name),
        ));
        match ProcessHandle::spawn(plan, env, &cwd, timeout, self.call.cancel.clone()) {
            Ok(handle) => Ok(Ok(self.table.push(handle)?)),
            Err(e) => Ok(Err(exec::ExecError::Failed(format!(
                "cannot start `{}`: {e}",
                request.command
            )))),
        }
    }
}

impl exec::HostProcess for PluginState {
    async fn next(
        &mut self,
        process: Resource<ProcessHandle>,
        wait_ms: u32,
    ) -> wasmtime::Result<exec::ProcessEvent> {
        let started = Instant::now();
        let wait = Duration::from_millis(u64::from(wait_ms.min(60_000)));
        let observed = self.table.get_mut(&process)?.next(wait).await;
        self.resume_after(started);
        Ok(match observed {
            Observed::Stdout(b) => exec::ProcessEvent::Stdout(b),
            Observed::Stderr(b) => exec::ProcessEvent::Stderr(b),
            Observed::Exited(code) => exec::ProcessEvent::Exited(code),
            Observed::Idle => exec::ProcessEvent::Idle,
            Observed::TimedOut => exec::ProcessEvent::TimedOut,
            Observed::Cancelled => exec::ProcessEvent::Cancelled,
        })
    }

    async fn kill(&mut self, process: Resource<ProcessHandle>) -> wasmtime::Result<()> {
        self.table.get_mut(&process)?.kill();
        Ok(())
    }

    async fn drop(&mut self, process: Resource<ProcessHandle>) -> wasmtime::Result<()> {
        self.table.delete(process)?;
        Ok(())
    }
}

impl http::Host for PluginState {
    async fn fetch(
        &mut self,
        request: http::Request,
    ) -> wasmtime::Result<Result<http::Response, http::HttpError>> {
        let url = match http_broker::authorize(&request.url, &self.env.capabilities.http) {
            Ok(url) => url,
            Err(e) => return Ok(Err(http::HttpError::Denied(e.to_string()))),
        };
        let mut headers = request.headers;
        let mut url = url;
        if let Some(secret) = &request.secret {
            if !self.env.capabilities.secrets.contains(&secret.name) {
                return Ok(Err(http::HttpError::Denied(format!(
                    "secret {} is not granted to this plugin",
                    secret.name
                ))));
            }
            let value = match self.env.secrets.lookup(&secret.name) {
                Ok(v) => v,
                Err(e) => return Ok(Err(http::HttpError::Denied(e.to_string()))),
            };
            apply_auth(&secret.auth, &value, &mut headers, &mut url);
        }
        let started = Instant::now();
        let result = http_broker::fetch(
            &self.env.http,
            FetchRequest {
                method: request.method,
                url,
                headers,
                body: request.body,
                timeout: request.timeout_ms.map(Duration::from_millis),
            },
        )
        .await;
        self.resume_after(started);
        Ok(match result {
            Ok(r) => Ok(http::Response {
                status: r.status,
                headers: r.headers,
                body: r.body,
            }),
            Err(FetchError::Invalid(m)) => Err(http::HttpError::Invalid(m)),
            Err(FetchError::Transport(m)) => Err(http::HttpError::Transport(m)),
            Err(FetchError::Timeout) => Err(http::HttpError::Timeout),
        })
    }
}

/// Attaches a secret the way the provider or plugin asked.
pub fn apply_auth(
    auth: &types::AuthScheme,
    value: &str,
    headers: &mut Vec<(String, String)>,
    url: &mut url::Url,
) {
    match auth {
        types::AuthScheme::None => {}
        types::AuthScheme::Bearer => {
            headers.push(("authorization".into(), format!("Bearer {value}")))
        }
        types::AuthScheme::Header(name) => headers.push((name.clone(), value.to_string())),
        types::AuthScheme::Query(param) => {
            url.query_pairs_mut().append_pair(param, value);
        }
    }
}
