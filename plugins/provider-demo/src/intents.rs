//! Recognizes the few requests the demo provider understands, by keywords.
//!
//! A prompt is cut into clauses (at `and`, `then`, commas, semicolons, sentence ends and line
//! breaks) and each clause yields at most one intent, so "list the files and read README.md"
//! becomes two tool calls. A note (`write a note ...`, `note: ...`) takes the rest of the prompt
//! as its text, commas and all.

use serde_json::{json, Value};

/// Something the user asked for that maps onto one tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Intent {
    List {
        path: String,
    },
    Read {
        path: String,
    },
    Search {
        pattern: String,
        path: Option<String>,
    },
    GitStatus,
    Note {
        path: String,
        content: String,
    },
}

pub const GIT_STATUS: &str = "git status --short --branch";
pub const DEFAULT_NOTE_FILE: &str = "NOTES.md";

impl Intent {
    /// Name of the core tool that serves the intent.
    pub fn tool(&self) -> &'static str {
        match self {
            Intent::List { .. } => "ls",
            Intent::Read { .. } => "read",
            Intent::Search { .. } => "grep",
            Intent::GitStatus => "bash",
            Intent::Note { .. } => "write",
        }
    }

    pub fn arguments(&self) -> Value {
        match self {
            Intent::List { path } => json!({ "path": path }),
            Intent::Read { path } => json!({ "path": path }),
            Intent::Search {
                pattern,
                path: None,
            } => json!({ "pattern": pattern }),
            Intent::Search {
                pattern,
                path: Some(path),
            } => json!({ "pattern": pattern, "path": path }),
            Intent::GitStatus => json!({ "command": GIT_STATUS }),
            Intent::Note { path, content } => {
                json!({ "path": path, "content": format!("{content}\n") })
            }
        }
    }

    /// What the call does, to complete "I'll ...".
    pub fn describe(&self) -> String {
        match self {
            Intent::List { path } => format!("list the files in `{path}`"),
            Intent::Read { path } => format!("read `{path}`"),
            Intent::Search {
                pattern,
                path: None,
            } => format!("search for `{pattern}`"),
            Intent::Search {
                pattern,
                path: Some(path),
            } => format!("search for `{pattern}` in `{path}`"),
            Intent::GitStatus => format!("run `{GIT_STATUS}`"),
            Intent::Note { path, .. } => format!("write your note to `{path}`"),
        }
    }
}

/// The intents found in a prompt, in prompt order, plus remarks for requests that were
/// recognized but incomplete.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub intents: Vec<Intent>,
    pub remarks: Vec<String>,
}

pub fn parse(prompt: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let (before_note, note) = split_note(prompt);
    for clause in clauses(before_note) {
        if let Some(intent) = clause_intent(clause) {
            if !parsed.intents.contains(&intent) {
                parsed.intents.push(intent);
            }
        }
    }
    match note {
        Some(Ok(intent)) => parsed.intents.push(intent),
        Some(Err(remark)) => parsed.remarks.push(remark),
        None => {}
    }
    parsed
}

const NOTE_MARKERS: &[&str] = &[
    "write a note",
    "write down a note",
    "write note",
    "add a note",
    "take a note",
    "note:",
];

/// Separates the part of the prompt before a note marker from the note itself.
fn split_note(prompt: &str) -> (&str, Option<Result<Intent, String>>) {
    let lower = prompt.to_ascii_lowercase();
    let found = NOTE_MARKERS
        .iter()
        .filter_map(|marker| find_word(&lower, marker).map(|at| (at, marker.len())))
        .min();
    let Some((at, len)) = found else {
        return (prompt, None);
    };
    (&prompt[..at], Some(parse_note(&prompt[at + len..])))
}

