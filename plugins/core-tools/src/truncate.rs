//! Output limits shared by the tools, so a single call cannot flood the model's context.
//!
//! `read` keeps the head of a window of lines (the model continues with `offset`), `bash` keeps the
//! tail (the end of a build log is where the error is). Both stop at whichever of the line or byte
//! limit comes first, and both cut a single line that is longer than the whole byte budget rather
//! than showing nothing.

use memchr::{memchr, memchr_iter, memrchr};

pub const MAX_LINES: usize = 2000;
pub const MAX_BYTES: usize = 50 * 1024;

/// Human size for notes: "812 B", "12.3 KB", "4.1 MB".
pub fn format_size(bytes: u64) -> String {
    const KB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < KB * KB {
        format!("{:.1} KB", b / KB)
    } else {
        format!("{:.1} MB", b / (KB * KB))
    }
}

/// "s" unless there is exactly one.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Quotes `s` for a POSIX shell when it needs it, for commands suggested in notes.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./+,:@%=".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The longest suffix of `s` that is at most `max` bytes and starts on a char boundary.
pub fn suffix_at_boundary(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// The first `max_chars` characters of `s`, or `None` when it is already short enough.
pub fn cut_chars(s: &str, max_chars: usize) -> Option<&str> {
    s.char_indices().nth(max_chars).map(|(i, _)| &s[..i])
}

/// Why a window of lines ended before the end of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Lines,
    Bytes,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the window, or taking lines into it.
    Collecting,
    /// The first line of the window did not fit the byte budget and was cut; counting the rest
    /// of it so the note can say how long it is.
    CuttingFirst,
    /// The window is full; only counting lines.
    Full(Limit),
}

/// Collects lines `first..` of a byte stream fed in arbitrary chunks, up to a line and byte
/// budget, while counting every line of the stream. Memory stays bounded by the budget whatever
/// the input size, so a multi-gigabyte log costs a scan, not an allocation.
#[derive(Debug)]
pub struct LineWindow {
    first: usize,
    max_lines: usize,
    max_bytes: usize,
    /// 1-based number of the line the next byte belongs to.
    line: usize,
    line_bytes: u64,
    out: Vec<u8>,
    line_start: usize,
    taken: usize,
    state: State,
    cut: Option<u64>,
    ends_with_newline: bool,
    any_bytes: bool,
}

/// What a [`LineWindow`] collected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The lines, joined with `\n`, without a trailing newline.
    pub bytes: Vec<u8>,
    /// 1-based number of the first line shown.
    pub first_line: usize,
    /// 1-based number of the last line shown (`first_line - 1` when none).
    pub last_line: usize,
    pub total_lines: usize,
    /// Set when the window stopped because of a budget; `None` when it reached the end or the
    /// line count the caller asked for.
    pub limit: Option<Limit>,
    /// Full length of the first line when it alone exceeded the byte budget and was cut.
    pub cut_line_len: Option<u64>,
}

