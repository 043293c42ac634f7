//! Replacing a file's contents so that a crash at any point leaves either the old file or the new
//! one, never a mix: the new bytes go to a temporary file in the same directory (same filesystem,
//! so the rename cannot turn into a copy), which is then renamed over the target. The temporary
//! file gets the old file's permission bits first (see `mode`).

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::mode;
use crate::truncate::shell_quote;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces the file at `path` atomically, keeping its permission bits when it `exists`.
/// Returns a note for the model when they could not be kept.
pub fn replace_file(
    path: &Path,
    shown: &str,
    data: &[u8],
    exists: bool,
) -> io::Result<Option<String>> {
    let mode = exists.then(|| mode::permissions(path));
    let (tmp, mut file) = create_temp(path)?;
    let mut note = None;
    match mode {
        // Before any content goes in, so a private file's new bytes are never readable by others.
        Some(Ok(bits)) => {
            if let Err(e) = mode::set_permissions(&tmp, bits) {
                note = Some(format!(
                    "[Could not give the new content the file's permissions ({bits:o}): {e}. \
                     Check them with `ls -l {}`.]",
                    shell_quote(shown)
                ));
            }
        }
        Some(Err(e)) => {
            note = Some(format!(
                "[Could not read the file's permissions ({e}), so the rewrite may have changed \
                 them. Check them with `ls -l {}`.]",
                shell_quote(shown)
            ));
        }
        None => {}
    }
    let written = file
        .write_all(data)
        .and_then(|()| file.flush())
        // Without this a power loss after the rename can leave an empty file on some filesystems.
        .and_then(|()| file.sync_data());
    drop(file);
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        // Best effort: the error that matters is the one being returned.
        let _ = std::fs::remove_file(&tmp);
    }
    renamed.map(|()| note)
}

fn create_temp(path: &Path) -> io::Result<(PathBuf, std::fs::File)> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    // Several plugin instances may write into one directory at once; `create_new` plus a fresh
    // name per attempt makes each temporary file private to its writer.
    let mut last_err = None;
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.tack-{nanos:x}-{n}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_err = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last_err.unwrap_or_else(|| io::Error::other("could not create a temporary file")))
}
