//! Replacing a file's contents so that a crash at any point leaves either the old file or the new
//! one, never a mix: the new bytes go to a temporary file in the same directory (same filesystem,
//! so the rename cannot turn into a copy), which is then renamed over the target.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::mode;
use crate::truncate::shell_quote;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces the file at `path` (whose old content begins with `old_head`, when it exists)
/// atomically, keeping a script executable. Returns a note for the model when the executable
/// bit may have been lost.
pub fn replace_file(
    path: &Path,
    shown: &str,
    data: &[u8],
    old_head: Option<&[u8]>,
) -> io::Result<Option<String>> {
    let script = old_head.is_some_and(mode::is_script);
    let was_executable = if script {
        mode::is_executable(path)
    } else {
        Some(false)
    };
    write_atomic(path, data)?;
    let chmod = format!("chmod +x {}", shell_quote(shown));
    Ok(match was_executable {
        Some(true) => mode::make_executable(path).err().map(|e| {
            format!(
                "[The file was executable, and restoring that after the rewrite failed ({e}); \
                 run `{chmod}`.]"
            )
        }),
        Some(false) => None,
        None => Some(format!(
            "[Could not check whether this script was executable, so the rewrite may have \
             dropped its executable bit; if it was executable, run `{chmod}`.]"
        )),
    })
}

/// Writes `data` to `path` atomically. The parent directory must exist.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    let (tmp, mut file) = create_temp(path)?;
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
    renamed
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
