//! Glob patterns for the policy plugins, matched without a regex engine.
//!
//! The policies used to compile their globs with `globset`, which turns each one into a regex
//! and runs a regex compiler at every start: in each policy component that compiler was most of
//! the machine code a run touched. This module reads the same syntax with the same meaning
//! (`globset` with `backslash_escape`, case-sensitive, `literal_separator` as asked) and matches
//! with a small automaton instead. It is tested against `globset` itself (`tests/glob_props.rs`):
//! a policy glob that matched less than before would let through what it used to block.
//!
//! The syntax:
//! - `?` one byte and `*` any run of bytes; neither matches `/` when separators are literal.
//! - `**` as a whole path component: `**/x` is `x` in any directory (or none), `x/**` anything
//!   below `x`, `x/**/y` `y` any number of directories below `x`; elsewhere `**` is `*`.
//! - `[ab]`, `[a-z]`, `[!ab]` or `[^ab]`, and POSIX classes (`[[:digit:]]`). A `]` or `-` first
//!   in a class is itself; with literal separators a class never matches `/`.
//! - `{a,b}` either of the patterns (nested too); an empty one is dropped, as `globset` does.
//! - `\` makes the next character literal.
//!
//! Like `globset`, matching is over the UTF-8 bytes of the text: `?` is one byte, and a class
//! holding a non-ASCII character matches the bytes of its encoding one at a time.

use std::fmt;

/// How deep `{…}` may nest (what `globset` allows), so neither parsing nor dropping recurses
/// without bound on a hostile pattern.
const MAX_ALTERNATE_DEPTH: usize = 100;

/// A glob that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    pattern: String,
    kind: ErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ErrorKind {
    UnclosedClass,
    InvalidRange(char, char),
    UnopenedAlternates,
    UnclosedAlternates,
    NestedTooDeep,
    DanglingEscape,
}

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match &self.kind {
            ErrorKind::UnclosedClass => "unclosed character class; missing ']'".to_string(),
            ErrorKind::InvalidRange(from, to) => format!("invalid range; '{from}' > '{to}'"),
            ErrorKind::UnopenedAlternates => {
                "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)".to_string()
            }
            ErrorKind::UnclosedAlternates => {
                "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)".to_string()
            }
            ErrorKind::NestedTooDeep => {
                format!("alternate groups nested deeper than {MAX_ALTERNATE_DEPTH}")
            }
            ErrorKind::DanglingEscape => "dangling '\\'".to_string(),
        };
        write!(f, "error parsing glob '{}': {why}", self.pattern)
    }
}

impl std::error::Error for GlobError {}

/// A compiled glob.
#[derive(Debug, Clone)]
pub struct Glob {
    program: Vec<Inst>,
}

impl Glob {
    /// Parses `pattern`; with `literal_separator`, `*`, `?` and classes never match `/`.
    pub fn new(pattern: &str, literal_separator: bool) -> Result<Glob, GlobError> {
        let tokens = Parser::new(pattern).parse()?;
        let mut compiler = Compiler {
            literal_separator,
            program: Vec::new(),
        };
        if tokens == [Token::RecursivePrefix] {
            // A lone `**` is everything, `/` or not.
            compiler.repeat(ByteSet::ALL);
        } else {
            compiler.sequence(&tokens);
        }
        compiler.program.push(Inst::Match);
        Ok(Glob {
            program: compiler.program,
        })
    }

