//! `find`: paths in a tree whose name or relative path matches a glob.
//!
//! The tree is cut into pieces that run as tasks on other instances of the plugin, one per core
//! (see [`walk::split`]); the results are sorted at the end anyway, so the pieces' order does not
//! matter. A task takes a run of pieces: each task costs a call into another instance and a
//! re-read of the ignore files above its pieces, more than walking a small piece does.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tack_sdk::serde_json::{self, json};
use tack_sdk::{ToolCall, ToolResult, ToolSpec};

use crate::fanout;
use crate::fsys::Kind;
use crate::paths::Workspace;
use crate::walk::{self, Flow, PathGlob, Piece};

const DEFAULT_LIMIT: usize = 1000;
const MAX_LIMIT: usize = 10_000;
/// Tasks per core the host runs at once.
const TASKS_PER_WORKER: usize = 4;

#[derive(Deserialize)]
struct Args {
    pattern: String,
    path: Option<String>,
    limit: Option<u64>,
}

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "find",
        "Find files",
        "Find files and directories by glob, searching the tree under `path` (default: the \
         workspace root). A pattern without `/` matches names at any depth (`*.rs`, \
         `Cargo.toml`, `*test*`); a pattern with `/` matches the path relative to `path` \
         (`src/**/*.ts`), where `*` stays within one directory and `**` spans any number. \
         `{a,b}` alternatives and `[abc]` classes work. An all-lowercase pattern ignores case. \
         Files excluded by .gitignore/.ignore and the .git directory are skipped; other dotfiles \
         are included. Results are workspace-relative paths, sorted, directories ending in `/`, \
         at most `limit` (default 1000) with a note when there are more.",
        json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "description": "Glob to match, e.g. `*.rs`, `**/test_*.py`, `src/**/mod.rs`."
                },
                "path": {
                    "type": "string",
                    "description": "Directory to search, relative to the workspace root or absolute inside it (default: the root)."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "Maximum number of results (default 1000)."
                }
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
    )
    .snippet("find: find files by glob (respects .gitignore)")
}

pub fn run(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: Args = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    match find(ws, &args) {
        Ok(result) => result,
        Err(message) => ToolResult::error(message),
    }
}

fn find(ws: &Workspace, args: &Args) -> Result<ToolResult, String> {
    // Checked here so a bad pattern is reported once, before any task starts.
    PathGlob::new(&args.pattern)?;
    let root = ws.resolve_readable(args.path.as_deref().unwrap_or("."))?;
    let shown_root = ws.display(&root);
    let meta = std::fs::metadata(&root).map_err(|e| ws.io_error(&e, &root, "search"))?;
    if !meta.is_dir() {
        return Err(format!(
            "'{shown_root}' is a file; find searches directories. Use read to see the file."
        ));
    }
    let limit = args
        .limit
        .map_or(DEFAULT_LIMIT, |l| usize::try_from(l).unwrap_or(MAX_LIMIT))
        .clamp(1, MAX_LIMIT);

    let workers = fanout::parallelism().max(1);
    // Several tasks per worker, so one slow task does not leave the other cores idle.
    let want = workers * TASKS_PER_WORKER;
    let pieces =
        walk::split(ws.root(), &root, want).map_err(|e| ws.io_error(&e, &root, "search"))?;
    let tasks: Vec<fanout::Task> = pieces
        .chunks(pieces.len().div_ceil(want).max(1))
        .map(|pieces| {
            fanout::Task::Find(Task {
                pattern: args.pattern.clone(),
                root: root.clone(),
                pieces: pieces.to_vec(),
            })
        })
        .collect();
    let mut found = Vec::new();
    for paths in fanout::run::<Vec<String>>(ws, "find", &tasks)? {
        found.extend(paths);
    }
    found.sort_unstable();

    let total = found.len();
    if total == 0 {
        return Ok(ToolResult::text(format!(
            "No files match '{}' under '{shown_root}'. (Files ignored by .gitignore are not \
             searched.)",
            args.pattern
        ))
        .with_details(
            json!({"pattern": args.pattern, "path": shown_root, "matches": 0, "truncated": false}),
        ));
    }
    let truncated = total > limit;
    found.truncate(limit);
    let mut text = found.join("\n");
    if truncated {
        text.push_str(&format!(
            "\n\n[Showing {limit} of {total} matches. Narrow the pattern or path, or pass a larger \
             limit.]"
        ));
    }
    Ok(ToolResult::text(text).with_details(json!({
        "pattern": args.pattern,
        "path": shown_root,
        "matches": total,
        "truncated": truncated,
    })))
}

