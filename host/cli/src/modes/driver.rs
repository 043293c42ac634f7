//! The one driver of the interactive front ends (RPC mode, the terminal UI). It owns the agent's
//! busy slot: one run at a time (a prompt, then whatever was queued meanwhile), steering and
//! follow-ups queued for the running one, turns started by messages plugins send while idle,
//! abort, other work (compaction, session changes) that keeps runs from starting, and shutdown.
//! How a front end reads commands and shows results stays with it, behind its [`Screen`].

mod services;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tack_core::agent::RunStatus;
use tack_core::event::NoticeLevel;
use tack_core::message::{now_ms, Content, Message, UserMessage};
use tack_core::session::{EntryKind, SessionHandle};
use tack_core::{Agent, AgentError};
use tokio_util::sync::CancellationToken;

use crate::checkpoints::Checkpoints;
use crate::start::inbox::steer_follow_ups;
use crate::sync::lock;
pub use services::{
    interactive_host, plugin_switch_target, ComponentWait, InteractiveServices, MoveTo, Screen,
    ScreenReadWait, SessionMove,
};

pub struct SessionDriver<S: Screen> {
    agent: Arc<Agent>,
    session: SessionHandle,
    pub services: Arc<InteractiveServices<S>>,
    /// What keeps the agent busy, if anything.
    busy: Mutex<Option<Busy>>,
    /// The current run has told its front end it ended (RPC's `agent_end`) while its task is
    /// still finishing; set by the front end, which then must not call the agent busy.
    run_ended: Arc<AtomicBool>,
    /// Session entries that wait for the agent to be idle, so none lands inside a turn.
    deferred: Mutex<Vec<EntryKind>>,
    /// Snapshots of the workspace around each run, for `/rewind`.
    pub checkpoints: Arc<Checkpoints>,
}

/// The agent is running, compacting, running a host command, or its session is being changed.
pub struct Busy {
    pub kind: BusyKind,
    pub cancel: CancellationToken,
    /// Cancelled when the work is over.
    pub finished: CancellationToken,
}

impl Busy {
    fn new(kind: BusyKind) -> Busy {
        Busy {
            kind,
            cancel: Default::default(),
            finished: Default::default(),
        }
    }

    /// Another handle on the same work.
    fn share(&self) -> Busy {
        Busy {
            kind: self.kind,
            cancel: self.cancel.clone(),
            finished: self.finished.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyKind {
    Running,
    Compacting,
    ChangingSession,
    HostCommand,
}

impl BusyKind {
    pub fn describe(self) -> &'static str {
        match self {
            BusyKind::Running => "the agent is running",
            BusyKind::Compacting => "the conversation is being compacted",
            BusyKind::ChangingSession => "the session is being changed",
            BusyKind::HostCommand => "a command is running",
        }
    }
}

/// Where a message sent while a run goes on is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    Steer,
    FollowUp,
}

/// What became of a submitted message.
pub enum Submitted {
    /// It is the prompt of a new run.
    Started,
    /// It waits in the running run's queue.
    Queued(Queue),
    /// A run goes on and the message said no queue.
    Running,
    /// Other work keeps the agent busy.
    Busy(BusyKind),
    ShuttingDown,
    /// The front end saw the run end but its task is finishing: submit again once `finished`.
    Ending {
        finished: CancellationToken,
        content: Vec<Content>,
    },
}

/// How a run starts.
enum Start {
    /// The user's prompt, through the input and before-agent-start hooks.
    Prompt(Vec<Content>),
    /// The session as it is, with the queued messages.
    Resume,
}

impl<S: Screen> SessionDriver<S> {
    /// `run_ended` is the flag the front end sets when it has shown a run's end.
    pub fn new(
        agent: Arc<Agent>,
        session: SessionHandle,
        services: Arc<InteractiveServices<S>>,
        run_ended: Arc<AtomicBool>,
    ) -> Self {
        SessionDriver {
            agent,
            session,
            services,
            busy: Mutex::new(None),
            run_ended,
            deferred: Mutex::default(),
            checkpoints: Arc::new(Checkpoints::off(
                "file checkpoints are not kept in this mode",
            )),
        }
    }

