//! `grep`: regex or literal search over file contents.
//!
//! Built for speed on large trees, the way ripgrep's fast path works: each file is read whole
//! into one reused buffer, the regex runs over the whole buffer (its literal prefilters skip
//! most bytes), and line boundaries and numbers are found with memchr only around matches.
//!
//! A directory is cut into pieces (see [`walk::split`]) that run as tasks on other instances of
//! the plugin, one per core, and their findings are merged in walk order, so the output is
//! exactly what one walk would print. Pieces go out in growing batches: a search that fills its
//! limit early stops without walking the rest of the tree.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memchr::{memchr, memchr_iter, memrchr};
use regex::bytes::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};
use tack_sdk::serde_json::{self, json};
use tack_sdk::{ToolCall, ToolResult, ToolSpec};

use crate::content::SNIFF_LEN;
use crate::fanout;
use crate::fsys::{self, Kind, Read};
use crate::paths::Workspace;
use crate::truncate::{cut_chars, format_size, plural, MAX_BYTES};
use crate::walk::{self, Flow, PathGlob, Piece};

const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 1000;
const MAX_CONTEXT: usize = 20;
const MAX_LINE_CHARS: usize = 500;
/// Files are searched in memory; bigger ones (logs, dumps) would risk the guest's memory limit.
const MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;

#[derive(Deserialize)]
struct Args {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    #[serde(default)]
    ignore_case: bool,
    #[serde(default)]
    literal: bool,
    context: Option<u64>,
    limit: Option<u64>,
}

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "grep",
        "Search file contents",
        "Search file contents for a regular expression (Rust regex syntax, like ripgrep), or for \
         a plain string with `literal: true`. Searches the file or directory tree at `path` \
         (default: the workspace root), skipping files excluded by .gitignore/.ignore, the .git \
         directory and binary files. `glob` restricts which files are searched (`*.rs`, \
         `src/**/*.ts`). Each matching line is printed as `path:line: text`; with `context: N`, \
         N lines around each match are printed as `path-line- text` and separate groups with \
         `--`. Lines are cut at 500 characters. At most `limit` matching lines (default 100) are \
         shown, with a note when there are more. Patterns match within one line.",
        json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "description": "Regular expression (or literal text with `literal: true`)."
                },
                "path": {
                    "type": "string",
                    "description": "File or directory to search, relative to the workspace root or absolute inside it (default: the root)."
                },
                "glob": {
                    "type": "string",
                    "description": "Only search files matching this glob: a name pattern like `*.py` or `*.{ts,tsx}`, or a path pattern like `src/**/*.rs`."
                },
                "ignore_case": {
                    "type": "boolean",
                    "description": "Match case-insensitively (default false)."
                },
                "literal": {
                    "type": "boolean",
                    "description": "Treat `pattern` as plain text, not a regex (default false)."
                },
                "context": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_CONTEXT,
                    "description": "Lines of context to show before and after each match (default 0)."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "Maximum number of matching lines to show (default 100)."
                }
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
    )
    .snippet("grep: search file contents by regex or literal text (respects .gitignore)")
}

pub fn run(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: Args = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    match grep(ws, &args) {
        Ok(result) => result,
        Err(message) => ToolResult::error(message),
    }
}

fn build_regex(pattern: &str, literal: bool, ignore_case: bool) -> Result<Regex, String> {
    if pattern.is_empty() {
        return Err("The search pattern is empty.".to_string());
    }
    let source: Cow<str> = if literal {
        Cow::Owned(regex::escape(pattern))
    } else {
        Cow::Borrowed(pattern)
    };
    RegexBuilder::new(&source)
        .case_insensitive(ignore_case)
        // `^` and `$` anchor at line boundaries, CRLF files included, as in line-based grep.
        .multi_line(true)
        .crlf(true)
        .build()
        .map_err(|e| {
            format!(
                "Invalid regular expression '{}': {e}\nEscape special characters with `\\`, or \
                 set literal: true to search for the text as written.",
                pattern
            )
        })
}

/// What a search found and printed.
struct Report {
    out: String,
    shown: usize,
    files: usize,
    more: bool,
    out_full: bool,
    skipped_large: usize,
}

