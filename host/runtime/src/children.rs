//! Child agent runs (sub-agents, `tack:agents/agents`): a plugin's tool call hands a task to a
//! fresh agent in this process, which runs in a context of its own and returns its final text.
//!
//! A child is never more than its parent: its tools are a subset of the parent's active tools,
//! the parent's hooks (every policy plugin) judge its calls, and it runs under limits (turns,
//! tokens, time), a cap on concurrent children and a depth limit. Depth travels with each of
//! the child's tool calls (their [`ToolProgress`](tack_core::agent::ToolProgress), then the
//! plugin call's state), not with the task running them, so a plugin called from inside a
//! child is known to be one wherever its call runs. The child's transcript is recorded in the
//! parent's session as a `custom` entry owned by the calling plugin.

mod completion;
mod limits;
mod narrowed;
mod progress;
mod transcript;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tack_core::agent::{ChildFactory, ModelInfo, Provider, ReasoningLevel, RunStatus};
use tack_core::message::{Message, Usage};
use tack_core::session::SessionHandle;
use tack_core::sync::lock;
use tack_core::Agent;
use tokio_util::sync::CancellationToken;

pub use completion::{Completion, CompletionError, CompletionRequest, Role, MAX_COMPLETION_BYTES};
pub use limits::ChildLimits;
pub use progress::ChildProgress;
pub use transcript::{TRANSCRIPT_ENTRY_TYPE, TRANSCRIPT_USAGE_FIELD};

use limits::LimitWatch;
use narrowed::{ChildHooks, ChildTools};

/// What a child is asked to do (WIT `child-request`, checked).
#[derive(Debug, Clone, Default)]
pub struct ChildRequest {
    pub description: String,
    pub prompt: String,
    pub system_prompt: Option<String>,
    pub tools: Option<Vec<String>>,
    pub model: Option<String>,
    pub max_turns: Option<u32>,
    pub max_tokens: Option<u64>,
    pub timeout: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildStatus {
    Completed,
    LimitReached,
    Aborted,
    Failed,
}

impl ChildStatus {
    /// As the WIT's `child-status` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ChildStatus::Completed => "completed",
            ChildStatus::LimitReached => "limit-reached",
            ChildStatus::Aborted => "aborted",
            ChildStatus::Failed => "failed",
        }
    }
}

/// What a child used.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ChildUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost: f64,
    pub turns: u32,
    pub tool_calls: u32,
}

impl ChildUsage {
    fn add_turn(&mut self, usage: &Usage, tool_calls: usize) {
        self.input += usage.input;
        self.output += usage.output;
        self.cache_read += usage.cache_read;
        self.cache_write += usage.cache_write;
        self.cost += usage.cost.total;
        self.turns += 1;
        self.tool_calls += u32::try_from(tool_calls).unwrap_or(u32::MAX);
    }

    pub fn add(&mut self, other: &ChildUsage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cost += other.cost;
        self.turns += other.turns;
        self.tool_calls += other.tool_calls;
    }

