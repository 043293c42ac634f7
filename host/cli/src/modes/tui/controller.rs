//! Carries out what the user asks in the terminal UI: prompts, steering and follow-ups, abort
//! (through the [`SessionDriver`]), and the work behind commands and pickers, which runs as tasks
//! so the UI keeps answering.

use std::sync::Arc;

use tack_core::message::{Content, Message};
use tack_tui::{Action, UiEvent};
use tokio::sync::mpsc;

use super::screen::{TuiScreen, TuiServices};
use crate::modes::driver::{Busy, BusyKind, Queue, SessionDriver, Submitted};
use crate::start::AgentSession;

pub struct Controller {
    pub front: Arc<AgentSession>,
    pub driver: Arc<SessionDriver<TuiScreen>>,
    pub services: Arc<TuiServices>,
    pub ui: mpsc::UnboundedSender<UiEvent>,
    /// The UI's keys, for `/hotkeys`.
    pub keymap: tack_tui::keymap::Keymap,
    /// Images pasted for the next message (`[image N]` chips).
    pub images: std::sync::Mutex<Vec<std::path::PathBuf>>,
    /// The user's `!cmd` while it runs: cancelled by Esc.
    pub shell: std::sync::Mutex<Option<tokio_util::sync::CancellationToken>>,
    /// Under `tack plugin dev`: where the session's path is written at the end, for the next
    /// tack to resume.
    pub dev_state: Option<std::path::PathBuf>,
    /// `/reload` was asked: the UI ends and tack exits for `tack plugin dev` to rebuild.
    pub reload: Arc<std::sync::atomic::AtomicBool>,
    /// The text of the user message chosen in `/tree`: once the move to the point before it is
    /// made, it goes into the editor to be edited and sent again (as Pi does).
    pub tree_edit: std::sync::Mutex<Option<String>>,
    /// What plugins were last asked to complete, and which failed to.
    pub completions: CompletionsAsked,
    /// Blocks waiting for their plugin to draw them, and which plugins failed to.
    pub renderings: RenderingsAsked,
    /// What plugins' editors in place of tack's are asked, in order, and whether a task asks.
    pub editor_inputs: std::sync::Mutex<EditorInputs>,
}

/// What plugins' editors are still to be asked (plugin, input, width), oldest first, and
/// whether a task is asking.
pub type EditorInputs = (
    std::collections::VecDeque<(String, tack_tui::EditorInput, u16)>,
    bool,
);

/// Plugins' drawings of their blocks as the UI asks for them (`renderers.rs`).
#[derive(Default)]
pub struct RenderingsAsked {
    pub queue: std::sync::Mutex<RenderQueue>,
    /// Plugins whose drawing failed: the user is told once per plugin.
    pub failed: std::sync::Mutex<std::collections::HashSet<String>>,
}

/// One question to a block's plugin: the block, its columns, what to draw, and how many times a
/// busy plugin was asked it already.
pub type RenderAsk = (tack_tui::RenderKey, u16, tack_tui::RenderQuery, u32);

/// Blocks waiting for their plugin, in the order first asked, each with its newest question.
#[derive(Default)]
pub struct RenderQueue {
    pub order: std::collections::VecDeque<(u64, usize)>,
    pub latest: std::collections::HashMap<(u64, usize), RenderAsk>,
    pub asking: bool,
}

