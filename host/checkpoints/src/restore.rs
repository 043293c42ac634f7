//! Putting a checkpoint's files back: what to write and delete ([`plan`]), then doing it inside
//! the workspace only ([`apply`]). Every folder on the way to a file is checked with `lstat`
//! first: a symbolic link (or a file) where the checkpoint had a folder stops the restore with
//! an error naming the path, so nothing is ever written through a link.

use std::collections::BTreeSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::objects::{write_atomic, Objects};
use crate::scan::Skipped;
use crate::tree::Tree;
use crate::{Error, Result};

/// What restoring a checkpoint would change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Files to write back (changed or deleted since), relative, `/`-separated.
    pub write: Vec<String>,
    /// Files that appeared during the session after the checkpoint.
    pub delete: Vec<String>,
    /// Files the checkpoint did not record, so a restore leaves them as they are.
    pub skipped: Vec<Skipped>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.write.is_empty() && self.delete.is_empty()
    }

    /// Every file the restore would touch, sorted.
    pub fn files(&self) -> Vec<&str> {
        let mut all: Vec<&str> = self
            .write
            .iter()
            .chain(&self.delete)
            .map(String::as_str)
            .collect();
        all.sort_unstable();
        all
    }
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restored {
    pub written: Vec<String>,
    pub deleted: Vec<String>,
    pub skipped: Vec<Skipped>,
}

/// How to get from `current` back to `target`; `later` are the session's snapshots taken after
/// `target` (a file none of them saw was never the session's to delete).
pub fn plan(target: &Tree, later: &[Tree], current: &Tree) -> Plan {
    let write = target
        .files
        .iter()
        .filter(|(path, want)| {
            current
                .files
                .get(*path)
                .is_none_or(|have| have.hash != want.hash || have.executable != want.executable)
        })
        .map(|(path, _)| path.clone())
        .collect();
    let seen_later: BTreeSet<&String> = later.iter().flat_map(|t| t.files.keys()).collect();
    let delete = seen_later
        .into_iter()
        .filter(|path| {
            !target.files.contains_key(*path)
                && !target.skipped.iter().any(|s| &s.path == *path)
                && current.files.contains_key(*path)
        })
        .cloned()
        .collect();
    Plan {
        write,
        delete,
        skipped: target.skipped.clone(),
    }
}

/// Carries out `plan` in `workspace`; stops at the first file it cannot restore, naming it.
pub fn apply(
    workspace: &Path,
    objects: &Objects,
    store: &Path,
    target: &Tree,
    plan: &Plan,
) -> Result<Restored> {
    let mut done = Restored {
        skipped: plan.skipped.clone(),
        ..Restored::default()
    };
    for path in &plan.write {
        let Some(record) = target.files.get(path) else {
            continue;
        };
        let file = safe_path(workspace, path, true)?;
        let previous_mode = match fs::symlink_metadata(&file) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // The link goes, not what it points at; the file takes its place.
                fs::remove_file(&file).map_err(Error::io("remove the link", &file))?;
                None
            }
            Ok(meta) if meta.is_dir() => {
                return Err(Error::Unsafe {
                    path: path.clone(),
                    reason: "a folder has that name now; move it away first".into(),
                })
            }
            Ok(meta) => Some(meta.permissions()),
            Err(_) => None,
        };
        let bytes = objects.get(&record.hash, store)?;
        write_atomic(&file, &bytes)?;
        set_mode(&file, previous_mode, record.executable)?;
        done.written.push(path.clone());
    }
    let kept_dirs: BTreeSet<&str> = target
        .files
        .keys()
        .flat_map(|p| p.match_indices('/').map(move |(i, _)| &p[..i]))
        .collect();
    for path in &plan.delete {
        let file = match safe_path(workspace, path, false) {
            Ok(file) => file,
            // Behind a link or gone: not a file of the workspace any more.
            Err(_) => continue,
        };
        match fs::symlink_metadata(&file) {
            Ok(meta) if meta.is_file() => {
                fs::remove_file(&file).map_err(Error::io("delete", &file))?;
                done.deleted.push(path.clone());
            }
            _ => continue,
        }
        // Folders the session made go with their last file.
        let mut dir = path.as_str();
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if kept_dirs.contains(parent) || fs::remove_dir(workspace.join(parent)).is_err() {
                break;
            }
            dir = parent;
        }
    }
    Ok(done)
}

/// `workspace/path`, after checking that every folder on the way is a real folder (made when
/// missing and `create`).
fn safe_path(workspace: &Path, path: &str, create: bool) -> Result<PathBuf> {
    let mut current = workspace.to_path_buf();
    let parts: Vec<&str> = path.split('/').collect();
    let Some((name, dirs)) = parts.split_last() else {
        return Err(Error::Unsafe {
            path: path.into(),
            reason: "empty path".into(),
        });
    };
    for dir in dirs {
        current.push(dir);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Error::Unsafe {
                    path: path.into(),
                    reason: format!(
                        "{} is a symbolic link now, and tack does not follow links",
                        current.display()
                    ),
                })
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(Error::Unsafe {
                    path: path.into(),
                    reason: format!("{} is a file now, not a folder", current.display()),
                })
            }
            Err(e) if e.kind() == ErrorKind::NotFound && create => {
                fs::create_dir(&current).map_err(Error::io("create", &current))?;
            }
            Err(e) => return Err(Error::io("read", &current)(e)),
        }
    }
    Ok(current.join(name))
}

fn set_mode(file: &Path, previous: Option<fs::Permissions>, executable: bool) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let base = match previous {
            Some(p) => p.mode(),
            None => fs::metadata(file)
                .map_err(Error::io("read", file))?
                .permissions()
                .mode(),
        } & 0o7777;
        // Execute where read is allowed, as git checks files out.
        let mode = if executable {
            base | ((base & 0o444) >> 2)
        } else {
            base & !0o111
        };
        fs::set_permissions(file, fs::Permissions::from_mode(mode))
            .map_err(Error::io("set the mode of", file))?;
    }
    #[cfg(not(unix))]
    {
        let _ = (file, previous, executable);
    }
    Ok(())
}
