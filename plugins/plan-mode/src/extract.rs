//! Reading the model's text: the numbered steps under a `Plan:` heading, and `[DONE:n]` markers.

use crate::state::Step;

/// The steps of the last plan in `text`: numbered lines (`1.` or `1)`) after a line that is a
/// `Plan:` heading (`Plan:`, `**Plan:**`, `## Plan`). Steps are renumbered from 1 in order, so
/// the numbers the model later ticks are the ones it was shown. Empty when there is no plan.
pub fn plan_steps(text: &str) -> Vec<Step> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(heading) = lines.iter().rposition(|line| is_plan_heading(line)) else {
        return Vec::new();
    };
    let mut steps = Vec::new();
    for line in &lines[heading + 1..] {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(item) = numbered_item(trimmed) {
            steps.push(Step {
                n: steps.len() as u32 + 1,
                text: item,
                done: false,
            });
            continue;
        }
        if steps.is_empty() {
            // Prose may sit between the heading and the first step; another heading may not.
            if trimmed.starts_with('#') {
                break;
            }
            continue;
        }
        // Indented lines and bullets under a step are its details; anything else ends the plan.
        let indented = line.starts_with(' ') || line.starts_with('\t');
        let bullet = trimmed.starts_with("- ") || trimmed.starts_with("* ");
        if !indented && !bullet {
            break;
        }
    }
    steps
}

fn is_plan_heading(line: &str) -> bool {
    let stripped = line
        .trim()
        .trim_start_matches('#')
        .trim()
        .trim_matches(|c| c == '*' || c == '_')
        .trim();
    let lower = stripped.to_ascii_lowercase();
    lower == "plan:" || (lower == "plan" && line.trim_start().starts_with('#'))
}

/// `3. Do the thing` or `3) Do the thing` → `Do the thing` (markdown emphasis removed).
fn numbered_item(line: &str) -> Option<String> {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let rest = &line[digits..];
    let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
    if !rest.starts_with(' ') && !rest.starts_with('\t') {
        return None;
    }
    let text = rest.trim().replace("**", "");
    (!text.is_empty()).then_some(text)
}

/// The step numbers of every `[DONE:n]` marker in `text` (case and spaces tolerated).
pub fn done_markers(text: &str) -> Vec<u32> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut rest = lower.as_str();
    while let Some(at) = rest.find("[done") {
        rest = &rest[at + 5..];
        let after = rest.trim_start();
        let Some(after) = after.strip_prefix(':') else {
            continue;
        };
        let after = after.trim_start();
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            continue;
        }
        if after[digits.len()..].trim_start().starts_with(']') {
            if let Ok(n) = digits.parse() {
                found.push(n);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(steps: &[Step]) -> Vec<(u32, &str)> {
        steps.iter().map(|s| (s.n, s.text.as_str())).collect()
    }

    #[test]
    fn finds_the_plan() {
        let text = "I looked around.\n\nPlan:\n1. Add a **config** flag\n   - in cli.rs\n2) Wire it\n\n3. Test it\n\nThen we are done.";
        assert_eq!(
            texts(&plan_steps(text)),
            vec![(1, "Add a config flag"), (2, "Wire it"), (3, "Test it")]
        );
        let heading = "## Plan\n\nFirst, some context.\n4. one\n5. two\n## Risks\n1. none";
        assert_eq!(texts(&plan_steps(heading)), vec![(1, "one"), (2, "two")]);
        assert_eq!(texts(&plan_steps("**Plan:**\n1. x")), vec![(1, "x")]);
    }

    #[test]
    fn no_heading_no_plan() {
        assert!(plan_steps("1. a\n2. b").is_empty());
        assert!(plan_steps("The plan is simple.\n1. a").is_empty());
        assert!(plan_steps("Plan:\nnothing numbered").is_empty());
    }

    #[test]
    fn the_last_plan_wins() {
        let text = "Plan:\n1. old\n\nRevised plan:\nPlan:\n1. new\n2. newer";
        assert_eq!(texts(&plan_steps(text)), vec![(1, "new"), (2, "newer")]);
    }

    #[test]
    fn done_markers_are_read() {
        assert_eq!(
            done_markers("Did it [DONE:1] and [done: 2 ] but not [DONE:x] or [DONE 3]"),
            vec![1, 2]
        );
        assert!(done_markers("nothing").is_empty());
    }
}
