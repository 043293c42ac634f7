//! One MCP server, over stdio (a process of the plugin) or streamable HTTP (`http.rs`):
//! initialized, its tools listed, and called. Every wait has an end: a server that stops
//! answering is stopped, one that exits is reported with what it wrote to standard error, one
//! that cannot be reached is named with why, and each starts again on the next call.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};
use tack_sdk::process::{Output, OutputStream, Process};

use crate::http::{HttpLink, PostError, SecretHeader};
use crate::legacy::SseLink;
use crate::rpc::{self, Incoming, RpcError};

/// The protocol revision tack asks for first.
pub const PROTOCOL: &str = "2025-11-25";
/// Revisions tack speaks: a server may answer `initialize` with any of them.
pub const PROTOCOLS: [&str; 4] = [PROTOCOL, "2025-06-18", "2025-03-26", "2024-11-05"];
/// The most pages of `tools/list` read from one server.
pub const MAX_PAGES: usize = 32;

/// A server as the host hands it over (see the host's `start/mcp_servers.rs`).
#[derive(Debug, Clone, Deserialize)]
pub struct ServerConfig {
    pub name: String,
    pub scope: String,
    /// A server tack starts: the command line, exactly as the `process` grant names it.
    #[serde(default)]
    pub command: String,
    /// The program and its arguments without the variables' values, or the URL, for showing.
    pub shown: String,
    #[serde(default)]
    pub env: Vec<String>,
    /// A server reached over streamable HTTP: its endpoint, exactly as the `http` grant names it.
    #[serde(default)]
    pub url: Option<String>,
    /// Headers sent with every request to it; none holds a secret.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// The header whose value the host holds and attaches (a bearer token, an API key).
    #[serde(default)]
    pub secret: Option<SecretHeader>,
    /// With `url`: `sse` for the older HTTP+SSE transport; otherwise streamable HTTP (which
    /// falls back to HTTP+SSE when the server refuses its first POST).
    #[serde(default)]
    pub transport: Option<String>,
    /// Names the user gave its tools: tack's name (`<server>_<tool>`) -> theirs.
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
}

/// How tack talks to a running server.
enum Link {
    Stdio(Process),
    /// Streamable HTTP: every answer comes with its POST.
    Http(HttpLink),
    /// HTTP+SSE: answers come on an event stream, as a program's come on its output.
    Sse(SseLink),
}

/// A tool a server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub schema: Value,
}

/// Where a server's conversation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Stopped,
    /// Started; `initialize` sent and not answered yet.
    Initializing,
    Ready,
}

pub struct Server {
    pub config: ServerConfig,
    link: Option<Link>,
    /// When the exchange under way must be over: an HTTP request waits no longer.
    until: Instant,
    /// The server answered 404 to the session tack had: a new one may be started at once.
    session_gone: bool,
    pub phase: Phase,
    next_id: u64,
    init_id: Option<u64>,
    /// The `tools/list` in flight, and the pages read so far.
    list_id: Option<u64>,
    pages: Vec<Value>,
    /// The server said its tools changed since they were listed.
    list_dirty: bool,
    /// Its tools by tack name, once listed.
    pub tools: BTreeMap<String, RemoteTool>,
    /// Set when `tools` changed and tack's registrations have not caught up.
    pub tools_changed: bool,
    answers: HashMap<u64, Result<Value, RpcError>>,
    /// The request whose progress notifications go to a tool call's progress: its id (the
    /// progress token) and the call's id.
    progress: Option<(u64, String)>,
    malformed: u32,
    first_malformed: Option<String>,
    pub last_error: Option<String>,
    pub protocol: Option<String>,
    pub server_info: Option<String>,
    /// What the server said it offers in `initialize` (`prompts`, `resources`, `tools`).
    pub capabilities: Value,
    /// Its prompts by tack command name, once listed; `None` until then (and after a restart).
    pub prompts: Option<BTreeMap<String, crate::prompts::RemotePrompt>>,
    /// When it last failed to start or ended, to not retry a broken server every turn.
    pub failed_at: Option<Instant>,
}

impl Server {
    pub fn new(config: ServerConfig) -> Self {
        Server {
            config,
            link: None,
            until: Instant::now(),
            session_gone: false,
            phase: Phase::Stopped,
            next_id: 0,
            init_id: None,
            list_id: None,
            pages: Vec::new(),
            list_dirty: false,
            tools: BTreeMap::new(),
            tools_changed: false,
            answers: HashMap::new(),
            progress: None,
            malformed: 0,
            first_malformed: None,
            last_error: None,
            protocol: None,
            server_info: None,
            capabilities: Value::Null,
            prompts: None,
            failed_at: None,
        }
    }

