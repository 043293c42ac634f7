//! What plugins reach in the terminal UI. Dialogs open as overlays and wait for the user (or
//! their timeout, or an abort); notifications, status segments and widgets go to the screen;
//! messages a plugin sends are delivered as the WIT `delivery` says, starting a turn when the
//! agent is idle. The session and tool registry are the CLI's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tack_runtime::api::Level;
use tack_runtime::HostServices;
use tack_tui::{DialogAnswer, DialogKind, DialogRequest, UiEvent};
use tokio::sync::{mpsc, oneshot};

use crate::inbox::Inbox;
use crate::services::{delegate_session_and_agent, notice_level, CliServices};

pub struct TuiServices {
    cli: Arc<CliServices>,
    ui: mpsc::UnboundedSender<UiEvent>,
    /// Once shutting down, dialogs resolve to their defaults without asking.
    closed: AtomicBool,
    /// Messages plugins send the agent.
    pub inbox: Inbox,
}

impl TuiServices {
    pub fn new(
        cli: Arc<CliServices>,
        ui: mpsc::UnboundedSender<UiEvent>,
        wake: mpsc::UnboundedSender<()>,
    ) -> Self {
        TuiServices {
            cli,
            ui,
            closed: AtomicBool::new(false),
            inbox: Inbox::new(wake),
        }
    }

    /// Every open dialog ends with its default (an abort).
    pub fn close_dialogs(&self) {
        self.send(UiEvent::CloseDialogs);
    }

    /// From now on dialogs are not shown: nobody is left to answer them.
    pub fn shut(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.close_dialogs();
    }

    fn send(&self, event: UiEvent) {
        // The UI is gone only while tack shuts down; there is nobody to show anything to then.
        let _ = self.ui.send(event);
    }

    /// Shows a dialog and waits for the answer; `None` when it closed unanswered.
    async fn ask(
        &self,
        plugin: &str,
        kind: DialogKind,
        timeout_ms: Option<u32>,
    ) -> Option<DialogAnswer> {
        if self.closed.load(Ordering::SeqCst) {
            return None;
        }
        let id = uuid::Uuid::now_v7().to_string();
        let (reply, answer) = oneshot::channel();
        self.send(UiEvent::Dialog(DialogRequest {
            id: id.clone(),
            plugin: plugin.to_string(),
            kind,
            reply,
        }));
        let answer = match timeout_ms {
            None => answer.await.ok(),
            Some(ms) => {
                match tokio::time::timeout(Duration::from_millis(ms.into()), answer).await {
                    Ok(answer) => answer.ok(),
                    Err(_) => {
                        self.send(UiEvent::DialogClosed(id));
                        None
                    }
                }
            }
        };
        answer.filter(|a| *a != DialogAnswer::Cancelled)
    }
}

#[async_trait::async_trait]
impl HostServices for TuiServices {
    async fn confirm(
        &self,
        plugin: &str,
        title: &str,
        message: &str,
        timeout_ms: Option<u32>,
    ) -> bool {
        let kind = DialogKind::Confirm {
            title: title.to_string(),
            message: message.to_string(),
        };
        matches!(
            self.ask(plugin, kind, timeout_ms).await,
            Some(DialogAnswer::Confirmed(true))
        )
    }

    async fn select(
        &self,
        plugin: &str,
        title: &str,
        options: &[String],
        timeout_ms: Option<u32>,
    ) -> Option<u32> {
        let kind = DialogKind::Select {
            title: title.to_string(),
            options: options.to_vec(),
        };
        match self.ask(plugin, kind, timeout_ms).await? {
            DialogAnswer::Selected(index) if index < options.len() => u32::try_from(index).ok(),
            _ => None,
        }
    }

    async fn input(
        &self,
        plugin: &str,
        title: &str,
        placeholder: &str,
        timeout_ms: Option<u32>,
    ) -> Option<String> {
        let kind = DialogKind::Input {
            title: title.to_string(),
            placeholder: placeholder.to_string(),
        };
        match self.ask(plugin, kind, timeout_ms).await? {
            DialogAnswer::Text(text) => Some(text),
            _ => None,
        }
    }

    fn notify(&self, plugin: &str, level: Level, message: &str) {
        let level = notice_level(level);
        self.send(UiEvent::Notify {
            plugin: plugin.to_string(),
            level,
            message: message.to_string(),
        });
    }

    fn set_status(&self, plugin: &str, key: &str, text: Option<&str>) {
        self.send(UiEvent::Status {
            plugin: plugin.to_string(),
            key: key.to_string(),
            text: text.map(str::to_string),
        });
    }

    fn set_widget(&self, plugin: &str, key: &str, lines: &[String]) {
        self.send(UiEvent::Widget {
            plugin: plugin.to_string(),
            key: key.to_string(),
            lines: lines.to_vec(),
        });
    }

    delegate_session_and_agent!();
}
