//! Keeping a script executable across an atomic rewrite.
//!
//! Replacing a file by renaming a new one over it gives it default permission bits, and WASI
//! can neither read nor set them. Losing `+x` on `./gradlew` or `scripts/build.sh` breaks the
//! very next command, so for files that start with `#!` (the executables an agent edits) the
//! bit is checked before and restored after, through the host's exec capability. Elsewhere
//! (native builds) std's permissions do the same directly.

use std::path::Path;

/// Whether `content` is a script whose executable bit is worth preserving.
pub fn is_script(content: &[u8]) -> bool {
    content.starts_with(b"#!")
}

/// Whether the file at `path` is executable; `None` when that cannot be found out.
pub fn is_executable(path: &Path) -> Option<bool> {
    imp::is_executable(path)
}

/// Makes the file at `path` executable; the error says why it could not be.
pub fn make_executable(path: &Path) -> Result<(), String> {
    imp::make_executable(path)
}

#[cfg(target_family = "wasm")]
mod imp {
    use std::path::Path;
    use std::time::Duration;

    use crate::truncate::shell_quote;

    const TIMEOUT: Duration = Duration::from_secs(10);

    fn quoted(path: &Path) -> Option<String> {
        path.to_str().map(shell_quote)
    }

    pub fn is_executable(path: &Path) -> Option<bool> {
        let command = format!("test -x {}", quoted(path)?);
        let output = tack_sdk::exec::run(&command, Some(TIMEOUT)).ok()?;
        match output.code {
            Some(0) => Some(true),
            Some(1) => Some(false),
            _ => None,
        }
    }

    pub fn make_executable(path: &Path) -> Result<(), String> {
        let command = format!(
            "chmod +x {}",
            quoted(path).ok_or("the path is not valid UTF-8")?
        );
        let output =
            tack_sdk::exec::run(&command, Some(TIMEOUT)).map_err(|e| e.message().to_string())?;
        if output.success() {
            Ok(())
        } else {
            Err(output.stderr.trim().to_string())
        }
    }
}

#[cfg(not(target_family = "wasm"))]
mod imp {
    use std::path::Path;

    #[cfg(unix)]
    pub fn is_executable(path: &Path) -> Option<bool> {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode();
        Some(mode & 0o111 != 0)
    }

    #[cfg(not(unix))]
    pub fn is_executable(_path: &Path) -> Option<bool> {
        Some(false)
    }

    #[cfg(unix)]
    pub fn make_executable(path: &Path) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        let mut perms = std::fs::metadata(path)
            .map_err(|e| e.to_string())?
            .permissions();
        // Execute wherever read is allowed, as `chmod +x` does under the usual umask.
        let mode = perms.mode();
        perms.set_mode(mode | ((mode & 0o444) >> 2));
        std::fs::set_permissions(path, perms).map_err(|e| e.to_string())
    }

    #[cfg(not(unix))]
    pub fn make_executable(_path: &Path) -> Result<(), String> {
        Ok(())
    }
}
