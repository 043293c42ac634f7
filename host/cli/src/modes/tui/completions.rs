//! Plugins' completions in the editor (`tack:plugin/completions`, 0.2.0): the argument of a
//! plugin's command, and the draft at the cursor for plugins that complete it. The UI asks as
//! the user types; one task asks one question at a time, and of the questions that came
//! meanwhile only the newest is asked next, so fast typing never queues calls behind a slow
//! plugin (whose instance may be busy with the agent's tool call).

use tack_runtime::{CompletionItem, LoadedPlugin};
use tack_tui::{CompletionQuery, PluginCompletion, UiEvent};

use super::controller::Controller;

impl Controller {
    /// Asks the queued questions until none is left.
    pub async fn complete_queued(&self) {
        loop {
            let next = {
                let mut queue = crate::sync::lock(&self.completions.queue);
                match queue.0.take() {
                    Some(next) => next,
                    None => {
                        queue.1 = false;
                        return;
                    }
                }
            };
            self.complete(next.0, next.1).await;
        }
    }

    async fn complete(&self, seq: u64, query: CompletionQuery) {
        match query {
            CompletionQuery::CommandArguments {
                plugin,
                command,
                prefix,
            } => {
                let Some(owner) = self.completer(&plugin) else {
                    return;
                };
                match owner.complete_command_arguments(&command, &prefix).await {
                    Ok(items) => self.answer(seq, items, prefix),
                    Err(e) => self.failed(&plugin, &e.to_string()),
                }
            }
            CompletionQuery::Input {
                plugins,
                lines,
                cursor: (row, col),
            } => {
                for plugin in plugins {
                    let Some(owner) = self.completer(&plugin) else {
                        continue;
                    };
                    match owner.complete_input(&lines, row, col).await {
                        Ok(Some(answer)) => return self.answer(seq, answer.items, answer.prefix),
                        Ok(None) => {}
                        Err(e) => self.failed(&plugin, &e.to_string()),
                    }
                }
            }
        }
    }

    /// The plugin to ask, unless a newer question waits its turn (this one is then stale) or
    /// the plugin is gone or disabled.
    fn completer(&self, plugin: &str) -> Option<std::sync::Arc<LoadedPlugin>> {
        if crate::sync::lock(&self.completions.queue).0.is_some() {
            return None;
        }
        let owner = self.front.loaded.set.get(plugin).cloned()?;
        (owner.disabled_reason().is_none() && owner.completes()).then_some(owner)
    }

    fn answer(&self, seq: u64, items: Vec<CompletionItem>, prefix: String) {
        let items = items
            .into_iter()
            .map(|item| PluginCompletion {
                value: item.value,
                label: item.label,
                description: item.description.unwrap_or_default(),
            })
            .collect();
        self.send(UiEvent::Completions { seq, items, prefix });
    }

    fn failed(&self, plugin: &str, error: &str) {
        tracing::warn!(plugin, error, "a plugin's completions failed");
        if crate::sync::lock(&self.completions.failed).insert(plugin.to_string()) {
            self.send(UiEvent::Error(format!(
                "{plugin}'s completions failed: {error}"
            )));
        }
    }
}
