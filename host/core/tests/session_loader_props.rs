//! Property: garbage lines anywhere after the header never lose a valid entry, and each one is
//! reported with its line number.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::Path;

use proptest::prelude::*;
use tack_core::message::Message;
use tack_core::session::{Entry, EntryKind, Session};

fn session_lines(texts: &[String]) -> Vec<String> {
    let mut session = Session::in_memory(Path::new("/w"));
    for (i, text) in texts.iter().enumerate() {
        if i % 3 == 2 {
            session
                .append(EntryKind::Custom {
                    custom_type: "state".into(),
                    data: serde_json::json!({"n": i}),
                    owner: None,
                })
                .unwrap();
        }
        session.append_message(Message::user(text.clone())).unwrap();
    }
    let mut lines = vec![serde_json::to_string(&serde_json::json!({
        "type": "session", "version": 1, "id": session.id(),
        "timestamp": session.header().timestamp, "cwd": "/w"
    }))
    .unwrap()];
    lines.extend(session.entries().iter().map(Entry::to_line));
    lines
}

fn garbage() -> impl Strategy<Value = String> {
    prop_oneof![
        // Arbitrary text without newlines.
        "[^\n]{1,60}",
        // JSON that is not an entry.
        Just("{}".to_owned()),
        Just("[1,2,3]".to_owned()),
        Just(r#"{"type":"message","id":"deadbeef"}"#.to_owned()),
        Just(r#"{"type":"message","id":"cafe0001","parentId":null,"timestamp":"t","message":{"role":"wizard"}}"#.to_owned()),
        // Bytes that are not UTF-8 are written as replacement characters by the test, so
        // exercise them through odd escapes instead.
        Just(r#"{"type":"label","id":"\ud800"}"#.to_owned()),
    ]
    .prop_filter("blank lines are skipped silently", |g| {
        !g.trim().is_empty() && Entry::from_line(g.as_bytes()).is_err()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn garbage_lines_never_lose_valid_entries(
        texts in prop::collection::vec("[a-zA-Z0-9 \"\\\\{}\n\té😀]{0,40}", 1..12),
        insertions in prop::collection::vec((any::<prop::sample::Index>(), garbage()), 0..8),
        torn_tail in prop::option::of(1usize..40),
    ) {
        let lines = session_lines(&texts);
        let mut with_garbage = lines.clone();
        // Positions are drawn after the header (index 0).
        let mut garbage_count = 0;
        for (at, line) in &insertions {
            let position = 1 + at.index(with_garbage.len());
            with_garbage.insert(position, line.clone());
            garbage_count += 1;
        }
        let mut file = with_garbage.join("\n");
        file.push('\n');
        let mut expected_warnings = garbage_count;
        if let Some(cut) = torn_tail {
            // A torn copy of a real entry as the last, unterminated line.
            let last = &lines[lines.len() - 1];
            let mut end = cut.min(last.len() - 1);
            while !last.is_char_boundary(end) {
                end -= 1;
            }
            file.push_str(&last[..end]);
            expected_warnings += 1;
        }

        let (session, warnings) = Session::from_bytes(file.as_bytes()).unwrap();
        prop_assert_eq!(warnings.len(), expected_warnings, "{:?}", warnings);
        for warning in &warnings {
            let line = file.lines().nth(warning.line - 1).unwrap_or("");
            prop_assert!(Entry::from_line(line.as_bytes()).is_err(), "warned about a good line {}", warning);
        }
        let projected: Vec<String> = session
            .project()
            .iter()
            .map(|m| match &**m {
                Message::User(u) => u.text_content(),
                other => format!("{other:?}"),
            })
            .collect();
        prop_assert_eq!(projected, texts);
        prop_assert_eq!(session.entries().len(), lines.len() - 1);
    }
}
