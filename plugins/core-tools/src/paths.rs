//! Turning the model's paths into paths the sandbox will accept, and the sandbox's refusals into
//! messages the model can act on.
//!
//! The host preopens the workspace at its own absolute path and nothing else (plus, optionally, the
//! plugin's data directory), so a path outside it fails with an opaque OS error. Checking lexically
//! first lets the tools say precisely what was wrong; the sandbox stays the real enforcement.

use std::collections::VecDeque;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Directories a write may not reach through a symlink: git's data (whose `config` names
/// programs git runs) and tack's project settings and rule files. protected-paths protects the
/// same names by default.
pub const PROTECTED_DIRS: &[&str] = &[".git", ".tack"];

/// The directories the tools may touch.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    /// The plugin's data directory: bash saves full outputs there, and `read` may open them.
    data_dir: Option<PathBuf>,
}

impl Workspace {
    pub fn new(root: &str, data_dir: Option<&str>) -> Result<Self, String> {
        let root_path = Path::new(root);
        if !root_path.is_absolute() {
            return Err(format!(
                "the host gave a relative workspace path '{root}'; an absolute one is required"
            ));
        }
        let data_dir = data_dir
            .filter(|d| !d.is_empty())
            .map(|d| normalize(Path::new(d)))
            .filter(|d| d.is_absolute());
        Ok(Self {
            root: normalize(root_path),
            data_dir,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// Resolves a path the model gave for a tool that may change things: it must lie inside the
    /// workspace.
    pub fn resolve(&self, raw: &str) -> Result<PathBuf, String> {
        let path = self.candidate(raw)?;
        if path.starts_with(&self.root) {
            Ok(path)
        } else {
            Err(self.outside_message(raw, &path))
        }
    }

    /// Like [`Workspace::resolve`], but also accepts paths inside the data directory so the model
    /// can page through a saved bash output with `read`.
    pub fn resolve_readable(&self, raw: &str) -> Result<PathBuf, String> {
        let path = self.candidate(raw)?;
        let in_data = self.data_dir.as_ref().is_some_and(|d| path.starts_with(d));
        if path.starts_with(&self.root) || in_data {
            Ok(path)
        } else {
            Err(self.outside_message(raw, &path))
        }
    }

    /// How a path is shown to the model: relative to the workspace when inside it, so it can be
    /// passed straight back to another tool.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }

    /// Explains an OS error about `path` in terms the model can act on. `action` is a verb phrase
    /// such as "read" or "list".
    pub fn io_error(&self, err: &io::Error, path: &Path, action: &str) -> String {
        let shown = self.display(path);
        // An escaping link explains any failure under it (the sandbox reports it as "exists" when
        // creating a directory through it, as "not found" or "denied" elsewhere), so name it first.
        if let Some(link) = self.escaping_symlink(path) {
            return format!(
                "Cannot {action} '{shown}': it goes through the symbolic link {}, which points \
                 outside the workspace {}; the sandbox does not follow it.",
                self.describe_link(&link),
                self.root.display()
            );
        }
        match err.kind() {
            io::ErrorKind::NotFound => match missing_parent(path, &self.root) {
                Some(dir) => format!(
                    "Cannot {action} '{shown}': the directory '{}' does not exist.",
                    self.display(&dir)
                ),
                None => format!("Cannot {action} '{shown}': no such file or directory."),
            },
            io::ErrorKind::IsADirectory => {
                format!("Cannot {action} '{shown}': it is a directory (use ls to list it).")
            }
            io::ErrorKind::NotADirectory => format!(
                "Cannot {action} '{shown}': a component of the path is a file, not a directory."
            ),
            io::ErrorKind::AlreadyExists => {
                format!("Cannot {action} '{shown}': something already exists at that path.")
            }
            io::ErrorKind::PermissionDenied => {
                format!("Cannot {action} '{shown}': permission denied.")
            }
            _ => format!("Cannot {action} '{shown}': {err}."),
        }
    }

    /// Where a write to `path` must land. Renaming a new file over a symlink would replace the
    /// link itself, so writes go to the file the links lead to: every component is resolved,
    /// `..` after a link climbing from where the link leads, as the kernel would. The result must
    /// lie inside the workspace, and a write that reaches through a link may not land in
    /// [`PROTECTED_DIRS`] (`setup.cfg -> .git/config` must not rewrite git's configuration):
    /// the model asked for `setup.cfg`, and the policies judged `setup.cfg`.
    pub fn write_target(&self, path: &Path) -> Result<PathBuf, String> {
        let rel = path.strip_prefix(&self.root).map_err(|_| {
            format!(
                "Cannot write '{}': it is outside the workspace {}.",
                path.display(),
                self.root.display()
            )
        })?;
        let mut queue: VecDeque<PathBuf> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(PathBuf::from(n)),
                Component::ParentDir => Some(PathBuf::from("..")),
                _ => None,
            })
            .collect();
        let mut current = self.root.clone();
        let mut first_link: Option<PathBuf> = None;
        let mut links = 0;
        while let Some(part) = queue.pop_front() {
            if part.as_os_str() == ".." {
                current.pop();
                continue;
            }
            let next = current.join(&part);
            let is_link = next.starts_with(&self.root)
                && std::fs::symlink_metadata(&next).is_ok_and(|m| m.file_type().is_symlink());
            if !is_link {
                current = next;
                continue;
            }
            links += 1;
            // The same bound Linux puts on symlink chains.
            if links > 40 {
                return Err(format!(
                    "Cannot write '{}': too many levels of symbolic links.",
                    self.display(path)
                ));
            }
            first_link.get_or_insert_with(|| next.clone());
            // The sandbox refuses to read a link whose target is absolute.
            let target = std::fs::read_link(&next).map_err(|_| self.leads_out(path, &next))?;
            if target.is_absolute() {
                current = PathBuf::from("/");
            }
            for component in target.components().rev() {
                match component {
                    Component::Normal(n) => queue.push_front(PathBuf::from(n)),
                    Component::ParentDir => queue.push_front(PathBuf::from("..")),
                    _ => {}
                }
            }
        }
        let Some(link) = first_link else {
            return Ok(current);
        };
        if !current.starts_with(&self.root) {
            return Err(self.leads_out(path, &link));
        }
        let inside = current.strip_prefix(&self.root).unwrap_or(&current);
        if let Some(dir) = inside.components().find_map(|c| match c {
            Component::Normal(n) => PROTECTED_DIRS.iter().find(|d| n.to_str() == Some(**d)),
            _ => None,
        }) {
            return Err(format!(
                "Cannot write '{}': it goes through the symbolic link {} and would change '{}', \
                 inside `{dir}/`, which holds {}. Write that file by its own name if the change \
                 is really meant, so the user's policies can judge it.",
                self.display(path),
                self.describe_link(&link),
                self.display(&current),
                if *dir == ".git" {
                    "git's own data and configuration"
                } else {
                    "tack's own settings and permission rules"
                }
            ));
        }
        Ok(current)
    }

    fn leads_out(&self, path: &Path, link: &Path) -> String {
        let what = if link == path {
            "it is a symbolic link".to_string()
        } else {
            "it goes through the symbolic link".to_string()
        };
        format!(
            "Cannot write '{}': {what} {}, which points outside the workspace {}.",
            self.display(path),
            self.describe_link(link),
            self.root.display()
        )
    }

    fn candidate(&self, raw: &str) -> Result<PathBuf, String> {
        let trimmed = raw.trim();
        if trimmed.starts_with('~') {
            return Err(format!(
                "Path '{raw}' starts with '~', which cannot be expanded here; give a path relative \
                 to the workspace {} or an absolute path inside it.",
                self.root.display()
            ));
        }
        let path = self.join(trimmed);
        // Models copy `@file` mentions from the prompt verbatim; drop the `@` only when that is
        // what makes the path exist, since `@scope/pkg` directories are real too.
        if let Some(rest) = trimmed.strip_prefix('@') {
            let without = self.join(rest);
            if !rest.is_empty() && !exists(&path) && exists(&without) {
                return Ok(without);
            }
        }
        Ok(path)
    }

    fn join(&self, raw: &str) -> PathBuf {
        let raw_path = Path::new(raw);
        if raw_path.is_absolute() {
            normalize(raw_path)
        } else {
            normalize(&self.root.join(raw_path))
        }
    }

    fn outside_message(&self, raw: &str, resolved: &Path) -> String {
        if Path::new(raw.trim()).is_absolute() {
            format!(
                "Path '{raw}' is outside the workspace {}; the tools can only reach files inside it.",
                self.root.display()
            )
        } else {
            format!(
                "Path '{raw}' resolves to '{}', which is outside the workspace {}; the tools can \
                 only reach files inside it.",
                resolved.display(),
                self.root.display()
            )
        }
    }

    /// Finds the first symlink along `path` (below the workspace root) that leads outside the
    /// workspace, which is the usual reason the sandbox refuses a path that looks inside.
    fn escaping_symlink(&self, path: &Path) -> Option<PathBuf> {
        let rel = path.strip_prefix(&self.root).ok()?;
        let mut current = self.root.clone();
        for component in rel.components() {
            current.push(component);
            let is_link = std::fs::symlink_metadata(&current)
                .map(|m| m.file_type().is_symlink())
                .unwrap_or(false);
            if !is_link {
                continue;
            }
            match std::fs::read_link(&current) {
                Ok(target) => {
                    let parent = current.parent().unwrap_or(&self.root);
                    if !normalize(&parent.join(&target)).starts_with(&self.root) {
                        return Some(current);
                    }
                    // A symlink within the workspace is fine; keep following the lexical path.
                }
                // The sandbox refuses even to read a link whose target is absolute.
                Err(_) => return Some(current),
            }
        }
        None
    }

    /// "'link' -> '/target'" when the target can be read, else "'link'".
    fn describe_link(&self, link: &Path) -> String {
        match std::fs::read_link(link) {
            Ok(target) => format!("'{}' -> '{}'", self.display(link), target.display()),
            Err(_) => format!("'{}'", self.display(link)),
        }
    }
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// The nearest missing ancestor directory of `path`, if the path fails because a directory is
/// missing rather than the final entry.
fn missing_parent(path: &Path, root: &Path) -> Option<PathBuf> {
    let parent = path.parent()?;
    if !parent.starts_with(root) || exists(parent) {
        return None;
    }
    let mut missing = parent.to_path_buf();
    while let Some(up) = missing.parent() {
        if !up.starts_with(root) || exists(up) {
            break;
        }
        missing = up.to_path_buf();
    }
    Some(missing)
}

/// Lexical normalization: removes `.` and resolves `..` against the preceding component without
/// touching the filesystem (symlinks are the sandbox's business). `..` at the root stays at the
/// root, as the kernel does.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir => out.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                let popped = matches!(out.components().next_back(), Some(Component::Normal(_)));
                if popped {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> Workspace {
        Workspace::new("/home/u/proj", Some("/data/core-tools")).expect("absolute root")
    }

    #[test]
    fn normalizes_dots() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../../x")), PathBuf::from("/x"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
        assert_eq!(normalize(Path::new("/a/b/")), PathBuf::from("/a/b"));
    }

    #[test]
    fn relative_paths_join_the_workspace() {
        let ws = ws();
        assert_eq!(
            ws.resolve("src/main.rs"),
            Ok(PathBuf::from("/home/u/proj/src/main.rs"))
        );
        assert_eq!(
            ws.resolve("./src/../Cargo.toml"),
            Ok(PathBuf::from("/home/u/proj/Cargo.toml"))
        );
        assert_eq!(ws.resolve(""), Ok(PathBuf::from("/home/u/proj")));
        assert_eq!(ws.resolve("."), Ok(PathBuf::from("/home/u/proj")));
    }

    #[test]
    fn absolute_paths_must_stay_inside() {
        let ws = ws();
        assert_eq!(
            ws.resolve("/home/u/proj/a/b"),
            Ok(PathBuf::from("/home/u/proj/a/b"))
        );
        let err = ws.resolve("/etc/passwd").expect_err("outside");
        assert!(
            err.contains("'/etc/passwd' is outside the workspace /home/u/proj"),
            "{err}"
        );
        let err = ws.resolve("/home/u/proj/../other").expect_err("outside");
        assert!(err.contains("outside the workspace"), "{err}");
        // A sibling sharing the prefix as a string is still outside.
        assert!(ws.resolve("/home/u/project2/x").is_err());
    }

    #[test]
    fn relative_escapes_are_refused_with_the_resolved_path() {
        let err = ws().resolve("../secret").expect_err("outside");
        assert!(err.contains("resolves to '/home/u/secret'"), "{err}");
    }

    #[test]
    fn tilde_is_refused() {
        let err = ws().resolve("~/notes.txt").expect_err("tilde");
        assert!(err.contains("'~'"), "{err}");
    }

    #[test]
    fn data_dir_is_readable_but_not_writable() {
        let ws = ws();
        assert!(ws.resolve_readable("/data/core-tools/bash-1.log").is_ok());
        assert!(ws.resolve("/data/core-tools/bash-1.log").is_err());
    }

    #[test]
    fn display_is_workspace_relative() {
        let ws = ws();
        assert_eq!(ws.display(Path::new("/home/u/proj/src/a.rs")), "src/a.rs");
        assert_eq!(ws.display(Path::new("/home/u/proj")), ".");
        assert_eq!(ws.display(Path::new("/data/x")), "/data/x");
    }
}
