//! `/export [file.html|file.jsonl]` and `tack export <session> [out]`: the HTML page of
//! [`crate::sessions::export_html`], or the active branch as a session file of its own (Pi's v3 format,
//! so `tack --session` and `pi --session` open it).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use tack_core::session::Session;

use crate::sessions::short_id;

/// Writes `session` to `output` (relative to `cwd`), by its extension: `.jsonl` is the active
/// branch as a session file, anything else the HTML page. Without `output`, the page goes to
/// `cwd` as `tack-session-<id>.html`. Returns where it went.
pub fn export(session: &Session, output: Option<&Path>, cwd: &Path) -> Result<PathBuf> {
    let path = match output {
        Some(path) => cwd.join(path),
        None => cwd.join(format!("tack-session-{}.html", short_id(session.id()))),
    };
    if path.extension().is_some_and(|e| e == "jsonl") {
        let leaf = session
            .leaf_id()
            .ok_or_else(|| anyhow!("the session is empty: nothing to export"))?;
        if path.exists() {
            bail!(
                "{} exists; a session file is never overwritten (choose another name)",
                path.display()
            );
        }
        session
            .fork(Some(path.clone()), leaf)
            .with_context(|| format!("cannot write {}", path.display()))?;
        return Ok(path);
    }
    crate::sessions::export_html::write(session, Some(&path), cwd)
}

/// `tack export <session> [out]`: a saved session (id, id prefix or path) exported without
/// opening it for a run.
pub fn run(
    session: &str,
    output: Option<&Path>,
    session_dir: Option<&Path>,
) -> Result<std::process::ExitCode> {
    let home = tack_packages::Home::locate()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let store = crate::sessions::store(&home, session_dir, &Default::default());
    let path = store.resolve(&cwd, session)?;
    let (session, warnings) = store.open_copy(&path)?;
    for warning in warnings {
        eprintln!("tack: warning: {}: {warning}", path.display());
    }
    let written = export(&session, output, &cwd)?;
    println!(
        "Exported session {} to {}",
        short_id(session.id()),
        written.display()
    );
    Ok(std::process::ExitCode::SUCCESS)
}
