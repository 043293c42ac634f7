//! Text from plugins, providers and tools on its way to a terminal.
//!
//! A terminal obeys escape sequences in what it prints: a plugin's notify text or a tool's output
//! could set the window title, rewrite the screen, fake a prompt or, on some terminals, write the
//! clipboard (OSC 52). Control characters are therefore shown, not obeyed: each becomes its
//! visible Unicode "control picture" (ESC prints as `␛`), except line feeds and tabs.

use std::borrow::Cow;

/// `text` with every control character other than `\n` and `\t` made visible. A `\r` directly
/// before `\n` is dropped (Windows line ends); any other `\r` could overwrite a line, so it is
/// shown too. Borrowed when there is nothing to change, which is the common case.
pub fn neutralize_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_picture) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if needs_picture(c) {
            out.push(picture(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The longest run of SGR parameters kept (`38;2;255;255;255;48;2;…` fits many times over);
/// a longer one is shown, not obeyed.
const MAX_SGR_PARAMS: usize = 64;

/// The SGR sequence (`ESC [ params m`: colours and text attributes) at the start of `text`, if
/// one is there, with its length.
fn sgr_at(text: &str) -> Option<usize> {
    let params = text.strip_prefix("\x1b[")?;
    let end = params
        .find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':'))
        .filter(|&end| end <= MAX_SGR_PARAMS)?;
    params[end..].starts_with('m').then_some(2 + end + 1)
}

/// `text` without its SGR sequences (colours and styles), for text drawn in the host's own
/// colours; every other control is left, to be made visible by [`neutralize_controls`].
pub fn strip_styles(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('\x1b') {
        out.push_str(&rest[..start]);
        match sgr_at(&rest[start..]) {
            Some(len) => rest = &rest[start + len..],
            None => {
                out.push('\x1b');
                rest = &rest[start + 1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// `text` with its SGR sequences (colours and text attributes) kept as they are and every other
/// control character made visible: for lines a terminal UI draws with their styles, parsing the
/// SGR sequences itself, so that nothing else in them is ever obeyed.
pub fn keep_styles(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return neutralize_controls(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(start) = rest.find('\x1b') {
        out.push_str(&neutralize_controls(&rest[..start]));
        let len = match sgr_at(&rest[start..]) {
            Some(len) => {
                out.push_str(&rest[start..start + len]);
                len
            }
            None => {
                out.push(picture('\x1b'));
                1
            }
        };
        rest = &rest[start + len..];
    }
    out.push_str(&neutralize_controls(rest));
    Cow::Owned(out)
}

fn needs_picture(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// U+2400..U+241F picture the C0 controls and U+2421 DEL; C1 controls (U+0080..U+009F) have no
/// pictures and become the replacement character.
fn picture(c: char) -> char {
    match c as u32 {
        code @ 0..=0x1f => char::from_u32(0x2400 + code).unwrap_or('\u{fffd}'),
        0x7f => '\u{2421}',
        _ => '\u{fffd}',
    }
}

/// `1536` → `1.5 KiB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut size = bytes as f64;
    let mut unit = 0;
    while size >= 1024.0 && unit < UNITS.len() - 1 {
        size /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{size:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert!(matches!(
            neutralize_controls("plain\ttext\nlines"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            neutralize_controls("\u{1b}]52;c;ZXZpbA==\u{7}title"),
            "␛]52;c;ZXZpbA==␇title"
        );
        assert_eq!(neutralize_controls("\u{1b}[2J\u{1b}[H"), "␛[2J␛[H");
        assert_eq!(neutralize_controls("a\r\nb\rc"), "a\nb␍c");
        assert_eq!(neutralize_controls("\u{9b}31m\u{7f}"), "\u{fffd}31m␡");
    }

    #[test]
    fn styles_are_kept_or_stripped_and_nothing_else_is_obeyed() {
        let text = "\x1b[1;38;2;255;0;0mred\x1b[0m \x1b[2Jwipe \x1b]52;c;eA==\x07 \x1b[31";
        assert_eq!(
            keep_styles(text),
            "\x1b[1;38;2;255;0;0mred\x1b[0m ␛[2Jwipe ␛]52;c;eA==␇ ␛[31"
        );
        assert_eq!(
            strip_styles(text),
            "red \x1b[2Jwipe \x1b]52;c;eA==\x07 \x1b[31"
        );
        assert_eq!(keep_styles("plain\ttext"), "plain\ttext");
        assert_eq!(
            strip_styles("\x1b[1;38;2;255;0;0mred\x1b[0m and \x1b[mplain"),
            "red and plain"
        );
        assert_eq!(strip_styles("cut \x1b["), "cut \x1b[");
        let long = format!("\x1b[{}mx", "1;".repeat(40));
        assert_eq!(keep_styles(&long), format!("␛[{}mx", "1;".repeat(40)));
    }
}
