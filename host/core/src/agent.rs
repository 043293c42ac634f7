//! The agent loop and the traits through which it reaches providers, tools and hooks.
//!
//! A run: `agent_start`; then turns, each of which drains steering messages, projects the session
//! into the model's context, streams one assistant message and runs its tool calls as a batch,
//! until the model stops calling tools and no steering is queued; then queued follow-ups start
//! more turns; then `agent_end`. Every message is appended to the session as it completes.
//! After a turn whose context passed the threshold the conversation is compacted; a context
//! overflow is compacted and the turn retried once (see `compact.rs`).

mod assemble;
mod batch;
mod child;
mod compact;
mod complete;
mod hooks;
mod provider;
mod queue;
mod retry;
mod run;
mod schema;
mod stream;
mod tools;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use child::{ChildFactory, ChildParts};
pub use complete::{complete, CompleteError, Completed};
pub use hooks::{
    AgentStartPatch, CompactDecision, CompactRequest, Hooks, InjectedMessage, InputAction, NoHooks,
    ToolDecision, TreeDecision, TreeRequest,
};
pub use provider::{
    InputKind, ModelCost, ModelInfo, Provider, ProviderError, ProviderErrorKind, ProviderRequest,
    ProviderStream, ReasoningLevel, StopKind, StreamEvent, TokenUsage,
};
pub use queue::{DeliveryMode, MessageQueues};
pub use retry::RetryPolicy;
pub use tools::{ExecutionMode, ToolError, ToolExecutor, ToolProgress, ToolSpec};

use crate::compaction::CompactionSettings;
use crate::event::{AgentEvent, EventSink, NullSink};
use crate::message::{Content, Message, TextContent, ToolCall, UserMessage};
use crate::session::{SessionError, SessionHandle};
use schema::SchemaCache;

/// What a run uses; read once when it starts.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub model: ModelInfo,
    pub reasoning: ReasoningLevel,
    pub system_prompt: String,
    pub max_tokens: Option<u32>,
    /// Provider options from the user's config (a JSON object).
    pub provider_options: Value,
    pub retry: RetryPolicy,
    /// After an abort, how long running tools get to stop on their own before they are dropped.
    pub abort_grace: Duration,
    /// When to compact the conversation and how much to keep verbatim.
    pub compaction: CompactionSettings,
}

impl AgentConfig {
    pub fn new(model: ModelInfo, system_prompt: impl Into<String>) -> Self {
        AgentConfig {
            model,
            reasoning: ReasoningLevel::Off,
            system_prompt: system_prompt.into(),
            max_tokens: None,
            provider_options: Value::Object(Default::default()),
            retry: RetryPolicy::default(),
            abort_grace: Duration::from_secs(5),
            compaction: CompactionSettings::default(),
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub status: RunStatus,
    /// The messages the run added to the session, in order.
    pub messages: Vec<Arc<Message>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    /// The model stopped and no queued message was left.
    Completed,
    /// The user aborted.
    Aborted,
    /// The provider failed (after any retries); the last assistant message says why.
    Failed(String),
    /// An input hook consumed the prompt; the agent did not run.
    Handled,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the agent is already running")]
    Busy,
    /// The context does not fit the model's window, and compacting did not help (or automatic
    /// compaction is off). The failed assistant message is in the session and `agent_end` was
    /// emitted; compact, then [`Agent::resume`].
    #[error("the conversation no longer fits the model's context window ({0})")]
    ContextOverflow(ProviderError),
    #[error(
        "nothing to continue: the conversation does not end with a user message or tool result"
    )]
    NothingToContinue,
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// The agent: one run at a time over a shared session.
pub struct Agent {
    provider: Arc<dyn Provider>,
    tools: Arc<dyn ToolExecutor>,
    hooks: Arc<dyn Hooks>,
    sink: Arc<dyn EventSink>,
    session: SessionHandle,
    config: Arc<Mutex<AgentConfig>>,
    queues: MessageQueues,
    schemas: SchemaCache,
    running: AtomicBool,
    /// Ends a wait before a retry (`abort_retry`).
    retry_abort: tokio::sync::Notify,
    /// The cancellation of the run going on, for [`Agent::abort_run`].
    run_cancel: Mutex<Option<CancellationToken>>,
}

impl Agent {
    pub fn new(
        config: AgentConfig,
        provider: Arc<dyn Provider>,
        tools: Arc<dyn ToolExecutor>,
        session: SessionHandle,
    ) -> Self {
        let sink: Arc<dyn EventSink> = Arc::new(NullSink);
        Agent {
            provider,
            tools,
            hooks: Arc::new(NoHooks),
            queues: MessageQueues::new(Arc::clone(&sink)),
            sink,
            session,
            config: Arc::new(Mutex::new(config)),
            schemas: SchemaCache::default(),
            running: AtomicBool::new(false),
            retry_abort: tokio::sync::Notify::new(),
            run_cancel: Mutex::new(None),
        }
    }

