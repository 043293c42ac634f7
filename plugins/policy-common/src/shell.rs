//! A parser for the part of the POSIX shell grammar that decides what a command line runs:
//! quoting, escapes, operators (`;`, `&&`, `||`, `|`, `&`, newlines), redirections, comments,
//! here-documents, and the expansions that run commands (`$(…)`, backticks, `<(…)`, `>(…)`).
//!
//! It does not expand anything: a word keeps `$HOME` or `$(date)` as written and is flagged as
//! expanding, so callers can refuse to trust what they cannot know. Commands inside command and
//! process substitutions are parsed as well and returned beside the top-level ones, since they run
//! just the same. Control-flow keywords (`if`, `for`, `do`, …) stay ordinary words; see
//! [`crate::commands`] for how they are treated.

use std::fmt;

/// How deep substitutions may nest before the parser gives up; real command lines stay far below.
const MAX_DEPTH: usize = 8;

/// One word of a command, with quotes and escapes removed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The text; expansions are kept as written (`$HOME`, `$(date)`, `` `pwd` ``).
    pub text: String,
    /// Contains a parameter, command or arithmetic expansion: its value is known only at run time.
    pub expands: bool,
    /// Contains an unquoted `*`, `?` or `[`: the shell may replace it with matching file names.
    pub globs: bool,
    /// Some part of it was quoted or escaped, so it cannot be a keyword or an assignment.
    pub quoted: bool,
}

impl Word {
    /// A plain word, as if typed without quotes or expansions.
    pub fn literal(text: impl Into<String>) -> Self {
        Word {
            text: text.into(),
            ..Word::default()
        }
    }

    /// Whether the word is `NAME=value` as the shell reads an assignment.
    pub fn is_assignment(&self) -> bool {
        match self.text.split_once('=') {
            Some((name, _)) => is_name(name),
            None => false,
        }
    }
}

/// Whether `name` is a valid shell variable name.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// What a redirection does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOp {
    /// `>`, `>|`, `&>`, `>& file`: truncates or creates the target.
    Write,
    /// `>>`, `&>>`: appends to the target.
    Append,
    /// `<`.
    Read,
    /// `<>`: opens the target for reading and writing.
    ReadWrite,
    /// `>&N`, `>&-`: duplicates or closes a descriptor; no file is named.
    DupOut,
    /// `<&N`, `<&-`.
    DupIn,
    /// `<<` and `<<-`: the target is the delimiter, the body is data.
    HereDoc,
    /// `<<<`: the target is the data.
    HereString,
}

impl RedirectOp {
    /// Whether the redirection can create or change the file it names.
    pub fn writes(self) -> bool {
        matches!(
            self,
            RedirectOp::Write | RedirectOp::Append | RedirectOp::ReadWrite
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The descriptor number written before the operator (`2>`), if any.
    pub fd: Option<u32>,
    pub op: RedirectOp,
    pub target: Word,
}

/// A simple command: assignments, words and redirections, in any order on the line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// `NAME=value` words before the command name.
    pub assignments: Vec<Word>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
}

impl SimpleCommand {
    fn is_empty(&self) -> bool {
        self.assignments.is_empty() && self.words.is_empty() && self.redirects.is_empty()
    }
}

/// Commands joined by `|`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    pub commands: Vec<SimpleCommand>,
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// Top-level pipelines in order, then those found inside substitutions.
    pub pipelines: Vec<Pipeline>,
    /// Parts the parser understood only partly, each a short explanation (a here-document whose
    /// body runs substitutions, say). Callers that must be sure refuse such lines.
    pub opaque: Vec<String>,
}

impl Script {
    /// Every simple command, top-level and nested.
    pub fn commands(&self) -> impl Iterator<Item = &SimpleCommand> {
        self.pipelines.iter().flat_map(|p| p.commands.iter())
    }
}

/// Why a line could not be parsed. The shell would refuse it too, so nothing of it would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// Parses a command line as `sh -c` would read it.
pub fn parse(line: &str) -> Result<Script, ParseError> {
    parse_at_depth(line, 0)
}

