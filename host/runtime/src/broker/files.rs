//! `tack:plugin/files`: reading and setting Unix permission bits, which `wasi:filesystem` has no
//! call for. The same rules as the plugin's WASI filesystem apply: the path must lie in a granted
//! directory (read-write to change it), and it is resolved beneath that directory by
//! cap-primitives, the crate wasmtime-wasi resolves guest paths with, so `..` and symlinks cannot
//! lead out of it, even if the tree changes during the call.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use cap_primitives::fs::{FollowSymlinks, Permissions};

use crate::bindings::latest::extensions::tack::plugin::files;
use crate::manifest::Access;
use crate::state::PluginState;

/// Bits a plugin may set: read, write and execute for user, group and others.
const SETTABLE: u32 = 0o777;

impl PluginState {
    /// The granted directory `path` lies in (the deepest, should grants nest) and the path
    /// relative to it. `write` asks for a read-write grant.
    pub(crate) fn beneath(
        &self,
        path: &str,
        write: bool,
    ) -> Result<(Arc<std::fs::File>, PathBuf), String> {
        let path = Path::new(path);
        if !path.is_absolute() {
            return Err(format!("'{}' is not an absolute path", path.display()));
        }
        if path.components().any(|c| c == Component::ParentDir) {
            return Err(format!("'{}' contains '..'", path.display()));
        }
        let root = self
            .env
            .fs_dirs
            .dirs
            .iter()
            .filter(|root| path.starts_with(&root.path))
            .filter(|root| !write || root.access == Access::ReadWrite)
            .max_by_key(|root| root.path.components().count())
            .ok_or_else(|| {
                format!(
                    "'{}' is outside the directories this plugin may {}",
                    path.display(),
                    if write { "change" } else { "read" }
                )
            })?;
        let relative = path
            .strip_prefix(&root.path)
            .map_err(|e| e.to_string())?
            .to_path_buf();
        Ok((root.handle.clone(), relative))
    }
}

impl files::Host for PluginState {
    async fn permissions(&mut self, path: String) -> wasmtime::Result<Result<u32, String>> {
        Ok(self.beneath(&path, false).and_then(|(dir, relative)| {
            let meta = cap_primitives::fs::stat(&dir, &relative, FollowSymlinks::Yes)
                .map_err(|e| format!("{path}: {e}"))?;
            Ok(mode_of(&meta.permissions()))
        }))
    }

    async fn set_permissions(
        &mut self,
        path: String,
        mode: u32,
    ) -> wasmtime::Result<Result<(), String>> {
        if mode & !SETTABLE != 0 {
            return Ok(Err(format!(
                "mode {mode:#o} has bits other than {SETTABLE:#o} (set-user-id, set-group-id or \
                 sticky), which plugins may not set"
            )));
        }
        Ok(self.beneath(&path, true).and_then(|(dir, relative)| {
            cap_primitives::fs::set_permissions(&dir, &relative, permissions(mode)?)
                .map_err(|e| format!("{path}: {e}"))
        }))
    }
}

#[cfg(unix)]
fn mode_of(perms: &Permissions) -> u32 {
    use cap_primitives::fs::PermissionsExt;
    perms.mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(perms: &Permissions) -> u32 {
    if perms.readonly() {
        0o444
    } else {
        0o644
    }
}

#[cfg(unix)]
fn permissions(mode: u32) -> Result<Permissions, String> {
    use std::os::unix::fs::PermissionsExt;
    Ok(Permissions::from_std(std::fs::Permissions::from_mode(mode)))
}

#[cfg(not(unix))]
fn permissions(_mode: u32) -> Result<Permissions, String> {
    Err("setting permission bits needs a Unix host".into())
}
