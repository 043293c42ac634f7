//! Reasoning level → extended-thinking budget. Anthropic counts thinking inside `max_tokens`,
//! so the budget is added on top of the answer's allowance, within the model's output limit.

use tack_sdk::ReasoningLevel;

/// The smallest budget the API accepts.
const MIN_BUDGET: u32 = 1024;

/// Tokens kept for the answer when the output limit squeezes the budget.
const ANSWER_RESERVE: u32 = 1024;

/// `max_tokens` and the thinking budget (`None`: no thinking) for `level`. `answer_tokens` is
/// what the answer may use; `cap` is the model's output limit when known.
pub fn plan(level: ReasoningLevel, answer_tokens: u32, cap: Option<u32>) -> (u32, Option<u32>) {
    let budget = match level {
        ReasoningLevel::Off => return (answer_tokens, None),
        ReasoningLevel::Minimal => MIN_BUDGET,
        ReasoningLevel::Low => 2048,
        ReasoningLevel::Medium => 8192,
        ReasoningLevel::High => 16_384,
    };
    let total = answer_tokens.saturating_add(budget);
    let total = cap.map_or(total, |cap| total.min(cap));
    if total > budget {
        return (total, Some(budget));
    }
    // The limit leaves no room for the full budget: think with what is left after a reserve for
    // the answer, or not at all when that is under the API's minimum.
    let squeezed = total.saturating_sub(ANSWER_RESERVE);
    (total, (squeezed >= MIN_BUDGET).then_some(squeezed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_fit_the_output_limit() {
        assert_eq!(plan(ReasoningLevel::Off, 8000, Some(64_000)), (8000, None));
        assert_eq!(
            plan(ReasoningLevel::Medium, 8000, Some(64_000)),
            (16_192, Some(8192))
        );
        assert_eq!(
            plan(ReasoningLevel::High, 32_000, Some(32_000)),
            (32_000, Some(16_384))
        );
        assert_eq!(
            plan(ReasoningLevel::High, 10_000, Some(12_000)),
            (12_000, Some(10_976))
        );
        assert_eq!(plan(ReasoningLevel::Low, 1000, Some(1500)), (1500, None));
        assert_eq!(plan(ReasoningLevel::Minimal, 500, None), (1524, Some(1024)));
    }
}