fn grep(ws: &Workspace, args: &Args) -> Result<ToolResult, String> {
    let re = build_regex(&args.pattern, args.literal, args.ignore_case)?;
    // Checked here so a bad glob is reported once, before any task starts.
    args.glob.as_deref().map(PathGlob::new).transpose()?;
    let root = ws.resolve_readable(args.path.as_deref().unwrap_or("."))?;
    let shown_root = ws.display(&root);
    let limit = args
        .limit
        .map_or(DEFAULT_LIMIT, |l| usize::try_from(l).unwrap_or(MAX_LIMIT))
        .clamp(1, MAX_LIMIT);
    let context = args
        .context
        .map_or(0, |c| usize::try_from(c).unwrap_or(MAX_CONTEXT))
        .min(MAX_CONTEXT);

    let mut report = Report {
        out: String::new(),
        shown: 0,
        files: 0,
        more: false,
        out_full: false,
        skipped_large: 0,
    };
    let meta = std::fs::metadata(&root).map_err(|e| ws.io_error(&e, &root, "search"))?;
    if !meta.is_dir() {
        // A single file named explicitly is searched whatever the ignore files say.
        if meta.len() > MAX_FILE_BYTES {
            return Err(format!(
                "'{shown_root}' is {}, too large to search here; use bash (rg or grep).",
                format_size(meta.len())
            ));
        }
        let buf = std::fs::read(&root).map_err(|e| ws.io_error(&e, &root, "search"))?;
        if is_binary(&buf) {
            return Err(format!(
                "'{shown_root}' is a binary file; grep only searches text."
            ));
        }
        let mut hits = Vec::new();
        search(&re, &buf, limit + 1, &mut hits);
        if hits.len() > limit {
            hits.truncate(limit);
            report.more = true;
        }
        if !hits.is_empty() {
            report.files = 1;
            report.shown = render(&mut report.out, &shown_root, &buf, &hits, context);
            report.out_full = report.shown < hits.len();
        }
    } else {
        let search = TreeSearch {
            ws,
            args,
            re: &re,
            root: &root,
            limit,
            context,
        };
        search.run(&mut report)?;
    }

    let mut text = std::mem::take(&mut report.out);
    let mut notes = Vec::new();
    if report.shown == 0 {
        text = format!(
            "No matches for '{}' in '{shown_root}'{}.",
            args.pattern,
            args.glob
                .as_deref()
                .map(|g| format!(" (files matching '{g}')"))
                .unwrap_or_default()
        );
    } else if report.out_full {
        notes.push(format!(
            "[Output stopped at 50 KB after {} matching line{}. Narrow the search (pattern, path, \
             glob) or use less context.]",
            report.shown,
            plural(report.shown)
        ));
    } else if report.more {
        notes.push(format!(
            "[Showing the first {} matching line{}; there are more. Narrow the search (pattern, \
             path, glob) or pass a larger limit.]",
            report.shown,
            plural(report.shown)
        ));
    }
    if report.skipped_large > 0 {
        notes.push(format!(
            "[Skipped {} file{} larger than 128 MB; search them with bash (rg or grep).]",
            report.skipped_large,
            plural(report.skipped_large)
        ));
    }
    if !notes.is_empty() {
        if text.ends_with('\n') {
            text.pop();
        }
        text.push_str("\n\n");
        text.push_str(&notes.join("\n"));
    } else if text.ends_with('\n') {
        text.pop();
    }
    Ok(ToolResult::text(text).with_details(json!({
        "pattern": args.pattern,
        "path": shown_root,
        "matches": report.shown,
        "files": report.files,
        "truncated": report.more || report.out_full,
    })))
}

