//! The sessions the interactive modes change to (a new session, another one, a fork). Putting
//! one in place is [`crate::start::AgentSession::replace_session`]: the handle the agent and
//! plugins share stays the same, and plugins hear of the change from there.

use anyhow::{Context, Result};
use tack_core::message::Message;
use tack_core::session::{EntryKind, Session, SessionStore};

use crate::cli::Cli;
use crate::start::load::Loaded;

/// A new session, kept in memory under `--no-session`.
pub fn create(cli: &Cli, loaded: &Loaded, store: &SessionStore) -> Result<Session> {
    create_child(cli, loaded, store, None)
}

/// A new session whose file header names `parent_session` as its parent. An in-memory session
/// (`--no-session`) has no file to record it in.
pub fn create_child(
    cli: &Cli,
    loaded: &Loaded,
    store: &SessionStore,
    parent_session: Option<String>,
) -> Result<Session> {
    if cli.no_session {
        return Ok(Session::in_memory(&loaded.cwd));
    }
    store
        .create_child(&loaded.cwd, parent_session)
        .context("cannot create a session file")
}

/// The session `arg` names (a path or an id), with a line for each part of the file that could
/// not be read; each mode reports those its own way.
pub fn open(loaded: &Loaded, store: &SessionStore, arg: &str) -> Result<(Session, Vec<String>)> {
    let path = store
        .resolve(&loaded.cwd, arg)
        .with_context(|| format!("cannot find session '{arg}'"))?;
    let (session, warnings) = store
        .open(&path)
        .with_context(|| format!("cannot open session {}", path.display()))?;
    let warnings = warnings
        .iter()
        .map(|w| format!("{}: {}", path.display(), w.report()))
        .collect();
    Ok((session, warnings))
}

/// A new session holding the conversation before the user message `entry_id`, and that
/// message's text; `None` when the entry is not a user message (each mode says where to find
/// one).
pub fn fork(
    loaded: &Loaded,
    store: &SessionStore,
    session: &Session,
    entry_id: &str,
) -> Result<Option<(Session, String)>> {
    let entry = session
        .entry(entry_id)
        .with_context(|| format!("the session has no entry {entry_id:?}"))?;
    let EntryKind::Message(message) = &entry.kind else {
        return Ok(None);
    };
    let Message::User(user) = message.as_ref() else {
        return Ok(None);
    };
    let forked = match &entry.parent_id {
        Some(parent) => store.fork(session, parent)?,
        // Nothing comes before it: the fork starts empty.
        None if session.is_persistent() => store.create(&loaded.cwd)?,
        None => Session::in_memory(&loaded.cwd),
    };
    Ok(Some((forked, user.text_content())))
}
