//! `ls`: one directory's entries.

use serde::Deserialize;
use tack_sdk::serde_json::json;
use tack_sdk::{ToolCall, ToolResult, ToolSpec};

use crate::paths::Workspace;

const DEFAULT_LIMIT: usize = 500;
const MAX_LIMIT: usize = 5000;

#[derive(Deserialize)]
struct Args {
    path: Option<String>,
    limit: Option<u64>,
}

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "ls",
        "List directory",
        "List the entries of one directory (not recursive), sorted by name, dotfiles included. \
         Directories end with `/`, symbolic links with `@`. At most `limit` entries are shown \
         (default 500); a note says when there are more. `path` defaults to the workspace root. \
         To search a whole tree by name use find; to search file contents use grep.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Directory to list, relative to the workspace root or absolute inside it (default: the root)."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "Maximum number of entries to show (default 500)."
                }
            },
            "additionalProperties": false
        }),
    )
    .snippet("ls: list a directory's entries")
}

pub fn run(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: Args = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    match list(ws, &args) {
        Ok(result) => result,
        Err(message) => ToolResult::error(message),
    }
}

fn list(ws: &Workspace, args: &Args) -> Result<ToolResult, String> {
    let path = ws.resolve_readable(args.path.as_deref().unwrap_or("."))?;
    let shown = ws.display(&path);
    let meta = std::fs::metadata(&path).map_err(|e| ws.io_error(&e, &path, "list"))?;
    if !meta.is_dir() {
        return Err(format!(
            "'{shown}' is a file, not a directory; use read to see its content."
        ));
    }
    let limit = args
        .limit
        .map_or(DEFAULT_LIMIT, |l| usize::try_from(l).unwrap_or(MAX_LIMIT))
        .clamp(1, MAX_LIMIT);

    let mut names = Vec::new();
    for entry in std::fs::read_dir(&path).map_err(|e| ws.io_error(&e, &path, "list"))? {
        let entry = entry.map_err(|e| ws.io_error(&e, &path, "list"))?;
        let mut name = entry.file_name().to_string_lossy().into_owned();
        // `DirEntry::file_type` does not follow symlinks, which is what the `@` marker needs.
        match entry.file_type() {
            Ok(t) if t.is_symlink() => name.push('@'),
            Ok(t) if t.is_dir() => name.push('/'),
            _ => {}
        }
        names.push(name);
    }
    sort_names(&mut names);

    let total = names.len();
    if total == 0 {
        return Ok(
            ToolResult::text(format!("[The directory '{shown}' is empty.]"))
                .with_details(json!({"path": shown, "entries": 0, "truncated": false})),
        );
    }
    let truncated = total > limit;
    let mut text = names[..total.min(limit)].join("\n");
    if truncated {
        text.push_str(&format!(
            "\n\n[Showing {limit} of {total} entries. Pass a larger limit (up to {MAX_LIMIT}), or \
             use find with a pattern.]"
        ));
    }
    Ok(ToolResult::text(text).with_details(json!({
        "path": shown,
        "entries": total,
        "truncated": truncated,
    })))
}

/// Case-insensitive order, as people scan a listing; exact order breaks ties so the result is
/// stable.
fn sort_names(names: &mut [String]) {
    names.sort_by(|a, b| {
        a.to_lowercase()
            .cmp(&b.to_lowercase())
            .then_with(|| a.cmp(b))
    });
}

#[cfg(test)]
mod tests {
    use super::sort_names;

    #[test]
    fn case_insensitive_sort() {
        let mut names: Vec<String> = ["b", "A/", ".git/", "a", "C@"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        sort_names(&mut names);
        assert_eq!(names, vec![".git/", "a", "A/", "b", "C@"]);
    }
}

#[cfg(test)]
mod tool_tests {
    use super::*;
    use crate::testutil::{call, text, TempWorkspace};

    #[test]
    fn lists_with_markers_and_dotfiles() {
        let t = TempWorkspace::new();
        t.file("b.txt", "");
        t.file("A/x", "");
        t.file(".env", "");
        #[cfg(unix)]
        std::os::unix::fs::symlink("b.txt", t.path("c")).expect("symlink");
        let r = run(&t.ws, &call("ls", json!({})));
        assert!(!r.is_error, "{}", text(&r));
        let expected = if cfg!(unix) {
            ".env\nA/\nb.txt\nc@"
        } else {
            ".env\nA/\nb.txt"
        };
        assert_eq!(text(&r), expected);
    }

    #[test]
    fn limit_note_and_errors() {
        let t = TempWorkspace::new();
        for i in 0..5 {
            t.file(&format!("f{i}"), "");
        }
        let r = run(&t.ws, &call("ls", json!({"limit": 2})));
        assert_eq!(
            text(&r),
            "f0\nf1\n\n[Showing 2 of 5 entries. Pass a larger limit (up to 5000), or use find with a pattern.]"
        );
        let r = run(&t.ws, &call("ls", json!({"path": "f0"})));
        assert!(r.is_error && text(&r).contains("is a file, not a directory"));
        std::fs::create_dir(t.path("empty")).expect("mkdir");
        let r = run(&t.ws, &call("ls", json!({"path": "empty"})));
        assert_eq!(text(&r), "[The directory 'empty' is empty.]");
    }
}