    /// Takes file checkpoints around each run in `checkpoints`.
    pub fn with_checkpoints(mut self, checkpoints: Checkpoints) -> Self {
        self.checkpoints = Arc::new(checkpoints);
        self
    }

    /// A user message: the prompt of a new run when idle; queued in `queue` for the running run
    /// otherwise. `decided` hears the outcome before a started run emits its first event.
    pub fn submit(
        self: &Arc<Self>,
        content: Vec<Content>,
        queue: Option<Queue>,
        decided: impl FnOnce(Submitted),
    ) {
        if self.services.is_shut() {
            return decided(Submitted::ShuttingDown);
        }
        // The busy slot stays locked while deciding, so a run cannot end in between and leave
        // a queued message behind.
        let mut busy = lock(&self.busy);
        let outcome = match busy.as_ref() {
            Some(current) => match self.ending(current) {
                Some(finished) => Submitted::Ending { finished, content },
                None if current.kind != BusyKind::Running => Submitted::Busy(current.kind),
                None => match queue {
                    None => Submitted::Running,
                    Some(queue) => {
                        let queues = self.agent.queues();
                        let message = Message::User(UserMessage {
                            content,
                            timestamp: now_ms(),
                        });
                        match queue {
                            Queue::Steer => queues.steer(message),
                            Queue::FollowUp => queues.follow_up(message),
                        }
                        Submitted::Queued(queue)
                    }
                },
            },
            None => {
                let run = self.begin_run(&mut busy);
                drop(busy);
                decided(Submitted::Started);
                return self.spawn_run(Start::Prompt(content), run);
            }
        };
        drop(busy);
        decided(outcome);
    }

    /// Starts a run for `content` once the agent is idle (after the running run and whatever
    /// it queued); returns that run, to await its end, or `None` when shutting down. This is how
    /// the command line's prompts are sent one after the other.
    pub async fn prompt_when_idle(self: &Arc<Self>, content: Vec<Content>) -> Option<Busy> {
        loop {
            if self.services.is_shut() {
                return None;
            }
            let current = {
                let mut busy = lock(&self.busy);
                match busy.as_ref() {
                    Some(current) => current.finished.clone(),
                    None => {
                        let run = self.begin_run(&mut busy);
                        drop(busy);
                        let handle = run.share();
                        self.spawn_run(Start::Prompt(content), run);
                        return Some(handle);
                    }
                }
            };
            current.cancelled().await;
        }
    }

    /// A plugin queued a message or asked for a compaction: an idle agent compacts first, then
    /// starts a turn for the queued messages.
    pub fn wake(self: &Arc<Self>) {
        let mut busy = lock(&self.busy);
        if busy.is_some() || self.services.is_shut() {
            return;
        }
        if self.compact_if_requested(&mut busy) || self.quit_if_requested(&busy) {
            return;
        }
        if self.agent.queues().is_empty() {
            drop(busy);
            self.tell_idle_waiters();
            return;
        }
        let run = self.begin_run(&mut busy);
        drop(busy);
        self.spawn_run(Start::Resume, run);
    }

    /// Tells the plugins whose commands wait for the agent that it is idle
    /// (`control.wait-for-idle`), each on a task of its own: what a command does next (send a
    /// message, move the session) wakes the driver again.
    fn tell_idle_waiters(self: &Arc<Self>) {
        let waiters = self.services.take_idle_waiters();
        if waiters.is_empty() {
            return;
        }
        let Some(set) = tack_runtime::PluginAgent::plugin_set(&*self.services) else {
            return;
        };
        for name in waiters {
            let Some(plugin) = set.get(&name).cloned() else {
                continue;
            };
            let driver = Arc::clone(self);
            tokio::spawn(async move {
                if let Err(e) = plugin.tell_idle().await {
                    driver.services.screen.notify(
                        &name,
                        NoticeLevel::Warn,
                        &format!("the command that waited for the agent failed: {e}"),
                    );
                }
                driver.wake();
            });
        }
    }

