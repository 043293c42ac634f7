//! Finding the text an edit replaces: exactly when possible, tolerantly when the model's copy
//! differs from the file only in ways it cannot see or reliably reproduce (trailing whitespace,
//! CR before LF, typographic quotes and dashes, non-breaking spaces).
//!
//! Tolerant matching compares normalized copies of the file and of `old_text`, then maps the
//! match back to a range of the original file, so only that range changes: the rest of the file
//! keeps its curly quotes and trailing spaces byte for byte.

use memchr::memmem;

/// How an edit's `old_text` was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    Tolerant,
}

/// A byte range of the file an edit replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub kind: MatchKind,
}

/// Why an edit could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchError {
    EmptyOldText,
    /// `old_text` does not occur. `hint` says what did come close.
    NotFound {
        hint: Option<String>,
    },
    /// `old_text` occurs at each of these (1-based) lines.
    Ambiguous {
        lines: Vec<usize>,
        kind: MatchKind,
    },
}

/// A copy of a text with tolerant differences normalized away, and for each of its bytes the
/// offset of the original character it came from.
#[derive(Debug)]
pub struct Normalized {
    pub text: String,
    origin: Vec<usize>,
}

/// How aggressively to normalize.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strictness {
    /// Trailing whitespace, CR, quotes, dashes, odd spaces: safe to apply.
    Tolerant,
    /// Also leading whitespace: only used to explain a failure ("the indentation differs").
    IgnoreIndent,
}

impl Normalized {
    pub fn new(text: &str) -> Self {
        Self::build(text, Strictness::Tolerant)
    }

    fn build(text: &str, strictness: Strictness) -> Self {
        let mut out = String::with_capacity(text.len());
        let mut origin = Vec::with_capacity(text.len());
        let mut line_start = 0;
        for line in text.split_inclusive('\n') {
            let (body, newline) = match line.strip_suffix('\n') {
                Some(body) => (body, true),
                None => (line, false),
            };
            let trimmed_end = body.trim_end();
            let (skipped, kept) = match strictness {
                Strictness::Tolerant => (0, trimmed_end),
                Strictness::IgnoreIndent => {
                    let kept = trimmed_end.trim_start();
                    (trimmed_end.len() - kept.len(), kept)
                }
            };
            for (i, c) in kept.char_indices() {
                let mapped = fold_char(c);
                let at = line_start + skipped + i;
                let before = out.len();
                out.push(mapped);
                origin.extend(std::iter::repeat_n(at, out.len() - before));
            }
            if newline {
                out.push('\n');
                origin.push(line_start + body.len());
            }
            line_start += line.len();
        }
        Self { text: out, origin }
    }

    /// The original byte range that normalized bytes `start..end` came from. Trailing
    /// whitespace the normalization dropped right after the range stays outside it.
    fn original_range(&self, original: &str, start: usize, end: usize) -> (usize, usize) {
        let from = self.origin[start];
        let last = self.origin[end - 1];
        let last_len = original[last..].chars().next().map_or(1, char::len_utf8);
        (from, last + last_len)
    }
}

/// The ASCII stand-in for characters models tend to type differently from the file.
fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2007}' | '\u{202F}' | '\u{2000}'..='\u{200A}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// Start offsets of every occurrence of `needle`, overlapping ones included: `aa` in `aaa` is
/// two places, and an edit there is ambiguous.
pub fn find_all(haystack: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    if needle.is_empty() {
        return found;
    }
    let finder = memmem::Finder::new(needle.as_bytes());
    let bytes = haystack.as_bytes();
    let mut from = 0;
    while let Some(i) = finder.find(&bytes[from..]) {
        found.push(from + i);
        from += i + 1;
    }
    found
}

/// 1-based line number of byte `offset`.
pub fn line_of(text: &str, offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() + 1
}

