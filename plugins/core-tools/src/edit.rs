//! `edit`: targeted replacements in an existing file, all or nothing.

use serde::Deserialize;
use similar::{DiffTag, TextDiff};
use tack_sdk::serde_json::json;
use tack_sdk::{ToolCall, ToolResult, ToolSpec};

use crate::atomic::replace_file;
use crate::content::{invalid_utf8_bytes, looks_binary, SNIFF_LEN};
use crate::matching::{
    apply, describe_lines, first_overlap, line_of, locate, Found, MatchError, MatchKind, Normalized,
};
use crate::paths::Workspace;
use crate::truncate::{cut_chars, plural};

const BOM: &str = "\u{FEFF}";

#[derive(Deserialize)]
struct Args {
    path: String,
    #[serde(default)]
    edits: Vec<EditArg>,
    #[serde(default, alias = "oldText")]
    old_text: Option<String>,
    #[serde(default, alias = "newText")]
    new_text: Option<String>,
}

#[derive(Deserialize)]
struct EditArg {
    #[serde(alias = "oldText")]
    old_text: String,
    #[serde(alias = "newText")]
    new_text: String,
}

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "edit",
        "Edit file",
        "Replace text in an existing file. Each entry of `edits` replaces `old_text` with \
         `new_text`; `old_text` must match exactly one place in the file, so copy it verbatim \
         from the file (including indentation) with enough surrounding lines to be unique. All \
         entries are matched against the file as it was before this call, must not overlap, and \
         are applied together: if any fails, nothing changes and the error says which and why. \
         Differences in trailing whitespace, line endings, typographic quotes/dashes and \
         non-breaking spaces are tolerated when the match stays unique. The file's line endings \
         (LF or CRLF) and byte-order mark are preserved. To delete text, use an empty \
         `new_text`. To create a file or rewrite it entirely, use write.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File to edit, relative to the workspace root or absolute inside it."
                },
                "edits": {
                    "type": "array",
                    "minItems": 1,
                    "description": "Replacements, each matched against the original file.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "old_text": {
                                "type": "string",
                                "description": "Exact text to replace; must occur exactly once."
                            },
                            "new_text": {
                                "type": "string",
                                "description": "Replacement text (may be empty to delete)."
                            }
                        },
                        "required": ["old_text", "new_text"]
                    }
                },
                "old_text": {
                    "type": "string",
                    "description": "Shorthand for a single replacement, instead of `edits`."
                },
                "new_text": {
                    "type": "string",
                    "description": "Replacement for the top-level `old_text`."
                }
            },
            "required": ["path"]
        }),
    )
    // Edits are read-modify-write: two in one batch on the same file must not interleave.
    .sequential()
    .snippet("edit: replace exact snippets in a file (several at once via `edits`)")
}

pub fn run(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: Args = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    match edit(ws, args) {
        Ok(result) => result,
        Err(message) => ToolResult::error(message),
    }
}

/// One replacement with the label errors use for it.
struct Edit {
    label: String,
    old_text: String,
    new_text: String,
}

fn collect_edits(args: Args) -> Result<Vec<Edit>, String> {
    let single = args.edits.is_empty();
    let mut edits: Vec<Edit> = args
        .edits
        .into_iter()
        .enumerate()
        .map(|(i, e)| Edit {
            label: format!("edits[{i}]"),
            old_text: e.old_text,
            new_text: e.new_text,
        })
        .collect();
    match (args.old_text, args.new_text) {
        (Some(old_text), Some(new_text)) => edits.push(Edit {
            label: if single {
                "old_text"
            } else {
                "top-level old_text"
            }
            .to_string(),
            old_text,
            new_text,
        }),
        (Some(_), None) => {
            return Err(
                "old_text was given without new_text; give both (use an empty \
                        new_text to delete)."
                    .to_string(),
            )
        }
        (None, Some(_)) => {
            return Err("new_text was given without old_text; give both.".to_string())
        }
        (None, None) => {}
    }
    if edits.is_empty() {
        return Err(
            "No replacement given: pass `edits` as [{\"old_text\": ..., \"new_text\": ...}]."
                .to_string(),
        );
    }
    Ok(edits)
}