    /// Whether the server said it offers `what` (`prompts`, `resources`).
    pub fn offers(&self, what: &str) -> bool {
        self.capabilities.get(what).is_some_and(Value::is_object)
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Whether the tools are listed and nothing is in flight: nothing to wait for.
    pub fn settled(&self) -> bool {
        self.phase == Phase::Stopped
            || (self.phase == Phase::Ready && self.list_id.is_none() && !self.list_dirty)
    }

    /// Starts the program (or opens the way to the URL) and sends `initialize`; an HTTP server's
    /// answer is waited for until `deadline`.
    pub fn start(&mut self, deadline: Instant) -> Result<(), String> {
        if self.phase != Phase::Stopped {
            return Ok(());
        }
        let link = match &self.config.url {
            Some(url) if self.config.transport.as_deref() == Some("sse") => {
                match SseLink::connect(
                    url,
                    self.config.headers.clone(),
                    self.config.secret.clone(),
                    deadline,
                ) {
                    Ok(link) => Link::Sse(link),
                    Err(e) => {
                        let why = format!("MCP server '{}' ({url}): {e}", self.name());
                        self.fail(why.clone());
                        return Err(why);
                    }
                }
            }
            Some(url) => Link::Http(HttpLink::new(
                url.clone(),
                self.config.headers.clone(),
                self.config.secret.clone(),
            )),
            None => match Process::spawn(&self.config.command) {
                Ok(process) => Link::Stdio(process),
                Err(e) => {
                    let why = format!(
                        "MCP server '{}' could not start: {}",
                        self.name(),
                        e.message()
                    );
                    self.fail(why.clone());
                    return Err(why);
                }
            },
        };
        self.link = Some(link);
        self.until = deadline;
        self.phase = Phase::Initializing;
        self.malformed = 0;
        self.first_malformed = None;
        let id = self.fresh_id();
        self.init_id = Some(id);
        let line = rpc::request(
            id,
            "initialize",
            json!({
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": { "name": "tack", "version": env!("CARGO_PKG_VERSION") },
            }),
        );
        if !self.is_http() {
            return self.send(&line);
        }
        // A server that refuses a streamable HTTP `initialize` with a 4xx may speak only the
        // older HTTP+SSE transport: the transport's rule is to try a GET for its event stream.
        match self.transmit(&line) {
            Err(PostError::Refused(_, why)) => {
                let url = self.config.url.clone().unwrap_or_default();
                match SseLink::connect(
                    &url,
                    self.config.headers.clone(),
                    self.config.secret.clone(),
                    deadline,
                ) {
                    Ok(link) => {
                        self.link = Some(Link::Sse(link));
                        self.send(&line)
                    }
                    Err(older) => Err(self.unreachable(&format!(
                        "{why}; and it offers no HTTP+SSE event stream either ({older})"
                    ))),
                }
            }
            Err(e) => Err(self.broke(e)),
            Ok(()) => Ok(()),
        }
    }

    /// Stops the program (its process group) and forgets the conversation; `why` is what the
    /// next caller is told.
    pub fn stop(&mut self, why: Option<String>) {
        match self.link.take() {
            // Already gone is fine: releasing is about freeing the place in the budget.
            Some(Link::Stdio(process)) => {
                let _ = process.release();
            }
            Some(Link::Http(mut link)) => link.close(),
            Some(Link::Sse(mut link)) => link.close(),
            None => {}
        }
        self.phase = Phase::Stopped;
        self.prompts = None;
        self.init_id = None;
        self.list_id = None;
        self.pages.clear();
        self.answers.clear();
        if let Some(why) = why {
            self.fail(why);
        }
    }

    fn fail(&mut self, why: String) {
        self.last_error = Some(why);
        self.failed_at = Some(Instant::now());
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Writes one message to the server, however it is reached.
    fn transmit(&mut self, line: &str) -> Result<(), PostError> {
        let wait = self
            .until
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(100));
        match &mut self.link {
            None => Err(PostError::Failed("it is not running".into())),
            Some(Link::Stdio(process)) => process
                .write_line(line)
                .map_err(|e| PostError::Failed(format!("writing to it failed ({})", e.message()))),
            Some(Link::Http(link)) => link.post(line, wait),
            Some(Link::Sse(link)) => link.post(line, wait).map_err(PostError::Failed),
        }
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        if self.link.is_none() {
            return Err(format!("MCP server '{}' is not running", self.name()));
        }
        self.transmit(line).map_err(|e| self.broke(e))
    }

    /// Stops a server a message could not reach, saying why.
    fn broke(&mut self, error: PostError) -> String {
        if error == PostError::SessionGone {
            self.session_gone = true;
        }
        let mut why = error.message();
        if why.contains("answered HTTP 401") {
            why.push_str(&format!(
                "; it wants a login: run `tack mcp login {}`",
                self.name()
            ));
        }
        match self.link {
            Some(Link::Stdio(_)) => self.ended(&why),
            _ => self.unreachable(&why),
        }
    }

    /// Streamable HTTP: every message the server sends comes with an answer to a POST, so
    /// there is nothing to wait for between them.
    fn is_http(&self) -> bool {
        matches!(self.link, Some(Link::Http(_)))
    }

    /// An HTTP server that could not be reached or refused the request: stopped, so the next
    /// call starts a new session.
    fn unreachable(&mut self, how: &str) -> String {
        let why = format!(
            "MCP server '{}' ({}): {how}; tack connects again on the next call",
            self.name(),
            self.config.shown
        );
        self.stop(Some(why.clone()));
        why
    }

    /// Reads what the server wrote until `done` holds or `deadline` passes. An HTTP server's
    /// messages have all arrived once its answers are read, so that waits no longer.
    pub fn pump(
        &mut self,
        deadline: Instant,
        done: &dyn Fn(&Server) -> bool,
    ) -> Result<(), String> {
        self.until = deadline;
        loop {
            if done(self) {
                return Ok(());
            }
            if self.list_dirty && self.phase == Phase::Ready && self.list_id.is_none() {
                self.list_dirty = false;
                self.request_list(None)?;
            }
            if self.link.is_none() {
                return Err(self
                    .last_error
                    .clone()
                    .unwrap_or_else(|| format!("MCP server '{}' is not running", self.name())));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            let read = self.read_one(left.min(Duration::from_secs(50)))?;
            if !read && self.is_http() {
                return Ok(());
            }
        }
    }

    /// Reads one message, waiting up to `wait` for a program's line, and acts on it; `false`
    /// when none came.
    fn read_one(&mut self, wait: Duration) -> Result<bool, String> {
        let process = match &mut self.link {
            None => return Ok(false),
            Some(Link::Http(link)) => {
                return match link.next() {
                    Some(message) => self.handle(&message).map(|()| true),
                    None => Ok(false),
                }
            }
            Some(Link::Sse(link)) => {
                return match link.next(wait) {
                    Ok(Some(message)) => self.handle(&message).map(|()| true),
                    Ok(None) => Ok(false),
                    Err(why) => Err(self.unreachable(&why)),
                }
            }
            Some(Link::Stdio(process)) => *process,
        };
        match process.read_line_from(OutputStream::Stdout, wait) {
            Ok(Output::Data(bytes)) => {
                let text = String::from_utf8_lossy(&bytes);
                let line = text.trim_end_matches(['\n', '\r']);
                if !line.trim().is_empty() {
                    self.handle(line)?;
                }
                Ok(true)
            }
            Ok(Output::Idle) => Ok(false),
            Ok(Output::Closed) => Err(self.ended("it closed its output")),
            Err(e) => Err(self.ended(&e.message())),
        }
    }

    /// Reads what the server has already written, without waiting: a notification that came
    /// after the last answer (its tools changed) is seen before the next turn.
    pub fn drain(&mut self) -> Result<(), String> {
        while self.link.is_some() {
            if !self.read_one(Duration::ZERO)? {
                break;
            }
        }
        Ok(())
    }

    fn handle(&mut self, line: &str) -> Result<(), String> {
        match rpc::parse(line) {
            Incoming::Response { id, outcome } if Some(id) == self.init_id => {
                self.init_id = None;
                self.initialized(outcome)
            }
            Incoming::Response { id, outcome } if Some(id) == self.list_id => {
                self.list_id = None;
                self.listed(outcome)
            }
            Incoming::Response { id, outcome } => {
                self.answers.insert(id, outcome);
                Ok(())
            }
            Incoming::Notification { method, params } => {
                match method.as_str() {
                    "notifications/tools/list_changed" => self.list_dirty = true,
                    "notifications/prompts/list_changed" => self.prompts = None,
                    "notifications/progress" => self.forward_progress(&params),
                    _ => {}
                }
                Ok(())
            }
            Incoming::Request { id, method } => {
                let line = if method == "ping" {
                    rpc::reply(&id, json!({}))
                } else {
                    // tack declares no client capability (roots, sampling, elicitation), so a
                    // server has no business asking for one; saying so keeps it from waiting.
                    rpc::reply_error(&id, -32601, &format!("tack does not offer {method}"))
                };
                self.send(&line)
            }
            Incoming::Malformed(text) => {
                self.malformed += 1;
                if self.first_malformed.is_none() {
                    self.first_malformed = Some(text);
                }
                Ok(())
            }
        }
    }

    /// A progress notification for the call in flight, as that call's progress: `3/5 Working`.
    fn forward_progress(&self, params: &Value) {
        let Some((token, call_id)) = &self.progress else {
            return;
        };
        if params.get("progressToken").and_then(Value::as_u64) != Some(*token) {
            return;
        }
        let number = |key: &str| params.get(key).and_then(Value::as_f64);
        let mut text = match (number("progress"), number("total")) {
            (Some(done), Some(total)) => format!("{done}/{total}"),
            (Some(done), None) => format!("{done}"),
            _ => String::new(),
        };
        if let Some(message) = params.get("message").and_then(Value::as_str) {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(message);
        }
        if !text.is_empty() {
            tack_sdk::progress(call_id, format!("{}: {text}", self.name()));
        }
    }

    fn initialized(&mut self, outcome: Result<Value, RpcError>) -> Result<(), String> {
        let result = match outcome {
            Ok(result) => result,
            Err(e) => {
                let why = format!("MCP server '{}' refused to initialize: {e}", self.name());
                self.stop(Some(why.clone()));
                return Err(why);
            }
        };
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !PROTOCOLS.contains(&version) {
            let why = format!(
                "MCP server '{}' speaks protocol revision '{version}', which tack does not ({})",
                self.name(),
                PROTOCOLS.join(", ")
            );
            self.stop(Some(why.clone()));
            return Err(why);
        }
        self.protocol = Some(version.to_string());
        self.capabilities = result.get("capabilities").cloned().unwrap_or_default();
        if let Some(Link::Http(link)) = &mut self.link {
            link.protocol = Some(version.to_string());
        }
        self.server_info = result.get("serverInfo").map(|info| {
            let text = |key: &str| info.get(key).and_then(Value::as_str).unwrap_or("");
            format!("{} {}", text("name"), text("version"))
                .trim()
                .to_string()
        });
        self.phase = Phase::Ready;
        self.last_error = None;
        self.failed_at = None;
        // What came before our answer (a list_changed sent at start-up) is covered by the list.
        self.list_dirty = false;
        self.send(&rpc::notification("notifications/initialized", None))?;
        if let Some(Link::Http(link)) = &mut self.link {
            link.listen();
        }
        self.request_list(None)
    }

    fn request_list(&mut self, cursor: Option<&str>) -> Result<(), String> {
        if cursor.is_none() {
            self.pages.clear();
        }
        let id = self.fresh_id();
        self.list_id = Some(id);
        let params = match cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        self.send(&rpc::request(id, "tools/list", params))
    }

    fn listed(&mut self, outcome: Result<Value, RpcError>) -> Result<(), String> {
        let result = match outcome {
            Ok(result) => result,
            Err(e) => {
                let why = format!("MCP server '{}' could not list its tools: {e}", self.name());
                self.last_error = Some(why.clone());
                return Err(why);
            }
        };
        self.pages
            .push(result.get("tools").cloned().unwrap_or_default());
        if let Some(cursor) = result.get("nextCursor").and_then(Value::as_str) {
            if self.pages.len() < MAX_PAGES {
                let cursor = cursor.to_string();
                return self.request_list(Some(&cursor));
            }
        }
        let mut tools = BTreeMap::new();
        let pages = std::mem::take(&mut self.pages);
        for tool in pages.into_iter().flat_map(|page| match page {
            Value::Array(items) => items,
            _ => Vec::new(),
        }) {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let mut schema = tool
                .get("inputSchema")
                .cloned()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({ "type": "object" }));
            if schema.get("type").is_none() {
                schema["type"] = json!("object");
            }
            let remote = RemoteTool {
                name: name.to_string(),
                title: tool
                    .get("title")
                    .or_else(|| tool.get("annotations").and_then(|a| a.get("title")))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                description: tool
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                schema,
            };
            let tack_name = crate::content::tool_name(self.name(), name);
            let tack_name = self
                .config
                .rename
                .get(&tack_name)
                .cloned()
                .unwrap_or(tack_name);
            tools.insert(tack_name, remote);
        }
        if tools != self.tools {
            self.tools = tools;
            self.tools_changed = true;
        }
        Ok(())
    }

    /// Sends a request and waits for its answer until `deadline`. A server that does not answer
    /// in time is told the request is cancelled and stopped. With `progress_for` (a tool call's
    /// id), the request carries a progress token, and the server's progress notifications become
    /// that call's progress.
    pub fn call(
        &mut self,
        method: &str,
        mut params: Value,
        deadline: Instant,
        progress_for: Option<&str>,
    ) -> Result<Value, String> {
        let id = self.fresh_id();
        if let Some(call_id) = progress_for {
            params["_meta"] = json!({ "progressToken": id });
            self.progress = Some((id, call_id.to_string()));
        }
        let line = rpc::request(id, method, params);
        self.until = deadline;
        if let Err(why) = self.send(&line) {
            // An HTTP server that forgot the session (it restarted, or let it expire) gets a
            // new one, and the request once more.
            if !std::mem::take(&mut self.session_gone) {
                self.progress = None;
                return Err(why);
            }
            let sent = self.ready(deadline).and_then(|()| {
                self.until = deadline;
                self.send(&line)
            });
            if let Err(why) = sent {
                self.progress = None;
                return Err(why);
            }
        }
        let waited = self.pump(deadline, &|server| server.answers.contains_key(&id));
        self.progress = None;
        waited?;
        match self.answers.remove(&id) {
            Some(Ok(result)) => Ok(result),
            Some(Err(e)) => Err(format!(
                "MCP server '{}' answered with an error: {e}",
                self.name()
            )),
            None if self.is_http() => {
                let why = format!(
                    "MCP server '{}' closed its answer to {method} without a response; tack \
                     connects again on the next call",
                    self.name()
                );
                self.stop(Some(why.clone()));
                Err(why)
            }
            None => {
                let _ = self.send(&rpc::notification(
                    "notifications/cancelled",
                    Some(json!({ "requestId": id, "reason": "tack stopped waiting" })),
                ));
                let why = format!(
                    "MCP server '{}' did not answer {method} in time; tack stopped it, and it \
                     starts again on the next call",
                    self.name()
                );
                Err(self.gave_up(why))
            }
        }
    }

    /// Waits (until `deadline`) for a started server to be ready for calls.
    pub fn ready(&mut self, deadline: Instant) -> Result<(), String> {
        if self.phase == Phase::Stopped {
            self.start(deadline)?;
        }
        self.pump(deadline, &|server| server.phase == Phase::Ready)?;
        if self.phase == Phase::Ready {
            return Ok(());
        }
        let why = format!(
            "MCP server '{}' did not finish starting in time; tack stopped it",
            self.name()
        );
        Err(self.gave_up(why))
    }

    /// Stops a server tack stopped waiting for, `why` followed by the lines it wrote that were
    /// not JSON-RPC (often the reason: a server logging to standard output); returns the whole.
    fn gave_up(&mut self, mut why: String) -> String {
        if let Some(first) = &self.first_malformed {
            why.push_str(&format!(
                ". It wrote {} line(s) that are not JSON-RPC, the first: {first}",
                self.malformed
            ));
        }
        self.stop(Some(why.clone()));
        why
    }

    /// The program ended or cannot be written to: says how, with the end of what it wrote to
    /// standard error, and stops the conversation.
    fn ended(&mut self, how: &str) -> String {
        let mut why = format!("MCP server '{}' ended: {how}", self.name());
        if let Some(Link::Stdio(process)) = self.link {
            if let Ok(Some(status)) = process.wait(Duration::from_millis(500)) {
                match status.code {
                    Some(code) => why.push_str(&format!(" (exit code {code})")),
                    None => why.push_str(" (killed by a signal)"),
                }
            }
            let mut stderr = Vec::new();
            while let Ok(Output::Data(bytes)) =
                process.read(OutputStream::Stderr, 64 << 10, Duration::ZERO)
            {
                stderr.extend_from_slice(&bytes);
            }
            let text = String::from_utf8_lossy(&stderr);
            let tail: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .rev()
                .take(5)
                .collect();
            if !tail.is_empty() {
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                why.push_str(&format!("; its last words: {}", tail.join(" | ")));
            }
        }
        why.push_str("; it starts again on the next call");
        self.stop(Some(why.clone()));
        why
    }
}