    pub fn tokens(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// A child's answer.
#[derive(Debug, Clone)]
pub struct ChildOutcome {
    pub status: ChildStatus,
    pub text: String,
    pub error: Option<String>,
    pub usage: ChildUsage,
    /// `provider/id`.
    pub model: String,
    pub entry_id: Option<String>,
}

/// Why no child started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChildError {
    #[error("{0}")]
    Denied(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Unavailable(String),
}

/// The parent a session's children start from.
struct Parent {
    factory: ChildFactory,
    session: SessionHandle,
    /// Every model the front end's catalog lists (any provider), for a child that names one.
    models: Vec<ModelInfo>,
}

/// A model of another provider than the parent's, with what serves it.
pub struct ResolvedModel {
    pub model: ModelInfo,
    pub provider: Arc<dyn Provider>,
    /// That provider's options (the parent's are for its own provider).
    pub options: serde_json::Value,
}

/// Sets up the provider of a model the front end's registry lists for another provider than
/// the parent's, as `--model provider/id` would; `Err` says why it cannot be used (no key, a
/// provider the host refuses to send requests for).
pub type ModelResolver = Arc<dyn Fn(&ModelInfo) -> Result<ResolvedModel, String> + Send + Sync>;

/// Lists every model the front end's catalog has now (providers come and go while tack runs).
pub type ModelLister = Arc<dyn Fn() -> Vec<ModelInfo> + Send + Sync>;

/// The child runs of one session: attached to the parent agent once it exists.
pub struct ChildRuns {
    parent: OnceLock<Parent>,
    resolver: OnceLock<ModelResolver>,
    lister: OnceLock<ModelLister>,
    limits: ChildLimits,
    running: Arc<tokio::sync::Semaphore>,
    totals: Mutex<ChildUsage>,
    started: AtomicU64,
}

impl ChildRuns {
    pub fn new(limits: ChildLimits) -> Self {
        ChildRuns {
            running: Arc::new(tokio::sync::Semaphore::new(limits.max_concurrent.max(1))),
            parent: OnceLock::new(),
            resolver: OnceLock::new(),
            lister: OnceLock::new(),
            limits,
            totals: Mutex::default(),
            started: AtomicU64::new(0),
        }
    }

    /// Attaches the parent agent (its parts, via `factory`), its session and the models a
    /// child may name.
    pub fn attach(&self, factory: ChildFactory, session: SessionHandle, models: Vec<ModelInfo>) {
        let _ = self.parent.set(Parent {
            factory,
            session,
            models,
        });
    }

    /// Lets children name models of other providers than the parent's (the ones `attach` was
    /// given), served as `resolver` sets them up. Without it, a child stays on the parent's
    /// provider.
    pub fn resolve_models_with(&self, resolver: ModelResolver) {
        let _ = self.resolver.set(resolver);
    }

    /// Lists the models children may name with `lister`, asked each time, in place of the list
    /// `attach` was given: for a catalog that changes while tack runs.
    pub fn list_models_with(&self, lister: ModelLister) {
        let _ = self.lister.set(lister);
    }

    /// Every model a child may name now.
    fn known_models(&self, parent: &Parent) -> Vec<ModelInfo> {
        match self.lister.get() {
            Some(list) => list(),
            None => parent.models.clone(),
        }
    }

    pub fn limits(&self) -> &ChildLimits {
        &self.limits
    }

    /// What every child of this process used so far.
    pub fn totals(&self) -> ChildUsage {
        *lock(&self.totals)
    }

    /// How many children (and model calls of plugins) have started.
    pub fn started(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// Runs a child of the session's own agent for `plugin` to its end. `cancel` is the
    /// starting call's: cancelling it (the user aborting the parent) aborts the child.
    /// `progress` hears what the child does.
    pub async fn run(
        &self,
        plugin: &str,
        request: ChildRequest,
        cancel: CancellationToken,
        progress: Option<Arc<dyn Fn(ChildProgress) + Send + Sync>>,
    ) -> Result<ChildOutcome, ChildError> {
        self.run_from(0, plugin, request, cancel, progress).await
    }

    /// [`run`](Self::run) for a call of the agent at `depth` (0: the session's own; the
    /// plugin call's state says which), refused at the configured depth limit.
    pub async fn run_from(
        &self,
        depth: u32,
        plugin: &str,
        request: ChildRequest,
        cancel: CancellationToken,
        progress: Option<Arc<dyn Fn(ChildProgress) + Send + Sync>>,
    ) -> Result<ChildOutcome, ChildError> {
        let parent = self.parent.get().ok_or_else(|| {
            ChildError::Unavailable("no agent is running to start a child from".into())
        })?;
        if depth >= self.limits.max_depth {
            return Err(ChildError::Denied(format!(
                "a child at depth {depth} may not start children (the limit is {})",
                self.limits.max_depth
            )));
        }
        if request.prompt.trim().is_empty() {
            return Err(ChildError::Invalid("the child's prompt is empty".into()));
        }
        let mut parts = parent.factory.parts();
        let tools = ChildTools::narrow(parts.tools, request.tools.as_deref(), depth + 1)
            .map_err(ChildError::Denied)?;
        if let Some(wanted) = &request.model {
            match self.model(parent, &parts.config.model, wanted)? {
                Chosen::Parents(model) => parts.config.model = model,
                Chosen::Other(resolved) => {
                    if !resolved.model.reasoning {
                        parts.config.reasoning = ReasoningLevel::Off;
                    }
                    parts.config.model = resolved.model;
                    parts.config.provider_options = resolved.options;
                    parts.provider = resolved.provider;
                }
            }
        }
        let limits = self.limits.for_request(&request);
        let _permit = tokio::select! {
            permit = self.running.clone().acquire_owned() => permit
                .map_err(|_| ChildError::Unavailable("child runs are shut down".into()))?,
            () = cancel.cancelled() => return Err(ChildError::Unavailable(
                "cancelled while waiting for a free child slot".into(),
            )),
        };
        self.started.fetch_add(1, Ordering::Relaxed);
        let model = format!("{}/{}", parts.config.model.provider, parts.config.model.id);
        let mut config = parts.config;
        if let Some(system_prompt) = &request.system_prompt {
            config.system_prompt.clone_from(system_prompt);
        }
        let child_cancel = cancel.child_token();
        let watch = Arc::new(LimitWatch::new(
            limits,
            child_cancel.clone(),
            progress,
            &request.description,
        ));
        let cwd = parent.session.lock().header().cwd.clone();
        let session = SessionHandle::new(tack_core::Session::in_memory(std::path::Path::new(&cwd)));
        let agent = Agent::new(config, parts.provider, Arc::new(tools), session)
            .with_hooks(Arc::new(ChildHooks::new(parts.hooks)))
            .with_events(watch.clone());
        let timer = {
            let watch = watch.clone();
            let timeout = limits.timeout;
            let cancel = child_cancel.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = tokio::time::sleep(timeout) => watch.time_up(),
                    () = cancel.cancelled() => {}
                }
            })
        };
        let result = agent
            .prompt_text(&request.prompt, child_cancel.clone())
            .await;
        child_cancel.cancel();
        timer.abort();
        let usage = watch.usage();
        lock(&self.totals).add(&usage);
        let messages: Vec<Arc<Message>> = match &result {
            Ok(outcome) => outcome.messages.clone(),
            Err(_) => Vec::new(),
        };
        let text = last_text(&messages);
        let (status, error) = match (&result, watch.limit_hit()) {
            (_, Some(limit)) => (ChildStatus::LimitReached, Some(limit)),
            (Ok(outcome), None) => match &outcome.status {
                RunStatus::Completed | RunStatus::Handled => (ChildStatus::Completed, None),
                RunStatus::Aborted => (ChildStatus::Aborted, None),
                RunStatus::Failed(why) => (ChildStatus::Failed, Some(why.clone())),
            },
            (Err(e), None) if cancel.is_cancelled() => (ChildStatus::Aborted, Some(e.to_string())),
            (Err(e), None) => (ChildStatus::Failed, Some(e.to_string())),
        };
        let status = if status == ChildStatus::Completed && cancel.is_cancelled() {
            ChildStatus::Aborted
        } else {
            status
        };
        watch.finish(status.as_str());
        let mut outcome = ChildOutcome {
            status,
            text,
            error,
            usage,
            model,
            entry_id: None,
        };
        outcome.entry_id = transcript::record(
            &parent.session,
            plugin,
            &request,
            &outcome,
            &messages,
            self.limits.transcript_bytes,
        );
        Ok(outcome)
    }

