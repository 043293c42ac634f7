//! Completions a plugin offers in the user's editor (`tack:plugin/completions`, 0.2.0): for the
//! arguments of its own commands, and (once it turned them on, with the `components` grant) for
//! the draft at the cursor. What it returns reaches the terminal, so each item is cut to one
//! neutralised line and the list to what a popup shows.

use super::{CallSetup, LoadedPlugin};
use crate::bindings::v0_2_0::completions::exports::tack::plugin0_2_0::completions as wit;
use crate::error::PluginError;

/// The most items of one answer the popup shows; the rest are dropped.
pub const MAX_COMPLETION_ITEMS: usize = 64;
/// The most bytes of one value, label or description; the rest is cut.
const MAX_ITEM_BYTES: usize = 1024;
/// The most lines of a draft a plugin is shown, counted back from the cursor's.
const MAX_DRAFT_LINES: usize = 200;

/// One item of a completion popup, as a plugin offers it, made safe to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    /// What replaces the text being completed.
    pub value: String,
    /// What the popup shows.
    pub label: String,
    pub description: Option<String>,
}

/// What a plugin offers at the cursor: items, and the text before the cursor they replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputCompletion {
    pub items: Vec<CompletionItem>,
    pub prefix: String,
}

impl LoadedPlugin {
    /// Whether the plugin exports `completions`: a plugin without it is never asked. A deferred
    /// plugin not compiled yet may have it, and is asked (which compiles it).
    pub fn completes(&self) -> bool {
        self.code
            .get()
            .is_none_or(|linked| linked.completions_indices.is_some())
    }

    /// Completions for the argument of `command` (Pi's `getArgumentCompletions`); empty when
    /// the plugin has none to offer or lacks the export.
    pub async fn complete_command_arguments(
        &self,
        command: &str,
        prefix: &str,
    ) -> Result<Vec<CompletionItem>, PluginError> {
        if !self.completes() {
            return Ok(Vec::new());
        }
        let (command, prefix) = (command.to_string(), prefix.to_string());
        let items = self
            .with_instance(
                "command-arguments completion",
                CallSetup::plain(self.limits().hook),
                move |store, _, optional| {
                    Box::pin(async move {
                        match &optional.completions {
                            Some(c) => c.call_command_arguments(store, &command, &prefix).await,
                            None => Ok(None),
                        }
                    })
                },
            )
            .await?;
        Ok(shown_items(items.unwrap_or_default()))
    }

    /// Completions at the cursor of the user's draft (Pi's autocomplete providers); `None` when
    /// the plugin leaves it to the built-in completions. Asked only of a plugin that turned
    /// them on, which needed the `components` grant; a plugin without the grant is not asked.
    pub async fn complete_input(
        &self,
        lines: &[String],
        cursor_line: usize,
        cursor_col: usize,
    ) -> Result<Option<InputCompletion>, PluginError> {
        if !self.completes() || !self.env.capabilities.components {
            return Ok(None);
        }
        // A long draft is shown from well before the cursor's line: what completes at the
        // cursor is on it, and a plugin is not handed megabytes per keystroke.
        let first = (cursor_line + 1).saturating_sub(MAX_DRAFT_LINES);
        let end = (cursor_line + 1).min(lines.len());
        let shown: Vec<String> = lines.get(first..end).unwrap_or_default().to_vec();
        let line = u32::try_from(cursor_line - first).unwrap_or(u32::MAX);
        let col = u32::try_from(cursor_col).unwrap_or(u32::MAX);
        let answer = self
            .with_instance(
                "input completion",
                CallSetup::plain(self.limits().hook),
                move |store, _, optional| {
                    Box::pin(async move {
                        match &optional.completions {
                            Some(c) => c.call_input(store, &shown, line, col).await,
                            None => Ok(None),
                        }
                    })
                },
            )
            .await?;
        Ok(answer.and_then(|answer| {
            let items = shown_items(answer.items);
            // The prefix says how much before the cursor an item replaces; one that is not
            // what the user typed there would make the editor replace the wrong text.
            let before: String = lines
                .get(cursor_line)
                .map(|l| l.chars().take(cursor_col).collect())
                .unwrap_or_default();
            (!items.is_empty() && before.ends_with(&answer.prefix)).then_some(InputCompletion {
                items,
                prefix: answer.prefix,
            })
        }))
    }
}

/// The items a popup shows: at most [`MAX_COMPLETION_ITEMS`], each field one neutralised line of
/// at most [`MAX_ITEM_BYTES`], with no empty value.
fn shown_items(items: Vec<wit::CompletionItem>) -> Vec<CompletionItem> {
    items
        .into_iter()
        .filter(|item| !item.value.is_empty())
        .take(MAX_COMPLETION_ITEMS)
        .map(|item| {
            let value = one_line(&item.value);
            let label = match one_line(&item.label) {
                label if label.is_empty() => value.clone(),
                label => label,
            };
            CompletionItem {
                value,
                label,
                description: item.description.map(|d| one_line(&d)),
            }
        })
        .collect()
}

fn one_line(text: &str) -> String {
    let end = text.floor_char_boundary(MAX_ITEM_BYTES);
    tack_core::text::neutralize_controls(&text[..end]).replace(['\n', '\t'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_one_safe_line_each_and_at_most_a_popup_full() {
        let item = |value: &str, label: &str| wit::CompletionItem {
            value: value.into(),
            label: label.into(),
            description: Some("two\nlines \u{1b}[31mred".into()),
        };
        let mut items = vec![item("", "dropped"), item("#12", ""), item("a\u{7}b", "x")];
        items.extend((0..100).map(|i| item(&i.to_string(), "n")));
        let shown = shown_items(items);
        assert_eq!(shown.len(), MAX_COMPLETION_ITEMS);
        assert_eq!(shown[0].label, "#12");
        assert_eq!(
            shown[0].description.as_deref(),
            Some("two lines \u{241b}[31mred")
        );
        assert_eq!(shown[1].value, "a\u{2407}b");
        let long = "é".repeat(MAX_ITEM_BYTES);
        assert_eq!(one_line(&long).len(), MAX_ITEM_BYTES);
    }
}