/// The line-ending convention of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eol {
    Lf,
    Crlf,
    /// Both appear; the file is edited as it is, without conversion.
    Mixed,
}

fn detect_eol(text: &str) -> Eol {
    let crlf = text.matches("\r\n").count();
    let lf = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    if crlf == 0 {
        Eol::Lf
    } else if crlf == lf {
        Eol::Crlf
    } else {
        Eol::Mixed
    }
}

fn edit(ws: &Workspace, args: Args) -> Result<ToolResult, String> {
    let raw_path = args.path.clone();
    let edits = collect_edits(args)?;
    if raw_path.trim().is_empty() {
        return Err("edit needs a file path.".to_string());
    }
    let requested = ws.resolve(&raw_path)?;
    let path = ws.write_target(&requested)?;
    let shown = ws.display(&requested);
    let bytes = std::fs::read(&path).map_err(|e| ws.io_error(&e, &path, "edit"))?;
    if looks_binary(&bytes[..bytes.len().min(SNIFF_LEN)]) {
        return Err(format!(
            "Cannot edit '{shown}': it is a binary file. edit only changes text files."
        ));
    }
    let original = String::from_utf8(bytes).map_err(|e| {
        format!(
            "Cannot edit '{shown}': it is not valid UTF-8 ({} invalid byte{}), and editing could \
             corrupt it. Rewrite it with write, or change it with bash.",
            invalid_utf8_bytes(e.as_bytes()),
            plural(invalid_utf8_bytes(e.as_bytes()))
        )
    })?;

    let (bom, body) = match original.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", original.as_str()),
    };
    let eol = detect_eol(body);
    // Pure CRLF files are edited as LF and converted back, so the model's LF text matches
    // exactly; a mixed file is left as it is, and tolerant matching bridges the difference.
    let working = match eol {
        Eol::Crlf => body.replace("\r\n", "\n"),
        Eol::Lf | Eol::Mixed => body.to_string(),
    };
    let to_working = |text: &str| match eol {
        Eol::Lf | Eol::Crlf => text.replace("\r\n", "\n"),
        Eol::Mixed => text.to_string(),
    };

    let normalized = Normalized::new(&working);
    let mut failures = Vec::new();
    let mut placed: Vec<(usize, Found, String)> = Vec::new();
    for (i, edit) in edits.iter().enumerate() {
        let old = to_working(&edit.old_text);
        let new = to_working(&edit.new_text);
        if old == new {
            failures.push(format!(
                "{}: old_text and new_text are identical, so it would change nothing.",
                describe(edit)
            ));
            continue;
        }
        match locate(&working, &normalized, &old) {
            Ok(found) => placed.push((i, found, new)),
            Err(err) => failures.push(format!("{}: {}", describe(edit), explain(&err))),
        }
    }
    let mut overlap = false;
    if failures.is_empty() {
        let ranges: Vec<(usize, usize)> = placed.iter().map(|(_, f, _)| (f.start, f.end)).collect();
        if let Some((a, b)) = first_overlap(&ranges) {
            let (ea, eb) = (&edits[placed[a].0], &edits[placed[b].0]);
            let lines_a = line_span(&working, &placed[a].1);
            let lines_b = line_span(&working, &placed[b].1);
            failures.push(format!(
                "{} ({lines_a}) and {} ({lines_b}) overlap. Merge them into one replacement.",
                ea.label, eb.label
            ));
            overlap = true;
        }
    }
    if !failures.is_empty() {
        let hint = if overlap {
            ""
        } else if failures.len() == 1 && edits.len() > 1 {
            "\nThe other replacements matched; fix this one and send them all again."
        } else {
            "\nRead the file again if it may have changed, then retry."
        };
        return Err(format!(
            "Edit of '{shown}' failed; no changes were made.\n- {}{hint}",
            failures.join("\n- ")
        ));
    }

    let replacements: Vec<(usize, usize, &str)> = placed
        .iter()
        .map(|(_, f, new)| (f.start, f.end, new.as_str()))
        .collect();
    let updated = apply(&working, &replacements);

    let diff = TextDiff::from_lines(working.as_str(), updated.as_str());
    let first_changed_line = diff
        .ops()
        .iter()
        .find(|op| op.tag() != DiffTag::Equal)
        .map(|op| op.new_range().start + 1);
    let unified = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string();

    let mut output = String::with_capacity(bom.len() + updated.len() + updated.len() / 32);
    output.push_str(bom);
    match eol {
        Eol::Crlf => output.push_str(&updated.replace('\n', "\r\n")),
        Eol::Lf | Eol::Mixed => output.push_str(&updated),
    }
    let note = replace_file(&path, &shown, output.as_bytes(), true)
        .map_err(|e| ws.io_error(&e, &path, "write"))?;

    let at_lines = new_lines(&working, &placed);
    let tolerant: Vec<&str> = placed
        .iter()
        .filter(|(_, f, _)| f.kind == MatchKind::Tolerant)
        .map(|(i, _, _)| edits[*i].label.as_str())
        .collect();
    let mut text = if placed.len() == 1 {
        format!(
            "Edited {shown}: replaced 1 block at {}.",
            describe_lines(&at_lines)
        )
    } else {
        format!(
            "Edited {shown}: replaced {} blocks at {}.",
            placed.len(),
            describe_lines(&at_lines)
        )
    };
    if !tolerant.is_empty() {
        text.push_str(&format!(
            " {} matched only after ignoring differences in trailing whitespace, line endings, \
             quotes or dashes; the new text was inserted as given.",
            tolerant.join(", ")
        ));
    }
    if let Some(note) = note {
        text.push(' ');
        text.push_str(&note);
    }
    Ok(ToolResult::text(text).with_details(json!({
        "path": shown,
        "diff": unified,
        "firstChangedLine": first_changed_line,
        "replacements": placed.len(),
    })))
}

