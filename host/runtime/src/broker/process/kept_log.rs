//! The file a kept process's output goes to: `kept/<name>` in the plugin's data folder, which
//! the plugin can read and write itself. So nothing it left there may redirect the host: the
//! folder is opened without following a link, and the file is created new beneath it (never
//! opened where something already is, link or not). The host writes only there, and only what
//! the plugin's own command printed.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The folder below the data folder that holds kept processes' output.
const FOLDER: &str = "kept";

/// Creates `kept/<name>` below `data_dir` for writing (appending, owner-only); its descriptor
/// and path.
pub(super) fn create(data_dir: &Path, name: &str) -> std::io::Result<(OwnedFd, PathBuf)> {
    if name.contains('/') || name.starts_with('.') {
        return Err(std::io::Error::other(format!("`{name}` is no file name")));
    }
    let root = open_dir(libc::AT_FDCWD, data_dir.as_os_str().as_bytes(), true)?;
    let folder = c_string(FOLDER.as_bytes())?;
    // SAFETY: mkdirat with a directory we hold open and a NUL-terminated name.
    if unsafe { libc::mkdirat(root.as_raw_fd(), folder.as_ptr(), 0o700) } != 0 {
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::AlreadyExists {
            return Err(error);
        }
    }
    let folder_fd = open_dir(root.as_raw_fd(), FOLDER.as_bytes(), false)?;
    let file = c_string(name.as_bytes())?;
    // SAFETY: openat with a directory we hold open and a NUL-terminated name; the descriptor
    // it returns is ours alone.
    let fd = unsafe {
        libc::openat(
            folder_fd.as_raw_fd(),
            file.as_ptr(),
            libc::O_WRONLY
                | libc::O_CREAT
                | libc::O_EXCL
                | libc::O_NOFOLLOW
                | libc::O_APPEND
                | libc::O_CLOEXEC,
            0o600 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and nothing else owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    Ok((fd, data_dir.join(FOLDER).join(name)))
}

/// Opens a directory below `at`; a link in its last component is followed only when `follow`
/// (the data folder's own path is the host's; what is below it is the plugin's).
fn open_dir(at: libc::c_int, path: &[u8], follow: bool) -> std::io::Result<OwnedFd> {
    let path = c_string(path)?;
    let mut flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    // SAFETY: openat with a NUL-terminated path; the descriptor it returns is ours alone.
    let fd = unsafe { libc::openat(at, path.as_ptr(), flags) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn c_string(bytes: &[u8]) -> std::io::Result<CString> {
    CString::new(bytes).map_err(|_| std::io::Error::other("a path holds a NUL byte"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_the_plugin_left_redirects_nothing() {
        let data = tempfile::tempdir().expect("data dir");
        let elsewhere = tempfile::tempdir().expect("elsewhere");
        let (_, path) = create(data.path(), "1-1.log").expect("a first log");
        assert_eq!(path, data.path().join("kept/1-1.log"));
        // A link where the next file will be: refused, and nothing written through it.
        let target = elsewhere.path().join("bashrc");
        std::os::unix::fs::symlink(&target, data.path().join("kept/2-2.log")).expect("link");
        assert!(create(data.path(), "2-2.log").is_err());
        assert!(!target.exists());
        // The folder swapped for a link: refused.
        std::fs::remove_dir_all(data.path().join("kept")).expect("rm");
        std::os::unix::fs::symlink(elsewhere.path(), data.path().join("kept")).expect("link");
        assert!(create(data.path(), "3-3.log").is_err());
        assert!(!elsewhere.path().join("3-3.log").exists());
        assert!(create(data.path(), "../x").is_err());
    }
}
