//! RPC mode's [`Screen`]: dialogs go to the client as Pi's `extension_ui_request` events and wait
//! for its `extension_ui_response` (routed here by id); notifications, status segments and widgets
//! are fire-and-forget `extension_ui_request`s; run failures become `error` events.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tack_core::event::{AgentEvent, NoticeLevel};
// The plugin's dialog; the protocol's `UiRequest` is the line that carries it to the client.
use tack_core::event::UiRequest as Dialog;
use tack_protocol::{
    CloseReason, NotifyType, RpcEvent, UiMethod, UiRequest, UiResponse, WidgetPlacement,
};
use tokio::sync::oneshot;

use super::output::Output;
use crate::modes::driver::{InteractiveServices, Screen, SessionMove};
use crate::sync::lock;

pub type RpcServices = InteractiveServices<RpcScreen>;

pub struct RpcScreen {
    out: Output,
    /// Open dialogs by id.
    dialogs: Mutex<HashMap<String, oneshot::Sender<UiResponse>>>,
    /// Set when a run's end is out (shared with the event lines, which set it on `agent_end`).
    run_ended: Arc<AtomicBool>,
    /// Numbers the fire-and-forget requests (dialogs have the driver's ids).
    shown: AtomicU64,
    /// Cancelled when a plugin ends tack (`control.shutdown`): the server stops reading.
    quit: tokio_util::sync::CancellationToken,
    /// New sessions plugins ask for, made by the server as `new_session` makes one.
    moves: tokio::sync::mpsc::UnboundedSender<SessionMove>,
}

impl RpcScreen {
    pub fn new(
        out: Output,
        run_ended: Arc<AtomicBool>,
        moves: tokio::sync::mpsc::UnboundedSender<SessionMove>,
    ) -> Self {
        RpcScreen {
            out,
            dialogs: Mutex::default(),
            run_ended,
            shown: AtomicU64::new(0),
            quit: tokio_util::sync::CancellationToken::new(),
            moves,
        }
    }

    /// Cancelled once a plugin ended tack.
    pub fn quitting(&self) -> tokio_util::sync::CancellationToken {
        self.quit.clone()
    }

    /// Sends a request that expects no answer.
    fn show(&self, plugin: &str, method: UiMethod) {
        let n = self.shown.fetch_add(1, Ordering::Relaxed);
        self.out.send(&RpcEvent::ExtensionUiRequest(UiRequest {
            id: format!("show-{n}"),
            plugin: plugin.to_string(),
            method,
        }));
    }

    /// Routes the client's answer to its dialog.
    pub fn answer(&self, response: UiResponse) -> Result<(), String> {
        let sender = lock(&self.dialogs).remove(&response.id);
        match sender {
            // The plugin may have stopped waiting in the meantime; nothing is left to do then.
            Some(sender) => {
                let _ = sender.send(response);
                Ok(())
            }
            None => Err(format!(
                "no open dialog has id {:?} (answered already, or closed)",
                response.id
            )),
        }
    }
}

impl Screen for RpcScreen {
    type Answer = UiResponse;

    fn show_dialog(
        &self,
        id: &str,
        plugin: &str,
        dialog: Dialog,
        reply: oneshot::Sender<UiResponse>,
    ) {
        lock(&self.dialogs).insert(id.to_string(), reply);
        let method = match dialog {
            Dialog::Confirm {
                title,
                message,
                timeout_ms,
            } => UiMethod::Confirm {
                title,
                message,
                timeout: timeout_ms,
            },
            Dialog::Select {
                title,
                options,
                timeout_ms,
            } => UiMethod::Select {
                title,
                options,
                timeout: timeout_ms,
            },
            Dialog::Input {
                title,
                placeholder,
                timeout_ms,
            } => UiMethod::Input {
                title,
                placeholder: (!placeholder.is_empty()).then_some(placeholder),
                timeout: timeout_ms,
            },
        };
        self.out.send(&RpcEvent::ExtensionUiRequest(UiRequest {
            id: id.to_string(),
            plugin: plugin.to_string(),
            method,
        }));
    }

    fn dialog_timed_out(&self, id: &str) {
        if lock(&self.dialogs).remove(id).is_some() {
            self.out.send(&RpcEvent::ExtensionUiClosed {
                id: id.to_string(),
                reason: CloseReason::Timeout,
            });
        }
    }

    /// Removes a dialog whose plugin call went away before it was answered.
    fn dialog_over(&self, id: &str) {
        lock(&self.dialogs).remove(id);
    }