fn parse_note(rest: &str) -> Result<Intent, String> {
    let mut rest = rest.trim_start();
    let mut path = DEFAULT_NOTE_FILE.to_string();
    let lower = rest.to_ascii_lowercase();
    if lower.starts_with("to ") || lower.starts_with("in ") {
        let after = rest[3..].trim_start();
        let word_end = after.find(char::is_whitespace).unwrap_or(after.len());
        let target = clean(&after[..word_end]);
        if looks_like_path(target) {
            path = target.to_string();
            rest = &after[word_end..];
        }
    }
    let mut content = rest.trim_start_matches(|c: char| c.is_whitespace() || ":-,".contains(c));
    for lead in ["saying ", "that says ", "that "] {
        if content.to_ascii_lowercase().starts_with(lead) {
            content = &content[lead.len()..];
            break;
        }
    }
    let content = content.trim();
    if content.is_empty() {
        Err("Tell me what the note should say, e.g. `note: buy milk`.".to_string())
    } else {
        Ok(Intent::Note {
            path,
            content: content.to_string(),
        })
    }
}

const SEPARATORS: &[&str] = &[" and ", " then ", ",", ";", "\n", ". ", "? ", "! ", " & "];

/// Cuts the prompt into clauses at the separators (matched without regard to case).
fn clauses(text: &str) -> Vec<&str> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < lower.len() {
        // Separators are ASCII, and ASCII bytes never occur inside a multi-byte character, so a
        // match is always on a character boundary.
        match SEPARATORS.iter().find(|sep| lower[i..].starts_with(*sep)) {
            Some(sep) => {
                out.push(&text[start..i]);
                i += sep.len();
                start = i;
            }
            None => i += 1,
        }
    }
    out.push(&text[start..]);
    out.retain(|clause| !clause.trim().is_empty());
    out
}

fn clause_intent(clause: &str) -> Option<Intent> {
    let lower = clause.to_ascii_lowercase();
    let read = read_target(clause, &lower);
    if let Some(path) = read.as_deref().filter(|p| looks_like_path(p)) {
        return Some(Intent::Read {
            path: path.to_string(),
        });
    }
    if let Some(search) = search(clause, &lower) {
        return Some(search);
    }
    if find_word(&lower, "status").is_some() {
        return Some(Intent::GitStatus);
    }
    if let Some(list) = list(clause, &lower) {
        return Some(list);
    }
    read.map(|path| Intent::Read { path })
}

/// The thing after `read`/`show`/`cat`, skipping filler words. A word without a dot or slash
/// counts only after `cat`, when quoted, or when it is capitalized like `Makefile`, so that "show me how it
/// works" reads nothing.
fn read_target(clause: &str, lower: &str) -> Option<String> {
    ["read", "show", "cat"].iter().find_map(|keyword| {
        let at = find_word(lower, keyword)?;
        let mut cursor = Cursor::new(&clause[at + keyword.len()..]);
        let (word, quoted) = cursor.next_meaningful_word()?;
        let bare_file_name = word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && (*keyword == "cat" || word.starts_with(|c: char| c.is_ascii_uppercase()));
        (looks_like_path(word) || bare_file_name || quoted).then(|| word.to_string())
    })
}

fn search(clause: &str, lower: &str) -> Option<Intent> {
    ["search", "grep", "find", "look for"]
        .iter()
        .find_map(|keyword| {
            let at = find_word(lower, keyword)?;
            let mut cursor = Cursor::new(&clause[at + keyword.len()..]);
            let pattern = cursor.next_pattern()?;
            let path = cursor.after_in();
            Some(Intent::Search { pattern, path })
        })
}

fn list(clause: &str, lower: &str) -> Option<Intent> {
    let at = ["list", "files", "ls"]
        .iter()
        .find_map(|keyword| find_word(lower, keyword).map(|at| at + keyword.len()))?;
    let mut cursor = Cursor::new(&clause[at..]);
    let path = match cursor.after_in() {
        Some(path) => path,
        None => {
            // `ls src/`: a path right after the keyword.
            let mut cursor = Cursor::new(&clause[at..]);
            cursor
                .next_meaningful_word()
                .map(|(word, _)| word)
                .filter(|word| looks_like_path(word))
                .unwrap_or(".")
                .to_string()
        }
    };
    Some(Intent::List { path })
}

