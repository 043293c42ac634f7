//! `write`: create or replace a whole file.

use serde::Deserialize;
use tack_sdk::serde_json::json;
use tack_sdk::{ToolCall, ToolResult, ToolSpec};

use crate::atomic::replace_file;
use crate::paths::Workspace;
use crate::truncate::{format_size, plural};

#[derive(Deserialize)]
struct Args {
    path: String,
    content: String,
}

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "write",
        "Write file",
        "Create a file, or replace an existing file's entire content, with `content` written \
         exactly as given. Missing parent directories are created. The write is atomic: the file \
         holds either the old or the new content, never a mix. For changing part of an existing \
         file use edit instead, which is safer and cheaper. `path` is relative to the workspace \
         root, or absolute inside it.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File to write, relative to the workspace root or absolute inside it."
                },
                "content": {
                    "type": "string",
                    "description": "The complete new content of the file."
                }
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }),
    )
    // Two writes to one path in a batch must land in the order the model gave them.
    .sequential()
    .snippet("write: create a file or replace its whole content")
}

pub fn run(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: Args = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    match write(ws, &args) {
        Ok(result) => result,
        Err(message) => ToolResult::error(message),
    }
}

fn write(ws: &Workspace, args: &Args) -> Result<ToolResult, String> {
    if args.path.trim().is_empty() {
        return Err("write needs a file path.".to_string());
    }
    let requested = ws.resolve(&args.path)?;
    let path = ws.write_target(&requested)?;
    let shown = ws.display(&requested);
    let existing = std::fs::metadata(&path).ok();
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(format!(
            "Cannot write '{shown}': it is a directory. Give the path of a file inside it."
        ));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ws.io_error(&e, parent, "create directory"))?;
    }
    let note = replace_file(&path, &shown, args.content.as_bytes(), existing.is_some())
        .map_err(|e| ws.io_error(&e, &path, "write"))?;

    let bytes = args.content.len();
    let lines = count_lines(&args.content);
    let verb = if existing.is_some() {
        "Replaced the content of"
    } else {
        "Created"
    };
    let size = if bytes < 1024 {
        format!("{bytes} byte{}", plural(bytes))
    } else {
        format!("{}, {bytes} bytes", format_size(bytes as u64))
    };
    let mut text = format!("{verb} {shown} ({lines} line{}, {size}).", plural(lines));
    if let Some(note) = note {
        text.push(' ');
        text.push_str(&note);
    }
    Ok(ToolResult::text(text).with_details(json!({
        "path": shown,
        "bytes": bytes,
        "lines": lines,
        "created": existing.is_none(),
    })))
}

/// Lines as an editor counts them: a final newline does not start another line.
pub fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', text.as_bytes()).count() + usize::from(!text.ends_with('\n'))
    }
}

#[cfg(test)]
mod tests {
    use super::count_lines;

    #[test]
    fn line_counts() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\n"), 1);
        assert_eq!(count_lines("a\nb"), 2);
        assert_eq!(count_lines("\n\n"), 2);
    }
}

#[cfg(test)]
mod tool_tests {
    use super::*;
    use crate::testutil::{call, details, exists, text, TempWorkspace};

    #[test]
    fn creates_parents_and_reports() {
        let t = TempWorkspace::new();
        let r = run(
            &t.ws,
            &call(
                "write",
                json!({"path": "a/b/c.txt", "content": "one\ntwo\n"}),
            ),
        );
        assert!(!r.is_error, "{}", text(&r));
        assert_eq!(text(&r), "Created a/b/c.txt (2 lines, 8 bytes).");
        assert_eq!(t.read("a/b/c.txt"), b"one\ntwo\n");
        assert_eq!(details(&r)["created"], json!(true));

        let r = run(
            &t.ws,
            &call("write", json!({"path": "a/b/c.txt", "content": "x"})),
        );
        assert_eq!(
            text(&r),
            "Replaced the content of a/b/c.txt (1 line, 1 byte)."
        );
        assert_eq!(t.read("a/b/c.txt"), b"x");
        // No temporary files are left behind.
        let leftovers = std::fs::read_dir(t.path("a/b")).expect("dir").count();
        assert_eq!(leftovers, 1);
    }

