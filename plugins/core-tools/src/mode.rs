//! Keeping a file's permission bits across an atomic rewrite.
//!
//! Replacing a file by renaming a new one over it would give it default permission bits: a
//! `0600` secrets file would become readable by everyone, `./gradlew` would lose `+x`. WASI can
//! neither read nor set modes, so inside the sandbox this goes through the host's `files`
//! interface, which checks the path against the same grants as the rest of the filesystem.
//! Elsewhere (native tests) std does it directly.

use std::path::Path;

/// The Unix permission bits of the file at `path`.
pub fn permissions(path: &Path) -> Result<u32, String> {
    imp::permissions(path)
}

/// Sets the permission bits of the file at `path` (only the `0o777` bits).
pub fn set_permissions(path: &Path, mode: u32) -> Result<(), String> {
    imp::set_permissions(path, mode & 0o777)
}

#[cfg(target_family = "wasm")]
mod imp {
    use std::path::Path;

    fn text(path: &Path) -> Result<&str, String> {
        path.to_str()
            .ok_or_else(|| "the path is not valid UTF-8".to_string())
    }

    pub fn permissions(path: &Path) -> Result<u32, String> {
        tack_sdk::files::permissions(text(path)?)
    }

    pub fn set_permissions(path: &Path, mode: u32) -> Result<(), String> {
        tack_sdk::files::set_permissions(text(path)?, mode)
    }
}

#[cfg(all(not(target_family = "wasm"), unix))]
mod imp {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    pub fn permissions(path: &Path) -> Result<u32, String> {
        let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
        Ok(meta.permissions().mode() & 0o7777)
    }

    pub fn set_permissions(path: &Path, mode: u32) -> Result<(), String> {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .map_err(|e| e.to_string())
    }
}

#[cfg(all(not(target_family = "wasm"), not(unix)))]
mod imp {
    use std::path::Path;

    pub fn permissions(_path: &Path) -> Result<u32, String> {
        Ok(0o644)
    }

    pub fn set_permissions(_path: &Path, _mode: u32) -> Result<(), String> {
        Ok(())
    }
}
