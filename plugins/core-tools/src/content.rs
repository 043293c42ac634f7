//! Deciding what kind of content a file holds from its first bytes.

/// How many leading bytes decide whether a file is binary (the same window git and ripgrep use).
pub const SNIFF_LEN: usize = 8 * 1024;

/// The image formats models accept, recognised by their magic bytes so a misnamed file still
/// works and a `.png` that is really text is read as text.
pub fn image_mime(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Whether a file whose first bytes are `head` should be treated as binary: any NUL byte, or
/// mostly bytes that are not UTF-8. A few stray invalid bytes (a Latin-1 accent in an old
/// source file) do not make a file binary; they are shown as U+FFFD.
pub fn looks_binary(head: &[u8]) -> bool {
    if memchr::memchr(0, head).is_some() {
        return true;
    }
    let mut invalid = 0usize;
    let mut chunks = head.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        let bad = chunk.invalid().len();
        // The sniff window may end in the middle of a multi-byte character.
        let at_end = chunks.peek().is_none() && chunk.invalid().len() < 4;
        if !at_end || head.len() < SNIFF_LEN {
            invalid += bad;
        }
    }
    invalid * 10 > head.len()
}

/// Number of bytes of `bytes` that are not valid UTF-8.
pub fn invalid_utf8_bytes(bytes: &[u8]) -> usize {
    bytes.utf8_chunks().map(|c| c.invalid().len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_by_magic() {
        assert_eq!(image_mime(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(image_mime(b"\xff\xd8\xff\xe0"), Some("image/jpeg"));
        assert_eq!(image_mime(b"GIF89a..."), Some("image/gif"));
        assert_eq!(image_mime(b"RIFF\x10\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_mime(b"RIFF\x10\0\0\0WAVEfmt "), None);
        assert_eq!(image_mime(b"<svg"), None);
    }

    #[test]
    fn binary_detection() {
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary("plain text, ünïcödé\n".as_bytes()));
        // One Latin-1 byte in otherwise ASCII text is still text.
        let mut latin = b"caf\xe9 au lait, a longer line of ordinary text".to_vec();
        latin.extend_from_slice(b"\n");
        assert!(!looks_binary(&latin));
        assert!(looks_binary(&[0xff, 0xfe, 0xfd, 0x80, 0x81, b'a']));
    }

    #[test]
    fn a_character_split_by_the_sniff_window_is_not_binary() {
        let mut head = vec![b'a'; SNIFF_LEN - 1];
        head.push(0xc3);
        assert!(!looks_binary(&head));
    }
}
