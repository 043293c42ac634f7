//! `read`: a window of a text file, or an image.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use serde::Deserialize;
use tack_sdk::serde_json::json;
use tack_sdk::{ContentBlock, Image, ToolCall, ToolResult, ToolSpec};

use crate::content::{image_mime, invalid_utf8_bytes, looks_binary, SNIFF_LEN};
use crate::paths::Workspace;
use crate::truncate::{format_size, plural, shell_quote, Limit, LineWindow, MAX_BYTES, MAX_LINES};

/// Providers reject larger images (Anthropic's limit is 5 MB); refusing here gives the model a
/// reason it can act on instead of a failed request later.
const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;

const CHUNK: usize = 64 * 1024;

#[derive(Deserialize)]
struct Args {
    path: String,
    offset: Option<u64>,
    limit: Option<u64>,
}

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "read",
        "Read file",
        "Read a file in the workspace. Text comes back as-is (no line-number prefixes), starting \
         at line `offset` (1-based, default 1) for at most `limit` lines. Output is capped at 2000 \
         lines or 50 KB, whichever comes first; when the file goes on, a note at the end says \
         which lines were shown and the `offset` to continue from. A single line longer than 50 KB \
         is cut, with a note. PNG, JPEG, GIF and WebP images are returned as images you can see. \
         Binary files are refused. `path` is relative to the workspace root, or absolute inside \
         it. Prefer this over `cat`/`head`/`sed` in bash.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File to read, relative to the workspace root or absolute inside it."
                },
                "offset": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "1-based line number to start at (default 1). Use the offset from a previous read's note to continue."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Maximum number of lines to return (default and maximum 2000)."
                }
            },
            "required": ["path"],
            "additionalProperties": false
        }),
    )
    .snippet("read: view a text file (paged with offset/limit) or an image")
}

pub fn run(ws: &Workspace, call: &ToolCall) -> ToolResult {
    let args: Args = match call.args() {
        Ok(args) => args,
        Err(err) => return ToolResult::error(err),
    };
    match read(ws, &args) {
        Ok(result) => result,
        Err(message) => ToolResult::error(message),
    }
}

fn read(ws: &Workspace, args: &Args) -> Result<ToolResult, String> {
    if args.path.trim().is_empty() {
        return Err("read needs a file path; use ls to list a directory.".to_string());
    }
    let path = ws.resolve_readable(&args.path)?;
    let shown = ws.display(&path);
    let meta = std::fs::metadata(&path).map_err(|e| ws.io_error(&e, &path, "read"))?;
    if meta.is_dir() {
        return Err(format!(
            "'{shown}' is a directory, not a file; use ls to list it or find to search it."
        ));
    }
    let mut file = File::open(&path).map_err(|e| ws.io_error(&e, &path, "read"))?;
    let head = read_up_to(&mut file, SNIFF_LEN).map_err(|e| ws.io_error(&e, &path, "read"))?;

    if let Some(mime) = image_mime(&head) {
        return read_image(ws, &path, &shown, mime, meta.len(), head, &mut file);
    }
    if looks_binary(&head) {
        return Err(format!(
            "Cannot show '{shown}' as text: it is a binary file ({}). read shows text files and \
             PNG, JPEG, GIF or WebP images; inspect other formats with bash (for example \
             `file {q}` or `xxd {q} | head`).",
            format_size(meta.len()),
            q = shell_quote(&shown)
        ));
    }

    let first = usize::try_from(args.offset.unwrap_or(1).max(1)).unwrap_or(usize::MAX);
    let max_lines = args
        .limit
        .map_or(MAX_LINES, |l| usize::try_from(l).unwrap_or(MAX_LINES))
        .clamp(1, MAX_LINES);
    let mut window = LineWindow::new(first, max_lines, MAX_BYTES);
    window.push(&head);
    let mut buf = vec![0u8; CHUNK];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => window.push(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ws.io_error(&e, &path, "read")),
        }
    }
    let window = window.finish();

    if window.total_lines == 0 {
        return Ok(ToolResult::text(format!("[The file '{shown}' is empty.]"))
            .with_details(json!({"path": shown, "lines": 0, "truncated": false})));
    }
    if window.first_line > window.total_lines {
        return Err(format!(
            "Offset {} is past the end of '{shown}', which has {} line{}. Use an offset between 1 \
             and {}.",
            window.first_line,
            window.total_lines,
            plural(window.total_lines),
            window.total_lines
        ));
    }

    let invalid = invalid_utf8_bytes(&window.bytes);
    let mut text = String::from_utf8_lossy(&window.bytes).replace("\r\n", "\n");
    // The window drops the last line's `\n`, which leaves a CRLF file's `\r` behind.
    if text.ends_with('\r') {
        text.pop();
    }
    if window.cut_line_len.is_some() {
        // The cut may have split a multi-byte character, which lossy decoding turned into U+FFFD.
        while text.ends_with('\u{FFFD}') {
            text.pop();
        }
    }
    let continues = window.last_line < window.total_lines;
    let mut notes = Vec::new();
    if invalid > 0 {
        notes.push(format!(
            "[The file is not valid UTF-8: {invalid} byte{} shown as \u{FFFD}.]",
            plural(invalid)
        ));
    }
    if let Some(len) = window.cut_line_len {
        let n = window.first_line;
        let shown_bytes = text.len();
        notes.push(format!(
            "[Line {n} is {}, longer than the 50 KB read limit; only its first {} is shown. See \
             more of it with bash: sed -n '{n}p' {} | cut -b {}-{}]",
            format_size(len),
            format_size(shown_bytes as u64),
            shell_quote(&shown),
            shown_bytes + 1,
            shown_bytes + MAX_BYTES
        ));
    }
    if continues {
        let by_bytes = window.limit == Some(Limit::Bytes) && window.cut_line_len.is_none();
        notes.push(format!(
            "[Showing lines {}-{} of {}{}. Use offset={} to continue.]",
            window.first_line,
            window.last_line,
            window.total_lines,
            if by_bytes { " (50 KB limit)" } else { "" },
            window.last_line + 1
        ));
    }
    if !notes.is_empty() {
        text.push_str("\n\n");
        text.push_str(&notes.join("\n"));
    }

    let truncated = continues || window.first_line > 1 || window.cut_line_len.is_some();
    Ok(ToolResult::text(text).with_details(json!({
        "path": shown,
        "lines": window.total_lines,
        "truncated": truncated,
        "startLine": window.first_line,
        "endLine": window.last_line,
    })))
}

