//! `tack plugin dev <dir>`: the edit-build-try loop of a plugin author. The plugin is built
//! (its `build.sh`), and tack runs with it loaded (`--plugin <dir>`). When its component
//! changes (a rebuild from the editor or another terminal), or `/reload` is typed (which
//! rebuilds first), tack starts again on the same session with the new component, so the
//! conversation carries on.
//!
//! The new component runs in a fresh tack process rather than being swapped into the running
//! one: everything that came from the old one (tools the model was given, hooks, commands,
//! open dialogs, the plugin's instances and their memory) goes with it, which no in-process
//! swap could promise.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::{bail, Context, Result};

/// The exit status of a tack child asking to be rebuilt and started again (`/reload`).
pub const RELOAD_EXIT_CODE: u8 = 75;
/// Set in the child: where it writes its session file's path when it ends.
pub const STATE_VAR: &str = "TACK_DEV_STATE";
/// How often the component's file is looked at.
const POLL: Duration = Duration::from_millis(300);

pub async fn run(dir: &Path, args: &[String]) -> Result<ExitCode> {
    let dir = std::fs::canonicalize(dir)
        .with_context(|| format!("no plugin folder at {}", dir.display()))?;
    let manifest = tack_packages::contents::read_manifest(&dir)?;
    let component = dir.join(&manifest.plugin.component);
    let state = tempfile::Builder::new()
        .prefix("tack-dev-")
        .tempfile()
        .context("creating the dev session's state file")?
        .into_temp_path();
    let exe = std::env::current_exe().context("locating the tack binary")?;

    build(&dir)?;
    let mut session: Option<String> = None;
    loop {
        if !component.is_file() {
            bail!(
                "{} does not exist after the build; tack.toml names it as the component",
                component.display()
            );
        }
        let seen = stamp(&component);
        let mut child = tokio::process::Command::new(&exe);
        child
            .arg("--plugin")
            .arg(&dir)
            .args(session.iter().flat_map(|s| ["-r", s.as_str()]))
            .args(args)
            .env(STATE_VAR, &*state);
        let mut child = child.spawn().context("starting tack")?;
        let ended = loop {
            tokio::select! {
                status = child.wait() => break Ended::Exited(status.context("waiting for tack")?),
                () = tokio::time::sleep(POLL) => {
                    if stamp(&component) != seen {
                        // The author rebuilt: let the UI restore the terminal and complete the
                        // session, as on any signal.
                        terminate(&mut child);
                        child.wait().await.context("waiting for tack")?;
                        break Ended::Changed;
                    }
                }
            }
        };
        if let Ok(text) = std::fs::read_to_string(&state) {
            let text = text.trim();
            if !text.is_empty() {
                session = Some(text.to_owned());
            }
        }
        match ended {
            Ended::Exited(status) if status.code() == Some(i32::from(RELOAD_EXIT_CODE)) => {
                eprintln!("tack plugin dev: rebuilding {}", dir.display());
                if let Err(e) = build(&dir) {
                    // The old component is still there: carry on with it, the error shown.
                    eprintln!("tack plugin dev: {e:#}; starting again with the last build");
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
            }
            Ended::Exited(status) => {
                return Ok(match status.code() {
                    Some(0) => ExitCode::SUCCESS,
                    Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
                    None => ExitCode::FAILURE,
                });
            }
            Ended::Changed => {
                eprintln!(
                    "tack plugin dev: {} changed; starting again",
                    component.display()
                );
                // A build still writing the file shows as several changes: wait for it to settle.
                settle(&component).await;
            }
        }
    }
}

enum Ended {
    Exited(std::process::ExitStatus),
    /// The component changed; tack was stopped for it.
    Changed,
}

/// Runs the package's `build.sh`, if it has one, in its folder, with the output on the
/// terminal so compile errors show.
fn build(dir: &Path) -> Result<()> {
    let script = dir.join("build.sh");
    if !script.is_file() {
        return Ok(());
    }
    eprintln!("tack plugin dev: sh build.sh in {}", dir.display());
    let status = std::process::Command::new("sh")
        .arg("build.sh")
        .current_dir(dir)
        .status()
        .context("running build.sh")?;
    if !status.success() {
        bail!("build.sh failed ({status})");
    }
    Ok(())
}

/// What tells a rebuilt component from the one loaded.
fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

async fn settle(path: &Path) {
    let mut last = stamp(path);
    for _ in 0..20 {
        tokio::time::sleep(POLL).await;
        let now = stamp(path);
        if now == last && now.is_some() {
            return;
        }
        last = now;
    }
}

#[cfg(unix)]
fn terminate(child: &mut tokio::process::Child) {
    if let Some(pid) = child.id().and_then(|id| i32::try_from(id).ok()) {
        // SAFETY: kill(2) with a pid of our own child, which `child` keeps from being reaped.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
}

#[cfg(not(unix))]
fn terminate(child: &mut tokio::process::Child) {
    let _ = child.start_kill();
}

/// In a tack started by `tack plugin dev`: the file to write the session's path into.
pub fn state_file() -> Option<PathBuf> {
    std::env::var_os(STATE_VAR).map(PathBuf::from)
}