/// Locates `old` in `content`: exactly if it occurs exactly once; otherwise tolerantly if that
/// is unique. `normalized` is `content` normalized, computed by the caller once for all edits.
pub fn locate(content: &str, normalized: &Normalized, old: &str) -> Result<Found, MatchError> {
    if old.is_empty() {
        return Err(MatchError::EmptyOldText);
    }
    let exact = find_all(content, old);
    match exact.len() {
        1 => {
            return Ok(Found {
                start: exact[0],
                end: exact[0] + old.len(),
                kind: MatchKind::Exact,
            })
        }
        0 => {}
        _ => {
            return Err(MatchError::Ambiguous {
                lines: exact.iter().map(|&i| line_of(content, i)).collect(),
                kind: MatchKind::Exact,
            })
        }
    }

    let needle = Normalized::new(old).text;
    if needle.trim().is_empty() {
        return Err(MatchError::NotFound { hint: None });
    }
    let tolerant = find_all(&normalized.text, &needle);
    match tolerant.len() {
        1 => {
            let (start, end) =
                normalized.original_range(content, tolerant[0], tolerant[0] + needle.len());
            Ok(Found {
                start,
                end,
                kind: MatchKind::Tolerant,
            })
        }
        0 => Err(MatchError::NotFound {
            hint: near_miss(content, old),
        }),
        _ => Err(MatchError::Ambiguous {
            lines: tolerant
                .iter()
                .map(|&i| line_of(content, normalized.origin[i]))
                .collect(),
            kind: MatchKind::Tolerant,
        }),
    }
}

/// What came close to `old`, to help the model fix its next attempt.
fn near_miss(content: &str, old: &str) -> Option<String> {
    let loose_content = Normalized::build(content, Strictness::IgnoreIndent);
    let loose_old = Normalized::build(old, Strictness::IgnoreIndent).text;
    if !loose_old.trim().is_empty() {
        let places = find_all(&loose_content.text, &loose_old);
        if !places.is_empty() {
            let lines: Vec<usize> = places
                .iter()
                .map(|&i| line_of(content, loose_content.origin[i]))
                .collect();
            return Some(format!(
                "it matches at {} if indentation is ignored, so copy the file's exact leading \
                 whitespace (tabs vs spaces, depth)",
                describe_lines(&lines)
            ));
        }
    }
    let first = old.lines().map(str::trim).find(|l| !l.is_empty())?;
    let folded_first: String = first.chars().map(fold_char).collect();
    let lines: Vec<usize> = content
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let folded: String = l.trim().chars().map(fold_char).collect();
            folded == folded_first
        })
        .map(|(i, _)| i + 1)
        .collect();
    if lines.is_empty() {
        return None;
    }
    let later = old.lines().filter(|l| !l.trim().is_empty()).count() > 1;
    Some(if later {
        format!(
            "its first line occurs at {}, but the lines after it differ from the file; copy \
             them verbatim",
            describe_lines(&lines)
        )
    } else {
        format!(
            "that line occurs at {} but the rest of old_text differs; copy it verbatim",
            describe_lines(&lines)
        )
    })
}

/// "line 4", "lines 4, 9 and 12", "lines 4, 9, 12, … (31 places)".
pub fn describe_lines(lines: &[usize]) -> String {
    const SHOWN: usize = 8;
    match lines {
        [] => "no line".to_string(),
        [one] => format!("line {one}"),
        _ if lines.len() <= SHOWN => {
            let (last, rest) = lines.split_last().unwrap_or((&0, &[]));
            let rest: Vec<String> = rest.iter().map(usize::to_string).collect();
            format!("lines {} and {last}", rest.join(", "))
        }
        _ => {
            let shown: Vec<String> = lines[..SHOWN].iter().map(usize::to_string).collect();
            format!("lines {}, … ({} places)", shown.join(", "), lines.len())
        }
    }
}

/// The first pair of ranges (by index into `ranges`) that overlap, if any. Ranges that merely
/// touch do not overlap.
pub fn first_overlap(ranges: &[(usize, usize)]) -> Option<(usize, usize)> {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| ranges[i]);
    order.windows(2).find_map(|pair| {
        let (a, b) = (pair[0], pair[1]);
        (ranges[b].0 < ranges[a].1).then(|| (a.min(b), a.max(b)))
    })
}