fn read_image(
    ws: &Workspace,
    path: &Path,
    shown: &str,
    mime: &str,
    size: u64,
    head: Vec<u8>,
    file: &mut File,
) -> Result<ToolResult, String> {
    if size > MAX_IMAGE_BYTES {
        return Err(format!(
            "Image '{shown}' is {}, over the 5 MB models accept. Make a smaller copy inside the \
             workspace with bash (for example `convert {} -resize 1600x1600 small.png`) and \
             read that.",
            format_size(size),
            shell_quote(shown)
        ));
    }
    let mut data = head;
    file.read_to_end(&mut data)
        .map_err(|e| ws.io_error(&e, path, "read"))?;
    let text = format!(
        "Image '{shown}' ({mime}, {}):",
        format_size(data.len() as u64)
    );
    Ok(ToolResult {
        content: vec![
            ContentBlock::Text(text),
            ContentBlock::Image(Image {
                mime_type: mime.to_string(),
                data,
            }),
        ],
        details: None,
        is_error: false,
    }
    .with_details(json!({"path": shown, "mimeType": mime, "bytes": size})))
}

/// Reads until `max` bytes or end of file, so a short first `read` cannot make a text file look
/// like a partial multi-byte character.
fn read_up_to(file: &mut File, max: usize) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(max);
    file.by_ref().take(max as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{call, details, text, TempWorkspace};

    fn read_tool(t: &TempWorkspace, args: tack_sdk::serde_json::Value) -> ToolResult {
        run(&t.ws, &call("read", args))
    }

    #[test]
    fn reads_a_small_file_whole() {
        let t = TempWorkspace::new();
        t.file("src/a.rs", "fn main() {}\r\n// end\r\n");
        let r = read_tool(&t, json!({"path": "src/a.rs"}));
        assert!(!r.is_error);
        assert_eq!(text(&r), "fn main() {}\n// end");
        assert_eq!(
            details(&r),
            json!({"path": "src/a.rs", "lines": 2, "truncated": false, "startLine": 1, "endLine": 2})
        );
    }

    #[test]
    fn pages_with_a_note_to_continue() {
        let t = TempWorkspace::new();
        let body: String = (1..=9000).map(|i| format!("{i}\n")).collect();
        t.file("big.txt", body);
        let r = read_tool(&t, json!({"path": "big.txt"}));
        let out = text(&r);
        assert!(out.starts_with("1\n2\n"));
        assert!(
            out.ends_with("2000\n\n[Showing lines 1-2000 of 9000. Use offset=2001 to continue.]"),
            "{}",
            &out[out.len() - 100..]
        );
        let r = read_tool(&t, json!({"path": "big.txt", "offset": 8999}));
        assert_eq!(text(&r), "8999\n9000");
        let r = read_tool(&t, json!({"path": "big.txt", "offset": 10, "limit": 2}));
        assert_eq!(
            text(&r),
            "10\n11\n\n[Showing lines 10-11 of 9000. Use offset=12 to continue.]"
        );
    }

    #[test]
    fn byte_limit_note() {
        let t = TempWorkspace::new();
        let line = "x".repeat(1000);
        let body: String = (0..100).map(|_| format!("{line}\n")).collect();
        t.file("wide.txt", body);
        let out = text(&read_tool(&t, json!({"path": "wide.txt"})));
        assert!(
            out.ends_with("[Showing lines 1-51 of 100 (50 KB limit). Use offset=52 to continue.]"),
            "{}",
            &out[out.len() - 120..]
        );
    }

    #[test]
    fn a_huge_line_is_cut_with_a_note() {
        let t = TempWorkspace::new();
        t.file("min.js", format!("{}\nnext\n", "y".repeat(200_000)));
        let out = text(&read_tool(&t, json!({"path": "min.js"})));
        assert!(
            out.contains("[Line 1 is 195.3 KB"),
            "{}",
            &out[out.len() - 300..]
        );
        assert!(out.contains("sed -n '1p' min.js | cut -b 51201-102400"));
        assert!(out.ends_with("Use offset=2 to continue.]"));
    }

    #[test]
    fn offsets_past_the_end_and_empty_files() {
        let t = TempWorkspace::new();
        t.file("three.txt", "a\nb\nc\n");
        t.file("empty.txt", "");
        let r = read_tool(&t, json!({"path": "three.txt", "offset": 7}));
        assert!(r.is_error);
        assert!(text(&r).contains("Offset 7 is past the end of 'three.txt', which has 3 lines"));
        let r = read_tool(&t, json!({"path": "empty.txt"}));
        assert!(!r.is_error);
        assert_eq!(text(&r), "[The file 'empty.txt' is empty.]");
    }

    #[test]
    fn images_come_back_as_images() {
        let t = TempWorkspace::new();
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDRrest".to_vec();
        t.file("shot.dat", &png);
        let r = read_tool(&t, json!({"path": "shot.dat"}));
        assert!(!r.is_error);
        match &r.content[1] {
            ContentBlock::Image(img) => {
                assert_eq!(img.mime_type, "image/png");
                assert_eq!(img.data, png);
            }
            other => panic!("expected an image, got {other:?}"),
        }
    }

    #[test]
    fn binary_and_directories_are_refused_clearly() {
        let t = TempWorkspace::new();
        t.file("blob.bin", b"\x00\x01\x02abc");
        let r = read_tool(&t, json!({"path": "blob.bin"}));
        assert!(r.is_error);
        assert!(text(&r).contains("'blob.bin' as text: it is a binary file"));
        t.file("dir/x", "");
        let r = read_tool(&t, json!({"path": "dir"}));
        assert!(text(&r).contains("'dir' is a directory"));
        let r = read_tool(&t, json!({"path": "nope/x.rs"}));
        assert_eq!(
            text(&r),
            "Cannot read 'nope/x.rs': the directory 'nope' does not exist."
        );
        let r = read_tool(&t, json!({"path": "missing.rs"}));
        assert_eq!(
            text(&r),
            "Cannot read 'missing.rs': no such file or directory."
        );
    }

    #[test]
    fn paths_outside_are_refused() {
        let t = TempWorkspace::new();
        let r = read_tool(&t, json!({"path": "/etc/passwd"}));
        assert!(r.is_error);
        assert!(text(&r).starts_with("Path '/etc/passwd' is outside the workspace"));
        let r = read_tool(&t, json!({"path": "../../etc/passwd"}));
        assert!(text(&r).contains("which is outside the workspace"));
    }

    #[test]
    fn invalid_utf8_is_shown_with_a_note() {
        let t = TempWorkspace::new();
        t.file(
            "latin1.txt",
            b"caf\xe9 au lait is a fine drink in the morning\n",
        );
        let out = text(&read_tool(&t, json!({"path": "latin1.txt"})));
        assert!(out.starts_with("caf\u{FFFD} au lait"));
        assert!(out.contains("[The file is not valid UTF-8: 1 byte shown as \u{FFFD}.]"));
    }

    #[test]
    fn an_at_prefix_from_a_mention_is_dropped() {
        let t = TempWorkspace::new();
        t.file("notes.md", "hi\n");
        assert_eq!(text(&read_tool(&t, json!({"path": "@notes.md"}))), "hi");
    }
}
