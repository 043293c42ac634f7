//! The prompt being written: edits refresh the completion, accepting one fills in the word, and
//! sending turns the text into a prompt, a steer, a follow-up or a command.

use crate::complete::{complete, Completion, Item, Kind};
use crate::editor::Editor;
use crate::protocol::{Action, CompletionQuery, PluginCompletion};

use super::State;

impl State {
    pub fn edit(&mut self, f: impl FnOnce(&mut Editor)) {
        f(&mut self.editor);
        self.edited();
    }

    pub fn edited(&mut self) {
        self.completion_dismissed = false;
        self.refresh_completion();
    }

    pub fn refresh_completion(&mut self) {
        self.completion = if self.completion_dismissed {
            None
        } else {
            complete(&self.editor, &self.commands, &self.files)
        };
        self.ask_plugins_to_complete();
    }

    /// Asks plugins for completions when the draft changed where they complete it: the argument
    /// of one of their commands, or anywhere for those that complete the draft. Their answer
    /// comes later ([`State::plugin_completions`]); the built-in completions show meanwhile.
    fn ask_plugins_to_complete(&mut self) {
        let query = if self.completion_dismissed {
            None
        } else {
            self.command_arguments_query().or_else(|| {
                (!self.input_completers.is_empty()).then(|| CompletionQuery::Input {
                    plugins: self.input_completers.iter().rev().cloned().collect(),
                    lines: self.editor.lines().to_vec(),
                    cursor: self.editor.cursor(),
                })
            })
        };
        let Some(query) = query else {
            self.completion_asked = None;
            return;
        };
        if matches!(&self.completion_asked, Some((_, asked)) if *asked == query) {
            return;
        }
        self.completion_seq += 1;
        let seq = self.completion_seq;
        self.completion_asked = Some((seq, query.clone()));
        self.actions.push(Action::Complete { seq, query });
    }

    /// `/command args|` on a one-line draft, where a plugin serves `command`.
    fn command_arguments_query(&self) -> Option<CompletionQuery> {
        let (row, col) = self.editor.cursor();
        if row != 0 || self.editor.line_count() > 1 {
            return None;
        }
        let before: String = self.editor.lines().first()?.chars().take(col).collect();
        let (name, prefix) = before.strip_prefix('/')?.split_once(' ')?;
        let plugin = self
            .commands
            .iter()
            .find(|c| c.name == name)?
            .plugin
            .clone()?;
        Some(CompletionQuery::CommandArguments {
            plugin,
            command: name.to_string(),
            prefix: prefix.to_string(),
        })
    }

    /// A plugin's answer to question `seq`: its items replace the built-in ones, unless the
    /// draft changed since it was asked or the user closed the popup.
    pub(super) fn plugin_completions(
        &mut self,
        seq: u64,
        items: Vec<PluginCompletion>,
        prefix: &str,
    ) {
        if self.completion_dismissed || items.is_empty() {
            return;
        }
        if !matches!(&self.completion_asked, Some((asked, _)) if *asked == seq) {
            return;
        }
        let (row, col) = self.editor.cursor();
        let Some(line) = self.editor.lines().get(row) else {
            return;
        };
        let before: String = line.chars().take(col).collect();
        if !before.ends_with(prefix) {
            return;
        }
        self.completion = Some(Completion {
            items: items
                .into_iter()
                .map(|item| Item {
                    text: item.value,
                    label: item.label,
                    detail: item.description,
                })
                .collect(),
            selected: 0,
            start: col - prefix.chars().count(),
            kind: Kind::Plugin,
        });
    }

    pub fn accept_completion(&mut self) {
        let Some(completion) = self.completion.take() else {
            return;
        };
        if let Some(item) = completion.items.get(completion.selected) {
            let (_, col) = self.editor.cursor();
            self.editor.replace(completion.start, col, &item.text);
        }
        self.completion_dismissed = true;
    }

    pub fn submit(&mut self, follow_up: bool) {
        let text = self.editor.text();
        if text.trim().is_empty() {
            return;
        }
        self.editor.clear();
        self.completion = None;
        self.completion_dismissed = false;
        self.send_text(&text, follow_up);
    }

    /// Sends what an editor submitted (tack's, or a plugin's in its place): a `/command`, or a
    /// prompt, a steer or a follow-up.
    pub fn send_text(&mut self, text: &str, follow_up: bool) {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        self.editor.remember(trimmed);
        self.scroll.follow();
        if let Some(rest) = trimmed.strip_prefix('/') {
            let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if matches!(name, "quit" | "exit") {
                return self.quit();
            }
            // Unknown `/words` may be paths: they go to the model as text.
            if self.commands.iter().any(|c| c.name == name) {
                self.actions.push(Action::Command {
                    name: name.to_string(),
                    args: args.trim().to_string(),
                });
                return;
            }
        }
        let text = trimmed.to_string();
        let images = self.attachments.take_for(&text);
        if !images.is_empty() {
            self.actions.push(Action::Attach(images));
        }
        self.actions.push(if !self.running {
            Action::Prompt(text)
        } else if follow_up {
            Action::FollowUp(text)
        } else {
            Action::Steer(text)
        });
    }
}
