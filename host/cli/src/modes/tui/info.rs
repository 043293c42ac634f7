//! Facts the UI shows: the footer's model, working directory and git branch, the files `@`
//! completes; and keeping stderr off the screen while the UI owns the terminal.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Once;

use tack_tui::FooterInfo;

use crate::start::AgentSession;

/// Files listed for `@` completion at most; a huge tree is cut rather than walked for long.
const MAX_FILES: usize = 20_000;
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", "dist", "build", "__pycache__"];

/// What the footer shows of the front end's state.
pub fn footer(front: &AgentSession) -> FooterInfo {
    let config = front.agent.config();
    FooterInfo {
        model: format!("{}/{}", config.model.provider, config.model.id),
        thinking: Some(config.reasoning.as_str().to_string()),
        cwd: short_path(&front.loaded.cwd),
        git_branch: tack_runtime::git::branch(&front.loaded.cwd),
        context_window: config.model.context_window,
        session_name: front.session.lock().name().map(str::to_string),
    }
}

/// `cwd` with the home directory as `~`.
pub fn short_path(cwd: &Path) -> String {
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        if let Ok(rest) = cwd.strip_prefix(&home) {
            return if rest.as_os_str().is_empty() {
                "~".into()
            } else {
                format!("~/{}", rest.display())
            };
        }
    }
    cwd.display().to_string()
}

/// The workspace's files, relative, skipping hidden and build directories.
pub fn list_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_ref()) {
                    stack.push(path);
                }
            } else if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.display().to_string());
                if out.len() >= MAX_FILES {
                    return out;
                }
            }
        }
    }
    out.sort();
    out
}

/// While alive, what is written to stderr (logs, warnings, a plugin's output) goes to a file
/// instead of over the UI; dropping it puts stderr back.
pub struct StderrToFile {
    _private: (),
}

/// The real stderr while redirected (-1 when not), for the panic hook.
static SAVED_STDERR: AtomicI32 = AtomicI32::new(-1);

/// Puts the real stderr back; the panic hook calls it so that a panic's message reaches the
/// terminal rather than the log.
fn put_back_stderr() {
    let saved = SAVED_STDERR.swap(-1, Ordering::SeqCst);
    if saved >= 0 {
        // SAFETY: `saved` is the descriptor dup'ed in `redirect`, still open and ours.
        unsafe {
            libc::dup2(saved, 2);
            libc::close(saved);
        }
    }
}

impl StderrToFile {
    pub fn redirect(path: &Path) -> StderrToFile {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                put_back_stderr();
                previous(info);
            }));
        });
        let saved = File::create(path).ok().and_then(|file| {
            // SAFETY: dup and dup2 only copy file descriptors; fd 2 stays valid throughout, and
            // `file` outlives the dup2 that copies it.
            unsafe {
                let saved = libc::dup(2);
                if saved < 0 {
                    return None;
                }
                if libc::dup2(file.as_raw_fd(), 2) < 0 {
                    libc::close(saved);
                    return None;
                }
                Some(saved)
            }
        });
        if let Some(saved) = saved {
            SAVED_STDERR.store(saved, Ordering::SeqCst);
        }
        StderrToFile { _private: () }
    }
}

impl Drop for StderrToFile {
    fn drop(&mut self) {
        put_back_stderr();
    }
}