    /// Resolves every open dialog to its default and tells the client it closed.
    fn close_dialogs(&self, reason: CloseReason) {
        let open: Vec<String> = lock(&self.dialogs).drain().map(|(id, _)| id).collect();
        for id in open {
            self.out.send(&RpcEvent::ExtensionUiClosed { id, reason });
        }
    }

    fn is_cancelled(answer: &UiResponse) -> bool {
        answer.cancelled
    }

    fn confirmed(answer: UiResponse) -> bool {
        answer
            .confirmed
            .or(answer.value.as_ref().and_then(Value::as_bool))
            .unwrap_or(false)
    }

    fn selected(answer: UiResponse, options: &[String]) -> Option<u32> {
        // The client may name the option by its index or by its text.
        match answer.value? {
            Value::Number(n) => u32::try_from(n.as_u64()?).ok(),
            Value::String(text) => u32::try_from(options.iter().position(|o| *o == text)?).ok(),
            _ => None,
        }
    }

    fn text(answer: UiResponse) -> Option<String> {
        match answer.value? {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    fn quit(&self, plugin: &str) {
        eprintln!("tack: {plugin} ended tack");
        self.quit.cancel();
    }

    fn session_moves(&self) -> Option<&tokio::sync::mpsc::UnboundedSender<SessionMove>> {
        Some(&self.moves)
    }

    fn notify(&self, plugin: &str, level: NoticeLevel, message: &str) {
        let notify_type = match level {
            NoticeLevel::Debug | NoticeLevel::Info => NotifyType::Info,
            NoticeLevel::Warn => NotifyType::Warning,
            NoticeLevel::Error => NotifyType::Error,
        };
        self.show(
            plugin,
            UiMethod::Notify {
                message: message.to_string(),
                notify_type,
            },
        );
    }

    fn set_status(&self, plugin: &str, key: &str, text: Option<&str>) {
        self.show(
            plugin,
            UiMethod::SetStatus {
                status_key: key.to_string(),
                status_text: text.map(str::to_string),
            },
        );
    }

    fn set_widget(
        &self,
        plugin: &str,
        key: &str,
        lines: &[String],
        placement: tack_runtime::WidgetPlacement,
    ) {
        let placement = match placement {
            tack_runtime::WidgetPlacement::AboveEditor => WidgetPlacement::AboveEditor,
            tack_runtime::WidgetPlacement::BelowEditor => WidgetPlacement::BelowEditor,
        };
        self.show(
            plugin,
            UiMethod::SetWidget {
                widget_key: key.to_string(),
                // Plain, as every text a plugin sends a client: the terminal UI alone draws
                // a widget's colours.
                widget_lines: (!lines.is_empty()).then(|| {
                    lines
                        .iter()
                        .map(|l| tack_core::text::strip_styles(l).into_owned())
                        .collect()
                }),
                widget_placement: Some(placement),
            },
        );
    }

    fn set_title(&self, plugin: &str, title: &str) {
        self.show(
            plugin,
            UiMethod::SetTitle {
                title: title.to_string(),
            },
        );
    }

    /// Pi's RPC mode has no cursor to paste at: a paste sets the text, as Pi's does.
    fn set_editor_text(&self, plugin: &str, text: &str, _paste: bool) {
        self.show(
            plugin,
            UiMethod::SetEditorText {
                text: text.to_string(),
            },
        );
    }

    fn input_handled(&self) {
        // No `agent_end` follows a handled input: this event ends the run for clients, so the
        // state they ask for next must say so.
        self.run_ended.store(true, Ordering::SeqCst);
        self.out.send(&RpcEvent::InputHandled);
    }

    fn run_failed(&self, message: String) {
        self.out.send(&AgentEvent::Error { message });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Duration;

    use tack_runtime::PluginUi;
    use tokio::sync::mpsc;

    use crate::start::inbox::Inbox;
    use tack_runtime::AgentServices;

    /// What the services wrote, as the client would read it.
    #[derive(Clone, Default)]
    struct Written(Arc<Mutex<Vec<u8>>>);

    impl Write for Written {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            lock(&self.0).extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    struct Harness {
        services: Arc<RpcServices>,
        out: Output,
        written: Written,
    }

    impl Harness {
        fn new() -> Harness {
            let written = Written::default();
            let out = Output::start_with(written.clone());
            let (wake, _) = mpsc::unbounded_channel();
            let (moves, _) = mpsc::unbounded_channel();
            let screen = RpcScreen::new(out.clone(), Arc::default(), moves);
            let services = Arc::new(RpcServices::new(
                Arc::new(AgentServices::default()),
                screen,
                Inbox::new(wake),
            ));
            Harness {
                services,
                out,
                written,
            }
        }

        fn events(&self) -> Vec<Value> {
            self.out.flush();
            let bytes = lock(&self.written.0).clone();
            String::from_utf8_lossy(&bytes)
                .lines()
                .map(|l| serde_json::from_str(l).expect("JSON line"))
                .collect()
        }

        /// The id of the n-th dialog request, once it is out.
        async fn request_id(&self, n: usize) -> String {
            for _ in 0..500 {
                let requests: Vec<Value> = self
                    .events()
                    .into_iter()
                    .filter(|e| e["type"] == "extension_ui_request")
                    .collect();
                if let Some(request) = requests.get(n) {
                    return request["id"].as_str().expect("id").to_string();
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("no dialog request {n}: {:?}", self.events());
        }
    }

    fn answer(value: Value) -> UiResponse {
        serde_json::from_value(value).expect("answer")
    }

    #[tokio::test]
    async fn dialogs_wait_for_the_clients_answer() {
        let h = Harness::new();
        let s = h.services.clone();
        let confirm = tokio::spawn(async move { s.confirm("p", "Run?", "rm", None).await });
        let id = h.request_id(0).await;
        h.services
            .screen
            .answer(UiResponse::confirm(&id, true))
            .expect("open dialog");
        assert!(confirm.await.expect("task"));
        let request = &h.events()[0];
        assert_eq!(request["method"], "confirm");
        assert_eq!(request["plugin"], "p");
        assert_eq!(request["message"], "rm");

        let options = vec!["a".to_string(), "b".to_string()];
        let s = h.services.clone();
        let o = options.clone();
        let by_text = tokio::spawn(async move { s.select("p", "Pick", &o, None).await });
        let id = h.request_id(1).await;
        h.services
            .screen
            .answer(answer(
                serde_json::json!({"type": "extension_ui_response", "id": id, "value": "b"}),
            ))
            .expect("open");
        assert_eq!(by_text.await.expect("task"), Some(1));

        let s = h.services.clone();
        let o = options.clone();
        let out_of_range = tokio::spawn(async move { s.select("p", "Pick", &o, None).await });
        let id = h.request_id(2).await;
        h.services
            .screen
            .answer(UiResponse::select_index(&id, 7))
            .expect("open");
        assert_eq!(out_of_range.await.expect("task"), None);

        let s = h.services.clone();
        let input = tokio::spawn(async move { s.input("p", "Name?", "your name", None).await });
        let id = h.request_id(3).await;
        h.services
            .screen
            .answer(UiResponse::input(&id, "Ada"))
            .expect("open");
        assert_eq!(input.await.expect("task").as_deref(), Some("Ada"));

        let s = h.services.clone();
        let cancelled = tokio::spawn(async move { s.input("p", "Name?", "", None).await });
        let id = h.request_id(4).await;
        h.services
            .screen
            .answer(UiResponse::cancel(&id))
            .expect("open");
        assert_eq!(cancelled.await.expect("task"), None);
        assert!(
            h.services.screen.answer(UiResponse::cancel(&id)).is_err(),
            "a dialog is answered once"
        );
    }

    #[tokio::test]
    async fn an_unanswered_dialog_times_out_to_its_default() {
        let h = Harness::new();
        let started = std::time::Instant::now();
        assert!(!h.services.confirm("p", "Run?", "x", Some(50)).await);
        assert!(started.elapsed() >= Duration::from_millis(50));
        let events = h.events();
        let id = &events[0]["id"];
        assert_eq!(events[0]["timeout"], 50);
        assert_eq!(events[1]["type"], "extension_ui_closed");
        assert_eq!(&events[1]["id"], id);
        assert_eq!(events[1]["reason"], "timeout");
    }

    #[tokio::test]
    async fn closing_resolves_open_dialogs_and_shutting_skips_new_ones() {
        let h = Harness::new();
        let s = h.services.clone();
        let open = tokio::spawn(async move { s.confirm("p", "Run?", "x", None).await });
        let id = h.request_id(0).await;
        h.services.screen.close_dialogs(CloseReason::Aborted);
        assert!(!open.await.expect("task"));
        let closed = &h.events()[1];
        assert_eq!(closed["type"], "extension_ui_closed");
        assert_eq!(closed["id"], Value::String(id));
        assert_eq!(closed["reason"], "aborted");

        h.services.shut();
        assert_eq!(h.services.select("p", "t", &["a".into()], None).await, None);
        assert_eq!(h.events().len(), 2, "no request once shut");
    }
}