    pub fn with_hooks(mut self, hooks: Arc<dyn Hooks>) -> Self {
        self.hooks = hooks;
        self
    }

    /// Where events go. Replaces the queues (they are empty before the first run).
    pub fn with_events(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.queues = MessageQueues::new(Arc::clone(&sink));
        self.sink = sink;
        self
    }

    /// The steering and follow-up queues; push to them while a run is going on.
    pub fn queues(&self) -> MessageQueues {
        self.queues.clone()
    }

    /// Ends the wait before retrying a failed provider call, if one is going on: the failure
    /// becomes the turn's answer and no further tries follow.
    pub fn abort_retry(&self) {
        self.retry_abort.notify_waiters();
    }

    pub fn session(&self) -> &SessionHandle {
        &self.session
    }

    pub fn config(&self) -> AgentConfig {
        self.config
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Changes the configuration; a running run keeps the one it started with.
    pub fn update_config(&self, change: impl FnOnce(&mut AgentConfig)) {
        change(&mut crate::sync::lock(&self.config));
    }

    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::SeqCst)
    }

    /// Writes `message` to the session outside a run: a plugin's message that is to start no
    /// turn (Pi's `sendMessage` without `triggerTurn`). Front ends and plugins hear of it from
    /// [`Agent::announce_message`], which the caller may leave to a task of its own (a plugin
    /// sending it is in a call that its own observer would wait for).
    pub fn write_message(&self, message: Arc<Message>) -> Result<(), SessionError> {
        self.session.lock().append_message(message).map(|_| ())
    }

    /// Tells front ends and plugins of a message [`Agent::write_message`] wrote, as a run tells
    /// them of its own.
    pub async fn announce_message(&self, message: Arc<Message>) {
        self.emit(AgentEvent::MessageStart {
            message: Arc::clone(&message),
        })
        .await;
        self.emit(AgentEvent::MessageEnd { message }).await;
    }

    /// Stops the run going on as its caller's cancellation would (a plugin's `control.abort`):
    /// the provider call and running tools are cancelled, and the run ends aborted. Whether
    /// there was a run to stop; a compaction or a move in the tree is not one.
    pub fn abort_run(&self) -> bool {
        match crate::sync::lock(&self.run_cancel).as_ref() {
            Some(cancel) if !cancel.is_cancelled() => {
                cancel.cancel();
                true
            }
            _ => false,
        }
    }

    /// The before-tool-call hooks' verdict on a shell command the user typed (`!cmd`): it is
    /// judged as a call of the `bash` tool, so the same policies (permission-gate's rules, a
    /// plugin's block or rewrite) apply to it as to the model's commands.
    pub async fn judge_user_command(&self, id: &str, command: &str) -> ToolDecision {
        let call = ToolCall {
            id: id.to_string(),
            name: "bash".to_string(),
            arguments: serde_json::json!({ "command": command }),
        };
        self.hooks.before_tool_call(&call).await
    }

