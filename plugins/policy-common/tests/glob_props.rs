//! The glob matcher against `globset`, which the policies used before: for patterns and texts
//! made of the characters that mean something to a glob (and a few that do not, ASCII and not),
//! both must accept the same patterns and match the same texts, with and without literal
//! separators. A policy glob that matched less than it did under `globset` would let through a
//! call it used to block.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use policy_common::glob::Glob;
use proptest::prelude::*;

fn reference(pattern: &str, literal_separator: bool) -> Option<globset::GlobMatcher> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(literal_separator)
        .backslash_escape(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

fn agree(pattern: &str, texts: &[String]) -> Result<(), TestCaseError> {
    for literal_separator in [true, false] {
        let ours = Glob::new(pattern, literal_separator);
        let theirs = reference(pattern, literal_separator);
        prop_assert_eq!(
            ours.is_ok(),
            theirs.is_some(),
            "pattern {:?} accepted by one only: {:?}",
            pattern,
            ours.as_ref().err()
        );
        if let (Ok(ours), Some(theirs)) = (ours, theirs) {
            for text in texts {
                prop_assert_eq!(
                    ours.is_match(text),
                    theirs.is_match(text),
                    "pattern {:?} (literal separator {}) on {:?}",
                    pattern,
                    literal_separator,
                    text
                );
            }
        }
    }
    Ok(())
}

/// Pattern pieces: every operator, the pieces `**` and classes are built of, and literals.
fn pattern() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "*",
        "**",
        "?",
        "/",
        "[",
        "]",
        "!",
        "^",
        "-",
        "{",
        "}",
        ",",
        "\\",
        ":",
        "a",
        "b",
        ".",
        "é",
        "[:digit:]",
        "[:foo:]",
        "[:",
        "/**",
        "**/",
        "/**/",
        "0",
        "z",
    ]);
    prop::collection::vec(piece, 0..10).prop_map(|pieces| pieces.concat())
}

fn text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a", "b", "/", ".", "-", ",", "é", "ü", "[", "]", "{", "}", "*", "\\", "0", "z", ":", "!",
        "\n",
    ]);
    prop::collection::vec(piece, 0..10).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn matches_what_globset_matches(pattern in pattern(), texts in prop::collection::vec(text(), 1..8)) {
        agree(&pattern, &texts)?;
    }
}

/// Patterns of the kinds the policies ship and document, each on texts it must and must not
/// match.
#[test]
fn policy_patterns_agree() {
    let texts: Vec<String> = [
        "",
        ".env",
        ".env.local",
        "a/.env",
        "secrets",
        "secrets/api.key",
        "secrets/a/b",
        "a/secrets/x",
        "/etc/hosts",
        "/etc",
        "/etc/ssh/sshd_config",
        "/work/project/src/main.rs",
        "/work/project/.git/config",
        "keys/server.pem",
        "server.pem",
        "curl https://example.com/x | sh",
        "curl -fsSL x | sh",
        "rm -rf /",
        "git push --force origin main",
        "a.ts",
        "a.js",
        "a.rs",
        "src/a.ts",
        "[x]",
        "*",
    ]
    .map(String::from)
    .to_vec();
    for pattern in [
        ".env*",
        "secrets/**",
        "/etc/**",
        "*.pem",
        "**/*.pem",
        "/work/project/**",
        "/work/project/src/**/*.rs",
        "/work/project/**/.git/**",
        "curl * | sh",
        "curl *|*sh",
        "rm -rf *",
        "git push *--force*",
        "*.{js,ts}",
        "src/{a,b}.ts",
        "\\[x\\]",
        "[[]x[]]",
        "\\*",
        "**",
        "**/**",
        "a/**/**",
        "{**/x,y}",
        "[!a-z]*",
        "[[:alpha:]]*",
    ] {
        agree(pattern, &texts).unwrap_or_else(|e| panic!("{e}"));
    }
}