/// Plugins' completions as the UI asks for them (`completions.rs`).
#[derive(Default)]
pub struct CompletionsAsked {
    /// The question to ask next, and whether a task is asking: one question at a time is put to
    /// plugins, and of those asked meanwhile only the newest waits its turn.
    pub queue: std::sync::Mutex<(Option<(u64, tack_tui::CompletionQuery)>, bool)>,
    /// Plugins whose completions failed: the user is told once per plugin, not per key.
    pub failed: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl Controller {
    pub fn send(&self, event: UiEvent) {
        // The UI is gone only while shutting down.
        let _ = self.ui.send(event);
    }

    pub fn handle(self: &Arc<Self>, action: Action) {
        let action = match action {
            Action::Prompt(text) | Action::Steer(text) | Action::FollowUp(text)
                if text.starts_with('!') =>
            {
                let (command, exclude) = match text.strip_prefix("!!") {
                    Some(rest) => (rest.to_string(), true),
                    None => (text[1..].to_string(), false),
                };
                let this = Arc::clone(self);
                tokio::spawn(async move { this.user_shell(command, exclude).await });
                return;
            }
            other => other,
        };
        match action {
            Action::Attach(paths) => crate::sync::lock(&self.images).extend(paths),
            Action::Prompt(text) => self.submit(self.message(text), Queue::Steer),
            Action::Steer(text) => self.submit(self.message(text), Queue::Steer),
            Action::FollowUp(text) => self.submit(self.message(text), Queue::FollowUp),
            Action::Abort => self.abort(),
            Action::Command { name, args } => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.command(&name, &args).await });
            }
            Action::Picked { kind, value } => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.picked(kind, &value).await });
            }
            Action::PickerEdit { kind, value, edit } => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.picker_edit(kind, &value, edit).await });
            }
            Action::PasteImage => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.paste_image().await });
            }
            Action::CycleModel { forward } => self.cycle_model(forward),
            Action::CycleThinking => self.cycle_thinking(),
            Action::Shortcut { plugin, key } => {
                let this = Arc::clone(self);
                tokio::spawn(async move { this.shortcut(&plugin, &key).await });
            }
            Action::Complete { seq, query } => {
                let start = {
                    let mut queue = crate::sync::lock(&self.completions.queue);
                    queue.0 = Some((seq, query));
                    !std::mem::replace(&mut queue.1, true)
                };
                if start {
                    let this = Arc::clone(self);
                    tokio::spawn(async move { this.complete_queued().await });
                }
            }
            Action::EditorInput {
                plugin,
                input,
                width,
            } => self.editor_input(plugin, input, width),
            Action::Render {
                key,
                columns,
                query,
            } => self.render_later(key, columns, query),
            Action::Quit => {}
        }
    }

    /// The editor's text with the images pasted for it; an image the model cannot take, or a
    /// file that cannot be read, is left out with a note.
    fn message(&self, text: String) -> Vec<Content> {
        let paths = std::mem::take(&mut *crate::sync::lock(&self.images));
        let mut content = vec![Content::text(text)];
        if paths.is_empty() {
            return content;
        }
        let model = self.front.agent.config().model;
        if !model.input.contains(&tack_core::agent::InputKind::Image) {
            self.send(UiEvent::Notify {
                plugin: "tack".into(),
                level: tack_core::event::NoticeLevel::Warn,
                message: format!(
                    "model '{}' does not accept images; {} image(s) left out",
                    model.id,
                    paths.len()
                ),
            });
            return content;
        }
        for path in paths {
            match crate::modes::file_args::read_image(&path) {
                Ok(image) => content.push(Content::Image(image)),
                Err(e) => self.send(UiEvent::Error(format!("{e:#}; the image is left out"))),
            }
        }
        content
    }

    /// A message from the editor: the prompt of a new run when idle; queued for the running
    /// one otherwise.
    pub(super) fn submit(self: &Arc<Self>, content: Vec<Content>, queue: Queue) {
        self.driver
            .submit(content, Some(queue), |submitted| match submitted {
                Submitted::Started | Submitted::Queued(_) | Submitted::ShuttingDown => {}
                Submitted::Running | Submitted::Busy(_) => self.send(UiEvent::Error(
                    "tack is busy (compacting or changing the session); send it again when done"
                        .into(),
                )),
                Submitted::Ending { finished, content } => {
                    let this = Arc::clone(self);
                    tokio::spawn(async move {
                        finished.cancelled().await;
                        this.submit(content, queue);
                    });
                }
            });
    }

    /// Esc: stops the run or the compaction; running tools are cancelled, open dialogs close
    /// with their defaults, and queued messages go back to the editor rather than being lost.
    pub fn abort(&self) {
        self.stop_shell();
        self.driver.abort(|steering, follow_up| {
            let queued: Vec<String> = steering
                .iter()
                .chain(&follow_up)
                .filter(|m| matches!(m, Message::User(_)))
                .map(Message::preview_text)
                .collect();
            if !queued.is_empty() {
                self.send(UiEvent::EditorText(queued.join("\n\n")));
            }
        });
    }

    /// Marks the agent busy with non-run work, unless it already is.
    pub async fn occupy(&self, kind: BusyKind) -> anyhow::Result<Busy> {
        self.driver.occupy(kind).await.map_err(|busy| {
            anyhow::anyhow!(if busy == BusyKind::Running {
                "the agent is running; wait, or press Esc to abort it first"
            } else {
                "tack is busy; wait until it is done"
            })
        })
    }

    pub fn release(&self, work: &Busy) {
        self.driver.release(work);
    }
}
