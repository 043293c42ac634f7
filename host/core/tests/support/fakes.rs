//! In-process fakes of the provider, the tools and the hooks, for driving the agent loop.

#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tack_core::agent::{
    Agent, AgentConfig, ExecutionMode, ModelCost, ModelInfo, Provider, ProviderError,
    ProviderErrorKind, ProviderRequest, ProviderStream, RetryPolicy, StopKind, StreamEvent,
    TokenUsage, ToolError, ToolExecutor, ToolProgress, ToolSpec,
};
use tack_core::event::AgentEvent;
use tack_core::message::{Message, StopReason, ToolCall, ToolResult};
use tack_core::session::{Session, SessionHandle};
use tokio_util::sync::CancellationToken;

// ---- provider ------------------------------------------------------------------------------

pub enum Step {
    Event(StreamEvent),
    Sleep(Duration),
    /// Never yields again (until the stream is dropped).
    Hang,
}

pub enum Script {
    Stream(Vec<Step>),
    Fail(ProviderError),
}

#[derive(Default)]
pub struct FakeProvider {
    scripts: Mutex<VecDeque<Script>>,
    pub requests: Mutex<Vec<ProviderRequest>>,
}

impl FakeProvider {
    pub fn new(scripts: Vec<Script>) -> Arc<Self> {
        Arc::new(FakeProvider {
            scripts: Mutex::new(scripts.into()),
            requests: Mutex::default(),
        })
    }

    pub fn requests(&self) -> Vec<ProviderRequest> {
        self.requests.lock().unwrap().clone()
    }

    pub fn remaining(&self) -> usize {
        self.scripts.lock().unwrap().len()
    }
}

#[async_trait::async_trait]
impl Provider for FakeProvider {
    async fn stream(&self, request: ProviderRequest) -> Result<ProviderStream, ProviderError> {
        self.requests.lock().unwrap().push(request);
        let script = self.scripts.lock().unwrap().pop_front().unwrap_or_else(|| {
            Script::Fail(ProviderError::new(
                ProviderErrorKind::Other,
                "script exhausted",
            ))
        });
        match script {
            Script::Fail(error) => Err(error),
            Script::Stream(steps) => {
                let steps: VecDeque<Step> = steps.into();
                Ok(futures::stream::unfold(steps, |mut steps| async move {
                    loop {
                        match steps.pop_front()? {
                            Step::Event(event) => return Some((event, steps)),
                            Step::Sleep(d) => tokio::time::sleep(d).await,
                            Step::Hang => futures::future::pending::<()>().await,
                        }
                    }
                })
                .boxed())
            }
        }
    }
}

pub fn text(text: &str) -> Script {
    Script::Stream(vec![
        Step::Event(StreamEvent::TextDelta {
            index: 0,
            delta: text.to_owned(),
        }),
        Step::Event(StreamEvent::Usage(TokenUsage {
            input: 10,
            output: 5,
            ..Default::default()
        })),
        Step::Event(StreamEvent::Stop(StopKind::Stop)),
    ])
}

/// A response calling tools: `(id, name, arguments JSON text)`; arguments arrive in two pieces.
pub fn calls(calls: &[(&str, &str, &str)]) -> Script {
    calls_ending(calls, StopKind::ToolUse)
}

pub fn calls_ending(calls: &[(&str, &str, &str)], stop: StopKind) -> Script {
    let mut steps = Vec::new();
    for (i, (id, name, args)) in calls.iter().enumerate() {
        let index = i as u32;
        steps.push(Step::Event(StreamEvent::ToolCallStart {
            index,
            id: (*id).to_owned(),
            name: (*name).to_owned(),
        }));
        let mut split = args.len() / 2;
        while !args.is_char_boundary(split) {
            split -= 1;
        }
        for part in [&args[..split], &args[split..]] {
            steps.push(Step::Event(StreamEvent::ToolCallDelta {
                index,
                delta: part.to_owned(),
            }));
        }
    }
    steps.push(Step::Event(StreamEvent::Stop(stop)));
    Script::Stream(steps)
}

pub fn error(kind: ProviderErrorKind, message: &str) -> ProviderError {
    ProviderError::new(kind, message)
}

// ---- tools ---------------------------------------------------------------------------------