    /// Starts the compaction a plugin asked for (`tack:plugin/control`), if one waits; the busy
    /// slot is locked by the caller and empty. Its `compaction_start` / `compaction_end` events
    /// tell the front end and the plugins how it went; then queued messages start a run.
    fn compact_if_requested(self: &Arc<Self>, busy: &mut Option<Busy>) -> bool {
        let Some(request) = self.services.take_compaction() else {
            return false;
        };
        let work = Busy::new(BusyKind::Compacting);
        *busy = Some(work.share());
        let driver = Arc::clone(self);
        tokio::spawn(async move {
            let _ = driver
                .agent
                .compact(request.instructions.as_deref(), work.cancel.clone())
                .await;
            driver.release(&work);
            driver.wake();
        });
        true
    }

    /// Ends (or reloads) the front end for the plugin that asked (`tack:plugin/control`), if
    /// one did and the agent is idle (the busy slot is locked by the caller).
    fn quit_if_requested(&self, busy: &Option<Busy>) -> bool {
        if busy.is_some() {
            return false;
        }
        let Some(request) = self.services.take_end() else {
            return false;
        };
        match request.end {
            tack_runtime::End::Quit => self.services.screen.quit(&request.plugin),
            tack_runtime::End::Reload if !self.session.lock().is_persistent() => {
                self.services.screen.notify(
                    &request.plugin,
                    NoticeLevel::Warn,
                    "this session is kept in memory only (--no-session): a reload would lose it",
                );
                return false;
            }
            tack_runtime::End::Reload => self.services.screen.reload(&request.plugin),
            moving => {
                if let (Some(moves), Some(asked)) = (
                    self.services.screen.session_moves(),
                    SessionMove::of(request.plugin, moving),
                ) {
                    let _ = moves.send(asked);
                }
            }
        }
        true
    }

    /// Stops the run or other work: open dialogs close with their defaults, running tools are
    /// cancelled. The queued messages it drops go to `dropped` (steering, follow-ups) before the
    /// dialogs close. Await the returned [`Stopping`] to know the work is over.
    pub fn abort<T>(&self, dropped: impl FnOnce(Vec<Message>, Vec<Message>) -> T) -> (T, Stopping) {
        let active = lock(&self.busy).as_ref().map(Busy::share);
        let (steering, follow_up) = self.agent.queues().clear();
        let dropped = dropped(steering, follow_up);
        self.services
            .screen
            .close_dialogs(tack_protocol::CloseReason::Aborted);
        if let Some(work) = &active {
            work.cancel.cancel();
        }
        (dropped, Stopping(active))
    }

    /// Marks the agent busy with `kind`, unless it already is (a run whose end the front end
    /// has shown is waited for). The error is what keeps it busy.
    pub async fn occupy(&self, kind: BusyKind) -> Result<Busy, BusyKind> {
        loop {
            let ending = {
                let mut busy = lock(&self.busy);
                match busy.as_ref() {
                    None => {
                        let work = Busy::new(kind);
                        *busy = Some(work.share());
                        return Ok(work);
                    }
                    Some(current) => match self.ending(current) {
                        Some(finished) => finished,
                        None => return Err(current.kind),
                    },
                }
            };
            ending.cancelled().await;
        }
    }

    /// Ends what [`SessionDriver::occupy`] started.
    pub fn release(&self, work: &Busy) {
        let mut busy = lock(&self.busy);
        self.flush_deferred();
        *busy = None;
        drop(busy);
        work.finished.cancel();
    }

    /// Appends `entry` to the session now when the agent is idle, else once it is.
    pub fn append_when_idle(&self, entry: EntryKind) -> anyhow::Result<()> {
        let busy = lock(&self.busy);
        if busy.is_some() {
            lock(&self.deferred).push(entry);
        } else {
            self.session.lock().append(entry)?;
        }
        Ok(())
    }

    /// A run is going on and the front end has not shown its end.
    pub fn is_running(&self) -> bool {
        lock(&self.busy)
            .as_ref()
            .is_some_and(|b| b.kind == BusyKind::Running && self.ending(b).is_none())
    }