/// Words that never name a file or a search pattern.
const FILLER: &[&str] = &[
    "a",
    "all",
    "an",
    "any",
    "at",
    "code",
    "content",
    "contents",
    "current",
    "directory",
    "every",
    "everything",
    "file",
    "files",
    "folder",
    "for",
    "here",
    "in",
    "it",
    "me",
    "mentions",
    "my",
    "now",
    "occurrences",
    "of",
    "our",
    "out",
    "pattern",
    "please",
    "project",
    "references",
    "repo",
    "repository",
    "some",
    "string",
    "strings",
    "text",
    "that",
    "the",
    "these",
    "this",
    "those",
    "up",
    "usages",
    "uses",
    "what",
    "word",
    "words",
    "you",
    "your",
];

fn is_filler(word: &str) -> bool {
    FILLER.contains(&word.to_ascii_lowercase().as_str())
}

const QUOTES: &[char] = &['"', '\'', '`'];

/// Strips quotes, brackets and sentence punctuation around a word (not a path's dots).
fn clean(word: &str) -> &str {
    let mut word = word;
    loop {
        let trimmed =
            word.trim_matches(|c: char| QUOTES.contains(&c) || "()[]{}<>,;:!?".contains(c));
        let trimmed = if trimmed.chars().all(|c| c == '.') {
            trimmed
        } else {
            trimmed.trim_end_matches('.')
        };
        if trimmed.len() == word.len() {
            return trimmed;
        }
        word = trimmed;
    }
}

fn looks_like_path(word: &str) -> bool {
    word.chars().any(char::is_alphanumeric)
        && !word.contains("://")
        && (word.contains('/') || (word.contains('.') && !word.ends_with('.')))
}

/// Finds `word` in `lower` where it is not part of a longer word.
fn find_word(lower: &str, word: &str) -> Option<usize> {
    let bytes = lower.as_bytes();
    let is_word_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(found) = lower[from..].find(word) {
        let at = from + found;
        let end = at + word.len();
        let starts_word = at == 0 || !is_word_byte(bytes[at - 1]);
        let last_is_word = word.as_bytes().last().is_some_and(|b| is_word_byte(*b));
        let ends_word = end == bytes.len() || !last_is_word || !is_word_byte(bytes[end]);
        if starts_word && ends_word {
            return Some(at);
        }
        from = at + 1;
        while !lower.is_char_boundary(from) {
            from += 1;
        }
    }
    None
}

