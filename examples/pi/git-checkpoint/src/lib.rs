//! Pi's `examples/extensions/git-checkpoint.ts` (pi-coding-agent 0.73.1) as a tack plugin: before
//! the model changes anything for a prompt, the working tree is checkpointed with git; forking
//! the session at that prompt (`/fork`) offers to restore the code to the checkpoint.
//!
//! Pi's calls and what serves them here:
//! - `pi.on("turn_start")`, `pi.on("agent_end")`: the 0.2.0 `events` `agent_start`,
//!   `turn_start`, `turn_end` and `session_shutdown`, delivered to the `observer` export;
//! - `ctx.sessionManager.getLeafEntry()`: 0.1.0 `session.branch`;
//! - `pi.exec("git", [...])`: 0.1.0 `exec`, under the grant in `tack.toml`;
//! - `pi.on("session_before_fork")`: the 0.2.0 `session-hooks` export's `before-fork`;
//! - `ctx.ui.select`, `ctx.ui.notify`: 0.1.0 `ui` (in print mode a dialog answers "no", so
//!   nothing is restored without a person to ask, as Pi's `ctx.hasUI` check does).
//!
//! Three changes make the example do what it says, where Pi's, read closely, never restores:
//! - Pi keys a checkpoint by the entry that was the leaf at the last `tool_result` (an
//!   assistant message), but `/fork` forks at a user message. Here the key is the user message
//!   the run answers, the entry `/fork` names. The snapshot is taken at the run's first
//!   `turn_start`, before the prompt is stored (as in Pi), so it is filed under the prompt at
//!   that turn's `turn_end`.
//! - Pi clears its checkpoints at `agent_end`, before any `/fork` the user could type. Here
//!   they last for the session and are cleared at `session_shutdown`.
//! - Pi restores with `git stash apply`, which refuses when the files it would write were
//!   changed since (the usual case: the model changed them). Here the checkpoint's files are
//!   checked out over the working tree (`git checkout <ref> -- .`). A clean tree, where `git
//!   stash create` prints nothing, is checkpointed as `HEAD`.

use std::collections::HashMap;
use std::time::Duration;

use tack_sdk::{
    events, exec, export_observer, export_plugin, export_session_hooks, session, ui, ForkRequest,
    InitContext, Level, Observer, Plugin, Registration, SessionDecision, SessionHooks,
};

const GIT_TIMEOUT: Duration = Duration::from_secs(10);
const RESTORE: &str = "Yes, restore code to that point";
const KEEP: &str = "No, keep current code";

#[derive(Default)]
struct GitCheckpoint {
    /// Checkpoint (a commit) by the id of the user message whose run it precedes.
    checkpoints: HashMap<String, String>,
    /// A run started and its first turn has not yet begun.
    run_starting: bool,
    /// The snapshot of the running prompt's first turn, until its prompt is stored.
    pending: Option<String>,
}

impl GitCheckpoint {
    /// The user message the running prompt answers: the newest on the branch.
    fn prompt_entry() -> Option<String> {
        let entries = session::entries().ok()?;
        entries.iter().rev().find_map(|entry| {
            let message = &entry["message"];
            (entry["type"] == "message" && message["role"] == "user")
                .then(|| entry["id"].as_str().map(str::to_owned))
                .flatten()
        })
    }

    /// The working tree as a commit: `git stash create`, or `HEAD` when nothing changed.
    fn snapshot() -> Option<String> {
        let stash = exec::run("git stash create", Some(GIT_TIMEOUT)).ok()?;
        let stash = stash.stdout.trim();
        if !stash.is_empty() {
            return Some(stash.to_string());
        }
        let head = exec::run("git rev-parse HEAD", Some(GIT_TIMEOUT)).ok()?;
        let head = head.stdout.trim();
        (head.len() >= 7).then(|| head.to_string())
    }
}

impl Plugin for GitCheckpoint {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        events::subscribe(&["agent_start", "turn_start", "turn_end", "session_shutdown"])?;
        Ok(Registration::new())
    }
}

impl Observer for GitCheckpoint {
    fn on_named_event(&mut self, name: &str, _data: &str) {
        match name {
            "agent_start" => self.run_starting = true,
            // Before the model's first turn of a prompt has changed anything.
            "turn_start" if self.run_starting => {
                self.run_starting = false;
                self.pending = Self::snapshot();
            }
            "turn_end" => {
                if let (Some(reference), Some(entry)) = (self.pending.take(), Self::prompt_entry())
                {
                    self.checkpoints.entry(entry).or_insert(reference);
                }
            }
            "session_shutdown" => {
                self.checkpoints.clear();
                self.pending = None;
            }
            _ => {}
        }
    }
}

impl SessionHooks for GitCheckpoint {
    fn before_fork(&mut self, request: &ForkRequest) -> SessionDecision {
        let Some(reference) = self.checkpoints.get(&request.entry_id).cloned() else {
            return SessionDecision::Proceed;
        };
        let options = [RESTORE.to_string(), KEEP.to_string()];
        if ui::select("Restore code state?", &options, None) != Some(0) {
            return SessionDecision::Proceed;
        }
        match exec::run(&format!("git checkout {reference} -- ."), Some(GIT_TIMEOUT)) {
            Ok(out) if out.success() => ui::notify(Level::Info, "Code restored to checkpoint"),
            Ok(out) => ui::notify(
                Level::Error,
                &format!("Could not restore the checkpoint: {}", out.stderr.trim()),
            ),
            Err(e) => ui::notify(
                Level::Error,
                &format!("Could not restore the checkpoint: {}", e.message()),
            ),
        }
        SessionDecision::Proceed
    }
}

export_plugin!(GitCheckpoint);
export_observer!(GitCheckpoint);
export_session_hooks!(GitCheckpoint);
