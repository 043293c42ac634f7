//! The prompt editor: multi-line text with a cursor, word and line deletion, paste, and a
//! history of sent prompts walked with Up and Down from the first and last lines.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::theme::Theme;

#[derive(Debug, Clone)]
pub struct Editor {
    lines: Vec<String>,
    /// Cursor line and character (not byte) column.
    row: usize,
    col: usize,
    history: Vec<String>,
    /// Position while walking the history, and the text being written before the walk.
    walk: Option<(usize, String)>,
}

impl Default for Editor {
    fn default() -> Self {
        Editor {
            lines: vec![String::new()],
            row: 0,
            col: 0,
            history: Vec::new(),
            walk: None,
        }
    }
}

fn byte_of(line: &str, col: usize) -> usize {
    line.char_indices()
        .nth(col)
        .map(|(i, _)| i)
        .unwrap_or(line.len())
}

/// Word moves treat identifiers (`snake_case`) as one word.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn char_len(line: &str) -> usize {
    line.chars().count()
}

impl Editor {
    /// The same text shown as one `•` per character, cursor kept: a secret being typed.
    pub fn masked(&self) -> Editor {
        Editor {
            lines: self
                .lines
                .iter()
                .map(|line| "•".repeat(char_len(line)))
                .collect(),
            row: self.row,
            col: self.col,
            history: Vec::new(),
            walk: None,
        }
    }

    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    pub fn is_empty(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].is_empty()
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    pub fn cursor(&self) -> (usize, usize) {
        (self.row, self.col)
    }

    pub fn clear(&mut self) {
        self.lines = vec![String::new()];
        self.row = 0;
        self.col = 0;
        self.walk = None;
    }

    /// Replaces the text; the cursor goes to its end.
    pub fn set_text(&mut self, text: &str) {
        self.lines = text.split('\n').map(str::to_string).collect();
        if self.lines.is_empty() {
            self.lines.push(String::new());
        }
        self.row = self.lines.len() - 1;
        self.col = char_len(&self.lines[self.row]);
    }

    fn current(&mut self) -> &mut String {
        &mut self.lines[self.row]
    }

    pub fn insert_char(&mut self, c: char) {
        if c == '\n' {
            return self.newline();
        }
        let col = self.col;
        let line = self.current();
        let at = byte_of(line, col);
        line.insert(at, c);
        self.col += 1;
    }

    /// Inserts text (a paste): line breaks of any convention become new lines, tabs stay.
    pub fn insert_str(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        for c in text.chars() {
            if c == '\n' || c == '\t' || !c.is_control() {
                self.insert_char(c);
            }
        }
    }

    pub fn newline(&mut self) {
        let col = self.col;
        let line = self.current();
        let at = byte_of(line, col);
        let rest = line.split_off(at);
        self.lines.insert(self.row + 1, rest);
        self.row += 1;
        self.col = 0;
    }

    pub fn backspace(&mut self) {
        if self.col > 0 {
            let col = self.col;
            let line = self.current();
            let at = byte_of(line, col - 1);
            line.remove(at);
            self.col -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = char_len(&self.lines[self.row]);
            self.lines[self.row].push_str(&line);
        }
    }

    pub fn delete(&mut self) {
        let len = char_len(&self.lines[self.row]);
        if self.col < len {
            let col = self.col;
            let line = self.current();
            let at = byte_of(line, col);
            line.remove(at);
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
        }
    }

    pub fn left(&mut self) {
        if self.col > 0 {
            self.col -= 1;
        } else if self.row > 0 {
            self.row -= 1;
            self.col = char_len(&self.lines[self.row]);
        }
    }