/// Reads words off the rest of a clause.
struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    fn new(rest: &'a str) -> Self {
        Cursor { rest }
    }

    fn next_word(&mut self) -> Option<&'a str> {
        let rest = self.rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }

    /// The next word that is not filler, cleaned, and whether it was quoted.
    fn next_meaningful_word(&mut self) -> Option<(&'a str, bool)> {
        while let Some(raw) = self.next_word() {
            let word = clean(raw);
            if !word.is_empty() && !is_filler(word) {
                return Some((word, raw.starts_with(QUOTES)));
            }
        }
        None
    }

    /// A quoted phrase (which may contain spaces) or the next meaningful word.
    fn next_pattern(&mut self) -> Option<String> {
        loop {
            let rest = self.rest.trim_start();
            let quote = rest.chars().next().filter(|c| QUOTES.contains(c));
            if let Some(quote) = quote {
                let inner = &rest[1..];
                if let Some(end) = inner.find(quote) {
                    self.rest = &inner[end + 1..];
                    let phrase = &inner[..end];
                    if phrase.is_empty() {
                        continue;
                    }
                    return Some(phrase.to_string());
                }
            }
            let raw = self.next_word()?;
            let word = clean(raw);
            if !word.is_empty() && !is_filler(word) {
                return Some(word.to_string());
            }
        }
    }

    /// `in <place>` somewhere in the rest of the clause.
    fn after_in(&mut self) -> Option<String> {
        while let Some(raw) = self.next_word() {
            if raw.eq_ignore_ascii_case("in") || raw.eq_ignore_ascii_case("under") {
                let (place, _) = self.next_meaningful_word()?;
                return Some(place.to_string());
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intents(prompt: &str) -> Vec<Intent> {
        parse(prompt).intents
    }

    fn read(path: &str) -> Intent {
        Intent::Read { path: path.into() }
    }

    fn list(path: &str) -> Intent {
        Intent::List { path: path.into() }
    }

    fn search(pattern: &str, path: Option<&str>) -> Intent {
        Intent::Search {
            pattern: pattern.into(),
            path: path.map(str::to_string),
        }
    }

    #[test]
    fn single_intents() {
        assert_eq!(intents("list the files"), vec![list(".")]);
        assert_eq!(intents("ls"), vec![list(".")]);
        assert_eq!(intents("What files are here?"), vec![list(".")]);
        assert_eq!(intents("list files in src"), vec![list("src")]);
        assert_eq!(intents("read src/main.rs"), vec![read("src/main.rs")]);
        assert_eq!(
            intents("Show me the file `Cargo.toml`."),
            vec![read("Cargo.toml")]
        );
        assert_eq!(intents("cat Makefile"), vec![read("Makefile")]);
        assert_eq!(intents("read LICENSE"), vec![read("LICENSE")]);
        assert_eq!(intents("cat notes"), vec![read("notes")]);
        assert_eq!(intents("show `notes`"), vec![read("notes")]);
        assert_eq!(intents("search for TODO"), vec![search("TODO", None)]);
        assert_eq!(intents("grep fn main"), vec![search("fn", None)]);
        assert_eq!(
            intents("grep \"fn main\" in src"),
            vec![search("fn main", Some("src"))]
        );
        assert_eq!(
            intents("find all usages of parse_args"),
            vec![search("parse_args", None)]
        );
        assert_eq!(intents("git status"), vec![Intent::GitStatus]);
        assert_eq!(intents("what's the status?"), vec![Intent::GitStatus]);
    }

    #[test]
    fn several_intents_in_one_prompt() {
        assert_eq!(
            intents("List the files, read README.md and then search for TODO"),
            vec![list("."), read("README.md"), search("TODO", None)]
        );
        assert_eq!(
            intents("git status; ls"),
            vec![Intent::GitStatus, list(".")]
        );
    }

    #[test]
    fn notes_take_the_rest_of_the_prompt() {
        assert_eq!(
            intents("write a note: buy milk, eggs and bread"),
            vec![Intent::Note {
                path: DEFAULT_NOTE_FILE.into(),
                content: "buy milk, eggs and bread".into()
            }]
        );
        assert_eq!(
            intents("ls and write a note to todo.md saying ship it"),
            vec![
                list("."),
                Intent::Note {
                    path: "todo.md".into(),
                    content: "ship it".into()
                }
            ]
        );
        assert_eq!(
            intents("Note: call Bob"),
            vec![Intent::Note {
                path: DEFAULT_NOTE_FILE.into(),
                content: "call Bob".into()
            }]
        );
        let empty = parse("write a note");
        assert!(empty.intents.is_empty());
        assert_eq!(empty.remarks.len(), 1);
    }

    #[test]
    fn small_talk_has_no_intent() {
        assert!(intents("hello there").is_empty());
        assert!(intents("what can you do?").is_empty());
        assert!(intents("").is_empty());
        assert!(intents("show me").is_empty());
        assert!(intents("show me how it works").is_empty());
        assert!(intents("read what's new").is_empty());
    }

    #[test]
    fn words_inside_other_words_do_not_match() {
        assert!(intents("classy statues").is_empty());
        assert!(intents("already").is_empty());
    }
}
