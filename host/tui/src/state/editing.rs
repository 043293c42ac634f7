//! The prompt being written: edits refresh the completion, accepting one fills in the word, and
//! sending turns the text into a prompt, a steer, a follow-up or a command.

use crate::complete::complete;
use crate::editor::Editor;
use crate::protocol::Action;

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
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        self.editor.remember(trimmed);
        self.editor.clear();
        self.completion = None;
        self.completion_dismissed = false;
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
