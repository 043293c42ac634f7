//! Tool-call ids carried from one API to another. A session may switch providers, and each API
//! restricts the ids it accepts back (Anthropic: `[a-zA-Z0-9_-]+`; OpenAI Chat Completions: at
//! most 40 characters), so ids are rewritten the same way in a call and in its result.

/// `id` with every character outside `[a-zA-Z0-9_-]` replaced by `_`, cut to `max_chars`.
pub fn sanitize(id: &str, max_chars: usize) -> String {
    let cleaned: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(max_chars)
        .collect();
    if cleaned.is_empty() {
        // Every API refuses an empty id.
        "call".to_string()
    } else {
        cleaned
    }
}

/// `id` as exactly `len` letters and digits (Mistral takes nothing else back): its own
/// alphanumerics when they are exactly that many, else a hash of it in base 62, the same for
/// the same id in a call and in its result.
pub fn alphanumeric(id: &str, len: usize) -> String {
    let cleaned: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    if cleaned.len() == len {
        return cleaned;
    }
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    // FNV-1a: stable across builds and platforms, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (0..len)
        .map(|_| {
            let digit = DIGITS[(hash % 62) as usize] as char;
            hash /= 62;
            digit
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_and_truncates() {
        assert_eq!(sanitize("toolu_01A-b", 64), "toolu_01A-b");
        assert_eq!(sanitize("call_1|fc_2", 64), "call_1_fc_2");
        assert_eq!(sanitize("abcdef", 4), "abcd");
        assert_eq!(sanitize("é", 4), "_");
        assert_eq!(sanitize("", 4), "call");
    }

    #[test]
    fn alphanumeric_ids_keep_their_length_and_stay_the_same() {
        assert_eq!(alphanumeric("abc123XYZ", 9), "abc123XYZ");
        let hashed = alphanumeric("toolu_01ABCdefGHIjklMNO", 9);
        assert_eq!(hashed.len(), 9);
        assert!(
            hashed.chars().all(|c| c.is_ascii_alphanumeric()),
            "{hashed}"
        );
        assert_eq!(hashed, alphanumeric("toolu_01ABCdefGHIjklMNO", 9));
        assert_ne!(hashed, alphanumeric("toolu_01ABCdefGHIjklMNP", 9));
        assert_eq!(alphanumeric("", 9).len(), 9);
    }
}
