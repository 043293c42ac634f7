//! Sessions: where they are stored, `tack sessions` (list the saved ones) and `tack import
//! <file>` (bring in a Pi session); changing the session in the interactive modes, its
//! statistics, and exporting it.

pub mod change;
pub mod export;
pub mod export_html;
pub mod stats;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use tack_core::session::{import_pi, SessionOptions, SessionStore, SessionSummary};
use tack_core::text::human_size;
use tack_packages::Home;

use crate::settings::SessionSettings;

/// tack's sessions, and Pi's beside them: listed, continued with `-c` and resumed in place.
/// tack's sessions (in `session_dir` alone when `--session-dir` names one) and Pi's.
pub fn store(home: &Home, session_dir: Option<&Path>, settings: &SessionSettings) -> SessionStore {
    let store = SessionStore::new(home.root()).with_options(SessionOptions {
        fsync: settings.fsync.unwrap_or(false),
    });
    if let Some(dir) = session_dir {
        return store.with_session_dir(dir.to_path_buf());
    }
    match pi_agent_dir() {
        Some(dir) => store.with_pi_sessions(dir.join("sessions")),
        None => store,
    }
}

/// Pi's agent folder, as Pi finds it: `PI_CODING_AGENT_DIR` (a leading `~` meaning the home
/// folder), else `~/.pi/agent`.
fn pi_agent_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match std::env::var("PI_CODING_AGENT_DIR") {
        Ok(dir) if !dir.is_empty() => match dir.strip_prefix('~') {
            Some(rest) => Some(home?.join(rest.trim_start_matches('/'))),
            None => Some(PathBuf::from(dir)),
        },
        _ => Some(home?.join(".pi/agent")),
    }
}

/// `tack sessions [--all]`.
pub fn list(all: bool, session_dir: Option<&Path>) -> Result<ExitCode> {
    let home = Home::locate()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let store = store(&home, session_dir, &SessionSettings::default());
    let sessions = if all {
        store.list_all()?
    } else {
        store.list(&cwd)?
    };
    if sessions.is_empty() {
        let place = if all { "anywhere" } else { "in this directory" };
        println!("No sessions {place} yet.");
    } else {
        print!("{}", format_list(&sessions, None, all));
    }
    Ok(ExitCode::SUCCESS)
}

/// `tack import <file>`.
pub fn import(file: &Path) -> Result<ExitCode> {
    let home = Home::locate()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let store = SessionStore::new(home.root());
    let imported = import_pi(file, &store, &cwd)?;
    for warning in &imported.warnings {
        eprintln!("tack: warning: {}: {warning}", file.display());
    }
    let session = &imported.session;
    let path = session.path().map(|p| p.display().to_string());
    println!(
        "Imported {} entries of a Pi session (format version {}) as session {}\n  {}\n\
         Continue it with: tack -r {}",
        imported.entries,
        imported.pi_version,
        session.id(),
        path.unwrap_or_default(),
        short_id(session.id()),
    );
    Ok(ExitCode::SUCCESS)
}

/// What a session is about, for lists and pickers: the first non-blank line of its first
/// message, clipped.
pub fn first_line(session: &SessionSummary) -> String {
    session
        .first_message
        .as_deref()
        .and_then(|m| m.lines().find(|l| !l.trim().is_empty()))
        .map(|l| clip(l.trim(), 60))
        .unwrap_or_else(|| "(no message yet)".into())
}

/// One line a session: short id, creation date, size, and its first message. `current` marks
/// the open session; `with_cwd` adds each session's directory.
pub fn format_list(sessions: &[SessionSummary], current: Option<&str>, with_cwd: bool) -> String {
    let mut out = String::new();
    for s in sessions {
        let marker = if current == Some(s.id.as_str()) {
            '*'
        } else {
            ' '
        };
        let first = first_line(s);
        out.push_str(&format!(
            "{marker} {}  {}  {:>9}  {first}",
            short_id(&s.id),
            date(&s.created),
            human_size(s.size),
        ));
        if with_cwd {
            out.push_str(&format!("  [{}]", s.cwd));
        }
        out.push('\n');
    }
    out
}

/// Session ids are UUIDv7, whose first characters are a timestamp; the first 13 (to the second
/// dash) are unique in practice and what `tack -r` needs.
pub fn short_id(id: &str) -> &str {
    id.get(..13).unwrap_or(id)
}

/// `2025-01-10T09:00:00.000Z` → `2025-01-10 09:00`.
fn date(rfc3339: &str) -> String {
    rfc3339.get(..16).unwrap_or(rfc3339).replacen('T', " ", 1)
}

pub fn clip(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_dates_and_ids_are_short() {
        assert_eq!(human_size(900), "900 B");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(100 * 1024 * 1024), "100.0 MiB");
        assert_eq!(date("2025-01-10T09:00:00.000Z"), "2025-01-10 09:00");
        assert_eq!(
            short_id("0194517a-5c3e-7000-8000-00000000a11c"),
            "0194517a-5c3e"
        );
        assert_eq!(clip("abcdef", 4), "abc…");
    }
}