pub type Behaviour = Arc<
    dyn Fn(
            ToolCall,
            CancellationToken,
            ToolProgress,
        ) -> Pin<Box<dyn Future<Output = Result<ToolResult, ToolError>> + Send>>
        + Send
        + Sync,
>;

pub struct FakeTools {
    tools: Vec<(ToolSpec, Behaviour)>,
    running: AtomicUsize,
    pub max_running: AtomicUsize,
    pub executed: Mutex<Vec<String>>,
    pub log: Mutex<Vec<String>>,
}

impl FakeTools {
    pub fn new() -> Self {
        FakeTools {
            tools: Vec::new(),
            running: AtomicUsize::new(0),
            max_running: AtomicUsize::new(0),
            executed: Mutex::default(),
            log: Mutex::default(),
        }
    }

    pub fn with<F, Fut>(mut self, name: &str, mode: ExecutionMode, parameters: Value, f: F) -> Self
    where
        F: Fn(ToolCall, CancellationToken, ToolProgress) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
    {
        let spec = ToolSpec {
            name: name.to_owned(),
            label: name.to_owned(),
            description: format!("The {name} tool."),
            parameters,
            mode,
            prompt_snippet: None,
        };
        let behaviour: Behaviour =
            Arc::new(move |call, cancel, progress| Box::pin(f(call, cancel, progress)));
        self.tools.push((spec, behaviour));
        self
    }

    /// `sleep {ms}`: waits, honouring cancellation, and says how long it slept.
    pub fn with_sleep(self, name: &str, mode: ExecutionMode) -> Self {
        self.with(name, mode, ms_schema(), |call, cancel, _progress| async move {
            let ms = call.arguments["ms"].as_u64().unwrap_or(0);
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(ToolResult::text(format!("slept {ms}"))),
                _ = cancel.cancelled() => Err(ToolError::Cancelled),
            }
        })
    }

    pub fn max_running(&self) -> usize {
        self.max_running.load(Ordering::SeqCst)
    }

    pub fn executed(&self) -> Vec<String> {
        self.executed.lock().unwrap().clone()
    }

    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

pub fn ms_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"ms": {"type": "integer", "minimum": 0}},
        "required": ["ms"],
        "additionalProperties": false
    })
}

#[async_trait::async_trait]
impl ToolExecutor for FakeTools {
    fn tools(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|(spec, _)| spec.clone()).collect()
    }

    async fn execute(
        &self,
        call: ToolCall,
        cancel: CancellationToken,
        progress: ToolProgress,
    ) -> Result<ToolResult, ToolError> {
        let behaviour = self
            .tools
            .iter()
            .find(|(spec, _)| spec.name == call.name)
            .map(|(_, b)| Arc::clone(b))
            .ok_or_else(|| ToolError::Failed("no such tool".into()))?;
        self.executed.lock().unwrap().push(call.id.clone());
        self.log.lock().unwrap().push(format!("start {}", call.id));
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_running.fetch_max(now, Ordering::SeqCst);
        let id = call.id.clone();
        let result = behaviour(call, cancel, progress).await;
        self.running.fetch_sub(1, Ordering::SeqCst);
        self.log.lock().unwrap().push(format!("end {id}"));
        result
    }
}

// ---- events --------------------------------------------------------------------------------

#[derive(Default)]
pub struct Recorder {
    pub events: Mutex<Vec<AgentEvent>>,
}

impl Recorder {
    pub fn events(&self) -> Vec<AgentEvent> {
        self.events.lock().unwrap().clone()
    }