/// Names an edit for error messages, with the start of its old_text so the model can tell which
/// one is meant without counting.
fn describe(edit: &Edit) -> String {
    let Some(line) = edit.old_text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return edit.label.clone();
    };
    let start = match cut_chars(line, 60) {
        Some(cut) => format!("{cut}…"),
        None => line.to_string(),
    };
    if edit.label == "old_text" {
        format!("old_text (starting `{start}`)")
    } else {
        format!("{} (old_text starting `{start}`)", edit.label)
    }
}

fn explain(err: &MatchError) -> String {
    match err {
        MatchError::EmptyOldText => "old_text is empty. To insert text, include a neighbouring \
                                     line in old_text and repeat it in new_text; to create a \
                                     file, use write."
            .to_string(),
        MatchError::NotFound { hint: Some(hint) } => {
            format!("old_text was not found in the file; {hint}.")
        }
        MatchError::NotFound { hint: None } => "old_text was not found in the file. Read the \
                                                file again and copy old_text verbatim."
            .to_string(),
        MatchError::Ambiguous { lines, kind } => format!(
            "old_text {}matches {} places ({}); include more surrounding lines to make it unique.",
            if *kind == MatchKind::Tolerant {
                "has no exact match, and tolerantly "
            } else {
                ""
            },
            lines.len(),
            describe_lines(lines)
        ),
    }
}

/// "line 7" or "lines 7-9" for a range of the original text.
fn line_span(text: &str, found: &Found) -> String {
    let first = line_of(text, found.start);
    let last = line_of(text, found.end.saturating_sub(1).max(found.start));
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}-{last}")
    }
}

/// The line in the new text where each replacement first changes something, in file order.
fn new_lines(working: &str, placed: &[(usize, Found, String)]) -> Vec<usize> {
    let mut sorted: Vec<&(usize, Found, String)> = placed.iter().collect();
    sorted.sort_by_key(|(_, f, _)| f.start);
    let mut shift: isize = 0;
    let mut lines = Vec::with_capacity(sorted.len());
    for (_, found, new) in sorted {
        // old_text usually repeats a line or two of context before the change.
        let same = common_prefix(&working[found.start..found.end], new);
        let changed = line_of(working, found.start + same) as isize;
        lines.push((changed + shift).max(1) as usize);
        let before = line_of(working, found.start) as isize;
        let removed = line_of(working, found.end) as isize - before;
        let added = memchr::memchr_iter(b'\n', new.as_bytes()).count() as isize;
        shift += added - removed;
    }
    lines
}

