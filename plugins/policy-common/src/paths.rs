//! Paths as the model writes them (relative to the workspace, absolute, with `.` and `..`) turned
//! into one absolute, normalized form, so a rule about `.env` catches `./.env`, `sub/../.env` and
//! `/work/project/.env` alike. Everything is lexical: the guest may not be able to see the file,
//! and a policy must judge a path before it exists.

use std::path::{Component, Path, PathBuf};

/// `raw` made absolute against `base` (when relative) with `.` and `..` resolved lexically. `..`
/// never climbs above the root.
pub fn absolute(base: &str, raw: &str) -> String {
    let raw = raw.trim();
    let joined = if Path::new(raw).is_absolute() {
        PathBuf::from(raw)
    } else {
        Path::new(base).join(raw)
    };
    let mut parts: Vec<String> = Vec::new();
    for component in joined.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    format!("/{}", parts.join("/"))
}

/// `path` (absolute, normalized) relative to `root`: `Some("")` for the root itself, `None` when
/// it lies outside.
pub fn relative(root: &str, path: &str) -> Option<String> {
    let root = root.trim_end_matches('/');
    if path == root || (root.is_empty() && path == "/") {
        return Some(String::new());
    }
    path.strip_prefix(root)
        .and_then(|rest| rest.strip_prefix('/'))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_lexically() {
        assert_eq!(absolute("/ws", ".env"), "/ws/.env");
        assert_eq!(absolute("/ws", "./sub/../.env"), "/ws/.env");
        assert_eq!(absolute("/ws", "/etc//passwd"), "/etc/passwd");
        assert_eq!(absolute("/ws", "../../../x"), "/x");
        assert_eq!(absolute("/ws", "."), "/ws");
        assert_eq!(absolute("/ws", " a "), "/ws/a");
    }

    #[test]
    fn relative_paths() {
        assert_eq!(relative("/ws", "/ws/a/b").as_deref(), Some("a/b"));
        assert_eq!(relative("/ws/", "/ws").as_deref(), Some(""));
        assert_eq!(relative("/ws", "/wsx/a"), None);
        assert_eq!(relative("/ws", "/etc"), None);
    }
}
