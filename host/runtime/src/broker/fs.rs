//! Filesystem grants become preopened directories. The guest sees each at the same absolute path
//! as on the host, so paths mean the same thing inside and out; cap-std underneath refuses `..`,
//! absolute paths outside a preopen and symlinks that leave it.

use std::path::{Path, PathBuf};

use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use crate::manifest::{Access, FsGrant};

#[derive(Debug, thiserror::Error)]
pub enum FsGrantError {
    #[error("cannot preopen {path}: {message}")]
    Preopen { path: String, message: String },
}

/// Resolves `$WORKSPACE[/sub]` or an absolute path.
pub fn resolve(grant: &FsGrant, workspace: &Path) -> PathBuf {
    match grant.path.strip_prefix("$WORKSPACE") {
        Some(rest) => workspace.join(rest.trim_start_matches('/')),
        None => PathBuf::from(&grant.path),
    }
}

/// A directory a plugin may use, at its canonical path: a grant given through a symlink still
/// names one real directory.
#[derive(Debug, Clone)]
pub struct GrantedDir {
    pub path: PathBuf,
    pub access: Access,
}

/// The directories a plugin may use: its fs grants, then its own data directory (read-write).
/// Resolved once per plugin, shared by every instance's preopens and by the `files` calls.
pub fn granted_dirs(
    grants: &[FsGrant],
    workspace: &Path,
    data_dir: Option<&Path>,
) -> Result<Vec<GrantedDir>, FsGrantError> {
    let mut dirs = Vec::with_capacity(grants.len() + 1);
    for grant in grants {
        dirs.push(GrantedDir {
            path: canonical(&resolve(grant, workspace))?,
            access: grant.access,
        });
    }
    if let Some(dir) = data_dir {
        dirs.push(GrantedDir {
            path: canonical(dir)?,
            access: Access::ReadWrite,
        });
    }
    Ok(dirs)
}

fn canonical(host: &Path) -> Result<PathBuf, FsGrantError> {
    let err = |message: String| FsGrantError::Preopen {
        path: host.display().to_string(),
        message,
    };
    let canonical = host.canonicalize().map_err(|e| err(e.to_string()))?;
    if canonical.to_str().is_none() {
        return Err(err("path is not valid UTF-8".into()));
    }
    Ok(canonical)
}

/// Preopens each directory at the same path inside the guest.
pub fn preopen(builder: &mut WasiCtxBuilder, dirs: &[GrantedDir]) -> Result<(), FsGrantError> {
    for dir in dirs {
        let perms = match dir.access {
            Access::Read => FsPerms::ReadOnly,
            Access::ReadWrite => FsPerms::ReadWrite,
        };
        let err = |message: String| FsGrantError::Preopen {
            path: dir.path.display().to_string(),
            message,
        };
        let guest = dir
            .path
            .to_str()
            .ok_or_else(|| err("path is not valid UTF-8".into()))?;
        builder
            .preopened_dir(&dir.path, guest, perms)
            .map_err(|e| err(e.to_string()))?;
    }
    Ok(())
}
