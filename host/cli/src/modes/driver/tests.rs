//! The driver over a real agent and an in-memory session, with a provider whose replies wait at
//! a gate, so a test decides when a run may go on, and a screen that records what it is told.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tack_core::agent::{
    AgentConfig, ModelCost, ModelInfo, Provider, ProviderError, ProviderRequest, ProviderStream,
    StopKind, StreamEvent, ToolError, ToolExecutor, ToolProgress, ToolSpec,
};
use tack_core::event::{AgentEvent, EventSink, NoticeLevel, UiRequest};
use tack_core::message::{Content, Message, ToolCall, ToolResult};
use tack_core::session::{EntryKind, Session, SessionHandle};
use tack_core::Agent;
use tack_runtime::PluginUi;
use tokio::sync::{mpsc, oneshot, Semaphore};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::start::inbox::Inbox;
use tack_runtime::AgentServices;

/// Answers every request with "ok", each once the gate lets it through.
struct GatedProvider {
    gate: Arc<Semaphore>,
    calls: AtomicUsize,
}

#[async_trait::async_trait]
impl Provider for GatedProvider {
    async fn stream(&self, _request: ProviderRequest) -> Result<ProviderStream, ProviderError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let gate = Arc::clone(&self.gate);
        let events = async move {
            // A closed gate ends the test; the stream then just stops.
            let _ = gate.acquire().await.map(|p| p.forget());
            futures::stream::iter([
                StreamEvent::TextDelta {
                    index: 0,
                    delta: "ok".into(),
                },
                StreamEvent::Stop(StopKind::Stop),
            ])
        };
        Ok(futures::stream::once(events).flatten().boxed())
    }
}

struct NoTools;

#[async_trait::async_trait]
impl ToolExecutor for NoTools {
    fn tools(&self) -> Vec<ToolSpec> {
        Vec::new()
    }

    async fn execute(
        &self,
        _call: ToolCall,
        _cancel: CancellationToken,
        _progress: ToolProgress,
    ) -> Result<ToolResult, ToolError> {
        Err(ToolError::Failed("no tools here".into()))
    }
}

struct Quiet;

impl EventSink for Quiet {
    fn emit(&self, _event: &AgentEvent) {}
}

/// Records what the driver and the services tell it; dialog answers are strings, "cancel"
/// being a cancel.
#[derive(Default)]
struct Recording {
    log: Mutex<Vec<String>>,
    replies: Mutex<Vec<oneshot::Sender<String>>>,
}

impl Recording {
    fn log(&self) -> Vec<String> {
        lock(&self.log).clone()
    }

    fn note(&self, line: String) {
        lock(&self.log).push(line);
    }
}

impl Screen for Arc<Recording> {
    type Answer = String;

    fn show_dialog(
        &self,
        _id: &str,
        plugin: &str,
        dialog: UiRequest,
        reply: oneshot::Sender<String>,
    ) {
        self.note(format!("dialog {plugin} {dialog:?}"));
        lock(&self.replies).push(reply);
    }

    fn quit(&self, plugin: &str) {
        self.note(format!("quit {plugin}"));
    }

    fn dialog_timed_out(&self, _id: &str) {
        self.note("timed out".into());
    }

    fn dialog_over(&self, _id: &str) {
        self.note("over".into());
    }

    fn close_dialogs(&self, reason: tack_protocol::CloseReason) {
        lock(&self.replies).clear();
        self.note(format!("close {reason:?}"));
    }

    fn is_cancelled(answer: &String) -> bool {
        answer == "cancel"
    }

    fn confirmed(answer: String) -> bool {
        answer == "yes"
    }

    fn selected(answer: String, _options: &[String]) -> Option<u32> {
        answer.parse().ok()
    }

    fn text(answer: String) -> Option<String> {
        Some(answer)
    }

    fn notify(&self, plugin: &str, level: NoticeLevel, message: &str) {
        self.note(format!("notify {plugin} {level:?} {message}"));
    }

    fn set_status(&self, _plugin: &str, _key: &str, _text: Option<&str>) {}

    fn set_widget(
        &self,
        _plugin: &str,
        _key: &str,
        _lines: &[String],
        _placement: tack_runtime::WidgetPlacement,
    ) {
    }

    fn run_failed(&self, message: String) {
        self.note(format!("failed {message}"));
    }

    fn run_finished(&self) {
        self.note("finished".into());
    }
}

struct Harness {
    driver: Arc<SessionDriver<Arc<Recording>>>,
    screen: Arc<Recording>,
    provider: Arc<GatedProvider>,
    agent: Arc<Agent>,
    session: SessionHandle,
    run_ended: Arc<AtomicBool>,
    _dir: tempfile::TempDir,
}