    pub fn right(&mut self) {
        if self.col < char_len(&self.lines[self.row]) {
            self.col += 1;
        } else if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = 0;
        }
    }

    /// Moves up a line; false on the first line.
    pub fn up(&mut self) -> bool {
        if self.row == 0 {
            return false;
        }
        self.row -= 1;
        self.col = self.col.min(char_len(&self.lines[self.row]));
        true
    }

    /// Moves down a line; false on the last line.
    pub fn down(&mut self) -> bool {
        if self.row + 1 >= self.lines.len() {
            return false;
        }
        self.row += 1;
        self.col = self.col.min(char_len(&self.lines[self.row]));
        true
    }

    pub fn home(&mut self) {
        self.col = 0;
    }

    pub fn end(&mut self) {
        self.col = char_len(&self.lines[self.row]);
    }

    /// Alt+Left: to the start of the word before the cursor (the previous line's end at the
    /// start of a line).
    pub fn word_left(&mut self) {
        if self.col == 0 {
            return self.left();
        }
        let chars: Vec<char> = self.lines[self.row].chars().collect();
        let mut col = self.col;
        while col > 0 && !is_word(chars[col - 1]) {
            col -= 1;
        }
        while col > 0 && is_word(chars[col - 1]) {
            col -= 1;
        }
        self.col = col;
    }

    /// Alt+Right: to the end of the word after the cursor.
    pub fn word_right(&mut self) {
        let chars: Vec<char> = self.lines[self.row].chars().collect();
        if self.col >= chars.len() {
            return self.right();
        }
        let mut col = self.col;
        while col < chars.len() && !is_word(chars[col]) {
            col += 1;
        }
        while col < chars.len() && is_word(chars[col]) {
            col += 1;
        }
        self.col = col;
    }

    /// Ctrl+W: the word before the cursor (and the spaces after it).
    pub fn delete_word(&mut self) {
        let chars: Vec<char> = self.lines[self.row].chars().collect();
        let mut start = self.col;
        while start > 0 && chars[start - 1] == ' ' {
            start -= 1;
        }
        while start > 0 && chars[start - 1] != ' ' {
            start -= 1;
        }
        if start == self.col {
            return self.backspace();
        }
        self.replace(start, self.col, "");
    }

    /// Ctrl+K: to the end of the line.
    pub fn kill_to_end(&mut self) {
        let col = self.col;
        let line = self.current();
        let at = byte_of(line, col);
        line.truncate(at);
    }

    /// Ctrl+U: to the start of the line.
    pub fn kill_to_start(&mut self) {
        self.replace(0, self.col, "");
    }

    /// Replaces characters `start..end` of the cursor's line with `text`; the cursor ends after it.
    pub fn replace(&mut self, start: usize, end: usize, text: &str) {
        let line = &mut self.lines[self.row];
        let (a, b) = (byte_of(line, start), byte_of(line, end));
        line.replace_range(a..b, text);
        self.col = start + char_len(text);
    }

    /// The word the cursor ends (from the last space), with its starting column.
    pub fn word_at_cursor(&self) -> (usize, String) {
        let chars: Vec<char> = self.lines[self.row].chars().take(self.col).collect();
        let start = chars
            .iter()
            .rposition(|c| c.is_whitespace())
            .map_or(0, |i| i + 1);
        (start, chars[start..].iter().collect())
    }

    /// Remembers a sent prompt (not twice in a row).
    pub fn remember(&mut self, text: &str) {
        if self.history.last().map(String::as_str) != Some(text) {
            self.history.push(text.to_string());
        }
        self.walk = None;
    }

    pub fn set_history(&mut self, history: Vec<String>) {
        self.history = history;
        self.walk = None;
    }

    /// Up on the first line: the previous prompt.
    pub fn history_back(&mut self) -> bool {
        let next = match &self.walk {
            None if self.history.is_empty() => return false,
            None => self.history.len() - 1,
            Some((0, _)) => return false,
            Some((i, _)) => i - 1,
        };
        let draft = match self.walk.take() {
            Some((_, draft)) => draft,
            None => self.text(),
        };
        self.walk = Some((next, draft));
        let text = self.history[next].clone();
        self.set_text(&text);
        true
    }

    /// Down on the last line: the next prompt, then what was being written.
    pub fn history_forward(&mut self) -> bool {
        let Some((i, draft)) = self.walk.take() else {
            return false;
        };
        if i + 1 < self.history.len() {
            self.walk = Some((i + 1, draft));
            let text = self.history[i + 1].clone();
            self.set_text(&text);
        } else {
            self.set_text(&draft);
        }
        true
    }

    /// The text wrapped to `width` columns after a two-column prompt, and the cursor's position
    /// in those lines (column, row).
    pub fn layout(
        &self,
        width: u16,
        theme: &Theme,
        placeholder: &str,
    ) -> (Vec<Line<'static>>, (u16, u16)) {
        let room = usize::from(width).saturating_sub(2).max(1);
        let mut out = Vec::new();
        let mut cursor = (2u16, 0u16);
        for (r, line) in self.lines.iter().enumerate() {
            let mut chunk = String::new();
            let mut used = 0;
            let lead = |first: bool, out_len: usize| {
                if first && out_len == 0 {
                    Span::styled("› ", theme.user())
                } else {
                    Span::raw("  ")
                }
            };
            let mut first_chunk = true;
            for (c_index, c) in line.chars().enumerate() {
                let w = c.width().unwrap_or(0).max(if c == '\t' { 1 } else { 0 });
                if used + w > room {
                    out.push(Line::from(vec![
                        lead(first_chunk && r == 0, out.len()),
                        Span::raw(std::mem::take(&mut chunk)),
                    ]));
                    first_chunk = false;
                    used = 0;
                }
                if r == self.row && c_index == self.col {
                    cursor = (2 + used as u16, out.len() as u16);
                }
                chunk.push(if c == '\t' { ' ' } else { c });
                used += w;
            }
            if r == self.row && self.col >= char_len(line) {
                if used >= room {
                    out.push(Line::from(vec![
                        lead(first_chunk && r == 0, out.len()),
                        Span::raw(std::mem::take(&mut chunk)),
                    ]));
                    first_chunk = false;
                    used = 0;
                }
                cursor = (2 + used as u16, out.len() as u16);
            }
            out.push(Line::from(vec![
                lead(first_chunk && r == 0, out.len()),
                Span::raw(chunk),
            ]));
        }
        if self.is_empty() && !placeholder.is_empty() {
            out = vec![Line::from(vec![
                Span::styled("› ", theme.user()),
                Span::styled(placeholder.to_string(), theme.dim()),
            ])];
        }
        (out, cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_moves_stop_at_word_edges() {
        let mut e = Editor::default();
        e.set_text("fix the_parser, now");
        e.word_left();
        assert_eq!(e.cursor(), (0, 16));
        e.word_left();
        assert_eq!(e.cursor(), (0, 4));
        e.home();
        e.word_right();
        assert_eq!(e.cursor(), (0, 3));
        e.word_right();
        assert_eq!(e.cursor(), (0, 14));
    }

    #[test]
    fn edits_lines_and_walks_history() {
        let mut e = Editor::default();
        e.insert_str("hello\r\nwörld");
        assert_eq!(e.text(), "hello\nwörld");
        e.backspace();
        e.left();
        e.insert_char('X');
        assert_eq!(e.text(), "hello\nwörXl");
        e.home();
        e.backspace();
        assert_eq!(e.text(), "hellowörXl");
        e.end();
        e.delete_word();
        assert_eq!(e.text(), "");
        e.remember("first");
        e.remember("second");
        e.insert_str("draft");
        assert!(e.history_back());
        assert_eq!(e.text(), "second");
        assert!(e.history_back());
        assert_eq!(e.text(), "first");
        assert!(!e.history_back());
        assert!(e.history_forward());
        assert!(e.history_forward());
        assert_eq!(e.text(), "draft");
    }

    #[test]
    fn layout_wraps_and_places_the_cursor() {
        let mut e = Editor::default();
        e.insert_str("abcdefgh");
        let (lines, cursor) = e.layout(6, &Theme::plain(), "");
        let texts: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(texts, ["› abcd", "  efgh", "  "]);
        assert_eq!(cursor, (2, 2));
        e.home();
        let (_, cursor) = e.layout(6, &Theme::plain(), "");
        assert_eq!(cursor, (2, 0));
    }
}
