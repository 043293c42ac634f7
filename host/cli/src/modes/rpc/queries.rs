//! Read-only commands: `get_state`, `get_messages`, `get_fork_messages`, `get_session_stats`,
//! `get_last_assistant_text`.

use serde_json::json;
use tack_core::message::Message;
use tack_core::session::EntryKind;
use tack_protocol::{ForkMessage, Messages, ProjectFiles, State};

use super::server::{data, Reply, Server};
use crate::sync::lock;

impl Server {
    pub fn state(&self) -> Reply {
        let config = self.front.agent.config();
        let (pending_steering, pending_follow_up) = self.front.agent.queues().len();
        // Taken before the session lock: elsewhere the busy slot is locked first, then the
        // session.
        let is_streaming = self.driver.is_running();
        let is_compacting = self.compacting.load(std::sync::atomic::Ordering::SeqCst);
        let is_bash_running = lock(&self.bash).is_some();
        let (steering_mode, follow_up_mode) = self.queue_modes();
        let auto_retry_enabled = self.auto_retry_enabled();
        let s = self.front.session.lock();
        data(State {
            model: Some(config.model.into()),
            thinking_level: config.reasoning.as_str().to_string(),
            is_streaming,
            is_compacting,
            steering_mode,
            follow_up_mode,
            session_file: s.path().map(|p| p.display().to_string()),
            session_id: s.id().to_string(),
            session_name: s.name().map(str::to_string),
            auto_compaction_enabled: self.auto_compaction(),
            message_count: s.projection().len(),
            pending_message_count: pending_steering + pending_follow_up,
            auto_retry_enabled,
            is_bash_running,
            pending_steering,
            pending_follow_up,
            context_files: self.front.loaded.startup.context_files.clone(),
            project_files: ProjectFiles {
                used: self.front.loaded.startup.project_files.used.clone(),
                ignored: self.front.loaded.startup.project_files.ignored.clone(),
            },
        })
    }

    pub fn messages(&self) -> Reply {
        let messages = self.front.session.lock().project();
        data(Messages {
            messages: messages.iter().map(|m| (**m).clone()).collect(),
        })
    }

    /// The user messages of the active branch, each a place `fork` can start from.
    pub fn fork_messages(&self) -> Reply {
        let s = self.front.session.lock();
        let messages: Vec<ForkMessage> = s
            .branch()
            .into_iter()
            .filter_map(|entry| match &entry.kind {
                EntryKind::Message(message) => match message.as_ref() {
                    Message::User(user) => Some(ForkMessage {
                        entry_id: entry.id.clone(),
                        text: user.text_content(),
                    }),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        data(json!({ "messages": messages }))
    }

    pub fn session_stats(&self) -> Reply {
        data(crate::sessions::stats::of(&self.front.session.lock()))
    }

    pub fn last_assistant_text(&self) -> Reply {
        let text = self.front.session.lock().last_assistant_text();
        data(json!({ "text": text }))
    }
}
