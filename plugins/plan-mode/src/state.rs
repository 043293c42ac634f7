//! Plan mode's state, kept in `plan-mode` custom entries of the session so it follows the branch:
//! after `/tree` back to before the plan existed, there is no plan. Every hook reads it afresh
//! from the branch, since the host may run the plugin in several instances.

use serde::{Deserialize, Serialize};
use tack_sdk::{log, session};

/// The custom entry type.
pub const ENTRY: &str = "plan-mode";

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PlanState {
    /// Plan mode is on: read-only tools, plan instructions.
    pub enabled: bool,
    /// The user approved the plan and the model is carrying it out.
    #[serde(default)]
    pub executing: bool,
    #[serde(default)]
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub n: u32,
    pub text: String,
    pub done: bool,
}

impl PlanState {
    /// The state on the active branch; `default_enabled` (the plugin's config) when the branch
    /// has none yet.
    pub fn load(default_enabled: bool) -> PlanState {
        let fallback = PlanState {
            enabled: default_enabled,
            ..PlanState::default()
        };
        match session::latest_state::<PlanState>(ENTRY) {
            Ok(Some(state)) => state,
            Ok(None) => fallback,
            Err(e) => {
                log::warn(format!("plan-mode: ignoring unreadable state: {e}"));
                fallback
            }
        }
    }

    pub fn save(&self) -> Result<(), String> {
        session::append_state(ENTRY, self).map(|_| ())
    }

    pub fn done_count(&self) -> usize {
        self.steps.iter().filter(|s| s.done).count()
    }

    pub fn all_done(&self) -> bool {
        !self.steps.is_empty() && self.steps.iter().all(|s| s.done)
    }

    /// One line per step, ticked when done.
    pub fn lines(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|s| format!("[{}] {}. {}", if s.done { "x" } else { " " }, s.n, s.text))
            .collect()
    }

    /// Marks the steps numbered in `done`; returns whether anything changed.
    pub fn tick(&mut self, done: &[u32]) -> bool {
        let mut changed = false;
        for step in self.steps.iter_mut().filter(|s| done.contains(&s.n)) {
            if !step.done {
                step.done = true;
                changed = true;
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticking_and_rendering() {
        let mut state = PlanState {
            enabled: false,
            executing: true,
            steps: vec![
                Step {
                    n: 1,
                    text: "a".into(),
                    done: false,
                },
                Step {
                    n: 2,
                    text: "b".into(),
                    done: false,
                },
            ],
        };
        assert!(state.tick(&[1, 7]));
        assert!(!state.tick(&[1]));
        assert_eq!(state.lines(), vec!["[x] 1. a", "[ ] 2. b"]);
        assert!(!state.all_done());
        state.tick(&[2]);
        assert!(state.all_done());
        assert_eq!(state.done_count(), 2);
    }

    #[test]
    fn old_entries_without_new_fields_parse() {
        let state: PlanState = serde_json::from_str(r#"{"enabled": true}"#).expect("minimal state");
        assert!(state.enabled && !state.executing && state.steps.is_empty());
    }
}
