//! Changing the session: `new_session`, `switch_session`, `fork`, `set_session_name`. The
//! session handle the agent and plugins share stays the same; what it holds is replaced, and
//! plugins see `session_end` for the old session and `session_start` for the new one.

use anyhow::{bail, Context, Result};
use serde_json::json;
use tack::rpc_protocol::SessionRef;
use tack_core::message::Message;
use tack_core::session::{EntryKind, Session};
use tack_runtime::api::EventKind;

use super::server::{data, BusyKind, Reply, Server};
use crate::app;

impl Server {
    pub async fn new_session(&self) -> Reply {
        self.change(|server| {
            let session = if server.cli.no_session {
                Session::in_memory(&server.loaded.cwd)
            } else {
                server
                    .store
                    .create(&server.loaded.cwd)
                    .context("cannot create a session file")?
            };
            Ok((session, None))
        })
        .await
    }

    pub async fn switch_session(&self, path: Option<String>, id: Option<String>) -> Reply {
        let arg = match (path, id) {
            (Some(arg), None) | (None, Some(arg)) => arg,
            _ => bail!("give either sessionPath or sessionId"),
        };
        self.change(|server| {
            let path = server
                .store
                .resolve(&server.loaded.cwd, &arg)
                .with_context(|| format!("cannot find session '{arg}'"))?;
            let (session, warnings) = server
                .store
                .open(&path)
                .with_context(|| format!("cannot open session {}", path.display()))?;
            for w in warnings {
                eprintln!("tack: warning: {}: skipped {w}", path.display());
            }
            Ok((session, None))
        })
        .await
    }

    /// A new session holding the conversation before the user message `entry_id`; the message's
    /// text comes back so the client can edit and resend it.
    pub async fn fork(&self, entry_id: &str) -> Reply {
        self.change(|server| {
            let s = server.session.lock();
            let entry = s
                .entry(entry_id)
                .with_context(|| format!("the session has no entry {entry_id:?}"))?;
            let EntryKind::Message(message) = &entry.kind else {
                bail!("entry {entry_id:?} is not a user message (see get_fork_points)");
            };
            let Message::User(user) = message.as_ref() else {
                bail!("entry {entry_id:?} is not a user message (see get_fork_points)");
            };
            let forked = match &entry.parent_id {
                Some(parent) => server.store.fork(&s, parent)?,
                // Nothing comes before it: the fork starts empty.
                None if s.is_persistent() => server.store.create(&server.loaded.cwd)?,
                None => Session::in_memory(&server.loaded.cwd),
            };
            Ok((forked, Some(user.text_content())))
        })
        .await
    }

    pub fn set_session_name(&self, name: &str) -> Reply {
        let name = name.trim();
        if name.is_empty() {
            bail!("the session name is empty");
        }
        self.session.lock().append(EntryKind::SessionInfo {
            name: Some(name.to_string()),
        })?;
        data(json!({ "name": name }))
    }

    /// Replaces the session with the one `make` opens (and the text it returns for the client),
    /// while no run can start.
    async fn change(&self, make: impl FnOnce(&Self) -> Result<(Session, Option<String>)>) -> Reply {
        let work = self.occupy(BusyKind::ChangingSession).await?;
        let result = match make(self) {
            Ok((session, text)) => self.swap(session).await.map(|()| text),
            Err(e) => Err(e),
        };
        self.release(&work);
        let text = result?;
        let s = self.session.lock();
        data(SessionRef {
            session_id: s.id().to_string(),
            session_file: s.path().map(|p| p.display().to_string()),
            text,
        })
    }

    async fn swap(&self, session: Session) -> Result<()> {
        app::session_event(&self.loaded, EventKind::SessionEnd, &self.session).await;
        self.session.replace(session);
        // Queued messages belonged to the old conversation.
        self.agent.queues().clear();
        self.services.take_next_turn();
        let adopted = self.adopt_session_model();
        app::session_event(&self.loaded, EventKind::SessionStart, &self.session).await;
        adopted
    }
}