/// Pieces of a find, as a task gets them.
#[derive(Serialize, Deserialize)]
pub struct Task {
    pattern: String,
    /// The search root, which the pattern is relative to.
    root: PathBuf,
    pieces: Vec<Piece>,
}

/// What a task instance keeps between the tasks of one find: the compiled glob.
pub type TaskCache = fanout::Latest<String, PathGlob>;

/// Runs some pieces of a find; the output is the matching paths as shown to the model.
pub fn run_task(ws: &Workspace, cache: &mut TaskCache, task: Task) -> Result<Vec<u8>, String> {
    let glob = cache.get_or_try_build(&task.pattern, || PathGlob::new(&task.pattern))?;
    let mut found = Vec::new();
    let mut ancestors = walk::Ancestors::default();
    let root = ws.root().to_str();
    for piece in &task.pieces {
        piece
            .walk_below(ws.root(), &mut ancestors, &mut |entry| {
                if glob.is_entry_match(&task.root, entry.path, entry.name) {
                    let mut shown = shown(ws, root, entry.path);
                    if entry.kind == Kind::Dir {
                        shown.push('/');
                    }
                    found.push(shown);
                }
                Flow::Continue
            })
            .map_err(|e| ws.io_error(&e, piece.dir(), "search"))?;
    }
    serde_json::to_vec(&found).map_err(|e| e.to_string())
}

/// A walked path as the model sees it: [`Workspace::display`], which takes the root off
/// component by component (slowly off-Unix), for each of thousands of results. A walked path is
/// the root, `/`, and names, so the root comes off as text; anything else goes the long way.
fn shown(ws: &Workspace, root: Option<&str>, path: &std::path::Path) -> String {
    root.zip(path.to_str())
        .and_then(|(root, path)| path.strip_prefix(root)?.strip_prefix('/'))
        .filter(|rel| !rel.is_empty() && !rel.starts_with('/'))
        .map_or_else(|| ws.display(path), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{call, text, TempWorkspace};

    fn fixture() -> TempWorkspace {
        let t = TempWorkspace::new();
        t.file(".gitignore", "target/\n*.log\n");
        t.file("src/main.rs", "");
        t.file("src/lib/mod.rs", "");
        t.file("target/debug/build.rs", "");
        t.file("debug.log", "");
        t.file(".github/ci.yml", "");
        t.file(".git/config", "");
        t.file("README.md", "");
        t
    }

    #[test]
    fn honours_gitignore_outside_a_repository() {
        let t = fixture();
        let r = run(&t.ws, &call("find", json!({"pattern": "*.rs"})));
        assert_eq!(text(&r), "src/lib/mod.rs\nsrc/main.rs");
    }

    #[test]
    fn dotfiles_but_not_dot_git() {
        let t = fixture();
        let r = run(&t.ws, &call("find", json!({"pattern": "*"})));
        let out = text(&r);
        assert!(out.contains(".github/ci.yml"), "{out}");
        assert!(out.contains(".gitignore"), "{out}");
        assert!(!out.contains(".git/"), "{out}");
        assert!(!out.contains("target"), "{out}");
        assert!(out.contains("src/lib/\n"), "{out}");
    }

    #[test]
    fn path_patterns_relative_to_the_search_path() {
        let t = fixture();
        let r = run(
            &t.ws,
            &call("find", json!({"pattern": "lib/*.rs", "path": "src"})),
        );
        assert_eq!(text(&r), "src/lib/mod.rs");
        let r = run(&t.ws, &call("find", json!({"pattern": "readme*"})));
        assert_eq!(text(&r), "README.md");
    }

    #[test]
    fn walked_paths_are_shown_as_display_shows_them() {
        let t = fixture();
        let root = t.ws.root().to_str();
        for rel in ["src/main.rs", "src/lib/mod.rs", ".github/ci.yml", "a b/c"] {
            let path = t.ws.root().join(rel);
            assert_eq!(shown(&t.ws, root, &path), t.ws.display(&path), "{rel}");
        }
        let outside = std::path::Path::new("/elsewhere/x");
        assert_eq!(shown(&t.ws, root, outside), t.ws.display(outside));
        assert_eq!(shown(&t.ws, root, t.ws.root()), ".");
    }

    #[test]
    fn limits_and_empty_results() {
        let t = fixture();
        let r = run(&t.ws, &call("find", json!({"pattern": "*.rs", "limit": 1})));
        assert_eq!(
            text(&r),
            "src/lib/mod.rs\n\n[Showing 1 of 2 matches. Narrow the pattern or path, or pass a larger limit.]"
        );
        let r = run(&t.ws, &call("find", json!({"pattern": "*.zig"})));
        assert!(!r.is_error);
        assert!(text(&r).starts_with("No files match '*.zig' under '.'"));
    }
}