    /// The model `wanted` names (`id` of the parent's provider, or `provider/id`), which must
    /// be one the registry lists; another provider's is set up by the resolver.
    fn model(
        &self,
        parent: &Parent,
        current: &ModelInfo,
        wanted: &str,
    ) -> Result<Chosen, ChildError> {
        let (provider, id) = match wanted.split_once('/') {
            Some((provider, id)) => (provider, id),
            None => (current.provider.as_str(), wanted),
        };
        if provider == current.provider && id == current.id {
            return Ok(Chosen::Parents(current.clone()));
        }
        let models = self.known_models(parent);
        let known = models
            .iter()
            .find(|m| m.provider == provider && m.id == id)
            .cloned()
            .ok_or_else(|| {
                let ids: Vec<&str> = models
                    .iter()
                    .filter(|m| m.provider == provider)
                    .map(|m| m.id.as_str())
                    .collect();
                ChildError::Invalid(if ids.is_empty() {
                    let mut providers: Vec<&str> =
                        models.iter().map(|m| m.provider.as_str()).collect();
                    providers.sort_unstable();
                    providers.dedup();
                    format!(
                        "unknown model '{wanted}': no provider '{provider}' (providers: {})",
                        providers.join(", ")
                    )
                } else {
                    format!(
                        "unknown model '{wanted}' (provider '{provider}' has: {})",
                        ids.join(", ")
                    )
                })
            })?;
        if provider == current.provider {
            return Ok(Chosen::Parents(known));
        }
        let resolver = self.resolver.get().ok_or_else(|| {
            ChildError::Invalid(format!(
                "model '{wanted}': a child runs on the parent's provider '{}' here",
                current.provider
            ))
        })?;
        resolver(&known)
            .map(Chosen::Other)
            .map_err(|why| ChildError::Invalid(format!("model '{wanted}': {why}")))
    }
}

/// The model a child runs on.
enum Chosen {
    /// Served by the parent's provider.
    Parents(ModelInfo),
    Other(ResolvedModel),
}

impl std::fmt::Debug for ChildRuns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildRuns")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// The text of the last assistant message that has any.
fn last_text(messages: &[Arc<Message>]) -> String {
    messages
        .iter()
        .rev()
        .find_map(|m| match m.as_ref() {
            Message::Assistant(a) => Some(a.text_content()).filter(|t| !t.trim().is_empty()),
            _ => None,
        })
        .unwrap_or_default()
}
