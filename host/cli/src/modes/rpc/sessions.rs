//! Changing the session: `new_session`, `switch_session`, `fork`, `clone`, `set_session_name`,
//! the RPC replies around [`crate::sessions::change`].

use anyhow::{bail, Result};
use serde_json::json;
use tack_core::message::Message;
use tack_core::session::{EntryKind, Session};
use tack_protocol::SessionRef;
use tack_runtime::bridge::{MoveCancelled, SwitchReason};

use super::server::{data, occupied, Reply, Server};
use crate::modes::driver::{BusyKind, MoveTo, Screen, SessionMove};
use crate::sessions;
use crate::start::Lifecycle;

impl Server {
    /// A fresh session; `parentSession` (a session file) is recorded in its header, as Pi does.
    pub async fn new_session(&self, parent_session: Option<String>) -> Reply {
        if let Some(parent) = &parent_session {
            if !std::path::Path::new(parent).is_file() {
                bail!("parentSession {parent:?} is not a session file");
            }
        }
        let hooks = self.front.plugin_hooks();
        if let Err(why) = hooks.before_switch(SwitchReason::New, None).await {
            return self.cancelled(why);
        }
        self.change(Lifecycle::New, |server| {
            let session = sessions::change::create_child(
                &server.front.cli,
                &server.front.loaded,
                &server.front.store,
                parent_session,
            )?;
            Ok((session, None))
        })
        .await
    }

    /// A session move a plugin asked for (`control.new-session`, `fork`, `switch-session`),
    /// made as `new_session`, `fork` and `switch_session` make one; the client hears of it from
    /// the events of the change.
    pub async fn plugin_session_move(self: std::sync::Arc<Self>, asked: SessionMove) {
        let moved = match &asked.to {
            MoveTo::New { .. } => self.new_session(asked.parent(&self.front.session)).await,
            MoveTo::Fork {
                entry_id,
                at: false,
            } => self.fork(entry_id).await,
            MoveTo::Fork { entry_id, at: true } => self.fork_at(entry_id).await,
            MoveTo::Switch { session } => {
                match crate::modes::driver::plugin_switch_target(
                    &self.front.store,
                    &self.front.loaded.cwd,
                    session,
                ) {
                    Ok(path) => {
                        self.switch_session(Some(path.display().to_string()), None)
                            .await
                    }
                    Err(e) => Err(e),
                }
            }
            MoveTo::Tree {
                entry_id,
                summarize,
                focus,
            } => self.tree_move(entry_id, *summarize, focus.as_deref()).await,
        };
        if let Err(e) = moved {
            eprintln!("tack: {}'s session move: {e:#}", asked.plugin);
        }
    }

    /// `control.navigate-tree`: the move the user's `/tree` makes (with the plugins'
    /// `session_before_tree` and `session_tree`). A user message is moved before, and its text
    /// goes to the client's editor (Pi's `set_editor_text`), as Pi's `navigateTree` leaves it.
    async fn tree_move(&self, entry_id: &str, summarize: bool, focus: Option<&str>) -> Reply {
        let (target, edit) = {
            let session = self.front.session.lock();
            match session.entry(entry_id).map(|e| (&e.kind, &e.parent_id)) {
                Some((EntryKind::Message(m), Some(parent))) => match m.as_ref() {
                    Message::User(user) => (parent.clone(), Some(user.text_content())),
                    _ => (entry_id.to_string(), None),
                },
                _ => (entry_id.to_string(), None),
            }
        };
        let line = format!("/tree {}", MoveTo::tree_args(&target, summarize, focus));
        let work = self
            .driver
            .occupy(BusyKind::HostCommand)
            .await
            .map_err(occupied)?;
        let moved = crate::commands::host::run(
            &self.front.agent,
            &self.front.plugin_hooks(),
            &self.front.store,
            &self.front.loaded.cwd,
            &line,
            work.cancel.clone(),
        )
        .await;
        self.driver.release(&work);
        match moved {
            Some(Ok(_)) => {
                if let Some(text) = edit {
                    self.services.screen.set_editor_text("tack", &text, false);
                }
                Ok(None)
            }
            Some(Err(e)) => Err(e),
            None => Err(anyhow::anyhow!("{line} is not a command")),
        }
    }