impl LineWindow {
    pub fn new(first: usize, max_lines: usize, max_bytes: usize) -> Self {
        Self {
            first: first.max(1),
            max_lines: max_lines.max(1),
            max_bytes,
            line: 1,
            line_bytes: 0,
            out: Vec::new(),
            line_start: 0,
            taken: 0,
            state: State::Collecting,
            cut: None,
            ends_with_newline: false,
            any_bytes: false,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        self.any_bytes = true;
        self.ends_with_newline = chunk.last() == Some(&b'\n');
        let mut rest = chunk;
        while !rest.is_empty() {
            if matches!(self.state, State::Full(_)) {
                // Only counting now: one vectorized pass over the rest of the chunk.
                let newlines = memchr_iter(b'\n', rest).count();
                self.line += newlines;
                return;
            }
            match memchr(b'\n', rest) {
                Some(i) => {
                    self.take(&rest[..i]);
                    self.end_line();
                    rest = &rest[i + 1..];
                }
                None => {
                    self.take(rest);
                    rest = &[];
                }
            }
        }
    }

    fn take(&mut self, segment: &[u8]) {
        self.line_bytes += segment.len() as u64;
        if self.line < self.first || self.state != State::Collecting {
            return;
        }
        if self.out.len() + segment.len() <= self.max_bytes {
            self.out.extend_from_slice(segment);
        } else if self.taken == 0 {
            let room = self.max_bytes - self.out.len();
            self.out.extend_from_slice(&segment[..room]);
            self.state = State::CuttingFirst;
        } else {
            self.out.truncate(self.line_start);
            self.state = State::Full(Limit::Bytes);
        }
    }

    fn end_line(&mut self) {
        if self.line >= self.first {
            match self.state {
                State::Collecting => {
                    self.out.push(b'\n');
                    self.taken += 1;
                    self.line_start = self.out.len();
                    if self.taken == self.max_lines {
                        self.state = State::Full(Limit::Lines);
                    }
                }
                State::CuttingFirst => {
                    self.cut = Some(self.line_bytes);
                    self.taken = 1;
                    self.state = State::Full(Limit::Bytes);
                }
                State::Full(_) => {}
            }
        }
        self.line += 1;
        self.line_bytes = 0;
    }

    pub fn finish(mut self) -> Window {
        let total_lines = if !self.any_bytes {
            0
        } else if self.ends_with_newline {
            self.line - 1
        } else {
            self.line
        };
        // A last line without a newline was taken but never ended.
        if !self.ends_with_newline && self.any_bytes && self.line >= self.first {
            match self.state {
                State::Collecting => self.taken += 1,
                State::CuttingFirst => {
                    self.cut = Some(self.line_bytes);
                    self.taken = 1;
                    self.state = State::Full(Limit::Bytes);
                }
                State::Full(_) => {}
            }
        }
        if self.out.last() == Some(&b'\n') {
            self.out.pop();
        }
        let last_line = self.first + self.taken - 1;
        let limit = match self.state {
            State::Full(limit) if last_line < total_lines || self.cut.is_some() => Some(limit),
            _ => None,
        };
        Window {
            bytes: self.out,
            first_line: self.first,
            last_line,
            total_lines,
            limit,
            cut_line_len: self.cut,
        }
    }
}

/// The end of an output, as kept by `bash`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail<'a> {
    pub text: &'a str,
    /// Lines in `text`.
    pub lines: usize,
    /// Whether anything before `text` was dropped.
    pub truncated: bool,
    /// Set when the last line alone exceeded the byte budget and only its end is shown.
    pub last_line_cut: bool,
}

