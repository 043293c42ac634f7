//! What `--model` may name, as Pi reads it: `provider/id`, an exact id, a fragment of an id or a
//! name (`sonnet`: aliases before dated versions, then the highest), each optionally followed by
//! `:level` (`sonnet:high`). A colon that is not a thinking level stays part of the id
//! (OpenRouter's `qwen/qwen3-coder:exacto`).

use tack_core::agent::ReasoningLevel;

/// One model a pattern may resolve to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub provider: String,
    pub id: String,
    pub name: String,
}

/// What a pattern named.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// Index into the candidates.
    pub index: usize,
    pub thinking: Option<Thinking>,
}

/// A thinking level as typed: tack's levels plus Pi's `xhigh`, which the plugin API cannot carry
/// yet and is clamped to `high` with a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    Level(ReasoningLevel),
    ExtraHigh,
}

impl Thinking {
    pub fn parse(text: &str) -> Option<Thinking> {
        match text {
            "xhigh" => Some(Thinking::ExtraHigh),
            other => ReasoningLevel::parse(other).map(Thinking::Level),
        }
    }
}

pub const LEVELS: &str = "off, minimal, low, medium, high, xhigh";

pub fn resolve(pattern: &str, candidates: &[Candidate]) -> Option<Resolved> {
    if let Some(index) = match_model(pattern, candidates) {
        return Some(Resolved {
            index,
            thinking: None,
        });
    }
    let (prefix, suffix) = pattern.rsplit_once(':')?;
    let thinking = Thinking::parse(suffix)?;
    let inner = resolve(prefix, candidates)?;
    Some(Resolved {
        index: inner.index,
        thinking: inner.thinking.or(Some(thinking)),
    })
}

fn match_model(pattern: &str, candidates: &[Candidate]) -> Option<usize> {
    let wanted = pattern.trim().to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let only = |hits: Vec<usize>| (hits.len() == 1).then(|| hits[0]);
    let canonical: Vec<usize> = positions(candidates, |c| {
        format!("{}/{}", c.provider, c.id).to_lowercase() == wanted
    });
    if !canonical.is_empty() {
        return only(canonical);
    }
    let exact: Vec<usize> = positions(candidates, |c| c.id.to_lowercase() == wanted);
    if !exact.is_empty() {
        return only(exact);
    }
    let partial = positions(candidates, |c| {
        c.id.to_lowercase().contains(&wanted) || c.name.to_lowercase().contains(&wanted)
    });
    let (aliases, dated): (Vec<usize>, Vec<usize>) = partial
        .into_iter()
        .partition(|&i| is_alias(&candidates[i].id));
    let pool = if aliases.is_empty() { dated } else { aliases };
    pool.into_iter()
        .max_by(|&a, &b| candidates[a].id.cmp(&candidates[b].id))
}

fn positions(candidates: &[Candidate], keep: impl Fn(&Candidate) -> bool) -> Vec<usize> {
    candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| keep(c))
        .map(|(i, _)| i)
        .collect()
}

/// Without a date suffix (`-20250929`), or ending in `-latest`.
fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let Some((_, tail)) = id.rsplit_once('-') else {
        return true;
    };
    !(tail.len() == 8 && tail.bytes().all(|b| b.is_ascii_digit()))
}

/// The level a model gets: what was asked, clamped to what it supports, with a note when it was.
pub fn clamp(
    asked: Thinking,
    model_reasons: bool,
    model: &str,
) -> (ReasoningLevel, Option<String>) {
    match asked {
        Thinking::Level(ReasoningLevel::Off) => (ReasoningLevel::Off, None),
        _ if !model_reasons => (
            ReasoningLevel::Off,
            Some(format!(
                "model '{model}' does not think; thinking is off for it"
            )),
        ),
        Thinking::ExtraHigh => (
            ReasoningLevel::High,
            Some(
                "thinking level xhigh is not available to tack's providers yet; using high".into(),
            ),
        ),
        Thinking::Level(level) => (level, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models() -> Vec<Candidate> {
        [
            ("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5"),
            (
                "anthropic",
                "claude-sonnet-4-5-20250929",
                "Claude Sonnet 4.5 (dated)",
            ),
            ("anthropic", "claude-opus-4-1", "Claude Opus 4.1"),
            ("openai", "gpt-4o", "GPT-4o"),
            ("openrouter", "qwen/qwen3-coder:exacto", "Qwen Exacto"),
            ("openrouter", "gpt-4o", "GPT-4o via OpenRouter"),
        ]
        .into_iter()
        .map(|(p, id, name)| Candidate {
            provider: p.into(),
            id: id.into(),
            name: name.into(),
        })
        .collect()
    }

    fn named(pattern: &str) -> Option<(String, Option<Thinking>)> {
        let models = models();
        resolve(pattern, &models).map(|r| {
            let c = &models[r.index];
            (format!("{}/{}", c.provider, c.id), r.thinking)
        })
    }

    #[test]
    fn exact_ids_and_provider_prefixes() {
        assert_eq!(
            named("openai/gpt-4o").map(|r| r.0).as_deref(),
            Some("openai/gpt-4o")
        );
        assert_eq!(
            named("claude-opus-4-1").map(|r| r.0).as_deref(),
            Some("anthropic/claude-opus-4-1")
        );
        assert_eq!(
            named("gpt-4o"),
            None,
            "an id two providers serve is ambiguous"
        );
    }

    #[test]
    fn fragments_prefer_aliases_then_the_highest() {
        assert_eq!(
            named("sonnet").map(|r| r.0).as_deref(),
            Some("anthropic/claude-sonnet-4-5")
        );
        assert_eq!(
            named("Opus").map(|r| r.0).as_deref(),
            Some("anthropic/claude-opus-4-1"),
            "names match too, case aside"
        );
        assert_eq!(named("no-such-model"), None);
    }

    #[test]
    fn a_level_suffix_is_split_off_but_colons_in_ids_stay() {
        assert_eq!(
            named("sonnet:high"),
            Some((
                "anthropic/claude-sonnet-4-5".into(),
                Some(Thinking::Level(ReasoningLevel::High))
            ))
        );
        assert_eq!(
            named("qwen/qwen3-coder:exacto").map(|r| r.0).as_deref(),
            Some("openrouter/qwen/qwen3-coder:exacto")
        );
        assert_eq!(
            named("qwen3-coder:exacto:xhigh"),
            Some((
                "openrouter/qwen/qwen3-coder:exacto".into(),
                Some(Thinking::ExtraHigh)
            ))
        );
        assert_eq!(named("sonnet:loud"), None, "not a level, not an id");
    }

    #[test]
    fn levels_a_model_cannot_use_are_clamped_with_a_note() {
        assert_eq!(
            clamp(Thinking::Level(ReasoningLevel::Medium), true, "m"),
            (ReasoningLevel::Medium, None)
        );
        let (level, note) = clamp(Thinking::Level(ReasoningLevel::High), false, "gpt-4o");
        assert_eq!(level, ReasoningLevel::Off);
        assert!(note.is_some_and(|n| n.contains("gpt-4o")));
        let (level, note) = clamp(Thinking::ExtraHigh, true, "m");
        assert_eq!(level, ReasoningLevel::High);
        assert!(note.is_some());
        assert_eq!(
            clamp(Thinking::Level(ReasoningLevel::Off), false, "m"),
            (ReasoningLevel::Off, None)
        );
    }
}
