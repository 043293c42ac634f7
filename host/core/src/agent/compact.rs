//! Compaction and tree navigation driven by the agent: automatic compaction after a turn that
//! passed the threshold or overflowed the window, `/compact`, and `/tree` moves with a summary
//! of the branch left.

use tokio_util::sync::CancellationToken;

use super::hooks::{CompactDecision, CompactRequest, TreeDecision, TreeRequest};
use super::{Agent, AgentConfig, AgentError, RunningGuard};
use crate::compaction::{
    prepare_branch_summary, prepare_compaction, Compacted, CompactionError, CompactionPreparation,
    Navigation, Summarizer,
};
use crate::event::{AgentEvent, CompactionReason};
use crate::session::EntryKind;
use crate::tokens::{estimate_context, ContextUsage};

impl Agent {
    /// How full the model's context window is now.
    pub fn context_usage(&self) -> ContextUsage {
        let window = self.config().model.context_window;
        let tokens = estimate_context(self.session.lock().projection()).tokens;
        ContextUsage::new(tokens, window)
    }

    /// Compacts now (`/compact [focus]`), whatever the context size. Refused while a run is
    /// going on.
    pub async fn compact(
        &self,
        focus: Option<&str>,
        cancel: CancellationToken,
    ) -> Result<Compacted, CompactionError> {
        let _running = RunningGuard::acquire(&self.running).map_err(|_| CompactionError::Busy)?;
        let config = self.config();
        self.compact_for(CompactionReason::Manual, focus, &config, &cancel)
            .await
    }

    /// Moves the leaf to `target_id` (`/tree <id>`). With `summarize`, the entries being left
    /// are summarized into a `branch_summary` entry written at the target, which becomes the
    /// leaf. Refused while a run is going on.
    pub async fn navigate(
        &self,
        target_id: &str,
        summarize: bool,
        focus: Option<&str>,
        cancel: CancellationToken,
    ) -> Result<Navigation, CompactionError> {
        let _running = RunningGuard::acquire(&self.running).map_err(|_| CompactionError::Busy)?;
        let preparation = prepare_branch_summary(&self.session.lock(), target_id)?;
        let request = TreeRequest {
            target_id: preparation.target_id.clone(),
            old_leaf_id: preparation.from_id.clone(),
            user_wants_summary: summarize,
            focus: focus.map(str::to_owned),
            messages_left: preparation.messages.clone(),
        };
        let from_hook = match self.hooks.before_tree(&request).await {
            TreeDecision::Proceed => None,
            TreeDecision::Cancel { by } => return Err(CompactionError::TreeMoveCancelled(by)),
            TreeDecision::Summary(text) => Some(text),
        };
        let summary = if let Some(text) = from_hook {
            Some(text)
        } else if summarize && !preparation.messages.is_empty() {
            let config = self.config();
            match self
                .summarizer(&config, &cancel)
                .branch(&preparation.messages, focus)
                .await
            {
                Ok(text) => Some(text + &preparation.file_ops.format()),
                // Only failed or empty messages: nothing worth a summary.
                Err(CompactionError::NothingToCompact) => None,
                Err(error) => return Err(error),
            }
        } else {
            None
        };
        let mut session = self.session.lock();
        session.set_leaf(Some(target_id))?;
        let summary_entry_id = match (summary, &preparation.from_id) {
            (Some(summary), Some(from_id)) => Some(
                session
                    .append(EntryKind::BranchSummary {
                        from_id: from_id.clone(),
                        summary,
                        details: Some(preparation.file_ops.to_details()),
                    })?
                    .id
                    .clone(),
            ),
            _ => None,
        };
        Ok(Navigation {
            from: preparation.from_id,
            to: preparation.target_id,
            summary_entry_id,
        })
    }

    /// After a turn: compacts when the context passed the threshold. A failed compaction is
    /// reported in `compaction_end` and the run goes on; only a session write error stops it.
    pub(super) async fn compact_if_needed(
        &self,
        config: &AgentConfig,
        cancel: &CancellationToken,
    ) -> Result<(), AgentError> {
        if !config.compaction.enabled {
            return Ok(());
        }
        let tokens = estimate_context(self.session.lock().projection()).tokens;
        if !config
            .compaction
            .should_compact(tokens, config.model.context_window)
        {
            return Ok(());
        }
        match self
            .compact_for(CompactionReason::Threshold, None, config, cancel)
            .await
        {
            Err(CompactionError::Session(error)) => Err(error.into()),
            _ => Ok(()),
        }
    }