/// Applies non-overlapping replacements given against the same original text.
pub fn apply(content: &str, replacements: &[(usize, usize, &str)]) -> String {
    let mut sorted: Vec<&(usize, usize, &str)> = replacements.iter().collect();
    sorted.sort_by_key(|r| r.0);
    let mut out = String::with_capacity(content.len());
    let mut at = 0;
    for &&(start, end, new) in &sorted {
        out.push_str(&content[at..start]);
        out.push_str(new);
        at = end;
    }
    out.push_str(&content[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(content: &str, old: &str) -> Result<Found, MatchError> {
        locate(content, &Normalized::new(content), old)
    }

    #[test]
    fn exact_unique_match() {
        let found = loc("fn a() {}\nfn b() {}\n", "fn b()").expect("found");
        assert_eq!(
            (found.start, found.end, found.kind),
            (10, 16, MatchKind::Exact)
        );
    }

    #[test]
    fn exact_duplicates_report_lines() {
        let err = loc("x = 1\ny = 2\nx = 1\n", "x = 1").expect_err("ambiguous");
        assert_eq!(
            err,
            MatchError::Ambiguous {
                lines: vec![1, 3],
                kind: MatchKind::Exact
            }
        );
    }

    #[test]
    fn overlapping_occurrences_are_ambiguous() {
        assert_eq!(find_all("aaa", "aa"), vec![0, 1]);
        assert!(matches!(
            loc("aaa", "aa"),
            Err(MatchError::Ambiguous { .. })
        ));
    }

    #[test]
    fn trailing_whitespace_is_tolerated() {
        let content = "let a = 1;   \nlet b = 2;\n";
        let found = loc(content, "let a = 1;\nlet b = 2;").expect("found");
        assert_eq!(found.kind, MatchKind::Tolerant);
        assert_eq!(
            &content[found.start..found.end],
            "let a = 1;   \nlet b = 2;"
        );
    }

    #[test]
    fn crlf_is_tolerated() {
        let content = "one\r\ntwo\r\nthree\r\n";
        let found = loc(content, "one\ntwo").expect("found");
        assert_eq!(&content[found.start..found.end], "one\r\ntwo");
    }

    #[test]
    fn unicode_quotes_dashes_and_spaces_are_tolerated() {
        let content = "say(\u{201C}hi\u{201D}); // it\u{2019}s a\u{00A0}test \u{2014} ok\n";
        let found = loc(content, "say(\"hi\"); // it's a test - ok").expect("found");
        assert_eq!(found.kind, MatchKind::Tolerant);
        assert_eq!(found.start, 0);
        assert_eq!(found.end, content.len() - 1);
        let replaced = apply(content, &[(found.start, found.end, "X")]);
        assert_eq!(replaced, "X\n");
    }

    #[test]
    fn only_the_matched_range_changes() {
        let content = "a \u{201C}q\u{201D}\nb \u{201C}q\u{201D}  \nc\n";
        let found = loc(content, "b \"q\"\nc").expect("found");
        let out = apply(content, &[(found.start, found.end, "B\nC")]);
        assert_eq!(out, "a \u{201C}q\u{201D}\nB\nC\n");
    }

    #[test]
    fn tolerant_duplicates_are_refused() {
        let content = "x = \u{201C}a\u{201D}\nx = \u{201C}a\u{201D}\n";
        let err = loc(content, "x = \"a\"").expect_err("ambiguous");
        assert_eq!(
            err,
            MatchError::Ambiguous {
                lines: vec![1, 2],
                kind: MatchKind::Tolerant
            }
        );
    }

    #[test]
    fn indentation_is_not_tolerated_but_explained() {
        let content = "fn f() {\n\tlet x = 1;\n}\n";
        let err = loc(content, "    let x = 1;").expect_err("not found");
        match err {
            MatchError::NotFound { hint: Some(h) } => assert!(h.contains("indentation"), "{h}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn first_line_hint() {
        let content = "fn f() {\n    let x = 1;\n}\n";
        let err = loc(content, "fn f() {\n    let y = 2;").expect_err("not found");
        match err {
            MatchError::NotFound { hint: Some(h) } => {
                assert!(h.contains("first line occurs at line 1"), "{h}")
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            loc(content, "nothing like it"),
            Err(MatchError::NotFound { hint: None })
        );
    }

    #[test]
    fn empty_old_text_is_refused() {
        assert_eq!(loc("abc", ""), Err(MatchError::EmptyOldText));
    }

    #[test]
    fn overlaps() {
        assert_eq!(first_overlap(&[(0, 5), (10, 12)]), None);
        assert_eq!(first_overlap(&[(0, 5), (5, 8)]), None);
        assert_eq!(first_overlap(&[(10, 20), (0, 5), (15, 25)]), Some((0, 2)));
    }

    #[test]
    fn apply_in_any_order() {
        let out = apply("abcdef", &[(4, 5, "E"), (0, 1, "AA")]);
        assert_eq!(out, "AAbcdEf");
    }

    #[test]
    fn line_lists() {
        assert_eq!(describe_lines(&[3]), "line 3");
        assert_eq!(describe_lines(&[3, 9]), "lines 3 and 9");
        assert_eq!(describe_lines(&[1, 2, 3]), "lines 1, 2 and 3");
        assert_eq!(
            describe_lines(&(1..=10).collect::<Vec<_>>()),
            "lines 1, 2, 3, 4, 5, 6, 7, 8, … (10 places)"
        );
    }
}