    /// Nobody is left to answer dialogs or wait for a run: dialogs close, the work in progress
    /// ends and is waited for, so the session is complete on disk afterwards.
    pub async fn shut_down(&self) {
        self.services.shut();
        let active = lock(&self.busy).as_ref().map(Busy::share);
        if let Some(work) = active {
            work.cancel.cancel();
            work.finished.cancelled().await;
        }
    }

    /// For a run whose end is out: the token cancelled when its task is done.
    fn ending(&self, busy: &Busy) -> Option<CancellationToken> {
        (busy.kind == BusyKind::Running && self.run_ended.load(Ordering::SeqCst))
            .then(|| busy.finished.clone())
    }

    /// Marks the agent running (the slot is locked by the caller).
    fn begin_run(&self, busy: &mut Option<Busy>) -> Busy {
        let run = Busy::new(BusyKind::Running);
        self.run_ended.store(false, Ordering::SeqCst);
        *busy = Some(run.share());
        run
    }

    fn spawn_run(self: &Arc<Self>, first: Start, run: Busy) {
        let driver = Arc::clone(self);
        tokio::spawn(async move {
            let agent = &driver.agent;
            let mut next = Some(first);
            let note = |text: String| {
                driver
                    .services
                    .screen
                    .notify("checkpoints", NoticeLevel::Warn, &text)
            };
            while let Some(start) = next.take() {
                // Before the run's first tool call can change a file.
                let checkpoint = driver.checkpoints.before_run(&driver.session, note).await;
                let result = match start {
                    Start::Prompt(content) => {
                        driver.services.inbox.steer_next_turn(&agent.queues());
                        agent.prompt(content, run.cancel.clone()).await
                    }
                    Start::Resume => {
                        steer_follow_ups(&agent.queues());
                        agent.resume(run.cancel.clone()).await
                    }
                };
                let go_on = match result {
                    Ok(outcome) => {
                        if outcome.status == RunStatus::Handled {
                            driver.services.screen.input_handled();
                        }
                        matches!(outcome.status, RunStatus::Completed | RunStatus::Handled)
                    }
                    Err(AgentError::NothingToContinue) => false,
                    Err(e) => {
                        driver.services.screen.run_failed(e.to_string());
                        false
                    }
                };
                if let Some(pending) = checkpoint {
                    driver
                        .checkpoints
                        .after_run(&driver.session, pending, note)
                        .await;
                }
                // Decided under the lock: a message queued after the loop's last look at the
                // queues is either seen here or finds the agent idle and starts its own run.
                let mut busy = lock(&driver.busy);
                if go_on && !run.cancel.is_cancelled() && !agent.queues().is_empty() {
                    driver.run_ended.store(false, Ordering::SeqCst);
                    next = Some(Start::Resume);
                    continue;
                }
                driver.flush_deferred();
                *busy = None;
                // A compaction a plugin asked for during the run, then an end it asked for;
                // else the agent is idle, and the commands that waited for it go on.
                let more =
                    driver.compact_if_requested(&mut busy) || driver.quit_if_requested(&busy);
                drop(busy);
                if !more {
                    driver.tell_idle_waiters();
                }
            }
            run.finished.cancel();
            driver.services.screen.run_finished();
        });
    }

    /// Records the entries that waited for the agent (the busy slot is locked by the caller).
    fn flush_deferred(&self) {
        let entries = std::mem::take(&mut *lock(&self.deferred));
        if entries.is_empty() {
            return;
        }
        let mut session = self.session.lock();
        for entry in entries {
            if let Err(e) = session.append(entry) {
                eprintln!("tack: warning: cannot record an entry in the session: {e}");
            }
        }
    }
}

/// The work an abort stopped, if any.
pub struct Stopping(Option<Busy>);

impl Stopping {
    pub fn was_running(&self) -> bool {
        self.0.as_ref().is_some_and(|b| b.kind == BusyKind::Running)
    }

    /// Waits until the stopped work is over.
    pub async fn finished(self) {
        if let Some(work) = self.0 {
            work.finished.cancelled().await;
        }
    }
}

#[cfg(test)]
mod tests;
