//! What tack reads of a git repository without running git: the branch its footer shows, and
//! `tack:plugin/screen`'s `git-branch` gives plugins.

use std::path::Path;

/// The checked-out branch, read from `.git/HEAD` of `cwd` or a parent (no git process).
pub fn branch(cwd: &Path) -> Option<String> {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let git = d.join(".git");
        let head = if git.is_dir() {
            git.join("HEAD")
        } else if git.is_file() {
            // A worktree: `.git` names the real git dir.
            let text = std::fs::read_to_string(&git).ok()?;
            let target = text.strip_prefix("gitdir:")?.trim();
            d.join(target).join("HEAD")
        } else {
            dir = d.parent();
            continue;
        };
        let text = std::fs::read_to_string(head).ok()?;
        let text = text.trim();
        return Some(match text.strip_prefix("ref: refs/heads/") {
            Some(branch) => branch.to_string(),
            None => text.get(..8).unwrap_or(text).to_string(),
        });
    }
    None
}