    /// A new session holding the conversation up to and with entry `entry_id` (Pi's fork at
    /// position `at`).
    pub async fn fork_at(&self, entry_id: &str) -> Reply {
        if let Err(why) = self.front.plugin_hooks().before_fork(entry_id, true).await {
            return self.cancelled(why);
        }
        self.change(Lifecycle::Fork, |server| {
            let s = server.front.session.lock();
            if s.entry(entry_id).is_none() {
                bail!("the session has no entry {entry_id:?}");
            }
            Ok((server.front.store.fork(&s, entry_id)?, None))
        })
        .await
    }

    pub async fn switch_session(&self, path: Option<String>, id: Option<String>) -> Reply {
        let arg = match (path, id) {
            (Some(arg), None) | (None, Some(arg)) => arg,
            _ => bail!("give either sessionPath or sessionId"),
        };
        let (session, warnings) =
            sessions::change::open(&self.front.loaded, &self.front.store, &arg)?;
        for w in warnings {
            eprintln!("tack: warning: {w}");
        }
        let hooks = self.front.plugin_hooks();
        if let Err(why) = hooks
            .before_switch(SwitchReason::Resume, Some(session.id()))
            .await
        {
            return self.cancelled(why);
        }
        self.change(Lifecycle::Resume, move |_| Ok((session, None)))
            .await
    }

    /// A new session holding the conversation before the user message `entry_id`; the message's
    /// text comes back so the client can edit and resend it.
    pub async fn fork(&self, entry_id: &str) -> Reply {
        if let Err(why) = self.front.plugin_hooks().before_fork(entry_id, false).await {
            return self.cancelled(why);
        }
        self.change(Lifecycle::Fork, |server| {
            let s = server.front.session.lock();
            match sessions::change::fork(&server.front.loaded, &server.front.store, &s, entry_id)? {
                Some((forked, text)) => Ok((forked, Some(text))),
                None => bail!("entry {entry_id:?} is not a user message (see get_fork_messages)"),
            }
        })
        .await
    }

    /// A new session holding the whole active branch, which goes on there.
    pub async fn clone_session(&self) -> Reply {
        let leaf = self.front.session.lock().leaf_id().map(str::to_owned);
        if let Some(leaf) = &leaf {
            if let Err(why) = self.front.plugin_hooks().before_fork(leaf, true).await {
                return self.cancelled(why);
            }
        }
        self.change(Lifecycle::Fork, |server| {
            let s = server.front.session.lock();
            let cloned = match s.leaf_id() {
                Some(leaf) => server.front.store.fork(&s, leaf)?,
                None => sessions::change::create(
                    &server.front.cli,
                    &server.front.loaded,
                    &server.front.store,
                )?,
            };
            Ok((cloned, None))
        })
        .await
    }

    pub fn set_session_name(&self, name: &str) -> Reply {
        let name = name.trim();
        if name.is_empty() {
            bail!("the session name is empty");
        }
        self.front.session.lock().append(EntryKind::SessionInfo {
            name: Some(name.to_string()),
        })?;
        data(json!({ "name": name }))
    }

    /// Replaces the session with the one `make` opens (and the text it returns for the client),
    /// while no run can start.
    async fn change(
        &self,
        reason: Lifecycle,
        make: impl FnOnce(&Self) -> Result<(Session, Option<String>)>,
    ) -> Reply {
        let work = self
            .driver
            .occupy(BusyKind::ChangingSession)
            .await
            .map_err(occupied)?;
        let result = match make(self) {
            Ok((session, text)) => self.swap(session, reason).await.map(|()| text),
            Err(e) => Err(e),
        };
        self.driver.release(&work);
        let text = result?;
        let s = self.front.session.lock();
        data(SessionRef {
            cancelled: false,
            session_id: s.id().to_string(),
            session_file: s.path().map(|p| p.display().to_string()),
            text,
        })
    }

    /// A plugin's `session-hooks` said no: as Pi answers, `cancelled: true` with the session
    /// unchanged; the reason, naming the plugin, goes to stderr.
    fn cancelled(&self, why: MoveCancelled) -> Reply {
        eprintln!("tack: {why}");
        let s = self.front.session.lock();
        data(SessionRef {
            cancelled: true,
            session_id: s.id().to_string(),
            session_file: s.path().map(|p| p.display().to_string()),
            text: None,
        })
    }

    async fn swap(&self, session: Session, reason: Lifecycle) -> Result<()> {
        self.front
            .replace_session(&self.services.inbox, session, reason, |warning| {
                eprintln!("tack: warning: {warning}")
            })
            .await
    }
}
