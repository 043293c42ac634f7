//! Cycling through models (Ctrl+P / Shift+Ctrl+P in the terminal UI, RPC's `cycle_model`): the
//! scoped models when `--models` or config.toml's `enabled_models` names some, as Pi does, else
//! every model whose provider can be used. A scoped pattern may carry a thinking level
//! (`sonnet:high`), which the model gets when cycled to.

use anyhow::{bail, Result};

use crate::models::catalog::ProviderEntry;
use crate::models::pattern::{self, Candidate, Thinking};
use crate::models::switch::ModelSwitch;

/// One model the cycle visits.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    pub provider: String,
    pub id: String,
    pub thinking: Option<Thinking>,
}

/// Where a cycle step landed.
#[derive(Debug)]
pub struct Cycled {
    /// The stops came from `--models` / `enabled_models`.
    pub is_scoped: bool,
    /// A clamped thinking level, said to the user.
    pub note: Option<String>,
}

impl ModelSwitch<'_> {
    /// The patterns that scope the cycle: `--models` first, else `enabled_models`.
    fn scope_patterns(&self) -> Vec<String> {
        let from_cli: Vec<String> = self
            .cli
            .models
            .iter()
            .flat_map(|list| list.split(','))
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        if from_cli.is_empty() {
            self.loaded.settings.enabled_models.clone()
        } else {
            from_cli
        }
    }

    /// The models the cycle goes through, in order, and whether a scope chose them.
    pub fn cycle_stops(&self) -> Result<(Vec<Stop>, bool)> {
        let catalog = self.loaded.catalog()?;
        let usable: Vec<Candidate> = catalog
            .iter()
            .filter(|entry| self.key_available(entry))
            .flat_map(ProviderEntry::candidates)
            .collect();
        let patterns = self.scope_patterns();
        if patterns.is_empty() {
            let stops = usable
                .into_iter()
                .map(|c| Stop {
                    provider: c.provider,
                    id: c.id,
                    thinking: None,
                })
                .collect();
            return Ok((stops, false));
        }
        let mut stops: Vec<Stop> = Vec::new();
        for pattern in &patterns {
            let before = stops.len();
            for stop in scoped(pattern, &usable)? {
                if !stops
                    .iter()
                    .any(|s| s.provider == stop.provider && s.id == stop.id)
                {
                    stops.push(stop);
                }
            }
            if stops.len() == before {
                tracing::warn!("model pattern '{pattern}' matches no usable model");
            }
        }
        Ok((stops, true))
    }

    /// Moves to the next (or previous) stop; `None` when there is no other model to go to.
    pub fn cycle(&self, forward: bool) -> Result<Option<Cycled>> {
        let (stops, is_scoped) = self.cycle_stops()?;
        let current = self.agent.config().model;
        let at = stops
            .iter()
            .position(|s| s.provider == current.provider && s.id == current.id);
        let next = match (at, stops.len()) {
            (_, 0) => return Ok(None),
            (Some(_), 1) => return Ok(None),
            (Some(i), n) if forward => &stops[(i + 1) % n],
            (Some(i), n) => &stops[(i + n - 1) % n],
            (None, _) if forward => &stops[0],
            (None, n) => &stops[n - 1],
        };
        self.set_model_from(&next.provider, &next.id, "cycle")?;
        let note = match next.thinking {
            Some(Thinking::Level(level)) => self.set_thinking(level.as_str())?.1,
            Some(Thinking::ExtraHigh) => self.set_thinking("xhigh")?.1,
            None => None,
        };
        Ok(Some(Cycled { is_scoped, note }))
    }
}

/// The usable models one `--models` pattern names: a glob (`anthropic/*`, `*sonnet*`) over
/// `provider/id` and the bare id, or a pattern as `--model` reads it.
fn scoped(pattern: &str, usable: &[Candidate]) -> Result<Vec<Stop>> {
    if pattern.contains(['*', '?', '[']) {
        let (glob, thinking) = match pattern.rsplit_once(':') {
            Some((glob, level)) if Thinking::parse(level).is_some() => {
                (glob, Thinking::parse(level))
            }
            _ => (pattern, None),
        };
        let matcher = match globset::GlobBuilder::new(&glob.to_lowercase()).build() {
            Ok(glob) => glob.compile_matcher(),
            Err(e) => bail!("invalid model pattern '{pattern}': {e}"),
        };
        return Ok(usable
            .iter()
            .filter(|c| {
                matcher.is_match(format!("{}/{}", c.provider, c.id).to_lowercase())
                    || matcher.is_match(c.id.to_lowercase())
            })
            .map(|c| Stop {
                provider: c.provider.clone(),
                id: c.id.clone(),
                thinking,
            })
            .collect());
    }
    Ok(pattern::resolve(pattern, usable)
        .map(|resolved| {
            let c = &usable[resolved.index];
            Stop {
                provider: c.provider.clone(),
                id: c.id.clone(),
                thinking: resolved.thinking,
            }
        })
        .into_iter()
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use tack_core::agent::ReasoningLevel;

    fn usable() -> Vec<Candidate> {
        [
            ("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5"),
            ("anthropic", "claude-haiku-4-5", "Claude Haiku 4.5"),
            ("openai", "gpt-5", "GPT-5"),
        ]
        .iter()
        .map(|(p, id, name)| Candidate {
            provider: p.to_string(),
            id: id.to_string(),
            name: name.to_string(),
        })
        .collect()
    }

    #[test]
    fn globs_and_fragments_with_levels() {
        let all = scoped("anthropic/*", &usable()).unwrap();
        assert_eq!(
            all.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["claude-sonnet-4-5", "claude-haiku-4-5"]
        );
        let haiku = scoped("haiku:low", &usable()).unwrap();
        assert_eq!(haiku.len(), 1);
        assert_eq!(haiku[0].id, "claude-haiku-4-5");
        assert_eq!(
            haiku[0].thinking,
            Some(Thinking::Level(ReasoningLevel::Low))
        );
        let star = scoped("*gpt*:high", &usable()).unwrap();
        assert_eq!(star[0].id, "gpt-5");
        assert_eq!(
            star[0].thinking,
            Some(Thinking::Level(ReasoningLevel::High))
        );
        assert!(scoped("nothing-like-it", &usable()).unwrap().is_empty());
    }
}