impl Report {
    /// Adds one file's matching lines, as one sequential walk would: once `limit` lines are
    /// shown, a further match only records that there are more.
    fn add_file(
        &mut self,
        re: &Regex,
        buf: &[u8],
        path: &str,
        limit: usize,
        context: usize,
        hits: &mut Vec<Hit>,
    ) -> Flow {
        if self.shown == limit {
            search(re, buf, 1, hits);
            if hits.is_empty() {
                return Flow::Continue;
            }
            self.more = true;
            return Flow::Stop;
        }
        let remaining = limit - self.shown;
        search(re, buf, remaining + 1, hits);
        if hits.is_empty() {
            return Flow::Continue;
        }
        if hits.len() > remaining {
            hits.truncate(remaining);
            self.more = true;
        }
        self.files += 1;
        self.shown += render(&mut self.out, path, buf, hits, context);
        if self.out.len() >= MAX_BYTES {
            // Whatever was not written, here or in later files, is cut by the byte budget.
            self.out_full = true;
            return Flow::Stop;
        }
        if self.more {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }

    /// Adds what a task found in one file. Most findings are appended as the task rendered
    /// them; one that crosses the line limit or the byte budget is searched again here, so the
    /// cut falls exactly where a sequential search would put it.
    fn add_found(&mut self, found: Found, search: &TreeSearch, hits: &mut Vec<Hit>) -> Flow {
        let (path, count, text) = match found {
            Found::TooLarge => {
                self.skipped_large += 1;
                return Flow::Continue;
            }
            Found::Hits { path, count, text } => (path, count, text),
        };
        if self.shown == search.limit {
            self.more = true;
            return Flow::Stop;
        }
        let separator = search.context > 0 && !self.out.is_empty();
        let after = self.out.len() + text.len() + if separator { 3 } else { 0 };
        if count <= search.limit - self.shown && after < MAX_BYTES {
            if separator {
                self.out.push_str("--\n");
            }
            self.out.push_str(&text);
            self.shown += count;
            self.files += 1;
            return Flow::Continue;
        }
        let mut buf = Vec::new();
        let read = path
            .parent()
            .zip(path.file_name().and_then(|n| n.to_str()))
            .and_then(|(dir, name)| fsys::open_dir(dir).ok().map(|d| (d, name)))
            .map(|(dir, name)| dir.read_file(name, &mut buf, MAX_FILE_BYTES));
        match read {
            Some(Ok(Read::Done)) => {}
            // Gone or changed since the task read it: skip it, as an unreadable file is.
            _ => return Flow::Continue,
        }
        let shown = search.ws.display(&path);
        self.add_file(search.re, &buf, &shown, search.limit, search.context, hits)
    }
}

/// A search of a directory tree, cut into pieces that run as tasks.
struct TreeSearch<'a> {
    ws: &'a Workspace,
    args: &'a Args,
    re: &'a Regex,
    root: &'a Path,
    limit: usize,
    context: usize,
}