    #[test]
    fn refuses_directories_and_outside_paths() {
        let t = TempWorkspace::new();
        t.file("d/x", "");
        let r = run(&t.ws, &call("write", json!({"path": "d", "content": ""})));
        assert!(r.is_error && text(&r).contains("it is a directory"));
        let r = run(
            &t.ws,
            &call("write", json!({"path": "/tmp/evil", "content": ""})),
        );
        assert!(r.is_error && text(&r).contains("outside the workspace"));
        assert!(!exists(std::path::Path::new("/tmp/evil")));
    }

    #[cfg(unix)]
    #[test]
    fn scripts_stay_executable() {
        use std::os::unix::fs::PermissionsExt;
        let t = TempWorkspace::new();
        let path = t.file("run.sh", "#!/bin/sh\necho hi\n");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let r = run(
            &t.ws,
            &call("write", json!({"path": "run.sh", "content": "#!/bin/sh\n"})),
        );
        assert!(!r.is_error, "{}", text(&r));
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_symlinks_inside_and_refuses_those_pointing_out() {
        let t = TempWorkspace::new();
        t.file("real.txt", "old");
        std::os::unix::fs::symlink("real.txt", t.path("link.txt")).expect("symlink");
        let r = run(
            &t.ws,
            &call("write", json!({"path": "link.txt", "content": "new"})),
        );
        assert!(!r.is_error, "{}", text(&r));
        assert_eq!(t.read("real.txt"), b"new");
        let meta = std::fs::symlink_metadata(t.path("link.txt")).expect("link");
        assert!(meta.file_type().is_symlink());

        std::os::unix::fs::symlink("/etc/hostname", t.path("out.txt")).expect("symlink");
        let r = run(
            &t.ws,
            &call("write", json!({"path": "out.txt", "content": "x"})),
        );
        assert!(r.is_error);
        assert!(
            text(&r).contains("symbolic link 'out.txt' -> '/etc/hostname', which points outside"),
            "{}",
            text(&r)
        );
    }

    #[cfg(unix)]
    #[test]
    fn refuses_links_into_git_and_tack_and_out_through_directories() {
        let t = TempWorkspace::new();
        t.file(".git/config", "[core]\n");
        t.file(".tack/permissions.toml", "");
        std::os::unix::fs::symlink(".git/config", t.path("setup.cfg")).expect("symlink");
        std::os::unix::fs::symlink(".tack", t.path("settings")).expect("symlink");
        std::os::unix::fs::symlink("sub/../.git", t.path("g")).expect("symlink");
        let outside = t.root.with_extension("outside");
        std::fs::create_dir_all(&outside).expect("outside");
        std::os::unix::fs::symlink(&outside, t.path("abs")).expect("symlink");
        let rel = format!(
            "../{}",
            outside.file_name().expect("name").to_string_lossy()
        );
        std::os::unix::fs::symlink(&rel, t.path("out")).expect("symlink");
        for (path, says) in [
            ("setup.cfg", "inside `.git/`"),
            ("settings/permissions.toml", "inside `.tack/`"),
            ("g/config", "inside `.git/`"),
            ("out/x", "points outside"),
            ("abs/x", "points outside"),
        ] {
            let r = run(&t.ws, &call("write", json!({"path": path, "content": "x"})));
            assert!(r.is_error, "{path}: {}", text(&r));
            assert!(text(&r).contains(says), "{path}: {}", text(&r));
        }
        assert_eq!(t.read(".git/config"), b"[core]\n");
        assert!(std::fs::read_dir(&outside).expect("dir").next().is_none());
        // Named directly, the file is the policies' business, not the link check's.
        let r = run(
            &t.ws,
            &call("write", json!({"path": "sub/new.txt", "content": "x"})),
        );
        assert!(!r.is_error, "{}", text(&r));
        let _ = std::fs::remove_dir_all(&outside);
    }
}
