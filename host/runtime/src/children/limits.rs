//! A child's limits, and the event sink that watches them while it runs: it counts turns and
//! tokens from the child's own events and cancels the child when one runs out.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tack_core::event::{AgentEvent, EventSink};
use tack_core::message::Message;
use tack_core::sync::lock;
use tokio_util::sync::CancellationToken;

use super::progress::{ChildProgress, ProgressLog};
use super::{ChildRequest, ChildUsage};

/// The host's caps on children. A request may ask for less, never more.
#[derive(Debug, Clone)]
pub struct ChildLimits {
    /// How deep children may nest: 1 lets the parent start children, and children none.
    pub max_depth: u32,
    /// Children running at once, over the whole session; more wait for a slot.
    pub max_concurrent: usize,
    pub max_turns: u32,
    /// Input plus output tokens (cache reads and writes included), summed over turns.
    pub max_tokens: u64,
    pub timeout: Duration,
    /// The most a child's transcript may take in the parent's session file.
    pub transcript_bytes: usize,
}

impl Default for ChildLimits {
    fn default() -> Self {
        ChildLimits {
            max_depth: 1,
            max_concurrent: 8,
            max_turns: 50,
            max_tokens: 2_000_000,
            timeout: Duration::from_secs(15 * 60),
            transcript_bytes: 512 << 10,
        }
    }
}

/// The limits of one child.
#[derive(Debug, Clone, Copy)]
pub(super) struct RunLimits {
    pub max_turns: u32,
    pub max_tokens: u64,
    pub timeout: Duration,
}

impl ChildLimits {
    pub(super) fn for_request(&self, request: &ChildRequest) -> RunLimits {
        RunLimits {
            max_turns: request
                .max_turns
                .map_or(self.max_turns, |t| t.min(self.max_turns)),
            max_tokens: request
                .max_tokens
                .map_or(self.max_tokens, |t| t.min(self.max_tokens)),
            timeout: request
                .timeout
                .map_or(self.timeout, |t| t.min(self.timeout)),
        }
    }
}

/// The child's event sink: counts, enforces the limits, reports progress.
pub(super) struct LimitWatch {
    limits: RunLimits,
    cancel: CancellationToken,
    state: Mutex<WatchState>,
    progress: Option<Arc<dyn Fn(ChildProgress) + Send + Sync>>,
    started: Instant,
}

struct WatchState {
    usage: ChildUsage,
    limit_hit: Option<String>,
    log: ProgressLog,
}

impl LimitWatch {
    pub fn new(
        limits: RunLimits,
        cancel: CancellationToken,
        progress: Option<Arc<dyn Fn(ChildProgress) + Send + Sync>>,
        description: &str,
    ) -> Self {
        LimitWatch {
            limits,
            cancel,
            state: Mutex::new(WatchState {
                usage: ChildUsage::default(),
                limit_hit: None,
                log: ProgressLog::new(description),
            }),
            progress,
            started: Instant::now(),
        }
    }

    /// Tells the front end how the child ended (`status` as in the WIT's `child-status`).
    pub fn finish(&self, status: &str) {
        let Some(progress) = &self.progress else {
            return;
        };
        let snapshot = {
            let state = lock(&self.state);
            state
                .log
                .snapshot(state.usage, self.started.elapsed(), Some(status))
        };
        progress(snapshot);
    }

    pub fn usage(&self) -> ChildUsage {
        lock(&self.state).usage
    }

    pub fn limit_hit(&self) -> Option<String> {
        lock(&self.state).limit_hit.clone()
    }

    pub fn time_up(&self) {
        self.stop(format!(
            "the child ran out of time ({} s)",
            self.limits.timeout.as_secs_f64()
        ));
    }

    fn stop(&self, why: String) {
        {
            let mut state = lock(&self.state);
            if state.limit_hit.is_none() {
                state.limit_hit = Some(why);
            }
        }
        self.cancel.cancel();
    }
}

impl EventSink for LimitWatch {
    fn emit(&self, event: &AgentEvent) {
        let mut over = None;
        let snapshot = {
            let mut state = lock(&self.state);
            if let AgentEvent::TurnEnd { message, .. } = event {
                if let Message::Assistant(a) = message.as_ref() {
                    state.usage.add_turn(&a.usage, a.tool_calls().count());
                }
                let usage = state.usage;
                if usage.turns >= self.limits.max_turns {
                    over = Some(format!(
                        "the child reached its limit of {} turns",
                        self.limits.max_turns
                    ));
                } else if usage.tokens() >= self.limits.max_tokens {
                    over = Some(format!(
                        "the child reached its limit of {} tokens",
                        self.limits.max_tokens
                    ));
                }
            }
            let changed = state.log.observe(event);
            let usage = state.usage;
            (changed && self.progress.is_some())
                .then(|| state.log.snapshot(usage, self.started.elapsed(), None))
        };
        if let (Some(progress), Some(snapshot)) = (&self.progress, snapshot) {
            progress(snapshot);
        }
        if let Some(why) = over {
            // A turn that ends with tool calls would start another: the limit stops it there.
            let more_to_come = matches!(event, AgentEvent::TurnEnd { tool_results, .. } if !tool_results.is_empty());
            if more_to_come {
                self.stop(why);
            }
        }
    }
}