fn parse_at_depth(line: &str, depth: usize) -> Result<Script, ParseError> {
    if depth > MAX_DEPTH {
        return Err(ParseError(format!(
            "substitutions nest more than {MAX_DEPTH} levels deep"
        )));
    }
    let mut parser = Parser {
        chars: line.chars().collect(),
        pos: 0,
        depth,
        script: Script::default(),
        nested: Vec::new(),
        pipeline: Pipeline::default(),
        command: SimpleCommand::default(),
        word: None,
        redirect: None,
        heredocs: Vec::new(),
    };
    parser.run()?;
    let mut script = parser.script;
    for nested in parser.nested {
        script.pipelines.extend(nested.pipelines);
        script.opaque.extend(nested.opaque);
    }
    Ok(script)
}

struct Heredoc {
    delimiter: String,
    strip_tabs: bool,
    /// A quoted delimiter turns expansion in the body off.
    literal: bool,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
    script: Script,
    nested: Vec<Script>,
    pipeline: Pipeline,
    command: SimpleCommand,
    word: Option<Word>,
    /// A redirection operator waiting for its target word.
    redirect: Option<(Option<u32>, RedirectOp)>,
    /// Here-documents whose bodies start after the next newline.
    heredocs: Vec<Heredoc>,
}

impl Parser {
    fn peek(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn word(&mut self) -> &mut Word {
        self.word.get_or_insert_with(Word::default)
    }

    fn run(&mut self) -> Result<(), ParseError> {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => {
                    self.finish_word()?;
                    self.pos += 1;
                }
                '\n' => {
                    self.pos += 1;
                    self.end_pipeline()?;
                    self.read_heredoc_bodies();
                }
                '#' if self.word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\'' => self.single_quoted()?,
                '"' => self.double_quoted()?,
                '\\' => self.escaped(),
                '$' => self.dollar(false)?,
                '`' => self.backtick(false)?,
                ';' => {
                    self.pos += 1;
                    // `;;` ends a case branch; either way a command ends here.
                    if self.peek(0) == Some(';') {
                        self.pos += 1;
                    }
                    self.end_pipeline()?;
                }
                '&' => match self.peek(1) {
                    Some('&') => {
                        self.pos += 2;
                        self.end_pipeline()?;
                    }
                    Some('>') => {
                        self.finish_word()?;
                        self.pos += 2;
                        let op = if self.peek(0) == Some('>') {
                            self.pos += 1;
                            RedirectOp::Append
                        } else {
                            RedirectOp::Write
                        };
                        self.start_redirect(None, op)?;
                    }
                    _ => {
                        self.pos += 1;
                        self.end_pipeline()?;
                    }
                },
                '|' => match self.peek(1) {
                    Some('|') => {
                        self.pos += 2;
                        self.end_pipeline()?;
                    }
                    Some('&') => {
                        self.pos += 2;
                        self.end_command()?;
                    }
                    _ => {
                        self.pos += 1;
                        self.end_command()?;
                    }
                },
                '>' | '<' if self.peek(1) == Some('(') => self.process_substitution()?,
                '>' => self.output_redirect()?,
                '<' => self.input_redirect()?,
                '(' | ')' => {
                    // Subshells and groupings: their commands run like any others, so the
                    // parentheses only separate commands here.
                    self.pos += 1;
                    self.end_pipeline()?;
                }
                _ => {
                    let word = self.word();
                    if matches!(c, '*' | '?' | '[') {
                        word.globs = true;
                    }
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        self.end_pipeline()?;
        if !self.heredocs.is_empty() {
            // A here-document operator on the last line with no body: sh reads an empty body.
            self.heredocs.clear();
        }
        Ok(())
    }

    fn single_quoted(&mut self) -> Result<(), ParseError> {
        self.pos += 1;
        let start = self.pos;
        while self.peek(0).is_some_and(|c| c != '\'') {
            self.pos += 1;
        }
        if self.peek(0).is_none() {
            return Err(ParseError("unterminated single quote".into()));
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        self.pos += 1;
        let word = self.word();
        word.text.push_str(&text);
        word.quoted = true;
        Ok(())
    }

    fn double_quoted(&mut self) -> Result<(), ParseError> {
        self.pos += 1;
        self.word().quoted = true;
        loop {
            match self.peek(0) {
                None => return Err(ParseError("unterminated double quote".into())),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    match self.peek(1) {
                        Some('\n') => {}
                        Some(c @ ('$' | '`' | '"' | '\\')) => self.word().text.push(c),
                        Some(c) => {
                            let word = self.word();
                            word.text.push('\\');
                            word.text.push(c);
                        }
                        None => return Err(ParseError("unterminated double quote".into())),
                    }
                    self.pos += 2;
                }
                Some('$') => self.dollar(true)?,
                Some('`') => self.backtick(true)?,
                Some(c) => {
                    self.word().text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn escaped(&mut self) {
        match self.peek(1) {
            // A line continuation disappears entirely.
            Some('\n') => self.pos += 2,
            Some(c) => {
                let word = self.word();
                word.text.push(c);
                word.quoted = true;
                self.pos += 2;
            }
            None => {
                self.word().text.push('\\');
                self.pos += 1;
            }
        }
    }

    /// `$name`, `${…}`, `$(…)`, `$((…))`, or a literal `$`.
    fn dollar(&mut self, in_quotes: bool) -> Result<(), ParseError> {
        match self.peek(1) {
            Some('(') if self.peek(2) == Some('(') => {
                // Arithmetic: no commands run, unless a substitution hides inside.
                let (inner, end) = self.capture_parens(self.pos + 1)?;
                self.mark_hidden_substitution(&inner, "an arithmetic expansion");
                self.append_raw(self.pos, end);
                self.word().expands = true;
                self.pos = end;
            }
            Some('(') => {
                let (inner, end) = self.capture_parens(self.pos + 1)?;
                self.nested.push(parse_at_depth(&inner, self.depth + 1)?);
                self.append_raw(self.pos, end);
                self.word().expands = true;
                self.pos = end;
            }
            Some('{') => {
                let end = self.capture_braces(self.pos + 1)?;
                let inner: String = self.chars[self.pos + 2..end - 1].iter().collect();
                self.mark_hidden_substitution(&inner, "a parameter expansion");
                self.append_raw(self.pos, end);
                self.word().expands = true;
                self.pos = end;
            }
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                let start = self.pos;
                self.pos += 1;
                while self
                    .peek(0)
                    .is_some_and(|c| c == '_' || c.is_ascii_alphanumeric())
                {
                    self.pos += 1;
                }
                self.append_raw(start, self.pos);
                self.word().expands = true;
            }
            Some(c) if c.is_ascii_digit() || "?@*#$!-".contains(c) => {
                self.append_raw(self.pos, self.pos + 2);
                self.word().expands = true;
                self.pos += 2;
            }
            Some('\'') if !in_quotes => {
                // `$'…'`: ANSI-C quoting; the escapes it decodes cannot run anything.
                self.pos += 1;
                self.ansi_c_quoted()?;
            }
            _ => {
                self.word().text.push('$');
                self.pos += 1;
            }
        }
        Ok(())
    }

    fn ansi_c_quoted(&mut self) -> Result<(), ParseError> {
        self.pos += 1;
        self.word().quoted = true;
        loop {
            match self.peek(0) {
                None => return Err(ParseError("unterminated $'…' quote".into())),
                Some('\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    let decoded = match self.peek(1) {
                        Some('n') => '\n',
                        Some('t') => '\t',
                        Some(c) => c,
                        None => return Err(ParseError("unterminated $'…' quote".into())),
                    };
                    self.word().text.push(decoded);
                    self.pos += 2;
                }
                Some(c) => {
                    self.word().text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn backtick(&mut self, in_quotes: bool) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.peek(0) {
                None => return Err(ParseError("unterminated backquote".into())),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => {
                    match self.peek(1) {
                        Some(c @ ('`' | '\\' | '$')) => inner.push(c),
                        Some('"') if in_quotes => inner.push('"'),
                        Some(c) => {
                            inner.push('\\');
                            inner.push(c);
                        }
                        None => return Err(ParseError("unterminated backquote".into())),
                    }
                    self.pos += 2;
                }
                Some(c) => {
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
        self.nested.push(parse_at_depth(&inner, self.depth + 1)?);
        self.append_raw(start, self.pos);
        self.word().expands = true;
        Ok(())
    }

    /// `<(…)` and `>(…)`: the command runs, and the word becomes a `/dev/fd` path.
    fn process_substitution(&mut self) -> Result<(), ParseError> {
        let (inner, end) = self.capture_parens(self.pos + 1)?;
        self.nested.push(parse_at_depth(&inner, self.depth + 1)?);
        self.append_raw(self.pos, end);
        self.word().expands = true;
        self.pos = end;
        Ok(())
    }

    fn output_redirect(&mut self) -> Result<(), ParseError> {
        let fd = self.take_fd_word();
        self.finish_word()?;
        self.pos += 1;
        let op = match self.peek(0) {
            Some('>') => {
                self.pos += 1;
                RedirectOp::Append
            }
            Some('|') => {
                self.pos += 1;
                RedirectOp::Write
            }
            Some('&') => {
                self.pos += 1;
                RedirectOp::DupOut
            }
            _ => RedirectOp::Write,
        };
        self.start_redirect(fd, op)
    }

    fn input_redirect(&mut self) -> Result<(), ParseError> {
        let fd = self.take_fd_word();
        self.finish_word()?;
        self.pos += 1;
        let op = match (self.peek(0), self.peek(1)) {
            (Some('<'), Some('<')) => {
                self.pos += 2;
                RedirectOp::HereString
            }
            (Some('<'), Some('-')) => {
                self.pos += 2;
                return self.heredoc_delimiter(fd, true);
            }
            (Some('<'), _) => {
                self.pos += 1;
                return self.heredoc_delimiter(fd, false);
            }
            (Some('&'), _) => {
                self.pos += 1;
                RedirectOp::DupIn
            }
            (Some('>'), _) => {
                self.pos += 1;
                RedirectOp::ReadWrite
            }
            _ => RedirectOp::Read,
        };
        self.start_redirect(fd, op)
    }

    /// Reads the delimiter word of a here-document right away, so its body can be skipped at the
    /// next newline.
    fn heredoc_delimiter(&mut self, fd: Option<u32>, strip_tabs: bool) -> Result<(), ParseError> {
        if self.redirect.is_some() {
            return Err(ParseError(
                "a redirection operator follows another without a target".into(),
            ));
        }
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.pos += 1;
        }
        let mut delimiter = String::new();
        let mut literal = false;
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
                '\'' | '"' => {
                    literal = true;
                    self.pos += 1;
                    while let Some(q) = self.peek(0) {
                        self.pos += 1;
                        if q == c {
                            break;
                        }
                        delimiter.push(q);
                    }
                }
                '\\' => {
                    literal = true;
                    if let Some(next) = self.peek(1) {
                        delimiter.push(next);
                    }
                    self.pos += 2;
                }
                _ => {
                    delimiter.push(c);
                    self.pos += 1;
                }
            }
        }
        if delimiter.is_empty() {
            return Err(ParseError("here-document without a delimiter".into()));
        }
        self.command.redirects.push(Redirect {
            fd,
            op: RedirectOp::HereDoc,
            target: Word {
                text: delimiter.clone(),
                quoted: literal,
                ..Word::default()
            },
        });
        self.heredocs.push(Heredoc {
            delimiter,
            strip_tabs,
            literal,
        });
        Ok(())
    }

    /// Skips the bodies of the here-documents opened on the line just ended.
    fn read_heredoc_bodies(&mut self) {
        for heredoc in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            loop {
                if self.pos >= self.chars.len() {
                    break;
                }
                let start = self.pos;
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                if self.peek(0) == Some('\n') {
                    self.pos += 1;
                }
                let compared = if heredoc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if compared == heredoc.delimiter {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if !heredoc.literal {
                self.mark_hidden_substitution(&body, "a here-document");
            }
        }
    }

    /// Records that `text` (which is not parsed as commands) may still run some.
    fn mark_hidden_substitution(&mut self, text: &str, what: &str) {
        if text.contains("$(") || text.contains('`') {
            self.script
                .opaque
                .push(format!("{what} contains a command substitution"));
        }
    }

    /// `2>`: a word of digits written right against the operator is a descriptor number.
    fn take_fd_word(&mut self) -> Option<u32> {
        let word = self.word.as_ref()?;
        if word.quoted || word.expands || word.text.is_empty() {
            return None;
        }
        if !word.text.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let fd = word.text.parse().ok()?;
        self.word = None;
        Some(fd)
    }

    fn start_redirect(&mut self, fd: Option<u32>, op: RedirectOp) -> Result<(), ParseError> {
        if self.redirect.is_some() {
            return Err(ParseError(
                "a redirection operator follows another without a target".into(),
            ));
        }
        self.redirect = Some((fd, op));
        Ok(())
    }

    /// The text of `chars[start..end]` appended to the current word as written.
    fn append_raw(&mut self, start: usize, end: usize) {
        let raw: String = self.chars[start..end.min(self.chars.len())]
            .iter()
            .collect();
        self.word().text.push_str(&raw);
    }

    /// With `open` at a `(`, finds its matching `)`; returns the text between them and the index
    /// after the `)`.
    fn capture_parens(&self, open: usize) -> Result<(String, usize), ParseError> {
        let mut depth = 0usize;
        let mut i = open;
        while i < self.chars.len() {
            match self.chars[i] {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        let inner: String = self.chars[open + 1..i].iter().collect();
                        return Ok((inner, i + 1));
                    }
                }
                '\\' => i += 1,
                '\'' => i = self.skip_until(i + 1, '\'')?,
                '"' => i = self.skip_double(i + 1)?,
                '`' => i = self.skip_until(i + 1, '`')?,
                _ => {}
            }
            i += 1;
        }
        Err(ParseError("unterminated `$(` or `(`".into()))
    }

    /// With `open` at a `{`, returns the index after its matching `}`.
    fn capture_braces(&self, open: usize) -> Result<usize, ParseError> {
        let mut depth = 0usize;
        let mut i = open;
        while i < self.chars.len() {
            match self.chars[i] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(i + 1);
                    }
                }
                '\\' => i += 1,
                '\'' => i = self.skip_until(i + 1, '\'')?,
                '"' => i = self.skip_double(i + 1)?,
                _ => {}
            }
            i += 1;
        }
        Err(ParseError("unterminated `${`".into()))
    }

    /// Index of the next `close` from `from`, honouring backslashes (except in single quotes).
    fn skip_until(&self, from: usize, close: char) -> Result<usize, ParseError> {
        let mut i = from;
        while i < self.chars.len() {
            let c = self.chars[i];
            if c == close {
                return Ok(i);
            }
            if c == '\\' && close != '\'' {
                i += 1;
            }
            i += 1;
        }
        Err(ParseError(format!("unterminated {close}")))
    }

    /// Index of the `"` closing a double-quoted string that starts at `from`.
    fn skip_double(&self, from: usize) -> Result<usize, ParseError> {
        let mut i = from;
        while i < self.chars.len() {
            match self.chars[i] {
                '"' => return Ok(i),
                '\\' => i += 1,
                '$' if self.chars.get(i + 1) == Some(&'(') => {
                    let (_, end) = self.capture_parens(i + 1)?;
                    i = end - 1;
                }
                '`' => i = self.skip_until(i + 1, '`')?,
                _ => {}
            }
            i += 1;
        }
        Err(ParseError("unterminated double quote".into()))
    }

    fn finish_word(&mut self) -> Result<(), ParseError> {
        let Some(word) = self.word.take() else {
            return Ok(());
        };
        if let Some((fd, op)) = self.redirect.take() {
            // `>&2` duplicates a descriptor; `>& file` is bash's "both streams to file".
            let dup_target = word.text == "-" || word.text.chars().all(|c| c.is_ascii_digit());
            let op = match op {
                RedirectOp::DupOut if !dup_target => RedirectOp::Write,
                RedirectOp::DupIn if !dup_target => RedirectOp::Read,
                other => other,
            };
            self.command.redirects.push(Redirect {
                fd,
                op,
                target: word,
            });
        } else if self.command.words.is_empty() && word.is_assignment() {
            self.command.assignments.push(word);
        } else if self.command.words.is_empty()
            && !word.quoted
            && (word.text == "{" || word.text == "}")
        {
            // Grouping braces only separate commands.
        } else {
            self.command.words.push(word);
        }
        Ok(())
    }

    fn end_command(&mut self) -> Result<(), ParseError> {
        self.finish_word()?;
        if self.redirect.is_some() {
            return Err(ParseError("a redirection has no target".into()));
        }
        let command = std::mem::take(&mut self.command);
        if !command.is_empty() {
            self.pipeline.commands.push(command);
        }
        Ok(())
    }

    fn end_pipeline(&mut self) -> Result<(), ParseError> {
        self.end_command()?;
        let pipeline = std::mem::take(&mut self.pipeline);
        if !pipeline.commands.is_empty() {
            self.script.pipelines.push(pipeline);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .commands()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_on_operators() {
        assert_eq!(
            words("ls -la && git status; echo hi | wc -l || true & sleep 1\npwd"),
            vec![
                vec!["ls", "-la"],
                vec!["git", "status"],
                vec!["echo", "hi"],
                vec!["wc", "-l"],
                vec!["true"],
                vec!["sleep", "1"],
                vec!["pwd"],
            ]
        );
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        assert_eq!(
            words(r#"echo 'a b' "c \"d\" $HOME" e\ f g\;h"#),
            vec![vec!["echo", "a b", "c \"d\" $HOME", "e f", "g;h"]]
        );
        let script = parse(r#"grep "x;y|z" file"#).expect("parse");
        assert_eq!(script.pipelines.len(), 1);
    }

    #[test]
    fn redirections_are_separated() {
        let script = parse("cat a 2>&1 >out.txt >> log <in 2>/dev/null &> both").expect("parse");
        let cmd = &script.pipelines[0].commands[0];
        assert_eq!(cmd.words, vec![Word::literal("cat"), Word::literal("a")]);
        let ops: Vec<(Option<u32>, RedirectOp, &str)> = cmd
            .redirects
            .iter()
            .map(|r| (r.fd, r.op, r.target.text.as_str()))
            .collect();
        assert_eq!(
            ops,
            vec![
                (Some(2), RedirectOp::DupOut, "1"),
                (None, RedirectOp::Write, "out.txt"),
                (None, RedirectOp::Append, "log"),
                (None, RedirectOp::Read, "in"),
                (Some(2), RedirectOp::Write, "/dev/null"),
                (None, RedirectOp::Write, "both"),
            ]
        );
        let attached = parse("echo x>.env").expect("parse");
        let cmd = &attached.pipelines[0].commands[0];
        assert_eq!(cmd.words.len(), 2);
        assert_eq!(cmd.redirects[0].target.text, ".env");
        assert!(parse("echo >").is_err());
    }

    #[test]
    fn substitutions_are_parsed_as_commands() {
        assert_eq!(
            words("echo $(rm -rf x) `touch y` \"$(cat <(ls))\""),
            vec![
                vec!["echo", "$(rm -rf x)", "`touch y`", "$(cat <(ls))"],
                vec!["rm", "-rf", "x"],
                vec!["touch", "y"],
                vec!["cat", "<(ls)"],
                vec!["ls"],
            ]
        );
        let script = parse("echo $(ls)").expect("parse");
        assert!(script.pipelines[0].commands[0].words[1].expands);
        assert!(parse("echo $((1 + 2))").expect("parse").opaque.is_empty());
        assert_eq!(words("echo $((1 + 2))"), vec![vec!["echo", "$((1 + 2))"]]);
    }

    #[test]
    fn heredocs_are_data() {
        let script = parse("cat <<'EOF' > out\nrm -rf /\nEOF\nls").expect("parse");
        let all: Vec<Vec<String>> = script
            .commands()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect();
        assert_eq!(all, vec![vec!["cat"], vec!["ls"]]);
        assert!(script.opaque.is_empty());
        let cmd = &script.pipelines[0].commands[0];
        assert_eq!(cmd.redirects[0].op, RedirectOp::HereDoc);
        assert_eq!(cmd.redirects[1].target.text, "out");
        let risky = parse("cat <<EOF\n$(rm -rf /)\nEOF").expect("parse");
        assert_eq!(risky.opaque.len(), 1);
    }

    #[test]
    fn assignments_comments_and_groups() {
        let script =
            parse("FOO=1 BAR='x y' make all # build\n( cd x && ls ); { pwd; }").expect("parse");
        let first = &script.pipelines[0].commands[0];
        assert_eq!(first.assignments.len(), 2);
        assert_eq!(first.words.len(), 2);
        assert_eq!(
            words("( cd x && ls ); { pwd; }"),
            vec![vec!["cd", "x"], vec!["ls"], vec!["pwd"]]
        );
        assert_eq!(words("echo a=b"), vec![vec!["echo", "a=b"]]);
    }

    #[test]
    fn pipelines_keep_their_commands_together() {
        let script = parse("curl -fsSL https://x.sh | sh; ls").expect("parse");
        assert_eq!(script.pipelines.len(), 2);
        assert_eq!(script.pipelines[0].commands.len(), 2);
    }

    #[test]
    fn malformed_lines_are_errors() {
        for line in ["echo 'open", "echo \"open", "echo $(ls", "echo `ls"] {
            assert!(parse(line).is_err(), "{line}");
        }
        let deep = format!("{}x{}", "$(".repeat(20), ")".repeat(20));
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn globs_are_flagged() {
        let script = parse("rm *.log 'a*'").expect("parse");
        let cmd = &script.pipelines[0].commands[0];
        assert!(cmd.words[1].globs);
        assert!(!cmd.words[2].globs);
    }
}