/// Length in bytes of the longest common prefix of `a` and `b`, on a char boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_prefixes() {
        assert_eq!(common_prefix("abc", "abd"), 2);
        assert_eq!(common_prefix("ab", "abc"), 2);
        assert_eq!(common_prefix("é1", "é2"), 2);
        assert_eq!(common_prefix("x", "y"), 0);
    }

    #[test]
    fn eol_detection() {
        assert_eq!(detect_eol("a\nb\n"), Eol::Lf);
        assert_eq!(detect_eol("a\r\nb\r\n"), Eol::Crlf);
        assert_eq!(detect_eol("a\r\nb\n"), Eol::Mixed);
        assert_eq!(detect_eol("no newline"), Eol::Lf);
    }

    #[test]
    fn new_line_numbers_account_for_earlier_replacements() {
        let working = "a\nb\nc\nd\n";
        let placed = vec![
            (
                0,
                Found {
                    start: 0,
                    end: 1,
                    kind: MatchKind::Exact,
                },
                "x\ny\nz".to_string(),
            ),
            (
                1,
                Found {
                    start: 6,
                    end: 7,
                    kind: MatchKind::Exact,
                },
                "D".to_string(),
            ),
        ];
        assert_eq!(new_lines(working, &placed), vec![1, 6]);
    }

    #[test]
    fn single_form_and_list_form() {
        let args: Args =
            tack_sdk::serde_json::from_str(r#"{"path":"a","old_text":"x","new_text":"y"}"#)
                .expect("valid");
        let edits = collect_edits(args).expect("one edit");
        assert_eq!(edits.len(), 1);
        assert_eq!(edits[0].label, "old_text");

        let args: Args = tack_sdk::serde_json::from_str(
            r#"{"path":"a","edits":[{"oldText":"x","newText":"y"},{"old_text":"p","new_text":"q"}]}"#,
        )
        .expect("valid");
        let edits = collect_edits(args).expect("two edits");
        assert_eq!(edits[1].label, "edits[1]");

        let args: Args = tack_sdk::serde_json::from_str(r#"{"path":"a"}"#).expect("valid");
        assert!(collect_edits(args).is_err());
    }
}

#[cfg(test)]
mod tool_tests {
    use super::*;
    use crate::testutil::{call, details, text, TempWorkspace};
    use tack_sdk::serde_json::Value;

    fn edit_tool(t: &TempWorkspace, args: Value) -> ToolResult {
        run(&t.ws, &call("edit", args))
    }

    #[test]
    fn single_replacement_with_diff() {
        let t = TempWorkspace::new();
        t.file("a.rs", "fn a() {\n    1\n}\n");
        let r = edit_tool(
            &t,
            json!({"path": "a.rs", "old_text": "    1\n", "new_text": "    2\n"}),
        );
        assert!(!r.is_error, "{}", text(&r));
        assert_eq!(text(&r), "Edited a.rs: replaced 1 block at line 2.");
        assert_eq!(t.read("a.rs"), b"fn a() {\n    2\n}\n");
        let d = details(&r);
        assert_eq!(d["firstChangedLine"], json!(2));
        let diff = d["diff"].as_str().expect("diff");
        assert!(diff.contains("--- a/a.rs\n+++ b/a.rs\n"), "{diff}");
        assert!(diff.contains("-    1\n+    2\n"), "{diff}");
    }

    #[test]
    fn several_edits_against_the_original() {
        let t = TempWorkspace::new();
        t.file("f.txt", "alpha\nbeta\ngamma\ndelta\n");
        let r = edit_tool(
            &t,
            json!({"path": "f.txt", "edits": [
                {"old_text": "delta", "new_text": "DELTA"},
                {"old_text": "alpha\n", "new_text": "alpha\nalpha2\n"}
            ]}),
        );
        assert!(!r.is_error, "{}", text(&r));
        assert_eq!(
            text(&r),
            "Edited f.txt: replaced 2 blocks at lines 2 and 5."
        );
        assert_eq!(t.read("f.txt"), b"alpha\nalpha2\nbeta\ngamma\nDELTA\n");
    }

    #[test]
    fn crlf_and_bom_are_preserved() {
        let t = TempWorkspace::new();
        t.file("w.cs", "\u{FEFF}class A\r\n{\r\n    int x;\r\n}\r\n");
        let r = edit_tool(
            &t,
            json!({"path": "w.cs", "old_text": "{\n    int x;\n", "new_text": "{\n    int x;\n    int y;\n"}),
        );
        assert!(!r.is_error, "{}", text(&r));
        assert_eq!(
            t.read("w.cs"),
            "\u{FEFF}class A\r\n{\r\n    int x;\r\n    int y;\r\n}\r\n".as_bytes()
        );
    }

    #[test]
    fn tolerant_match_is_reported() {
        let t = TempWorkspace::new();
        t.file("q.md", "He said \u{201C}hi\u{201D}.   \nNext.\n");
        let r = edit_tool(
            &t,
            json!({"path": "q.md", "old_text": "He said \"hi\".\nNext.", "new_text": "Bye.\nNext."}),
        );
        assert!(!r.is_error, "{}", text(&r));
        assert!(text(&r).contains("old_text matched only after ignoring differences"));
        assert_eq!(t.read("q.md"), b"Bye.\nNext.\n");
    }

    #[test]
    fn failures_name_each_edit_and_change_nothing() {
        let t = TempWorkspace::new();
        let original = "x = 1\nx = 1\ny = 2\n";
        t.file("p.py", original);
        let r = edit_tool(
            &t,
            json!({"path": "p.py", "edits": [
                {"old_text": "x = 1", "new_text": "x = 3"},
                {"old_text": "z = 9", "new_text": "z = 0"},
                {"old_text": "y = 2", "new_text": "y = 5"}
            ]}),
        );
        assert!(r.is_error);
        let msg = text(&r);
        assert!(
            msg.starts_with("Edit of 'p.py' failed; no changes were made."),
            "{msg}"
        );
        assert!(
            msg.contains(
                "edits[0] (old_text starting `x = 1`): old_text matches 2 places (lines 1 and 2)"
            ),
            "{msg}"
        );
        assert!(
            msg.contains("edits[1] (old_text starting `z = 9`): old_text was not found"),
            "{msg}"
        );
        assert!(!msg.contains("edits[2]"), "{msg}");
        assert_eq!(t.read("p.py"), original.as_bytes());
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let t = TempWorkspace::new();
        t.file("o.txt", "one\ntwo\nthree\n");
        let r = edit_tool(
            &t,
            json!({"path": "o.txt", "edits": [
                {"old_text": "one\ntwo", "new_text": "1\n2"},
                {"old_text": "two\nthree", "new_text": "2\n3"}
            ]}),
        );
        assert!(r.is_error);
        assert!(
            text(&r).contains("edits[0] (lines 1-2) and edits[1] (lines 2-3) overlap"),
            "{}",
            text(&r)
        );
    }

    #[test]
    fn identical_and_missing_files() {
        let t = TempWorkspace::new();
        t.file("s.txt", "same\n");
        let r = edit_tool(
            &t,
            json!({"path": "s.txt", "old_text": "same", "new_text": "same"}),
        );
        assert!(r.is_error && text(&r).contains("identical"));
        let r = edit_tool(
            &t,
            json!({"path": "nope.txt", "old_text": "a", "new_text": "b"}),
        );
        assert!(r.is_error);
        assert_eq!(
            text(&r),
            "Cannot edit 'nope.txt': no such file or directory."
        );
    }

    #[test]
    fn non_utf8_files_are_refused() {
        let t = TempWorkspace::new();
        t.file(
            "l1.txt",
            b"caf\xe9 is a word that is written in Latin-1 here\n",
        );
        let r = edit_tool(
            &t,
            json!({"path": "l1.txt", "old_text": "caf", "new_text": "tea"}),
        );
        assert!(
            r.is_error && text(&r).contains("not valid UTF-8 (1 invalid byte)"),
            "{}",
            text(&r)
        );
    }
}
