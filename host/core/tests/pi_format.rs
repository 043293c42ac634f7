//! Pi's session files (format version 3) read in place and written back without loss, and what
//! tack writes in Pi's shapes. `pi-0.73.1-print-mode.jsonl` is a file Pi 0.73.1 wrote in print mode
//! (a reasoning step, a tool call and its result); `pi-v3-session.jsonl` holds every entry type
//! and message role of Pi's `docs/session-format.md`, branches, a compaction and an entry type
//! from a later Pi.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tack_core::message::{
    AssistantContent, AssistantMessage, Cost, Message, StopReason, TextContent, ThinkingContent,
    Usage,
};
use tack_core::session::{Entry, EntryKind, Session, SessionError, SessionOptions};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A copy of a fixture in a temp dir (opening a session may write to it).
fn copy(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    fs::copy(fixture(name), &path).unwrap();
    path
}

fn lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn json_of(line: &str) -> Value {
    serde_json::from_str(line).unwrap()
}

#[test]
fn files_pi_wrote_load_without_warnings_and_copy_byte_for_byte() {
    for name in ["pi-0.73.1-print-mode.jsonl", "pi-v3-session.jsonl"] {
        let dir = tempfile::tempdir().unwrap();
        let path = copy(dir.path(), name);
        let (session, warnings) = Session::open(&path, SessionOptions::default()).unwrap();
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        assert_eq!(session.header().version, 3);
        assert_eq!(
            fs::read(&path).unwrap(),
            fs::read(fixture(name)).unwrap(),
            "{name}: opening changed the file"
        );

        // A copy of every entry (each written back through tack) is the file Pi wrote.
        let original = lines(&path);
        for (entry, line) in session.entries().iter().zip(&original[1..]) {
            assert_eq!(&entry.to_line(), line, "{name}");
        }
        let leaf = session.leaf_id().unwrap().to_owned();
        let fork = session
            .fork(Some(dir.path().join("fork.jsonl")), &leaf)
            .unwrap();
        let branch: Vec<String> = session.branch().iter().map(|e| e.to_line()).collect();
        assert_eq!(lines(fork.path().unwrap())[1..], branch[..], "{name}");
        for line in &branch {
            assert!(original.contains(line), "{name}: {line}");
        }
    }
}

#[test]
fn pi_messages_map_onto_tack_messages_field_for_field() {
    // What tack models of each message, written back in Pi's shapes, equals Pi's message but
    // for the fields tack has no place for (kept by the verbatim copy above).
    let pi_only = ["api", "responseId"];
    for name in ["pi-0.73.1-print-mode.jsonl", "pi-v3-session.jsonl"] {
        let (session, _) = Session::open(&fixture(name), SessionOptions::default()).unwrap();
        let mut compared = 0;
        for (entry, line) in session.entries().iter().zip(&lines(&fixture(name))[1..]) {
            let EntryKind::Message(message) = &entry.kind else {
                continue;
            };
            let mut expected = json_of(line)["message"].clone();
            let object = expected.as_object_mut().unwrap();
            for field in pi_only {
                object.remove(field);
            }
            let is_user = object.get("role") == Some(&json!("user"));
            if let Some(Value::String(text)) = object.get("content").filter(|_| is_user) {
                // Pi's short form of a user's text; tack always writes blocks.
                object.insert("content".into(), json!([{"type": "text", "text": text}]));
            }
            costs_as_floats(&mut expected);
            let rewritten = Entry {
                verbatim: None,
                ..entry.clone()
            };
            let mut written = json_of(&rewritten.to_line())["message"].clone();
            costs_as_floats(&mut written);
            assert_eq!(written, expected, "{name}: {line}");
            let reread = Entry::from_line(rewritten.to_line().as_bytes()).unwrap();
            assert_eq!(reread.message(), Some(message), "{name}");
            compared += 1;
        }
        assert!(compared >= 4, "{name}: {compared} messages");
    }
}

/// Pi writes a zero cost as `0`, tack as `0.0`: the same number, compared as one.
fn costs_as_floats(message: &mut Value) {
    if let Some(Value::Object(cost)) = message.get_mut("usage").and_then(|u| u.get_mut("cost")) {
        for value in cost.values_mut() {
            *value = json!(value.as_f64());
        }
    }
}

#[test]
fn what_the_model_sees_of_a_pi_file_is_what_pi_gives_it() {
    let (session, _) = Session::open(
        &fixture("pi-0.73.1-print-mode.jsonl"),
        SessionOptions::default(),
    )
    .unwrap();
    let messages = session.project();
    assert_eq!(messages.len(), 4);
    let Message::Assistant(call) = &*messages[1] else {
        panic!("{:?}", messages[1]);
    };
    assert_eq!(
        call.content[0],
        AssistantContent::Thinking(ThinkingContent {
            thinking: "The file will say.".into(),
            signature: Some("reasoning_content".into()),
        })
    );
    assert_eq!(call.tool_calls().next().unwrap().id, "call_pi_1");
    assert_eq!(call.usage.input, 40);
    assert_eq!(session.model(), Some(("mock", "mock-model")));
    assert_eq!(session.thinking_level(), Some("off"));

    // Pi's `!command` output reaches the model as Pi gives it; a `!!command` does not.
    let (mut session, warnings) =
        Session::from_bytes(&fs::read(fixture("pi-v3-session.jsonl")).unwrap()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    session.set_leaf(Some("a0000009")).unwrap();
    let texts: Vec<String> = session.project().iter().map(|m| m.preview_text()).collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("Ran `cargo build`") && t.contains("code 101")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.contains("keys.txt")), "{texts:?}");
    assert_eq!(session.name(), Some("Build failure"));
    assert_eq!(session.label("a0000003"), Some("start"));
}

