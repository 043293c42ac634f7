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
}
