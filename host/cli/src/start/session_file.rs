//! The session file a run opens: `--no-session` keeps it in memory; `--fork` copies another
//! (read, not locked: forking is how to go on from a session another process holds);
//! `--resume` and `--continue` open one; else a new one.

use anyhow::{Context, Result};
use tack_core::session::{Session, SessionStore};

use super::load::Loaded;
use crate::cli::Cli;

pub(super) fn open(cli: &Cli, loaded: &Loaded, store: &SessionStore) -> Result<Session> {
    if cli.no_session {
        return Ok(Session::in_memory(&loaded.cwd));
    }
    if let Some(arg) = &cli.fork {
        let path = store
            .resolve(&loaded.cwd, arg)
            .with_context(|| format!("cannot find session '{arg}' to fork"))?;
        // Read, not locked: forking is how to go on from a session another process holds.
        let (source, warnings) = store
            .open_copy(&path)
            .with_context(|| format!("cannot open session {}", path.display()))?;
        for w in warnings {
            eprintln!("tack: warning: {}: {}", path.display(), w.report());
        }
        let Some(leaf) = source.leaf_id().map(str::to_owned) else {
            // Nothing to copy: a fork of an empty session is a new session.
            return store
                .create(&loaded.cwd)
                .context("cannot create a session file");
        };
        return store
            .fork(&source, &leaf)
            .with_context(|| format!("cannot fork session {}", path.display()));
    }
    let path = if let Some(arg) = &cli.resume {
        Some(
            store
                .resolve(&loaded.cwd, arg)
                .with_context(|| format!("cannot find session '{arg}'"))?,
        )
    } else if cli.continue_session {
        store.most_recent(&loaded.cwd)?.map(|s| s.path)
    } else {
        None
    };
    match path {
        Some(path) => {
            let (session, warnings) = store
                .open(&path)
                .with_context(|| format!("cannot open session {}", path.display()))?;
            for w in warnings {
                eprintln!("tack: warning: {}: {}", path.display(), w.report());
            }
            Ok(session)
        }
        None => store
            .create(&loaded.cwd)
            .context("cannot create a session file"),
    }
}
