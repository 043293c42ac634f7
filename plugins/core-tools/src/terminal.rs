//! Turning raw terminal output into text worth a model's tokens: colour codes and cursor
//! movements removed, progress bars collapsed to what a terminal would finally show.

/// Cleans command output for display. Escape sequences (CSI such as colours, OSC such as window
/// titles and hyperlinks) are removed, a carriage return inside a line keeps only what was
/// written after it, and other control characters except tab are dropped.
pub fn clean(text: &str) -> String {
    let stripped = strip_escapes(text);
    let mut out = String::with_capacity(stripped.len());
    for (i, line) in stripped.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.trim_end_matches('\r');
        let visible = line.rsplit('\r').next().unwrap_or(line);
        out.extend(visible.chars().filter(|&c| c == '\t' || !c.is_control()));
    }
    out
}

fn strip_escapes(text: &str) -> String {
    if !text.contains('\u{1b}') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates, then one final byte in @..~.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC, DCS and friends: up to BEL or the string terminator ESC \.
            Some(']' | 'P' | '_' | '^' | 'X') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // Character-set selection takes one more character.
            Some('(' | ')' | '*' | '+') => {
                chars.next();
            }
            // Any other two-character sequence (ESC =, ESC 7, ...).
            Some(_) | None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn strips_colours_and_titles() {
        assert_eq!(clean("\u{1b}[1;31merror\u{1b}[0m: bad"), "error: bad");
        assert_eq!(clean("\u{1b}]0;title\u{7}ok"), "ok");
        assert_eq!(
            clean("\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\"),
            "link"
        );
        assert_eq!(clean("\u{1b}(Bplain"), "plain");
    }

    #[test]
    fn collapses_progress_bars() {
        assert_eq!(clean("10%\r50%\r100%\ndone\n"), "100%\ndone\n");
        assert_eq!(clean("a\r\nb\r\n"), "a\nb\n");
    }

    #[test]
    fn drops_other_controls_but_keeps_tabs() {
        assert_eq!(clean("a\tb\u{7}c\u{8}"), "a\tbc");
    }

    #[test]
    fn leaves_plain_text_alone() {
        let text = "fn main() {}\n  indented ünïcode\n";
        assert_eq!(clean(text), text);
    }
}
