//! The terminal UI's [`Screen`]: dialogs open as overlays and wait for the user; notifications,
//! status segments, widgets and run failures go to the screen, and the footer is redrawn when a
//! run is over.

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use tack_core::event::NoticeLevel;
use tack_core::event::UiRequest;
use tack_protocol::CloseReason;
use tack_runtime::{ComponentFrame, ComponentPlacement, ScreenRead, ScreenSetting};
use tack_tui::{ComponentRequest, DialogAnswer, DialogRequest, UiEvent};
use tokio::sync::{mpsc, oneshot};

use crate::modes::driver::{
    ComponentWait, InteractiveServices, Screen, ScreenReadWait, SessionMove,
};
use crate::start::AgentSession;

pub type TuiServices = InteractiveServices<TuiScreen>;

/// How long a plugin's read of the screen waits for the UI to answer.
const SCREEN_READ_WAIT: Duration = Duration::from_secs(1);

pub struct TuiScreen {
    ui: mpsc::UnboundedSender<UiEvent>,
    /// What the footer shows, once the agent exists (plugins are loaded before it). Weak, as
    /// the state holds the plugins, which hold this screen.
    front: OnceLock<Weak<AgentSession>>,
    /// Shared with the controller: set when the UI ends to start again (`/reload`).
    reload: Arc<std::sync::atomic::AtomicBool>,
    /// New sessions plugins ask for, made by the controller as `/new` makes one.
    moves: mpsc::UnboundedSender<SessionMove>,
}

impl TuiScreen {
    pub fn new(
        ui: mpsc::UnboundedSender<UiEvent>,
        reload: Arc<std::sync::atomic::AtomicBool>,
        moves: mpsc::UnboundedSender<SessionMove>,
    ) -> Self {
        TuiScreen {
            ui,
            front: OnceLock::new(),
            reload,
            moves,
        }
    }

    pub fn attach(&self, front: &Arc<AgentSession>) {
        let _ = self.front.set(Arc::downgrade(front));
    }

    fn send(&self, event: UiEvent) {
        // The UI is gone only while tack shuts down; there is nobody to show anything to then.
        let _ = self.ui.send(event);
    }
}

impl Screen for TuiScreen {
    type Answer = DialogAnswer;

    fn show_dialog(
        &self,
        id: &str,
        plugin: &str,
        dialog: UiRequest,
        reply: oneshot::Sender<DialogAnswer>,
    ) {
        self.send(UiEvent::Dialog(DialogRequest {
            id: id.to_string(),
            plugin: plugin.to_string(),
            kind: dialog,
            reply,
            masked: false,
        }));
    }

    fn dialog_timed_out(&self, id: &str) {
        self.send(UiEvent::DialogClosed(id.to_string()));
    }

    /// Every open dialog ends with its default: the overlay drops its reply.
    fn close_dialogs(&self, _reason: CloseReason) {
        self.send(UiEvent::CloseDialogs);
    }

    fn is_cancelled(answer: &DialogAnswer) -> bool {
        *answer == DialogAnswer::Cancelled
    }

    fn confirmed(answer: DialogAnswer) -> bool {
        answer == DialogAnswer::Confirmed(true)
    }

    fn selected(answer: DialogAnswer, _options: &[String]) -> Option<u32> {
        match answer {
            DialogAnswer::Selected(index) => u32::try_from(index).ok(),
            _ => None,
        }
    }

    fn text(answer: DialogAnswer) -> Option<String> {
        match answer {
            DialogAnswer::Text(text) => Some(text),
            _ => None,
        }
    }

    fn quit(&self, plugin: &str) {
        tracing::info!(plugin, "a plugin ended tack");
        self.notify("tack", NoticeLevel::Info, &format!("{plugin} ended tack"));
        self.send(UiEvent::Shutdown);
    }

    fn reloads(&self) -> bool {
        true
    }

    fn reload(&self, plugin: &str) {
        tracing::info!(plugin, "a plugin reloaded tack");
        self.reload.store(true, std::sync::atomic::Ordering::SeqCst);
        self.send(UiEvent::Shutdown);
    }

    fn session_moves(&self) -> Option<&tokio::sync::mpsc::UnboundedSender<SessionMove>> {
        Some(&self.moves)
    }

