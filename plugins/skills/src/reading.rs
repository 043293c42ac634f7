//! The model's `read` of a skill's files. core-tools reads inside the workspace only, so a skill
//! in the tack home or `~/.agents/skills` would be out of its reach; when its `read` of a path
//! inside a skill's folder fails, this plugin, which holds read on that folder, answers instead.

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use tack_sdk::{ToolCall, ToolResult};

use crate::discover::Skill;

/// core-tools' paging limits, so a long file reads the same either way.
const MAX_LINES: usize = 2000;
const MAX_BYTES: usize = 50 * 1024;

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
    offset: Option<u64>,
    limit: Option<u64>,
}

/// The file's text for a failed `read` of a path inside one of `skills`' folders; `None` for any
/// other path (the failure stands).
pub fn read_for_model(skills: &[Skill], call: &ToolCall) -> Option<ToolResult> {
    let args: ReadArgs = call.args().ok()?;
    let path = normalize(Path::new(&args.path))?;
    if !skills.iter().any(|s| path.starts_with(&s.dir)) {
        return None;
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            return Some(ToolResult::error(format!(
                "Cannot read '{}': {e}.",
                path.display()
            )))
        }
    };
    Some(ToolResult::text(page(&text, args.offset, args.limit)))
}

/// An absolute path with `.` and `..` taken out; `None` for a relative one (the workspace's,
/// which core-tools answers).
fn normalize(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Lines `offset..offset+limit` (1-based), capped like core-tools' `read`, with a note when more
/// follow.
fn page(text: &str, offset: Option<u64>, limit: Option<u64>) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let first = usize::try_from(offset.unwrap_or(1).max(1)).unwrap_or(usize::MAX);
    if first > lines.len().max(1) {
        return format!(
            "[Offset {first} is past the end of the file, which has {} lines.]",
            lines.len()
        );
    }
    let wanted = limit
        .and_then(|l| usize::try_from(l).ok())
        .unwrap_or(MAX_LINES)
        .min(MAX_LINES);
    let mut out = String::new();
    let mut last = first - 1;
    for line in lines.iter().skip(first - 1).take(wanted) {
        if out.len() + line.len() + 1 > MAX_BYTES {
            break;
        }
        out.push_str(line);
        out.push('\n');
        last += 1;
    }
    if last < lines.len() {
        out.push_str(&format!(
            "\n[Showing lines {first}-{last} of {}. Use offset={} to continue.]",
            lines.len(),
            last + 1
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_like_read() {
        let text: String = (1..=5).map(|n| format!("{n}\n")).collect();
        assert_eq!(page(&text, None, None), text);
        assert_eq!(
            page(&text, Some(2), Some(2)),
            "2\n3\n\n[Showing lines 2-3 of 5. Use offset=4 to continue.]"
        );
        assert!(page(&text, Some(9), None).contains("past the end"));
    }

    #[test]
    fn only_absolute_paths_are_taken_and_dots_resolved() {
        assert_eq!(
            normalize(Path::new("/s/pdf/../pdf/./x.md")),
            Some(PathBuf::from("/s/pdf/x.md"))
        );
        assert_eq!(normalize(Path::new("rel/x.md")), None);
    }
}
