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

pub fn preopen(
    builder: &mut WasiCtxBuilder,
    grants: &[FsGrant],
    workspace: &Path,
    data_dir: Option<&Path>,
) -> Result<(), FsGrantError> {
    for grant in grants {
        let host = resolve(grant, workspace);
        let perms = match grant.access {
            Access::Read => FsPerms::ReadOnly,
            Access::ReadWrite => FsPerms::ReadWrite,
        };
        open(builder, &host, perms)?;
    }
    if let Some(dir) = data_dir {
        open(builder, dir, FsPerms::ReadWrite)?;
    }
    Ok(())
}

fn open(builder: &mut WasiCtxBuilder, host: &Path, perms: FsPerms) -> Result<(), FsGrantError> {
    let err = |message: String| FsGrantError::Preopen {
        path: host.display().to_string(),
        message,
    };
    // Preopen the canonical path: a grant given through a symlink still names one real directory.
    let canonical = host.canonicalize().map_err(|e| err(e.to_string()))?;
    let guest = canonical
        .to_str()
        .ok_or_else(|| err("path is not valid UTF-8".into()))?
        .to_string();
    builder
        .preopened_dir(&canonical, guest, perms)
        .map_err(|e| err(e.to_string()))?;
    Ok(())
}