impl TreeSearch<'_> {
    fn run(&self, report: &mut Report) -> Result<(), String> {
        let io_error = |e: std::io::Error| self.ws.io_error(&e, self.root, "search");
        let workers = fanout::parallelism().max(1);
        // Several pieces per worker, so one slow piece does not leave the other cores idle.
        let pieces = walk::split(self.ws.root(), self.root, workers * 4).map_err(io_error)?;
        let mut hits = Vec::new();
        let mut next = 0;
        let mut batch = workers * 2;
        while next < pieces.len() {
            let end = (next + batch).min(pieces.len());
            batch *= 4;
            let max_hits = self.limit - report.shown + 1;
            let tasks: Vec<fanout::Task> = pieces[next..end]
                .iter()
                .map(|piece| {
                    fanout::Task::Grep(Task {
                        pattern: self.args.pattern.clone(),
                        literal: self.args.literal,
                        ignore_case: self.args.ignore_case,
                        glob: self.args.glob.clone(),
                        root: self.root.to_path_buf(),
                        piece: piece.clone(),
                        max_hits,
                        context: self.context,
                    })
                })
                .collect();
            next = end;
            for found in fanout::run::<TaskOutput>(self.ws, "grep", &tasks)? {
                for file in found.files {
                    if report.add_found(file, self, &mut hits) == Flow::Stop {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }
}

/// One piece of a tree search, as a task gets it.
#[derive(Serialize, Deserialize)]
pub struct Task {
    pattern: String,
    literal: bool,
    ignore_case: bool,
    glob: Option<String>,
    /// The search root, which `glob` is relative to.
    root: PathBuf,
    piece: Piece,
    /// Matching lines after which the task stops: what is still to show, plus one to tell
    /// whether there are more.
    max_hits: usize,
    context: usize,
}

#[derive(Serialize, Deserialize, Default)]
struct TaskOutput {
    /// In walk order.
    files: Vec<Found>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Found {
    /// A file with `count` matching lines, rendered as `text`.
    Hits {
        path: PathBuf,
        count: usize,
        text: String,
    },
    /// A file skipped for its size.
    TooLarge,
}

/// What a task instance keeps between the pieces of one search: compiling a pattern (a Unicode
/// `\w`, say) can cost more than searching a few hundred files, and the regex's lazy DFA gets
/// warm on the first piece.
pub type TaskCache = fanout::Latest<(String, bool, bool), Regex>;

/// Runs one piece of a tree search (a task started by [`TreeSearch::run`], maybe on another
/// instance of the plugin).
pub fn run_task(ws: &Workspace, cache: &mut TaskCache, task: Task) -> Result<Vec<u8>, String> {
    let key = (task.pattern.clone(), task.literal, task.ignore_case);
    let re = cache.get_or_try_build(&key, || {
        build_regex(&task.pattern, task.literal, task.ignore_case)
    })?;
    let glob = task.glob.as_deref().map(PathGlob::new).transpose()?;
    let mut output = TaskOutput::default();
    let (mut total, mut bytes) = (0, 0);
    let (mut buf, mut hits) = (Vec::new(), Vec::new());
    let piece = &task.piece;
    piece
        .walk(ws.root(), &mut |entry| {
            if entry.kind != Kind::File {
                return Flow::Continue;
            }
            let path = entry.path;
            if let Some(glob) = &glob {
                if !glob.is_entry_match(&task.root, path, entry.name) {
                    return Flow::Continue;
                }
            }
            match entry.dir.read_file(entry.name, &mut buf, MAX_FILE_BYTES) {
                Ok(Read::Done) => {}
                Ok(Read::TooLarge) => {
                    output.files.push(Found::TooLarge);
                    return Flow::Continue;
                }
                // Unreadable files are skipped, as ripgrep does.
                Err(_) => return Flow::Continue,
            }
            if is_binary(&buf) {
                return Flow::Continue;
            }
            search(re, &buf, task.max_hits - total, &mut hits);
            if hits.is_empty() {
                return Flow::Continue;
            }
            let mut text = String::new();
            render(&mut text, &ws.display(path), &buf, &hits, task.context);
            total += hits.len();
            bytes += text.len();
            output.files.push(Found::Hits {
                path: path.to_path_buf(),
                count: hits.len(),
                text,
            });
            if total >= task.max_hits || bytes >= MAX_BYTES {
                Flow::Stop
            } else {
                Flow::Continue
            }
        })
        .map_err(|e| ws.io_error(&e, piece.dir(), "search"))?;
    serde_json::to_vec(&output).map_err(|e| e.to_string())
}

/// Binary files are skipped the way git and ripgrep decide: a NUL byte near the start.
fn is_binary(buf: &[u8]) -> bool {
    memchr(0, &buf[..buf.len().min(SNIFF_LEN)]).is_some()
}

/// A matching line: its 1-based number and byte range (without the newline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hit {
    line: usize,
    start: usize,
    end: usize,
}

/// Finds up to `max` matching lines of `buf`, in order.
fn search(re: &Regex, buf: &[u8], max: usize, hits: &mut Vec<Hit>) {
    hits.clear();
    let mut pos = 0;
    let mut line = 1;
    let mut counted_to = 0;
    while hits.len() < max && pos <= buf.len() {
        let Some(m) = re.find_at(buf, pos) else {
            break;
        };
        let start = memrchr(b'\n', &buf[..m.start()]).map_or(0, |i| i + 1);
        let end = memchr(b'\n', &buf[m.start()..]).map_or(buf.len(), |i| m.start() + i);
        // A match that runs past the end of its line (`\s+`, `[^x]*`) does not make the line a
        // match by itself; the line counts only if the pattern matches within it.
        let within = m.end() <= end || re.is_match(&buf[start..end]);
        if within {
            line += memchr_iter(b'\n', &buf[counted_to..start]).count();
            counted_to = start;
            hits.push(Hit { line, start, end });
        }
        if end >= buf.len() {
            break;
        }
        pos = end + 1;
    }
}

fn previous_line(buf: &[u8], start: usize) -> Option<(usize, usize)> {
    if start == 0 {
        return None;
    }
    let end = start - 1;
    let begin = memrchr(b'\n', &buf[..end]).map_or(0, |i| i + 1);
    Some((begin, end))
}

fn next_line(buf: &[u8], end: usize) -> Option<(usize, usize)> {
    let begin = end + 1;
    if begin >= buf.len() {
        return None;
    }
    let stop = memchr(b'\n', &buf[begin..]).map_or(buf.len(), |i| begin + i);
    Some((begin, stop))
}

/// Appends the hits of one file, with context, to `out`, stopping once `out` reaches the byte
/// budget. Returns how many hits were written.
fn render(out: &mut String, path: &str, buf: &[u8], hits: &[Hit], context: usize) -> usize {
    let mut printed_to = 0;
    for (k, hit) in hits.iter().enumerate() {
        let from = hit.line.saturating_sub(context).max(printed_to + 1).max(1);
        let mut before = Vec::new();
        let (mut start, mut n) = (hit.start, hit.line);
        while n > from {
            let Some((s, e)) = previous_line(buf, start) else {
                break;
            };
            n -= 1;
            before.push((n, s, e));
            start = s;
        }
        let joins_previous = printed_to > 0 && n <= printed_to + 1;
        if context > 0 && !out.is_empty() && !joins_previous {
            out.push_str("--\n");
        }
        for &(n, s, e) in before.iter().rev() {
            push_line(out, path, n, '-', &buf[s..e]);
        }
        push_line(out, path, hit.line, ':', &buf[hit.start..hit.end]);
        printed_to = hit.line;

        let next_hit = hits.get(k + 1).map(|h| h.line);
        let mut end = hit.end;
        while printed_to < hit.line + context && next_hit.is_none_or(|l| printed_to + 1 < l) {
            let Some((s, e)) = next_line(buf, end) else {
                break;
            };
            printed_to += 1;
            push_line(out, path, printed_to, '-', &buf[s..e]);
            end = e;
        }
        if out.len() >= MAX_BYTES {
            return k + 1;
        }
    }
    hits.len()
}

fn push_line(out: &mut String, path: &str, line: usize, sep: char, text: &[u8]) {
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let text = String::from_utf8_lossy(text);
    out.push_str(path);
    out.push(sep);
    // Writing to a String cannot fail.
    let _ = write!(out, "{line}");
    out.push(sep);
    out.push(' ');
    match cut_chars(&text, MAX_LINE_CHARS) {
        Some(cut) => {
            out.push_str(cut);
            out.push_str(" … [line cut at 500 characters]");
        }
        None => out.push_str(&text),
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(pattern: &str) -> Regex {
        RegexBuilder::new(pattern)
            .multi_line(true)
            .crlf(true)
            .build()
            .expect("valid")
    }

    fn lines(pattern: &str, text: &str) -> Vec<usize> {
        let mut hits = Vec::new();
        search(&re(pattern), text.as_bytes(), 100, &mut hits);
        hits.iter().map(|h| h.line).collect()
    }

    #[test]
    fn one_hit_per_line_with_numbers() {
        assert_eq!(lines("a", "a a\nb\nxa\n"), vec![1, 3]);
        assert_eq!(lines("^b$", "a\nb\r\nc\n"), vec![2]);
        assert_eq!(lines("z", "a\nb\n"), Vec::<usize>::new());
        assert_eq!(lines("end", "x\nend"), vec![2]);
    }

    #[test]
    fn matches_across_lines_do_not_count() {
        // `a\s+b` would match "a\nb" across the newline; no single line matches.
        assert_eq!(lines(r"a\s+b", "a\nb\n"), Vec::<usize>::new());
        // But a line that matches on its own is still found after a crossing match.
        assert_eq!(lines(r"a\s+b", "a\na  b\n"), vec![2]);
        assert_eq!(lines(r"x[^y]*z", "x\nz x1z\n"), vec![2]);
    }

    #[test]
    fn max_hits() {
        let mut hits = Vec::new();
        search(&re("a"), b"a\na\na\n", 2, &mut hits);
        assert_eq!(hits.len(), 2);
    }

    #[test]
    fn render_plain() {
        let buf = b"one\ntwo\nthree\n";
        let mut hits = Vec::new();
        search(&re("t"), buf, 10, &mut hits);
        let mut out = String::new();
        render(&mut out, "f.txt", buf, &hits, 0);
        assert_eq!(out, "f.txt:2: two\nf.txt:3: three\n");
    }

    #[test]
    fn render_with_context_and_separators() {
        let text: String = (1..=12).map(|i| format!("l{i}\n")).collect();
        let buf = text.as_bytes();
        let mut hits = Vec::new();
        search(&re("^l(2|4|10)$"), buf, 10, &mut hits);
        let mut out = String::new();
        render(&mut out, "f", buf, &hits, 1);
        assert_eq!(
            out,
            "f-1- l1\nf:2: l2\nf-3- l3\nf:4: l4\nf-5- l5\n--\nf-9- l9\nf:10: l10\nf-11- l11\n"
        );
    }

    #[test]
    fn context_at_file_edges() {
        let buf = b"a\nb";
        let mut hits = Vec::new();
        search(&re("a|b"), buf, 10, &mut hits);
        let mut out = String::new();
        render(&mut out, "f", buf, &hits, 3);
        assert_eq!(out, "f:1: a\nf:2: b\n");
    }

    #[test]
    fn long_lines_are_cut() {
        let long = "x".repeat(600);
        let mut out = String::new();
        push_line(&mut out, "f", 7, ':', long.as_bytes());
        assert!(out.starts_with("f:7: xxx"));
        assert!(out.ends_with(" … [line cut at 500 characters]\n"));
        assert_eq!(out.matches('x').count(), 500);
    }
}

#[cfg(test)]
mod tool_tests {
    use super::*;
    use crate::testutil::{call, details, text, TempWorkspace};

    fn fixture() -> TempWorkspace {
        let t = TempWorkspace::new();
        t.file(".gitignore", "build/\n");
        t.file("src/a.rs", "fn alpha() {}\nfn beta() {}\n// TODO alpha\n");
        t.file("src/b.py", "def alpha():\n    pass\n");
        t.file("build/gen.rs", "fn alpha() {}\n");
        t.file("data.bin", b"alpha\0\x01\x02");
        t
    }

    #[test]
    fn searches_text_files_not_ignored_ones() {
        let t = fixture();
        let r = run(&t.ws, &call("grep", json!({"pattern": "alpha"})));
        assert!(!r.is_error, "{}", text(&r));
        assert_eq!(
            text(&r),
            "src/a.rs:1: fn alpha() {}\nsrc/a.rs:3: // TODO alpha\nsrc/b.py:1: def alpha():"
        );
        assert_eq!(details(&r)["files"], json!(2));
    }

    #[test]
    fn glob_literal_and_case() {
        let t = fixture();
        let r = run(
            &t.ws,
            &call(
                "grep",
                json!({"pattern": "ALPHA", "glob": "*.py", "ignore_case": true}),
            ),
        );
        assert_eq!(text(&r), "src/b.py:1: def alpha():");
        let r = run(
            &t.ws,
            &call("grep", json!({"pattern": "alpha()", "literal": true})),
        );
        assert_eq!(
            text(&r),
            "src/a.rs:1: fn alpha() {}\nsrc/b.py:1: def alpha():"
        );
    }

    #[test]
    fn a_single_file_and_context() {
        let t = fixture();
        let r = run(
            &t.ws,
            &call(
                "grep",
                json!({"pattern": "beta", "path": "src/a.rs", "context": 1}),
            ),
        );
        assert_eq!(
            text(&r),
            "src/a.rs-1- fn alpha() {}\nsrc/a.rs:2: fn beta() {}\nsrc/a.rs-3- // TODO alpha"
        );
    }

    #[test]
    fn limit_says_there_is_more() {
        let t = fixture();
        let r = run(
            &t.ws,
            &call("grep", json!({"pattern": "alpha", "limit": 2})),
        );
        assert_eq!(
            text(&r),
            "src/a.rs:1: fn alpha() {}\nsrc/a.rs:3: // TODO alpha\n\n[Showing the first 2 matching lines; there are more. Narrow the search (pattern, path, glob) or pass a larger limit.]"
        );
        let r = run(
            &t.ws,
            &call("grep", json!({"pattern": "alpha", "limit": 3})),
        );
        assert!(!text(&r).contains("there are more"));
    }

    #[test]
    fn output_is_capped_at_50_kb() {
        let t = TempWorkspace::new();
        let line = format!("hit {}\n", "x".repeat(400));
        t.file("many.txt", line.repeat(300));
        let r = run(
            &t.ws,
            &call("grep", json!({"pattern": "hit", "limit": 1000})),
        );
        let out = text(&r);
        assert!(out.len() < MAX_BYTES + 1024, "{}", out.len());
        let shown = details(&r)["matches"].as_u64().expect("count");
        assert_eq!(out.matches("many.txt:").count() as u64, shown);
        assert!(
            out.ends_with(&format!(
                "[Output stopped at 50 KB after {shown} matching lines. Narrow the search (pattern, path, glob) or use less context.]"
            )),
            "{}",
            &out[out.len() - 200..]
        );
    }

    #[test]
    fn no_matches_and_bad_patterns() {
        let t = fixture();
        let r = run(&t.ws, &call("grep", json!({"pattern": "gamma"})));
        assert!(!r.is_error);
        assert_eq!(text(&r), "No matches for 'gamma' in '.'.");
        let r = run(&t.ws, &call("grep", json!({"pattern": "fn (a"})));
        assert!(r.is_error);
        assert!(text(&r).contains("Invalid regular expression 'fn (a'"));
        assert!(text(&r).contains("literal: true"));
        let r = run(
            &t.ws,
            &call("grep", json!({"pattern": "x", "path": "data.bin"})),
        );
        assert!(r.is_error && text(&r).contains("binary file"));
    }
}