    /// Whether the whole of `text` matches.
    pub fn is_match(&self, text: &str) -> bool {
        // A set of automaton states, advanced one byte at a time: linear in the text whatever
        // the pattern, so a path the model picks cannot make a policy hang.
        let mut current = States::new(self.program.len());
        let mut next = States::new(self.program.len());
        current.add(&self.program, 0);
        for &byte in text.as_bytes() {
            if current.list.is_empty() {
                return false;
            }
            next.clear();
            for &pc in &current.list {
                if let Inst::Byte(set) = &self.program[pc] {
                    if set.contains(byte) {
                        next.add(&self.program, pc + 1);
                    }
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        current
            .list
            .iter()
            .any(|&pc| matches!(self.program[pc], Inst::Match))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    /// `?`
    Any,
    /// `*`
    ZeroOrMore,
    /// `**/` at the start: nothing, `/`, or anything ending in `/`.
    RecursivePrefix,
    /// `/**` at the end: `/` and anything after it.
    RecursiveSuffix,
    /// `/**/` inside: `/`, or `/` anything `/`.
    RecursiveMiddle,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Alternates(Vec<Vec<Token>>),
}

struct Parser<'a> {
    pattern: &'a str,
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    /// The character before the one last read, whatever it was part of: whether a `**` follows
    /// a `/` is judged on the text.
    prev: Option<char>,
    current: Option<char>,
    /// The branches being built; the last is the one tokens go to.
    branches: Vec<Vec<Token>>,
    /// For each open `{`, the index in `branches` of its first branch.
    open: Vec<usize>,
}

impl<'a> Parser<'a> {
    fn new(pattern: &'a str) -> Self {
        Parser {
            pattern,
            chars: pattern.chars().peekable(),
            prev: None,
            current: None,
            branches: vec![Vec::new()],
            open: Vec::new(),
        }
    }

    fn error(&self, kind: ErrorKind) -> GlobError {
        GlobError {
            pattern: self.pattern.to_string(),
            kind,
        }
    }

    fn bump(&mut self) -> Option<char> {
        self.prev = self.current;
        self.current = self.chars.next();
        self.current
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn push(&mut self, token: Token) {
        if let Some(branch) = self.branches.last_mut() {
            branch.push(token);
        }
    }

    fn branch(&mut self) -> &mut Vec<Token> {
        if self.branches.is_empty() {
            self.branches.push(Vec::new());
        }
        let last = self.branches.len() - 1;
        &mut self.branches[last]
    }

    fn parse(mut self) -> Result<Vec<Token>, GlobError> {
        while let Some(c) = self.bump() {
            match c {
                '?' => self.push(Token::Any),
                '*' => self.star(),
                '[' => {
                    let class = self.class()?;
                    self.push(class);
                }
                '{' => {
                    if self.open.len() >= MAX_ALTERNATE_DEPTH {
                        return Err(self.error(ErrorKind::NestedTooDeep));
                    }
                    self.open.push(self.branches.len());
                    self.branches.push(Vec::new());
                }
                '}' => {
                    let Some(first) = self.open.pop() else {
                        return Err(self.error(ErrorKind::UnopenedAlternates));
                    };
                    let alternates = self.branches.split_off(first);
                    self.push(Token::Alternates(alternates));
                }
                ',' if !self.open.is_empty() => self.branches.push(Vec::new()),
                '\\' => match self.bump() {
                    Some(escaped) => self.push(Token::Literal(escaped)),
                    None => return Err(self.error(ErrorKind::DanglingEscape)),
                },
                c => self.push(Token::Literal(c)),
            }
        }
        if !self.open.is_empty() {
            return Err(self.error(ErrorKind::UnclosedAlternates));
        }
        Ok(self.branches.pop().unwrap_or_default())
    }

    /// After a `*`.
    fn star(&mut self) {
        let before = self.prev;
        if self.peek() != Some('*') {
            self.push(Token::ZeroOrMore);
            return;
        }
        self.bump();
        let twice = |p: &mut Self| {
            p.push(Token::ZeroOrMore);
            p.push(Token::ZeroOrMore);
        };
        if self.branch().is_empty() {
            // At the start of the pattern or of a `{…}` branch: `**/` or a lone `**`.
            match self.peek() {
                None | Some('/') => {
                    self.bump();
                    self.push(Token::RecursivePrefix);
                }
                Some(_) => twice(self),
            }
            return;
        }
        let in_alternates = self.branches.len() > 1;
        let after_slash = before == Some('/');
        if !after_slash && (!in_alternates || !matches!(before, Some(',' | '{'))) {
            twice(self);
            return;
        }
        let at_end = match self.peek() {
            None => true,
            Some(',' | '}') if in_alternates => true,
            Some('/') => {
                self.bump();
                false
            }
            Some(_) => {
                twice(self);
                return;
            }
        };
        // The `/` before (or whatever token stands there) becomes part of the recursive token.
        let replaced = self.branch().pop();
        self.push(match replaced {
            Some(Token::RecursivePrefix) => Token::RecursivePrefix,
            Some(Token::RecursiveSuffix) => Token::RecursiveSuffix,
            _ if at_end => Token::RecursiveSuffix,
            _ => Token::RecursiveMiddle,
        });
    }

    /// After a `[`.
    fn class(&mut self) -> Result<Token, GlobError> {
        let negated = matches!(self.peek(), Some('!' | '^'));
        if negated {
            self.bump();
        }
        let mut ranges: Vec<(char, char)> = Vec::new();
        let mut first = true;
        // A `-` was read after a member: the next member ends a range.
        let mut in_range = false;
        loop {
            let Some(c) = self.bump() else {
                return Err(self.error(ErrorKind::UnclosedClass));
            };
            match c {
                ']' if !first => break,
                '-' if !first && !in_range => in_range = true,
                '[' if !in_range && self.peek() == Some(':') => {
                    match self.posix_class() {
                        Some(members) => ranges.extend_from_slice(members),
                        None => ranges.push(('[', '[')),
                    }
                    in_range = false;
                }
                c if in_range => {
                    let Some(last) = ranges.last_mut() else {
                        return Err(self.error(ErrorKind::UnclosedClass));
                    };
                    if c < last.0 {
                        return Err(self.error(ErrorKind::InvalidRange(last.0, c)));
                    }
                    last.1 = c;
                    in_range = false;
                }
                c => ranges.push((c, c)),
            }
            first = false;
        }
        if in_range {
            ranges.push(('-', '-'));
        }
        Ok(Token::Class { negated, ranges })
    }

    /// After `[` with `:` next: `[:name:]` and its members. A malformed one reads as nothing
    /// (the `[` is then a member itself); a well-formed one with an unknown name is consumed
    /// and has no members but that `[`, as `globset` reads it.
    fn posix_class(&mut self) -> Option<&'static [(char, char)]> {
        let saved = (self.chars.clone(), self.prev, self.current);
        self.bump();
        let mut name = String::new();
        loop {
            match self.bump() {
                Some(':') if self.peek() == Some(']') => {
                    self.bump();
                    return posix_members(&name);
                }
                Some(c) if c.is_ascii_lowercase() && name.len() < 8 => name.push(c),
                _ => {
                    (self.chars, self.prev, self.current) = saved;
                    return None;
                }
            }
        }
    }
}

/// ASCII only, whatever the locale.
fn posix_members(name: &str) -> Option<&'static [(char, char)]> {
    Some(match name {
        "alnum" => &[('0', '9'), ('A', 'Z'), ('a', 'z')],
        "alpha" => &[('A', 'Z'), ('a', 'z')],
        "blank" => &[('\t', '\t'), (' ', ' ')],
        "cntrl" => &[('\x00', '\x1f'), ('\x7f', '\x7f')],
        "digit" => &[('0', '9')],
        "graph" => &[('!', '~')],
        "lower" => &[('a', 'z')],
        "print" => &[(' ', '~')],
        "punct" => &[('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        "space" => &[('\t', '\r'), (' ', ' ')],
        "upper" => &[('A', 'Z')],
        "xdigit" => &[('0', '9'), ('A', 'F'), ('a', 'f')],
        _ => return None,
    })
}

/// A set of bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl fmt::Debug for ByteSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let members: Vec<u8> = (0..=255u8).filter(|&b| self.contains(b)).collect();
        write!(f, "{members:?}")
    }
}

impl ByteSet {
    const NONE: ByteSet = ByteSet([0; 4]);
    const ALL: ByteSet = ByteSet([u64::MAX; 4]);

    fn one(byte: u8) -> ByteSet {
        let mut set = ByteSet::NONE;
        set.insert(byte, byte);
        set
    }

    fn insert(&mut self, from: u8, to: u8) {
        for byte in from..=to {
            self.0[usize::from(byte >> 6)] |= 1 << (byte & 63);
        }
    }

    fn remove(&mut self, byte: u8) {
        self.0[usize::from(byte >> 6)] &= !(1 << (byte & 63));
    }

    fn contains(&self, byte: u8) -> bool {
        self.0[usize::from(byte >> 6)] & (1 << (byte & 63)) != 0
    }

    fn complement(self) -> ByteSet {
        ByteSet(self.0.map(|word| !word))
    }
}

#[derive(Debug, Clone)]
enum Inst {
    /// Consume one byte of the set.
    Byte(ByteSet),
    /// Go on at both.
    Split(usize, usize),
    Jump(usize),
    Match,
}

struct Compiler {
    literal_separator: bool,
    program: Vec<Inst>,
}

impl Compiler {
    /// What `?` and `*` may consume.
    fn any(&self) -> ByteSet {
        let mut set = ByteSet::ALL;
        if self.literal_separator {
            set.remove(b'/');
        }
        set
    }

    fn byte(&mut self, set: ByteSet) {
        self.program.push(Inst::Byte(set));
    }

    fn bytes(&mut self, text: &str) {
        for &b in text.as_bytes() {
            self.byte(ByteSet::one(b));
        }
    }

    /// Zero or more bytes of `set`.
    fn repeat(&mut self, set: ByteSet) {
        let split = self.program.len();
        self.program.push(Inst::Split(split + 1, 0));
        self.byte(set);
        self.program.push(Inst::Jump(split));
        let after = self.program.len();
        self.program[split] = Inst::Split(split + 1, after);
    }

    /// One of `options`, each compiled by the closure.
    fn either(&mut self, count: usize, mut option: impl FnMut(&mut Self, usize)) {
        let mut jumps = Vec::new();
        for i in 0..count {
            if i + 1 < count {
                let split = self.program.len();
                self.program.push(Inst::Split(split + 1, 0));
                option(self, i);
                jumps.push(self.program.len());
                self.program.push(Inst::Jump(0));
                let next = self.program.len();
                self.program[split] = Inst::Split(split + 1, next);
            } else {
                option(self, i);
            }
        }
        let end = self.program.len();
        for jump in jumps {
            self.program[jump] = Inst::Jump(end);
        }
    }

    fn sequence(&mut self, tokens: &[Token]) {
        for token in tokens {
            self.token(token);
        }
    }

    fn token(&mut self, token: &Token) {
        match token {
            Token::Literal(c) => self.bytes(c.encode_utf8(&mut [0; 4])),
            Token::Any => self.byte(self.any()),
            Token::ZeroOrMore => self.repeat(self.any()),
            // `**` spans directories whatever the separator setting.
            Token::RecursivePrefix => self.either(3, |c, i| match i {
                0 => {}
                1 => c.bytes("/"),
                _ => {
                    c.repeat(ByteSet::ALL);
                    c.bytes("/");
                }
            }),
            Token::RecursiveSuffix => {
                self.bytes("/");
                self.repeat(ByteSet::ALL);
            }
            Token::RecursiveMiddle => {
                self.bytes("/");
                self.either(2, |c, i| {
                    if i == 1 {
                        c.repeat(ByteSet::ALL);
                        c.bytes("/");
                    }
                });
            }
            Token::Class { negated, ranges } => {
                let set = self.class(*negated, ranges);
                self.byte(set);
            }
            Token::Alternates(branches) => {
                let kept: Vec<&Vec<Token>> = branches
                    .iter()
                    .filter(|b| !matches_nothing_but_empty(b))
                    .collect();
                if !kept.is_empty() {
                    self.either(kept.len(), |c, i| c.sequence(kept[i]));
                }
            }
        }
    }

    fn class(&self, negated: bool, ranges: &[(char, char)]) -> ByteSet {
        let mut set = ByteSet::NONE;
        for &(from, to) in ranges {
            // Separators are taken out of the ranges of a plain class; a negated one is told not
            // to match them below.
            let pieces: &[(char, char)] = if self.literal_separator && !negated {
                &split_around_slash(from, to)
            } else {
                &[(from, to)]
            };
            for &(from, to) in pieces {
                add_range(&mut set, from, to);
            }
        }
        if negated {
            if self.literal_separator {
                set.insert(b'/', b'/');
            }
            set = set.complement();
        }
        set
    }
}

/// The parts of `from..=to` other than `/` (the empty range `('\u{1}', '\0')` stands for none).
fn split_around_slash(from: char, to: char) -> [(char, char); 2] {
    const EMPTY: (char, char) = ('\u{1}', '\0');
    if to < '/' || from > '/' {
        [(from, to), EMPTY]
    } else {
        let below = if from < '/' { (from, '.') } else { EMPTY };
        let above = if to > '/' { ('0', to) } else { EMPTY };
        [below, above]
    }
}

/// A class member as byte sets: a character is its UTF-8 bytes, each matched on its own, and a
/// range runs from the last byte of its first character to the first byte of its last (the
/// other bytes of both being members on their own). That is how `globset`'s byte-wise regex
/// reads a class, and so what a policy written against it meant.
fn add_range(set: &mut ByteSet, from: char, to: char) {
    if from > to {
        return;
    }
    let (mut a, mut b) = ([0; 4], [0; 4]);
    let from = from.encode_utf8(&mut a).as_bytes();
    let to = to.encode_utf8(&mut b).as_bytes();
    if from == to {
        for &byte in from {
            set.insert(byte, byte);
        }
        return;
    }
    let (Some((&from_last, from_rest)), Some((&to_first, to_rest))) =
        (from.split_last(), to.split_first())
    else {
        return;
    };
    for &byte in from_rest.iter().chain(to_rest) {
        set.insert(byte, byte);
    }
    set.insert(from_last.min(to_first), from_last.max(to_first));
}

/// Whether a branch of `{…}` compiles to nothing at all (it is empty, or holds only groups of
/// such branches): `globset` drops those branches, so `{a,}` matches `a` and not the empty text.
fn matches_nothing_but_empty(branch: &[Token]) -> bool {
    branch.iter().all(|token| match token {
        Token::Alternates(inner) => inner.iter().all(|b| matches_nothing_but_empty(b)),
        _ => false,
    })
}

/// The states an automaton is in: those that consume a byte (or match), in order of arrival, and
/// a mark on every state seen, jumps included, so that none is followed twice.
struct States {
    list: Vec<usize>,
    seen: Vec<bool>,
    marked: Vec<usize>,
    stack: Vec<usize>,
}

impl States {
    fn new(size: usize) -> Self {
        States {
            list: Vec::with_capacity(size),
            seen: vec![false; size],
            marked: Vec::with_capacity(size),
            stack: Vec::new(),
        }
    }

    fn clear(&mut self) {
        for &pc in &self.marked {
            self.seen[pc] = false;
        }
        self.marked.clear();
        self.list.clear();
    }

    /// Adds `pc` and every state reachable from it without consuming a byte.
    fn add(&mut self, program: &[Inst], pc: usize) {
        self.stack.push(pc);
        while let Some(pc) = self.stack.pop() {
            if pc >= program.len() || self.seen[pc] {
                continue;
            }
            self.seen[pc] = true;
            self.marked.push(pc);
            match program[pc] {
                Inst::Split(a, b) => {
                    self.stack.push(b);
                    self.stack.push(a);
                }
                Inst::Jump(to) => self.stack.push(to),
                Inst::Byte(_) | Inst::Match => self.list.push(pc),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn m(pattern: &str, literal_separator: bool, text: &str) -> bool {
        Glob::new(pattern, literal_separator)
            .expect("glob")
            .is_match(text)
    }

    #[test]
    fn stars_and_separators() {
        assert!(m("*.pem", true, "server.pem"));
        assert!(!m("*.pem", true, "keys/server.pem"));
        assert!(m("*.pem", false, "keys/server.pem"));
        assert!(m("curl * | sh", false, "curl https://x.sh/a | sh"));
        assert!(m("a?c", false, "a/c"));
        assert!(!m("a?c", true, "a/c"));
        assert!(m(".env*", true, ".env"));
        assert!(m(".env*", true, ".env.local"));
        assert!(!m(".env*", true, "x.env"));
    }

    #[test]
    fn double_stars() {
        assert!(m("/etc/**", true, "/etc/hosts"));
        assert!(m("/etc/**", true, "/etc/ssh/sshd_config"));
        assert!(!m("/etc/**", true, "/etc"));
        assert!(m("**/x", true, "x"));
        assert!(m("**/x", true, "a/b/x"));
        assert!(!m("**/x", true, "a/bx"));
        assert!(m("a/**/b", true, "a/b"));
        assert!(m("a/**/b", true, "a/x/y/b"));
        assert!(!m("a/**/b", true, "ab"));
        assert!(m("**", true, "any/thing"));
        assert!(m("**", true, ""));
        // Not a whole component: a plain star.
        assert!(m("a**", true, "abc"));
        assert!(!m("a**", true, "a/c"));
    }

    #[test]
    fn classes_alternates_and_escapes() {
        assert!(m("[ab]c", true, "bc"));
        assert!(!m("[!ab]c", true, "bc"));
        assert!(m("[^ab]c", true, "xc"));
        assert!(m("[a-c]", true, "b"));
        assert!(m("[]]", true, "]"));
        assert!(m("[-a]", true, "-"));
        assert!(m("[a-]", true, "-"));
        assert!(m("[[:digit:]]x", true, "7x"));
        assert!(!m("[/]", true, "/"));
        assert!(m("[/]", false, "/"));
        assert!(!m("[!a]", true, "/"));
        assert!(m("[!a]", false, "/"));
        assert!(m("*.{js,ts}", true, "a.ts"));
        assert!(!m("*.{js,ts}", true, "a.rs"));
        assert!(m("{a,}", true, "a"));
        assert!(!m("{a,}", true, ""));
        assert!(m("\\*", true, "*"));
        assert!(!m("\\*", true, "x"));
        assert!(m("a,b", true, "a,b"));
    }

    #[test]
    fn errors_name_the_pattern() {
        for bad in ["[", "[a", "{a", "a}", "\\", "[z-a]"] {
            let err = Glob::new(bad, true).expect_err(bad);
            assert!(err.to_string().contains(&format!("'{bad}'")), "{err}");
        }
        let deep = "{".repeat(101);
        assert!(Glob::new(&deep, true).is_err());
    }

    #[test]
    fn long_texts_take_linear_time() {
        let glob = Glob::new("*a*a*a*a*a*a*a*b", false).expect("glob");
        assert!(!glob.is_match(&"a".repeat(20_000)));
    }
}
