//! `compact` and `set_auto_compaction`. Compaction itself is the agent's (tack-core); its
//! `compaction_start` / `compaction_end` events reach the client like every other event.

use serde_json::json;
use tack_protocol::CompactionResult;

use super::server::{data, occupied, Reply, Server};
use crate::modes::driver::BusyKind;

impl Server {
    /// Summarizes the older conversation now. `abort` cancels it.
    pub async fn compact(&self, focus: Option<String>) -> Reply {
        let work = self
            .driver
            .occupy(BusyKind::Compacting)
            .await
            .map_err(occupied)?;
        let result = self
            .front
            .agent
            .compact(focus.as_deref(), work.cancel.clone())
            .await;
        self.driver.release(&work);
        let compacted = result?;
        data(CompactionResult {
            summary: compacted.summary,
            first_kept_entry_id: compacted.first_kept_entry_id,
            tokens_before: compacted.tokens_before,
            entry_id: Some(compacted.entry_id),
            tokens_after: Some(compacted.tokens_after),
        })
    }

    /// Turns automatic compaction (past the threshold, and on a context overflow) on or off for
    /// the rest of this process.
    pub fn set_auto_compaction(&self, enabled: bool) -> Reply {
        self.front
            .agent
            .update_config(|c| c.compaction.enabled = enabled);
        data(json!({ "enabled": enabled }))
    }

    pub fn auto_compaction(&self) -> bool {
        self.front.agent.config().compaction.enabled
    }
}