    /// Runs the user's prompt: the input hook may transform or consume it, the before-agent-start
    /// hook may change the system prompt and inject messages after it.
    pub async fn prompt(
        &self,
        content: Vec<Content>,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, AgentError> {
        let _running = RunningGuard::acquire(&self.running)?;
        let _cancel = RunCancel::hold(&self.run_cancel, &cancel);
        let text = text_of(&content);
        let content = match self.hooks.input(&text).await {
            InputAction::Continue => content,
            InputAction::Transform(new_text) => replace_text(content, new_text),
            InputAction::Handled => {
                return Ok(RunOutcome {
                    status: RunStatus::Handled,
                    messages: Vec::new(),
                })
            }
        };
        let config = self.config();
        let patch = self
            .hooks
            .before_agent_start(&text_of(&content), &config.system_prompt)
            .await;
        let mut system_prompt = patch.system_prompt.unwrap_or(config.system_prompt.clone());
        if let Some(extra) = patch.append_system_prompt {
            system_prompt.push_str("\n\n");
            system_prompt.push_str(&extra);
        }
        let mut messages = vec![Message::User(UserMessage {
            content,
            timestamp: crate::message::now_ms(),
        })];
        messages.extend(
            patch
                .inject
                .into_iter()
                .map(|m| Message::from_plugin(m.plugin, m.custom_type, m.text, m.display)),
        );
        self.run_loop(messages, config, system_prompt, cancel).await
    }

    /// Convenience for a text-only [`Agent::prompt`].
    pub async fn prompt_text(
        &self,
        text: &str,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, AgentError> {
        self.prompt(vec![Content::text(text)], cancel).await
    }

    /// Appends `messages` and runs the loop, without the input and before-agent-start hooks.
    pub async fn run(
        &self,
        messages: Vec<Message>,
        cancel: CancellationToken,
    ) -> Result<RunOutcome, AgentError> {
        let _running = RunningGuard::acquire(&self.running)?;
        let _cancel = RunCancel::hold(&self.run_cancel, &cancel);
        let config = self.config();
        let system_prompt = config.system_prompt.clone();
        self.run_loop(messages, config, system_prompt, cancel).await
    }

    /// Continues from the session as it is (after a failure, an overflow that was compacted, or
    /// with queued steering messages).
    pub async fn resume(&self, cancel: CancellationToken) -> Result<RunOutcome, AgentError> {
        self.run(Vec::new(), cancel).await
    }

    async fn emit(&self, event: AgentEvent) {
        self.sink.emit(&event);
        if event.is_observable() || self.hooks.observes_streaming() {
            self.hooks.on_event(&event).await;
        }
    }
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("running", &self.is_running())
            .field("queues", &self.queues)
            .finish_non_exhaustive()
    }
}

struct RunningGuard<'a>(&'a AtomicBool);

impl<'a> RunningGuard<'a> {
    fn acquire(flag: &'a AtomicBool) -> Result<Self, AgentError> {
        if flag.swap(true, Ordering::SeqCst) {
            return Err(AgentError::Busy);
        }
        Ok(RunningGuard(flag))
    }
}

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// The run's cancellation, reachable by [`Agent::abort_run`] while the run lasts.
struct RunCancel<'a>(&'a Mutex<Option<CancellationToken>>);

impl<'a> RunCancel<'a> {
    fn hold(slot: &'a Mutex<Option<CancellationToken>>, cancel: &CancellationToken) -> Self {
        *crate::sync::lock(slot) = Some(cancel.clone());
        RunCancel(slot)
    }
}

impl Drop for RunCancel<'_> {
    fn drop(&mut self) {
        *crate::sync::lock(self.0) = None;
    }
}

fn text_of(content: &[Content]) -> String {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|c| match c {
            Content::Text(t) => Some(t.text.as_str()),
            Content::Image(_) => None,
        })
        .collect();
    texts.join("\n")
}

/// Replaces the text blocks by one block holding `text`, keeping images.
fn replace_text(content: Vec<Content>, text: String) -> Vec<Content> {
    let mut out = vec![Content::Text(TextContent { text })];
    out.extend(
        content
            .into_iter()
            .filter(|c| matches!(c, Content::Image(_))),
    );
    out
}
