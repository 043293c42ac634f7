//! A plugin's editor in place of tack's (`tack:plugin/editor`, 0.2.0): the keys typed there go
//! to the plugin one at a time, in order (each changes what the next one does), and what it
//! shows and submits comes back to the UI. An editor that fails gives tack's back.

use std::sync::Arc;

use tack_tui::{EditorInput, UiEvent};

use super::controller::Controller;

impl Controller {
    /// Queues what the editor is asked, and starts asking unless a task already is.
    pub fn editor_input(self: &Arc<Self>, plugin: String, input: EditorInput, width: u16) {
        let start = {
            let mut queue = crate::sync::lock(&self.editor_inputs);
            queue.0.push_back((plugin, input, width));
            !std::mem::replace(&mut queue.1, true)
        };
        if start {
            let this = Arc::clone(self);
            tokio::spawn(async move { this.editor_queued().await });
        }
    }

    async fn editor_queued(&self) {
        loop {
            let next = {
                let mut queue = crate::sync::lock(&self.editor_inputs);
                match queue.0.pop_front() {
                    Some(next) => next,
                    None => {
                        queue.1 = false;
                        return;
                    }
                }
            };
            let (plugin, input, width) = next;
            self.ask_editor(plugin, input, width).await;
        }
    }

    async fn ask_editor(&self, plugin: String, input: EditorInput, width: u16) {
        let owner = self
            .front
            .loaded
            .set
            .get(&plugin)
            .cloned()
            .filter(|owner| owner.disabled_reason().is_none());
        let Some(owner) = owner else {
            return self.editor_failed(&plugin, "the plugin is not running");
        };
        let view = match &input {
            EditorInput::View => owner.editor_view(width).await,
            EditorInput::Key(key) => owner.editor_key(key, width).await,
            EditorInput::Paste(text) => owner.editor_paste(text, width).await,
        };
        match view {
            // An SDK's default export draws nothing: the user would type into a void.
            Ok(view) if view.lines.is_empty() => {
                self.editor_failed(&plugin, "it drew no editor (does it define one?)")
            }
            Ok(view) => self.send(UiEvent::PluginEditor {
                plugin,
                lines: view.lines,
                submitted: view.submitted,
            }),
            Err(e) => self.editor_failed(&plugin, &e.to_string()),
        }
    }

    /// Gives tack's editor back from a plugin's that failed, and drops what it was still to be
    /// asked.
    fn editor_failed(&self, plugin: &str, error: &str) {
        tracing::warn!(plugin, error, "a plugin's editor failed");
        crate::sync::lock(&self.editor_inputs)
            .0
            .retain(|(owner, _, _)| owner != plugin);
        self.send(UiEvent::PluginEditorFailed {
            plugin: plugin.to_string(),
            error: error.to_string(),
        });
    }
}