    /// After the provider reported a context overflow: compacts so the turn can be retried.
    /// `Ok(false)` when automatic compaction is off or the compaction did not happen.
    pub(super) async fn compact_after_overflow(
        &self,
        config: &AgentConfig,
        cancel: &CancellationToken,
    ) -> Result<bool, AgentError> {
        if !config.compaction.enabled {
            return Ok(false);
        }
        // The failed assistant message stays in the session; the projection's provider view
        // leaves it out, so the retry sends the compacted context alone.
        match self
            .compact_for(CompactionReason::Overflow, None, config, cancel)
            .await
        {
            Ok(_) => Ok(true),
            Err(CompactionError::Session(error)) => Err(error.into()),
            Err(_) => Ok(false),
        }
    }

    /// One compaction with its `compaction_start`/`compaction_end` events. An automatic one
    /// with nothing to summarize is skipped silently.
    async fn compact_for(
        &self,
        reason: CompactionReason,
        focus: Option<&str>,
        config: &AgentConfig,
        cancel: &CancellationToken,
    ) -> Result<Compacted, CompactionError> {
        let keep_recent = config
            .compaction
            .keep_recent_for(config.model.context_window);
        let preparation = prepare_compaction(&self.session.lock(), keep_recent);
        if preparation.is_none() && reason == CompactionReason::Threshold {
            return Err(CompactionError::NothingToCompact);
        }
        self.emit(AgentEvent::CompactionStart {
            reason,
            custom_instructions: focus
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(str::to_string),
        })
        .await;
        let result = match preparation {
            Some(preparation) => {
                self.write_compaction(preparation, focus, config, cancel)
                    .await
            }
            None => Err(CompactionError::NothingToCompact),
        };
        let end = match &result {
            Ok(done) => AgentEvent::CompactionEnd {
                reason,
                summary: Some(done.summary.clone()),
                tokens_before: Some(done.tokens_before),
                first_kept_entry_id: Some(done.first_kept_entry_id.clone()),
                entry_id: Some(done.entry_id.clone()),
                from_hook: done.from_hook,
                aborted: false,
                will_retry: reason == CompactionReason::Overflow,
                error_message: None,
            },
            Err(error) => AgentEvent::CompactionEnd {
                reason,
                summary: None,
                tokens_before: None,
                first_kept_entry_id: None,
                entry_id: None,
                from_hook: false,
                will_retry: false,
                aborted: matches!(
                    error,
                    CompactionError::Aborted
                        | CompactionError::Cancelled
                        | CompactionError::NothingToCompact
                ),
                error_message: Some(error.to_string()),
            },
        };
        self.emit(end).await;
        result
    }

    async fn write_compaction(
        &self,
        preparation: CompactionPreparation,
        focus: Option<&str>,
        config: &AgentConfig,
        cancel: &CancellationToken,
    ) -> Result<Compacted, CompactionError> {
        let request = CompactRequest {
            messages: preparation.all_messages(),
            previous_summary: preparation.previous_summary.clone(),
            tokens_before: preparation.tokens_before,
            focus: focus.map(str::to_owned),
        };
        let (summary, from_hook) = match self.hooks.before_compact(&request).await {
            CompactDecision::Cancel => return Err(CompactionError::Cancelled),
            CompactDecision::Summary(summary) if summary.trim().is_empty() => {
                return Err(CompactionError::EmptySummary)
            }
            CompactDecision::Summary(summary) => (summary, true),
            CompactDecision::Proceed => (
                self.summarizer(config, cancel)
                    .compaction(&preparation, focus)
                    .await?,
                false,
            ),
        };
        let mut session = self.session.lock();
        // Nothing else moves the leaf while the agent holds its running flag, but plugins may
        // append entries meanwhile; those are fine as long as the cut is still on the branch.
        if !session
            .branch()
            .iter()
            .any(|e| e.id == preparation.first_kept_entry_id)
        {
            return Err(CompactionError::BranchMoved(
                preparation.first_kept_entry_id,
            ));
        }
        let entry_id = session
            .append(EntryKind::Compaction {
                summary: summary.clone(),
                first_kept_entry_id: preparation.first_kept_entry_id.clone(),
                tokens_before: preparation.tokens_before,
                details: Some(preparation.file_ops.to_details()),
            })?
            .id
            .clone();
        let tokens_after = estimate_context(&session.project()).tokens;
        Ok(Compacted {
            entry_id,
            summary,
            first_kept_entry_id: preparation.first_kept_entry_id,
            tokens_before: preparation.tokens_before,
            tokens_after,
            from_hook,
        })
    }

    fn summarizer<'a>(
        &'a self,
        config: &'a AgentConfig,
        cancel: &'a CancellationToken,
    ) -> Summarizer<'a> {
        Summarizer {
            provider: self.provider.as_ref(),
            model: &config.model,
            reasoning: config.reasoning,
            options: &config.provider_options,
            reserve_tokens: config.compaction.reserve_for(config.model.context_window),
            retry: &config.retry,
            cancel,
        }
    }
}