    fn notify(&self, plugin: &str, level: NoticeLevel, message: &str) {
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

    fn set_widget(
        &self,
        plugin: &str,
        key: &str,
        lines: &[String],
        placement: tack_runtime::WidgetPlacement,
    ) {
        self.send(UiEvent::Widget {
            plugin: plugin.to_string(),
            key: key.to_string(),
            lines: lines.to_vec(),
            below: placement == tack_runtime::WidgetPlacement::BelowEditor,
        });
    }

    fn set_title(&self, _plugin: &str, title: &str) {
        self.send(UiEvent::Title(title.to_string()));
    }

    fn set_editor_text(&self, _plugin: &str, text: &str, paste: bool) {
        self.send(UiEvent::SetEditorText {
            text: text.to_string(),
            paste,
        });
    }

    fn set_working_message(&self, _plugin: &str, message: Option<&str>) {
        self.send(UiEvent::WorkingMessage(message.map(str::to_string)));
    }

    fn show_component(
        &self,
        plugin: &str,
        lines: Vec<String>,
        wait: Duration,
        placement: ComponentPlacement,
    ) -> Option<ComponentWait> {
        let (reply, answer) = oneshot::channel();
        self.send(UiEvent::Component(ComponentRequest {
            plugin: plugin.to_string(),
            lines,
            overlay: placement == ComponentPlacement::Overlay,
            wait,
            reply,
        }));
        Some(Box::pin(async move {
            // The UI dropped the frame unanswered only while it goes away.
            let Ok(answer) = answer.await else {
                return ComponentFrame::closed();
            };
            ComponentFrame {
                width: answer.width.into(),
                height: answer.height.into(),
                input: answer.input,
            }
        }))
    }

    fn set_screen(&self, plugin: &str, setting: ScreenSetting) {
        self.send(UiEvent::Screen {
            plugin: plugin.to_string(),
            setting,
        });
    }

    fn read_screen(&self, what: ScreenRead) -> Option<ScreenReadWait> {
        let (reply, answer) = oneshot::channel();
        self.send(UiEvent::ReadScreen { what, reply });
        // The UI answers within a frame while it runs. Before its loop starts (a plugin's
        // `init` or first `session_start`) or while the user is in their external editor, it
        // cannot, and a plugin waiting for it must not hold up what the UI waits for.
        Some(Box::pin(async move {
            tokio::time::timeout(SCREEN_READ_WAIT, answer)
                .await
                .ok()?
                .ok()
        }))
    }

    fn set_shortcut(&self, plugin: &str, key: &str, description: Option<&str>) {
        self.send(UiEvent::Shortcut {
            plugin: plugin.to_string(),
            key: key.to_string(),
            description: description.map(str::to_string),
        });
    }

    fn themes(&self) -> Vec<String> {
        match self.front.get().and_then(Weak::upgrade) {
            Some(front) => tack_tui::Theme::names(&front.loaded.theme_dirs),
            None => Vec::new(),
        }
    }

    fn set_theme(&self, plugin: &str, name: &str) -> Result<(), String> {
        let Some(front) = self.front.get().and_then(Weak::upgrade) else {
            return Err("tack has not started its terminal UI yet".to_string());
        };
        let dirs = &front.loaded.theme_dirs;
        if !tack_tui::Theme::names(dirs).iter().any(|n| n == name) {
            return Err(format!("there is no theme called '{name}'"));
        }
        let palette = tack_tui::Theme::palette(name, dirs).map_err(|e| {
            // The reason names the theme's file; a plugin is told only that it could not be
            // read, and the user sees the whole reason.
            self.notify(plugin, NoticeLevel::Warn, &e);
            format!("the theme '{name}' cannot be read")
        })?;
        tracing::info!(plugin, theme = name, "a plugin changed the theme");
        self.send(UiEvent::Palette {
            name: name.to_string(),
            palette,
        });
        Ok(())
    }

    fn close_component(&self, plugin: &str) {
        self.send(UiEvent::ComponentClosed(plugin.to_string()));
    }

    fn set_footer(&self, plugin: &str, footer: Option<(&str, &str)>) {
        self.send(UiEvent::PluginFooter {
            plugin: plugin.to_string(),
            footer: footer.map(|(l, r)| (l.to_string(), r.to_string())),
        });
    }

    fn run_failed(&self, message: String) {
        self.send(UiEvent::Error(message));
    }

    fn run_finished(&self) {
        if let Some(front) = self.front.get().and_then(Weak::upgrade) {
            self.send(UiEvent::Footer(super::info::footer(&front)));
        }
    }
}