#[test]
fn tack_writes_assistant_messages_in_pi_shapes_and_reads_them_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::create(
        dir.path().join("s.jsonl"),
        Path::new("/w"),
        None,
        SessionOptions::default(),
    )
    .unwrap();
    let message = Message::Assistant(AssistantMessage {
        content: vec![
            AssistantContent::Thinking(ThinkingContent {
                thinking: "hmm".into(),
                signature: Some("sig".into()),
            }),
            AssistantContent::Text(TextContent { text: "hi".into() }),
        ],
        provider: "anthropic".into(),
        model: "claude".into(),
        usage: Usage {
            input: 10,
            output: 5,
            cache_read: 2,
            cache_write: 1,
            cost: Cost {
                input: 0.1,
                output: 0.1,
                cache_read: 0.02,
                cache_write: 0.03,
                total: 0.25,
            },
        },
        stop_reason: StopReason::Stop,
        error_message: None,
        timestamp: 1,
    });
    session.append_message(message.clone()).unwrap();
    let path = session.path().unwrap().to_owned();
    drop(session);

    let written = lines(&path);
    assert!(written[0].starts_with(r#"{"type":"session","version":3,"#));
    let stored = &json_of(&written[1])["message"];
    assert_eq!(
        stored["content"][0],
        json!({"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"})
    );
    assert_eq!(
        stored["usage"],
        json!({"input": 10, "output": 5, "cacheRead": 2, "cacheWrite": 1, "totalTokens": 18,
               "cost": {"input": 0.1, "output": 0.1, "cacheRead": 0.02, "cacheWrite": 0.03, "total": 0.25}})
    );
    let (session, warnings) = Session::open(&path, SessionOptions::default()).unwrap();
    assert!(warnings.is_empty());
    let entry = &session.entries()[0];
    assert_eq!(
        entry.verbatim, None,
        "tack's own lines need no verbatim copy"
    );
    assert_eq!(entry.message().map(|m| &**m), Some(&message));
}

#[test]
fn a_tack_version_1_file_is_raised_to_version_3_in_place_by_one_byte() {
    let dir = tempfile::tempdir().unwrap();
    let header = r#"{"type":"session","version":1,"id":"s1","timestamp":"2024-12-01T00:00:00.000Z","cwd":"/w"}"#;
    let entries = [
        r#"{"type":"message","id":"00000001","parentId":null,"timestamp":"2024-12-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}"#,
        r#"{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2024-12-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"yo"}],"provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"cost":0.5},"stopReason":"stop","timestamp":2}}"#,
        r#"{"type":"custom","id":"00000003","parentId":"00000002","timestamp":"2024-12-01T00:00:02.000Z","customType":"todo","data":{"items":[]},"owner":"todo"}"#,
        r#"{"type":"label","id":"00000004","parentId":"00000003","timestamp":"2024-12-01T00:00:03.000Z","targetId":"00000001","label":"start"}"#,
    ];
    let path = dir.path().join("old.jsonl");
    let before = format!("{header}\n{}\n", entries.join("\n"));
    fs::write(&path, &before).unwrap();

    let (mut session, warnings) = Session::open(&path, SessionOptions::default()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(session.header().version, 3);
    let after = fs::read(&path).unwrap();
    let changed: Vec<usize> = (0..before.len())
        .filter(|&i| before.as_bytes()[i] != after[i])
        .collect();
    assert_eq!(after.len(), before.len());
    assert_eq!(changed, [28], "only the version digit changes");
    assert!(after.starts_with(br#"{"type":"session","version":3,"#));
    // Its old shapes keep loading, and are copied as they are.
    assert_eq!(session.entries()[1].to_line(), entries[1]);
    assert_eq!(
        session.plugin_state("todo", "todo"),
        Some(&json!({"items": []}))
    );
    assert_eq!(session.label("00000001"), Some("start"));
    session
        .append_message(Message::user("more"))
        .expect("appends go on");
    drop(session);
    assert_eq!(lines(&path).len(), 6);

    // A header not in tack's order is left alone (it still opens).
    let odd = dir.path().join("odd.jsonl");
    let text = format!(
        "{}\n{}\n",
        r#"{"version":1,"type":"session","id":"s2","timestamp":"t","cwd":"/w"}"#, entries[0]
    );
    fs::write(&odd, &text).unwrap();
    let (session, _) = Session::open(&odd, SessionOptions::default()).unwrap();
    assert_eq!(session.header().version, 1);
    assert_eq!(fs::read_to_string(&odd).unwrap(), text);
}

#[test]
fn a_pi_version_1_file_is_a_clear_error_and_stays_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pi-v1.jsonl");
    let text = concat!(
        r#"{"type":"session","id":"old","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
        "\n"
    );
    fs::write(&path, text).unwrap();
    let err = Session::open(&path, SessionOptions::default()).unwrap_err();
    assert!(matches!(err, SessionError::PiVersion1 { .. }), "{err}");
    assert!(err.to_string().contains("tack import"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn messages_of_roles_tack_does_not_know_are_kept_verbatim() {
    let line = r#"{"type":"message","id":"0000000a","parentId":null,"timestamp":"t","message":{"role":"somethingNew","x":[1, 2]}}"#;
    let entry = Entry::from_line(line.as_bytes()).unwrap();
    assert_eq!(entry.kind.type_name(), "message");
    assert!(entry.message().is_none());
    assert_eq!(entry.to_line(), line);
    // A known role with a broken body is still an error (the loader reports and skips it).
    assert!(Entry::from_line(
        br#"{"type":"message","id":"0000000b","parentId":null,"timestamp":"t","message":{"role":"user"}}"#
    )
    .is_err());
}
