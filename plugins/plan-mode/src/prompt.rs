//! What plan mode tells the model.

use crate::state::PlanState;

/// Appended to the system prompt while plan mode is on.
pub const PLANNING: &str = "## Plan mode\n\
You are in plan mode: explore and think, change nothing. Only read-only tools work now (read, \
ls, find, grep, and bash for read-only commands such as ls, cat, head, grep, rg, find, wc, \
git status/log/diff/show, without redirections); write, edit and commands that change files \
are blocked.\n\
Investigate what the task needs, then present your plan: a line `Plan:` followed by numbered \
steps (`1. …`), one concrete, checkable action per step, in the order you would do them. Do not \
start executing: the user reviews the plan and decides whether to run it.";

/// Appended while an approved plan is being executed.
pub fn executing(state: &PlanState) -> String {
    let remaining: Vec<String> = state
        .steps
        .iter()
        .filter(|s| !s.done)
        .map(|s| format!("{}. {}", s.n, s.text))
        .collect();
    format!(
        "## Executing the approved plan\n\
         The user approved your plan; all tools are available again. Remaining steps:\n{}\n\
         Work through them in order. Right after finishing a step, write `[DONE:n]` with the \
         step's number (for example `[DONE:{}]`) so progress is tracked.",
        remaining.join("\n"),
        state.steps.iter().find(|s| !s.done).map_or(1, |s| s.n)
    )
}

/// The message that starts execution once the user approves.
pub fn start(state: &PlanState) -> String {
    let steps: Vec<String> = state
        .steps
        .iter()
        .map(|s| format!("{}. {}", s.n, s.text))
        .collect();
    format!(
        "Execute the plan now, step by step:\n{}\nAfter finishing each step, write `[DONE:n]` \
         with its number.",
        steps.join("\n")
    )
}