    /// The `type` tags of the events, in order.
    pub fn kinds(&self) -> Vec<String> {
        self.events()
            .iter()
            .map(|e| {
                serde_json::to_value(e).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    pub fn tool_end_order(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                AgentEvent::ToolExecutionEnd { tool_call_id, .. } => Some(tool_call_id),
                _ => None,
            })
            .collect()
    }

    pub async fn wait_for(&self, what: impl Fn(&AgentEvent) -> bool) {
        for _ in 0..1000 {
            if self.events.lock().unwrap().iter().any(&what) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("event never came");
    }
}

impl tack_core::event::EventSink for Recorder {
    fn emit(&self, event: &AgentEvent) {
        // Every event must serialize to one clean JSON line.
        let line = event.to_json_line();
        assert!(!line.contains('\n'));
        self.events.lock().unwrap().push(event.clone());
    }
}

// ---- wiring --------------------------------------------------------------------------------

pub fn model() -> ModelInfo {
    ModelInfo {
        provider: "fake".into(),
        id: "fake-1".into(),
        name: "Fake".into(),
        context_window: 100_000,
        max_output_tokens: 4096,
        reasoning: false,
        input: vec![],
        cost: ModelCost::default(),
    }
}

pub fn config() -> AgentConfig {
    let mut config = AgentConfig::new(model(), "You are a test.");
    config.retry = RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(50),
        jitter: 0.0,
    };
    config.abort_grace = Duration::from_millis(100);
    config
}

pub struct Harness {
    pub agent: Arc<Agent>,
    pub provider: Arc<FakeProvider>,
    pub tools: Arc<FakeTools>,
    pub events: Arc<Recorder>,
    pub session: SessionHandle,
}

pub fn harness(scripts: Vec<Script>, tools: FakeTools) -> Harness {
    harness_with(scripts, tools, |agent| agent)
}

pub fn harness_with(
    scripts: Vec<Script>,
    tools: FakeTools,
    customize: impl FnOnce(Agent) -> Agent,
) -> Harness {
    let provider = FakeProvider::new(scripts);
    let tools = Arc::new(tools);
    let events = Arc::new(Recorder::default());
    let session = SessionHandle::new(Session::in_memory(Path::new("/work")));
    let agent = Agent::new(config(), provider.clone(), tools.clone(), session.clone())
        .with_events(events.clone());
    let agent = Arc::new(customize(agent));
    Harness {
        agent,
        provider,
        tools,
        events,
        session,
    }
}

impl Harness {
    /// The projected session, one short line per message.
    pub fn transcript(&self) -> Vec<String> {
        self.session
            .lock()
            .project()
            .iter()
            .map(|m| describe(m))
            .collect()
    }

    /// Checks that every tool call in the session has exactly one result, right after its
    /// assistant message, in the assistant's order.
    pub fn assert_consistent(&self) {
        let messages = self.session.lock().project();
        let mut i = 0;
        while i < messages.len() {
            if let Message::Assistant(a) = &*messages[i] {
                let ids: Vec<&str> = a.tool_calls().map(|c| c.id.as_str()).collect();
                for (k, id) in ids.iter().enumerate() {
                    match messages.get(i + 1 + k).map(|m| &**m) {
                        Some(Message::ToolResult(r)) => assert_eq!(r.tool_call_id, *id),
                        other => panic!("call {id} has no result (found {other:?})"),
                    }
                }
                i += ids.len();
            }
            i += 1;
        }
    }
}

pub fn describe(message: &Message) -> String {
    match message {
        Message::User(u) => format!("user: {}", u.text_content()),
        Message::Assistant(a) => {
            let calls: Vec<&str> = a.tool_calls().map(|c| c.id.as_str()).collect();
            let stop = match a.stop_reason {
                StopReason::Stop => "stop",
                StopReason::Length => "length",
                StopReason::ToolUse => "toolUse",
                StopReason::Error => "error",
                StopReason::Aborted => "aborted",
            };
            if calls.is_empty() {
                format!("assistant[{stop}]: {}", a.text_content())
            } else {
                format!(
                    "assistant[{stop}]: {} calls {}",
                    a.text_content(),
                    calls.join(",")
                )
            }
        }
        Message::ToolResult(r) => format!(
            "result {}{}: {}",
            r.tool_call_id,
            if r.is_error { " (error)" } else { "" },
            r.content
                .iter()
                .filter_map(|c| match c {
                    tack_core::message::Content::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n")
        ),
        Message::Custom(c) => format!("custom {}: {}", c.custom_type, c.content),
        Message::BranchSummary(b) => format!("branch summary: {}", b.summary),
        Message::CompactionSummary(c) => format!("compaction summary: {}", c.summary),
    }
}

/// The messages of a provider request, described.
pub fn request_transcript(request: &ProviderRequest) -> Vec<String> {
    request.messages.iter().map(|m| describe(m)).collect()
}

pub fn empty_map() -> HashMap<String, String> {
    HashMap::new()
}