impl Harness {
    fn new() -> Harness {
        let dir = tempfile::tempdir().expect("dir");
        let session = SessionHandle::new(Session::in_memory(dir.path()));
        let provider = Arc::new(GatedProvider {
            gate: Arc::new(Semaphore::new(0)),
            calls: AtomicUsize::new(0),
        });
        let model = ModelInfo {
            provider: "gated".into(),
            id: "gated-1".into(),
            name: "Gated".into(),
            context_window: 100_000,
            max_output_tokens: 4096,
            reasoning: false,
            input: vec![],
            cost: ModelCost::default(),
        };
        let agent = Arc::new(
            Agent::new(
                AgentConfig::new(model, "You are a test."),
                provider.clone(),
                Arc::new(NoTools),
                session.clone(),
            )
            .with_events(Arc::new(Quiet)),
        );
        let screen = Arc::new(Recording::default());
        let (wake, _) = mpsc::unbounded_channel();
        let services = Arc::new(InteractiveServices::new(
            Arc::new(AgentServices::default()),
            screen.clone(),
            Inbox::new(wake),
        ));
        services.inbox.attach_queues(agent.queues());
        let run_ended = Arc::new(AtomicBool::new(false));
        let driver = Arc::new(SessionDriver::new(
            agent.clone(),
            session.clone(),
            services,
            run_ended.clone(),
        ));
        Harness {
            driver,
            screen,
            provider,
            agent,
            session,
            run_ended,
            _dir: dir,
        }
    }

    /// Submits `text` and says what became of it.
    fn submit(&self, text: &str, queue: Option<Queue>) -> String {
        let mut said = String::new();
        self.driver
            .submit(vec![Content::text(text)], queue, |s| said = describe(s));
        said
    }

    fn open(&self) {
        self.provider.gate.add_permits(100);
    }

    async fn until(&self, what: &str, done: impl Fn(&Harness) -> bool) {
        for _ in 0..1000 {
            if done(self) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("never: {what}; screen: {:?}", self.screen.log());
    }

    async fn until_idle(&self) {
        self.until("the agent is idle", |h| {
            h.screen.log().contains(&"finished".to_string()) && !h.driver.is_running()
        })
        .await;
    }

    fn user_texts(&self) -> Vec<String> {
        self.session
            .lock()
            .project()
            .iter()
            .filter(|m| matches!(m.as_ref(), Message::User(_)))
            .map(|m| m.preview_text())
            .collect()
    }
}

fn describe(submitted: Submitted) -> String {
    match submitted {
        Submitted::Started => "started".into(),
        Submitted::Queued(queue) => format!("queued {queue:?}"),
        Submitted::Running => "running".into(),
        Submitted::Busy(kind) => format!("busy {kind:?}"),
        Submitted::ShuttingDown => "shutting down".into(),
        Submitted::Ending { .. } => "ending".into(),
    }
}

#[tokio::test]
async fn one_run_at_a_time_takes_what_is_queued_meanwhile() {
    let h = Harness::new();
    assert_eq!(h.submit("first", None), "started");
    h.until("the first request", |h| {
        h.provider.calls.load(Ordering::SeqCst) == 1
    })
    .await;
    assert!(h.driver.is_running());
    assert_eq!(
        h.submit("plain", None),
        "running",
        "a plain prompt is refused"
    );
    assert_eq!(h.submit("steer", Some(Queue::Steer)), "queued Steer");
    assert_eq!(h.submit("later", Some(Queue::FollowUp)), "queued FollowUp");
    h.open();
    h.until_idle().await;
    assert_eq!(h.user_texts(), ["first", "steer", "later"]);
    assert_eq!(
        h.screen.log().iter().filter(|l| *l == "finished").count(),
        1,
        "the queued messages ran in the same run"
    );
    assert_eq!(h.submit("again", None), "started", "idle again");
}

#[tokio::test]
async fn other_work_keeps_runs_out_and_entries_wait_for_it() {
    let h = Harness::new();
    let work = h
        .driver
        .occupy(BusyKind::Compacting)
        .await
        .expect("the agent is idle");
    assert_eq!(h.submit("hi", Some(Queue::Steer)), "busy Compacting");
    assert_eq!(
        h.driver.occupy(BusyKind::ChangingSession).await.err(),
        Some(BusyKind::Compacting)
    );
    h.agent.queues().follow_up(Message::user("from a plugin"));
    h.driver.wake();
    assert_eq!(
        h.provider.calls.load(Ordering::SeqCst),
        0,
        "no run while busy"
    );
    let note = EntryKind::SessionInfo {
        name: Some("named while busy".into()),
    };
    h.driver.append_when_idle(note).expect("deferred");
    assert_eq!(h.session.lock().name(), None, "not inside the work");
    h.driver.release(&work);
    assert_eq!(h.session.lock().name(), Some("named while busy"));
    assert!(work.finished.is_cancelled());

    // Idle now: the plugin's message starts its own turn.
    h.driver.wake();
    h.open();
    h.until_idle().await;
    assert_eq!(h.user_texts(), ["from a plugin"]);
}

#[tokio::test]
async fn abort_hands_back_the_queue_closes_dialogs_then_stops_the_run() {
    let h = Harness::new();
    assert_eq!(h.submit("long", None), "started");
    h.until("the request", |h| {
        h.provider.calls.load(Ordering::SeqCst) == 1
    })
    .await;
    assert_eq!(h.submit("next", Some(Queue::FollowUp)), "queued FollowUp");
    let screen = h.screen.clone();
    let (dropped, stopping) = h.driver.abort(|steering, follow_up| {
        // Handed over before the dialogs close.
        assert!(screen.log().is_empty());
        (steering.len(), follow_up.len())
    });
    assert_eq!(dropped, (0, 1));
    assert!(stopping.was_running());
    tokio::time::timeout(Duration::from_secs(5), stopping.finished())
        .await
        .expect("the run stops without its provider answering");
    assert_eq!(h.screen.log()[0], "close Aborted");
    assert!(!h.driver.is_running());
    assert!(h.agent.queues().is_empty());
}

#[tokio::test]
async fn a_run_whose_end_is_shown_is_waited_for() {
    let h = Harness::new();
    assert_eq!(h.submit("first", None), "started");
    h.until("the request", |h| {
        h.provider.calls.load(Ordering::SeqCst) == 1
    })
    .await;
    // The front end has shown the run's end; its task is still finishing.
    h.run_ended.store(true, Ordering::SeqCst);
    assert!(!h.driver.is_running());
    assert_eq!(h.submit("second", None), "ending");
    let driver = h.driver.clone();
    let occupy = tokio::spawn(async move { driver.occupy(BusyKind::Compacting).await.is_ok() });
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!occupy.is_finished(), "waits for the run's task");
    h.open();
    assert!(occupy.await.expect("task"), "then gets the slot");
}