/// The last lines of `text` within the budgets. A trailing newline does not count as a line.
pub fn tail(text: &str, max_lines: usize, max_bytes: usize) -> Tail<'_> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return Tail {
            text: body,
            lines: 0,
            truncated: false,
            last_line_cut: false,
        };
    }
    let bytes = body.as_bytes();
    // `from` is where the earliest line taken so far starts; `end` is the exclusive end of the
    // next (earlier) line to consider.
    let mut from = body.len();
    let mut end = body.len();
    let mut lines = 0;
    while lines < max_lines.max(1) {
        let line_start = memrchr(b'\n', &bytes[..end]).map_or(0, |i| i + 1);
        if body.len() - line_start > max_bytes {
            break;
        }
        lines += 1;
        from = line_start;
        if line_start == 0 {
            break;
        }
        end = line_start - 1;
    }
    if lines == 0 {
        let cut = suffix_at_boundary(body, max_bytes);
        return Tail {
            text: cut,
            lines: 1,
            truncated: true,
            last_line_cut: true,
        };
    }
    Tail {
        text: &body[from..],
        lines,
        truncated: from > 0,
        last_line_cut: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(input: &str, first: usize, max_lines: usize, max_bytes: usize) -> Window {
        let mut w = LineWindow::new(first, max_lines, max_bytes);
        // Feed in awkward chunk sizes to exercise the boundaries.
        for chunk in input.as_bytes().chunks(3) {
            w.push(chunk);
        }
        w.finish()
    }

    fn text(w: &Window) -> &str {
        std::str::from_utf8(&w.bytes).expect("utf8")
    }

    #[test]
    fn sizes() {
        assert_eq!(format_size(812), "812 B");
        assert_eq!(format_size(12_595), "12.3 KB");
        assert_eq!(format_size(4_300_000), "4.1 MB");
    }

    #[test]
    fn whole_small_input() {
        let w = window("a\nb\nc\n", 1, 10, 100);
        assert_eq!(text(&w), "a\nb\nc");
        assert_eq!((w.first_line, w.last_line, w.total_lines), (1, 3, 3));
        assert_eq!(w.limit, None);
    }

    #[test]
    fn missing_final_newline_counts_the_last_line() {
        let w = window("a\nb", 1, 10, 100);
        assert_eq!(text(&w), "a\nb");
        assert_eq!((w.last_line, w.total_lines), (2, 2));
    }

    #[test]
    fn empty_input() {
        let w = window("", 1, 10, 100);
        assert_eq!((w.last_line, w.total_lines), (0, 0));
        assert!(w.bytes.is_empty());
    }

    #[test]
    fn offset_and_line_limit() {
        let input: String = (1..=10).map(|i| format!("line{i}\n")).collect();
        let w = window(&input, 4, 3, 1000);
        assert_eq!(text(&w), "line4\nline5\nline6");
        assert_eq!((w.first_line, w.last_line, w.total_lines), (4, 6, 10));
        assert_eq!(w.limit, Some(Limit::Lines));
    }

    #[test]
    fn line_limit_exactly_at_the_end_is_not_truncation() {
        let w = window("a\nb\n", 1, 2, 1000);
        assert_eq!(w.limit, None);
        assert_eq!(w.last_line, 2);
    }

    #[test]
    fn byte_limit_stops_before_the_line_that_does_not_fit() {
        let w = window("aaaa\nbbbb\ncccc\n", 1, 100, 10);
        assert_eq!(text(&w), "aaaa\nbbbb");
        assert_eq!((w.last_line, w.total_lines), (2, 3));
        assert_eq!(w.limit, Some(Limit::Bytes));
    }

    #[test]
    fn a_first_line_longer_than_the_budget_is_cut() {
        let w = window("short\n0123456789abcdef\nnext\n", 2, 100, 8);
        assert_eq!(text(&w), "01234567");
        assert_eq!((w.first_line, w.last_line, w.total_lines), (2, 2, 3));
        assert_eq!(w.cut_line_len, Some(16));
        assert_eq!(w.limit, Some(Limit::Bytes));
    }

    #[test]
    fn a_cut_last_line_without_newline() {
        let w = window("0123456789", 1, 100, 4);
        assert_eq!(text(&w), "0123");
        assert_eq!(w.cut_line_len, Some(10));
        assert_eq!(w.total_lines, 1);
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        let t = tail("1\n2\n3\n4\n", 2, 100);
        assert_eq!(t.text, "3\n4");
        assert_eq!(t.lines, 2);
        assert!(t.truncated);
        let t = tail("1\n2\n", 5, 100);
        assert_eq!(t.text, "1\n2");
        assert!(!t.truncated);
    }

    #[test]
    fn tail_respects_bytes() {
        let t = tail("aaaa\nbbbb\ncccc", 10, 9);
        assert_eq!(t.text, "bbbb\ncccc");
        assert!(t.truncated);
    }

    #[test]
    fn tail_cuts_a_huge_last_line() {
        let t = tail("x\n0123456789", 10, 4);
        assert_eq!(t.text, "6789");
        assert!(t.last_line_cut && t.truncated);
    }

    #[test]
    fn tail_with_a_leading_empty_line() {
        let t = tail("\nabc", 1, 100);
        assert_eq!(t.text, "abc");
        assert!(t.truncated);
        let t = tail("\nabc", 5, 100);
        assert_eq!(t.text, "\nabc");
        assert_eq!(t.lines, 2);
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("src/a.rs"), "src/a.rs");
        assert_eq!(shell_quote("my file"), "'my file'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn boundaries_respect_utf8() {
        assert_eq!(suffix_at_boundary("hé", 1), "");
        assert_eq!(cut_chars("héllo", 2), Some("hé"));
        assert_eq!(cut_chars("hé", 2), None);
    }
}
