//! Filesystem grants become preopened directories. The guest sees each at the same absolute path
//! as on the host, so paths mean the same thing inside and out; cap-std underneath refuses `..`,
//! absolute paths outside a preopen and symlinks that leave it.
//!
//! Every directory is resolved and opened once, when the plugin loads; instances share those open
//! handles. A `$WORKSPACE/…` grant must land inside the workspace after its symlinks are followed,
//! and nothing is looked up by path again afterwards, so a link swapped during the session cannot
//! widen what the plugin reaches.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime_wasi::filesystem::WasiFilesystemCtx;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use crate::manifest::{Access, FsGrant};

#[derive(Debug, thiserror::Error)]
pub enum FsGrantError {
    #[error("cannot preopen {path}: {message}")]
    Preopen { path: String, message: String },
    #[error(
        "fs grant '{grant}' resolves to {resolved}, outside the workspace {workspace} (a symlink \
         leads out of it)"
    )]
    OutsideWorkspace {
        grant: String,
        resolved: String,
        workspace: String,
    },
    #[error("{path} changed while it was being opened; not granting it")]
    Changed { path: String },
}

/// Resolves `$WORKSPACE[/sub]` or an absolute path.
pub fn resolve(grant: &FsGrant, workspace: &Path) -> PathBuf {
    match grant.path.strip_prefix("$WORKSPACE") {
        Some(rest) => workspace.join(rest.trim_start_matches('/')),
        None => PathBuf::from(&grant.path),
    }
}

/// A directory a plugin may use, at its canonical path, with the handle it was opened as at load:
/// the `files` interface resolves paths beneath that handle, never beneath the path again.
#[derive(Debug, Clone)]
pub struct GrantedDir {
    pub path: PathBuf,
    pub access: Access,
    pub handle: Arc<std::fs::File>,
}

/// The directories a plugin may use, opened once: for the `files` calls, and as the preopens every
/// new instance starts with.
#[derive(Clone, Default)]
pub struct GrantedDirs {
    pub dirs: Vec<GrantedDir>,
    preopens: WasiFilesystemCtx,
}

impl std::fmt::Debug for GrantedDirs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrantedDirs")
            .field("dirs", &self.dirs)
            .finish_non_exhaustive()
    }
}

impl GrantedDirs {
    /// The preopens for a new instance: clones of the handles opened at load.
    pub fn preopens(&self) -> WasiFilesystemCtx {
        self.preopens.clone()
    }
}

/// The directories a plugin may use: its fs grants, then its own data directory (read-write).
/// `workspace` must already be canonical. `allow_blocking_current_thread` is the instances'
/// setting, which wasmtime keeps with each preopen.
pub fn granted_dirs(
    grants: &[FsGrant],
    workspace: &Path,
    data_dir: Option<&Path>,
    allow_blocking_current_thread: bool,
) -> Result<GrantedDirs, FsGrantError> {
    let mut wanted = Vec::with_capacity(grants.len() + 1);
    for grant in grants {
        let path = canonical(&resolve(grant, workspace))?;
        if grant.path.starts_with("$WORKSPACE") && !path.starts_with(workspace) {
            return Err(FsGrantError::OutsideWorkspace {
                grant: grant.path.clone(),
                resolved: path.display().to_string(),
                workspace: workspace.display().to_string(),
            });
        }
        wanted.push((path, grant.access));
    }
    if let Some(dir) = data_dir {
        wanted.push((canonical(dir)?, Access::ReadWrite));
    }

    let mut builder = WasiCtxBuilder::new();
    builder.allow_blocking_current_thread(allow_blocking_current_thread);
    let mut dirs = Vec::with_capacity(wanted.len());
    for (path, access) in wanted {
        let err = |message: String| FsGrantError::Preopen {
            path: path.display().to_string(),
            message,
        };
        let guest = path
            .to_str()
            .ok_or_else(|| err("path is not valid UTF-8".into()))?;
        let handle =
            cap_primitives::fs::open_ambient_dir(&path, cap_primitives::ambient_authority())
                .map_err(|e| err(e.to_string()))?;
        let perms = match access {
            Access::Read => FsPerms::ReadOnly,
            Access::ReadWrite => FsPerms::ReadWrite,
        };
        builder
            .preopened_dir(&path, guest, perms)
            .map_err(|e| err(e.to_string()))?;
        // wasmtime opens the path itself; both opens must have reached the directory that was
        // resolved (and checked) above, not one swapped in meanwhile.
        if !same_dir(&handle, &path) || canonical(&path)? != path {
            return Err(FsGrantError::Changed {
                path: path.display().to_string(),
            });
        }
        dirs.push(GrantedDir {
            path,
            access,
            handle: Arc::new(handle),
        });
    }
    let mut ctx = builder.build();
    Ok(GrantedDirs {
        dirs,
        preopens: ctx.filesystem().clone(),
    })
}

#[cfg(unix)]
fn same_dir(handle: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (handle.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino() && b.is_dir(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_dir(_handle: &std::fs::File, path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(path: &str) -> FsGrant {
        FsGrant {
            path: path.into(),
            access: Access::Read,
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_workspace_grant_through_a_symlink_that_leaves_is_refused() {
        let root = tempfile::tempdir().expect("tempdir");
        let workspace = root.path().join("ws");
        std::fs::create_dir_all(workspace.join("inside")).expect("mkdir");
        std::os::unix::fs::symlink("../..", workspace.join("docs")).expect("symlink");
        std::os::unix::fs::symlink("inside", workspace.join("alias")).expect("symlink");
        let workspace = workspace.canonicalize().expect("canonical");

        let err = granted_dirs(&[grant("$WORKSPACE/docs")], &workspace, None, true)
            .expect_err("docs -> ../.. leaves the workspace");
        assert!(
            matches!(err, FsGrantError::OutsideWorkspace { .. }),
            "{err}"
        );
        assert!(err.to_string().contains("$WORKSPACE/docs"), "{err}");

        let dirs = granted_dirs(&[grant("$WORKSPACE/alias")], &workspace, None, true)
            .expect("a link that stays inside is fine");
        assert_eq!(dirs.dirs[0].path, workspace.join("inside"));
    }

    #[cfg(unix)]
    #[test]
    fn the_handle_opened_at_load_survives_a_swapped_link() {
        let root = tempfile::tempdir().expect("tempdir");
        let workspace = root.path().join("ws");
        std::fs::create_dir_all(workspace.join("docs")).expect("mkdir");
        std::fs::write(workspace.join("docs/page.md"), "inside").expect("write");
        std::fs::write(root.path().join("page.md"), "outside").expect("write");
        let workspace = workspace.canonicalize().expect("canonical");
        let dirs = granted_dirs(&[grant("$WORKSPACE/docs")], &workspace, None, true).expect("ok");

        std::fs::rename(workspace.join("docs"), workspace.join("moved")).expect("rename");
        std::os::unix::fs::symlink("..", workspace.join("docs")).expect("symlink");

        let file = cap_primitives::fs::open(
            &dirs.dirs[0].handle,
            Path::new("page.md"),
            cap_primitives::fs::OpenOptions::new().read(true),
        )
        .expect("open beneath the handle");
        let text = std::io::read_to_string(file).expect("read");
        assert_eq!(
            text, "inside",
            "the handle still names the original directory"
        );
    }
}