#[tokio::test]
async fn shutting_down_stops_the_run_and_asks_nothing_more() {
    let h = Harness::new();
    assert_eq!(h.submit("long", None), "started");
    h.until("the request", |h| {
        h.provider.calls.load(Ordering::SeqCst) == 1
    })
    .await;
    tokio::time::timeout(Duration::from_secs(5), h.driver.shut_down())
        .await
        .expect("the run ends");
    assert!(h.screen.log().contains(&"close Shutdown".to_string()));
    assert_eq!(h.submit("more", None), "shutting down");
    let services = h.driver.services.clone();
    assert!(!services.confirm("p", "Run?", "x", None).await);
    assert!(
        !h.screen.log().iter().any(|l| l.starts_with("dialog")),
        "no dialog once shut"
    );
}

#[tokio::test]
async fn dialogs_take_the_answer_or_their_default() {
    let h = Harness::new();
    let services = h.driver.services.clone();
    let answer = |text: &str| {
        let reply = lock(&h.screen.replies).pop().expect("an open dialog");
        reply.send(text.to_string()).expect("waiting");
    };
    let options = vec!["a".to_string(), "b".to_string()];

    let s = services.clone();
    let o = options.clone();
    let pick = tokio::spawn(async move { s.select("p", "Pick", &o, None).await });
    h.until("the dialog", |h| !lock(&h.screen.replies).is_empty())
        .await;
    answer("1");
    assert_eq!(pick.await.expect("task"), Some(1));

    let s = services.clone();
    let o = options.clone();
    let pick = tokio::spawn(async move { s.select("p", "Pick", &o, None).await });
    h.until("the dialog", |h| !lock(&h.screen.replies).is_empty())
        .await;
    answer("7");
    assert_eq!(pick.await.expect("task"), None, "out of range");

    let s = services.clone();
    let name = tokio::spawn(async move { s.input("p", "Name?", "", None).await });
    h.until("the dialog", |h| !lock(&h.screen.replies).is_empty())
        .await;
    answer("cancel");
    assert_eq!(name.await.expect("task"), None, "cancelled");

    let started = std::time::Instant::now();
    assert!(!services.confirm("p", "Run?", "x", Some(30)).await);
    assert!(started.elapsed() >= Duration::from_millis(30));
    let log = h.screen.log();
    assert_eq!(log[log.len() - 2..], ["timed out", "over"]);
    assert_eq!(log.iter().filter(|l| *l == "over").count(), 4);
}

/// A plugin that asks tack to end during a run (`control.shutdown`) ends it once the run is
/// over, not before; asked while idle, at the next wake-up.
#[tokio::test]
async fn a_plugins_shutdown_waits_for_the_run_to_end() {
    use tack_runtime::PluginAgent;

    let h = Harness::new();
    assert_eq!(h.submit("first", None), "started");
    h.until("the first request", |h| {
        h.provider.calls.load(Ordering::SeqCst) == 1
    })
    .await;
    h.driver
        .services
        .request_end("pi-quitter", tack_runtime::End::Quit)
        .expect("a quit is taken");
    h.driver.wake();
    assert!(
        !h.screen.log().contains(&"quit pi-quitter".to_string()),
        "not during the run"
    );
    h.open();
    h.until("the plugin's end", |h| {
        h.screen.log().contains(&"quit pi-quitter".to_string())
    })
    .await;
    assert_eq!(h.user_texts(), ["first"]);

    h.driver
        .services
        .request_end("pi-idle", tack_runtime::End::Quit)
        .expect("a quit is taken");
    h.driver.wake();
    assert!(h.screen.log().contains(&"quit pi-idle".to_string()));
}
