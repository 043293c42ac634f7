//! Compaction: when the conversation nears the model's context window, the older part of the
//! active branch is summarized into a `compaction` entry and the model sees the summary followed
//! by the recent entries. Nothing is deleted: the file keeps the whole history, and the
//! projection (see [`crate::Session::project`]) starts from the latest compaction.
//!
//! The pieces, one a file: where to cut ([`cut`]), what to summarize ([`prepare`]), the files the
//! summarized work touched ([`files`]), the conversation as text ([`serialize`]), the prompts
//! ([`prompt`]), the provider calls ([`summarize`]), and summaries of branches left by `/tree`
//! ([`branch`]). The agent drives them (see `Agent::compact`).

mod branch;
mod cut;
mod files;
mod prepare;
mod prompt;
mod serialize;
mod summarize;

pub use branch::{prepare_branch_summary, BranchPreparation};
pub use cut::{find_cut_point, CutPoint};
pub use files::FileOps;
pub use prepare::{prepare_compaction, CompactionPreparation};
pub use prompt::SUMMARIZATION_SYSTEM_PROMPT;
pub use serialize::{serialize_conversation, TOOL_RESULT_MAX_CHARS};
pub use summarize::{Summarizer, SUMMARY_OUTPUT_SHARE, TURN_PREFIX_OUTPUT_SHARE};

use crate::agent::ProviderError;
use crate::session::SessionError;

/// When and how much to compact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Compact automatically (past the threshold, and on a context overflow). Off leaves only
    /// `/compact`, and overflows are returned to the caller.
    pub enabled: bool,
    /// Tokens kept free for the model's answer: compaction starts when the context exceeds
    /// `context_window - reserve_tokens`.
    pub reserve_tokens: u64,
    /// Roughly how many tokens of the most recent conversation stay verbatim.
    pub keep_recent_tokens: u64,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings {
            enabled: true,
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000,
        }
    }
}

impl CompactionSettings {
    /// The reserve for a model with `context_window` tokens. A reserve over half the window
    /// (the default on an 8k-token model) would compact after every turn, so it is capped there.
    pub fn reserve_for(&self, context_window: u32) -> u64 {
        self.reserve_tokens.min(u64::from(context_window) / 2)
    }

    /// The context size past which compaction starts.
    pub fn threshold(&self, context_window: u32) -> u64 {
        u64::from(context_window).saturating_sub(self.reserve_for(context_window))
    }

    /// How much recent conversation to keep for a model with `context_window` tokens: at most
    /// half the threshold, so that a compaction always brings the context well under it.
    pub fn keep_recent_for(&self, context_window: u32) -> u64 {
        self.keep_recent_tokens
            .min(self.threshold(context_window) / 2)
            .max(1)
    }

    /// Whether a context of `tokens` should be compacted automatically.
    pub fn should_compact(&self, tokens: u64, context_window: u32) -> bool {
        self.enabled && context_window > 0 && tokens > self.threshold(context_window)
    }
}

/// A compaction that was written to the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compacted {
    /// Id of the new `compaction` entry.
    pub entry_id: String,
    pub summary: String,
    pub first_kept_entry_id: String,
    pub tokens_before: u64,
    /// Estimated context right after the compaction.
    pub tokens_after: u64,
    /// Whether a plugin's before-compact hook supplied the summary.
    pub from_hook: bool,
}

/// A `/tree` move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Navigation {
    /// The leaf before the move.
    pub from: Option<String>,
    /// The entry moved to.
    pub to: String,
    /// The `branch_summary` entry written at the new position (it is then the leaf).
    pub summary_entry_id: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    #[error("the agent is running; wait for it to stop")]
    Busy,
    #[error("nothing to compact: the conversation since the last compaction fits in the part kept verbatim")]
    NothingToCompact,
    #[error("a plugin cancelled the compaction")]
    Cancelled,
    #[error("plugin '{0}' cancelled the move in the session tree")]
    TreeMoveCancelled(String),
    #[error("the summary was aborted")]
    Aborted,
    #[error("the summary request failed: {0}")]
    Provider(ProviderError),
    #[error("the model returned an empty summary")]
    EmptySummary,
    #[error("the session changed while the summary was written (entry {0} is no longer on the active branch)")]
    BranchMoved(String),
    #[error(transparent)]
    Session(#[from] SessionError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_the_window() {
        let s = CompactionSettings::default();
        assert_eq!(s.threshold(200_000), 200_000 - 16_384);
        assert_eq!(s.keep_recent_for(200_000), 20_000);
        assert!(s.should_compact(190_000, 200_000));
        assert!(!s.should_compact(180_000, 200_000));
        // Small windows: the reserve is capped at half, the kept part at half the threshold.
        assert_eq!(s.threshold(8_192), 4_096);
        assert_eq!(s.keep_recent_for(8_192), 2_048);
        let off = CompactionSettings {
            enabled: false,
            ..s
        };
        assert!(!off.should_compact(1_000_000, 8_192));
    }
}
