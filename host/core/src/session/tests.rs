use std::fs;

use serde_json::json;

use super::*;
use crate::message::{AssistantContent, Content, StopReason, TextContent, UserMessage};

fn user(text: &str) -> Message {
    Message::User(UserMessage {
        content: vec![Content::text(text)],
        timestamp: 1,
    })
}

/// A compaction entry that keeps the entries from `first_kept_entry_id` on.
fn compaction(summary: &str, first_kept_entry_id: &str, tokens_before: u64) -> EntryKind {
    EntryKind::Compaction {
        summary: summary.into(),
        first_kept_entry_id: first_kept_entry_id.into(),
        tokens_before,
        details: None,
    }
}

fn texts(messages: &[Arc<Message>]) -> Vec<String> {
    messages.iter().map(|m| m.preview_text()).collect()
}

fn new_session(dir: &Path) -> Session {
    Session::create(
        dir.join("s.jsonl"),
        Path::new("/w"),
        None,
        SessionOptions::default(),
    )
    .unwrap()
}

#[test]
fn appends_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = new_session(dir.path());
    let first = session.append_message(user("one")).unwrap().id.clone();
    let second = session.append_message(user("two")).unwrap().clone();
    assert_eq!(second.parent_id.as_deref(), Some(first.as_str()));
    assert_eq!(second.id.len(), 8);
    assert!(second.id.chars().all(|c| c.is_ascii_hexdigit()));
    let path = session.path().unwrap().to_owned();
    let id = session.id().to_owned();
    drop(session);

    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.starts_with(r#"{"type":"session","version":3,"id":""#));
    let (session, warnings) = Session::open(&path, SessionOptions::default()).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(session.id(), id);
    assert_eq!(session.leaf_id(), Some(second.id.as_str()));
    assert_eq!(texts(&session.project()), ["one", "two"]);
}

#[test]
fn moving_the_leaf_and_appending_makes_a_branch() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = new_session(dir.path());
    let a = session.append_message(user("a")).unwrap().id.clone();
    let b = session.append_message(user("b")).unwrap().id.clone();
    session.set_leaf(Some(&a)).unwrap();
    let c = session.append_message(user("c")).unwrap().id.clone();
    assert_eq!(texts(&session.project()), ["a", "c"]);
    let children: Vec<&str> = session
        .children(Some(&a))
        .unwrap()
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(children, [b.as_str(), c.as_str()]);
    assert_eq!(session.children(None).unwrap().len(), 1);
    assert!(matches!(
        session.set_leaf(Some("nope")),
        Err(SessionError::UnknownEntry(_))
    ));

    // Reopening puts the leaf on the last entry written, the new branch.
    let path = session.path().unwrap().to_owned();
    let (mut reopened, _) = Session::open(&path, SessionOptions::default()).unwrap();
    assert_eq!(texts(&reopened.project()), ["a", "c"]);
    reopened.set_leaf(Some(&b)).unwrap();
    assert_eq!(texts(&reopened.project()), ["a", "b"]);
    reopened.set_leaf(None).unwrap();
    assert!(reopened.project().is_empty());
    let root = reopened.append_message(user("new root")).unwrap();
    assert_eq!(root.parent_id, None);
}

#[test]
fn projection_handles_compaction_custom_entries_and_summaries() {
    let mut session = Session::in_memory(Path::new("/w"));
    session.append_message(user("old 1")).unwrap();
    let kept = session.append_message(user("kept")).unwrap().id.clone();
    session
        .append(EntryKind::Custom {
            custom_type: "todo".into(),
            data: json!({"items": [1]}),
            owner: None,
        })
        .unwrap();
    session
        .append(EntryKind::ModelChange {
            provider: "anthropic".into(),
            model_id: "m1".into(),
        })
        .unwrap();
    session
        .append(compaction("first summary", &kept, 10))
        .unwrap();
    session.append_message(user("after 1")).unwrap();
    session
        .append(compaction("second summary", &kept, 20))
        .unwrap();
    session
        .append(EntryKind::CustomMessage {
            custom_type: "plan-mode".into(),
            content: "plan only".into(),
            display: true,
            details: None,
        })
        .unwrap();
    session
        .append(EntryKind::BranchSummary {
            from_id: kept.clone(),
            summary: "tried X".into(),
            details: None,
        })
        .unwrap();
    session
        .append(EntryKind::Label {
            target_id: kept.clone(),
            label: Some("checkpoint".into()),
        })
        .unwrap();
    session.append_message(user("latest")).unwrap();

    let projected = session.project();
    // The latest compaction wins; the earlier one is not a message.
    assert!(
        matches!(&*projected[0], Message::CompactionSummary(c) if c.summary == "second summary" && c.tokens_before == 20)
    );
    assert_eq!(
        texts(&projected[1..]),
        ["kept", "after 1", "plan only", "tried X", "latest"]
    );
    assert!(
        matches!(&*projected[3], Message::Custom(c) if c.custom_type == "plan-mode" && c.display)
    );
    assert!(matches!(&*projected[4], Message::BranchSummary(b) if b.from_id == kept));
    assert_eq!(session.model(), Some(("anthropic", "m1")));
    assert_eq!(session.label(&kept), Some("checkpoint"));
}

#[test]
fn compaction_keeping_nothing_before_it() {
    let mut session = Session::in_memory(Path::new("/w"));
    session.append_message(user("old")).unwrap();
    let compaction = session
        .append(compaction("s", "missing0", 1))
        .unwrap()
        .id
        .clone();
    session.append_message(user("new")).unwrap();
    let projected = session.project();
    assert_eq!(texts(&projected), ["s", "new"]);
    assert!(session.entry(&compaction).is_some());
}

fn write_lines(dir: &Path, lines: &[String], trailing_newline: bool) -> PathBuf {
    let path = dir.join("f.jsonl");
    let mut text = lines.join("\n");
    if trailing_newline {
        text.push('\n');
    }
    fs::write(&path, text).unwrap();
    path
}

fn header_line() -> String {
    r#"{"type":"session","version":1,"id":"sess-1","timestamp":"2024-12-01T00:00:00.000Z","cwd":"/w"}"#
        .to_owned()
}

fn message_line(id: &str, parent: Option<&str>, text: &str) -> String {
    let entry = Entry {
        id: id.into(),
        parent_id: parent.map(str::to_owned),
        timestamp: "2024-12-01T00:00:00.000Z".into(),
        kind: EntryKind::Message(Arc::new(user(text))),
        verbatim: None,
    };
    entry.to_line()
}

#[test]
fn torn_last_line_is_skipped_and_the_next_append_starts_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let full = message_line("00000002", Some("00000001"), "two");
    let lines = vec![
        header_line(),
        message_line("00000001", None, "one"),
        full[..full.len() / 2].to_owned(),
    ];
    let path = write_lines(dir.path(), &lines, false);
    let (mut session, warnings) = Session::open(&path, SessionOptions::default()).unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].line, 3);
    assert!(
        warnings[0].message.contains("incomplete last line"),
        "{}",
        warnings[0]
    );
    assert_eq!(texts(&session.project()), ["one"]);

    session.append_message(user("three")).unwrap();
    drop(session);
    let (session, warnings) = Session::open(&path, SessionOptions::default()).unwrap();
    assert_eq!(texts(&session.project()), ["one", "three"]);
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].message.contains("malformed entry"),
        "{}",
        warnings[0]
    );
}

#[test]
fn malformed_middle_lines_are_skipped_without_losing_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let lines = vec![
        header_line(),
        message_line("00000001", None, "one"),
        "{not json".to_owned(),
        r#"{"type":"message","id":"0000000f"}"#.to_owned(),
        String::new(),
        message_line("00000002", Some("00000001"), "two"),
        // Its parent's line is lost: attached to the previous entry instead.
        message_line("00000004", Some("00000003"), "four"),
        message_line("00000002", Some("00000001"), "duplicate"),
    ];
    let path = write_lines(dir.path(), &lines, true);
    let (session, warnings) = Session::open(&path, SessionOptions::default()).unwrap();
    let lines_warned: Vec<usize> = warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines_warned, [3, 4, 7, 8], "{warnings:?}");
    assert!(warnings[2].message.contains("missing"));
    assert!(warnings[3].message.contains("duplicate"));
    assert_eq!(texts(&session.project()), ["one", "two", "four"]);
}

#[test]
fn a_missing_or_garbled_header_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    let err = Session::open(&empty, SessionOptions::default()).unwrap_err();
    assert!(matches!(err, SessionError::BadHeader { .. }), "{err}");
    assert!(err.to_string().contains("empty"));

    let headless = write_lines(dir.path(), &[message_line("00000001", None, "x")], true);
    let err = Session::open(&headless, SessionOptions::default()).unwrap_err();
    assert!(err.to_string().contains("not a session header"), "{err}");

    let missing = Session::open(&dir.path().join("nope.jsonl"), SessionOptions::default());
    assert!(matches!(missing, Err(SessionError::Read { .. })));
}

#[test]
fn unknown_entries_survive_a_fork() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = r#"{"type":"future_thing","id":"00000002","parentId":"00000001","timestamp":"t","payload":{"z":1,"a":[true, null]}}"#;
    let lines = vec![
        header_line(),
        message_line("00000001", None, "one"),
        unknown.to_owned(),
        message_line("00000003", Some("00000002"), "three"),
        message_line("00000004", Some("00000003"), "four"),
    ];
    let path = write_lines(dir.path(), &lines, true);
    let (session, warnings) = Session::open(&path, SessionOptions::default()).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(texts(&session.project()), ["one", "three", "four"]);

    let fork_path = dir.path().join("fork.jsonl");
    let fork = session.fork(Some(fork_path.clone()), "00000003").unwrap();
    assert_eq!(
        fork.header().parent_session.as_deref(),
        Some(path.display().to_string().as_str())
    );
    assert_eq!(fork.leaf_id(), Some("00000003"));
    assert_ne!(fork.id(), session.id());
    let text = fs::read_to_string(&fork_path).unwrap();
    let fork_lines: Vec<&str> = text.lines().collect();
    assert_eq!(fork_lines.len(), 4);
    assert_eq!(fork_lines[1..], lines[1..4]);
    let (reloaded, warnings) = Session::open(&fork_path, SessionOptions::default()).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(texts(&reloaded.project()), ["one", "three"]);
}

#[test]
fn in_memory_sessions_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::in_memory(dir.path());
    assert!(!session.is_persistent());
    assert_eq!(session.path(), None);
    let a = session.append_message(user("a")).unwrap().id.clone();
    session
        .append(EntryKind::SessionInfo {
            name: Some("n".into()),
        })
        .unwrap();
    assert_eq!(session.name(), Some("n"));
    let fork = session.fork(None, &a).unwrap();
    assert_eq!(texts(&fork.project()), ["a"]);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn fsync_mode_appends() {
    let dir = tempfile::tempdir().unwrap();
    let options = SessionOptions { fsync: true };
    let mut session =
        Session::create(dir.path().join("s.jsonl"), Path::new("/w"), None, options).unwrap();
    session.append_message(user("a")).unwrap();
    let (reloaded, _) = Session::open(session.path().unwrap(), options).unwrap();
    assert_eq!(texts(&reloaded.project()), ["a"]);
}

#[test]
fn store_lists_resolves_and_forks() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(home.path());
    let cwd = Path::new("/home/me/project");
    let other = Path::new("/elsewhere");

    let mut first = store.create(cwd).unwrap();
    let tool_use = Message::Assistant(crate::message::AssistantMessage {
        content: vec![AssistantContent::Text(TextContent { text: "hi".into() })],
        provider: "p".into(),
        model: "m".into(),
        usage: Default::default(),
        stop_reason: StopReason::Stop,
        error_message: None,
        timestamp: 2,
    });
    first.append_message(user("fix the bug")).unwrap();
    first.append_message(tool_use).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut second = store.create(cwd).unwrap();
    second.append_message(user("second task")).unwrap();
    let elsewhere = store.create(other).unwrap();

    let path = first.path().unwrap();
    assert!(path.starts_with(store.dir_for(cwd)));
    assert!(store
        .dir_for(cwd)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("--home-me-project--"));
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.ends_with(&format!("_{}.jsonl", first.id())), "{name}");

    let listed = store.list(cwd).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].id, second.id());
    assert_eq!(listed[0].first_message.as_deref(), Some("second task"));
    assert_eq!(listed[1].first_message.as_deref(), Some("fix the bug"));
    assert!(listed[1].size > 0);
    assert_eq!(store.most_recent(cwd).unwrap().unwrap().id, second.id());
    assert_eq!(store.most_recent(Path::new("/none")).unwrap(), None);
    assert_eq!(store.list_all().unwrap().len(), 3);

    assert_eq!(store.resolve(cwd, first.id()).unwrap(), path);
    assert_eq!(
        store.resolve(cwd, elsewhere.id()).unwrap(),
        elsewhere.path().unwrap()
    );
    assert_eq!(
        store.resolve(cwd, &path.display().to_string()).unwrap(),
        path
    );
    // Ids are time-ordered UUIDs: sessions created together share a prefix.
    assert!(matches!(
        store.resolve(cwd, "0"),
        Err(SessionError::Ambiguous { .. })
    ));
    assert!(matches!(
        store.resolve(cwd, "zzz"),
        Err(SessionError::NotFound(_))
    ));

    let fork_at = first.entries()[0].id.clone();
    let fork = store.fork(&first, &fork_at).unwrap();
    assert_eq!(
        fork.header().parent_session.as_deref(),
        Some(path.to_string_lossy().as_ref())
    );
    assert!(fork.path().unwrap().starts_with(store.dir_for(cwd)));
    assert_eq!(store.list(cwd).unwrap().len(), 3);

    // Rename and delete, as `/resume` does for sessions other than the open one.
    assert_eq!(store.name_of(path), None);
    store.rename(path, "bug hunt").unwrap();
    store.rename(path, "the bug hunt").unwrap();
    assert_eq!(store.name_of(path).as_deref(), Some("the bug hunt"));
    let (reopened, warnings) = store.open(path).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(reopened.name(), Some("the bug hunt"));
    assert_eq!(reopened.branch().len(), 4, "the names sit at the leaf");
    store.delete(elsewhere.path().unwrap()).unwrap();
    assert_eq!(store.list_all().unwrap().len(), 3);
    let not_a_session = home.path().join("notes.jsonl");
    std::fs::write(&not_a_session, "hello\n").unwrap();
    assert!(store.delete(&not_a_session).is_err());
    assert!(not_a_session.exists(), "only session files are deleted");
}

#[test]
fn labels_must_target_an_existing_entry() {
    let mut session = Session::in_memory(Path::new("/w"));
    let a = session.append_message(user("a")).unwrap().id.clone();
    let err = session
        .append(EntryKind::Label {
            target_id: "00000000".into(),
            label: Some("x".into()),
        })
        .unwrap_err();
    assert!(matches!(err, SessionError::UnknownEntry(_)));
    session
        .append(EntryKind::Label {
            target_id: a.clone(),
            label: Some("x".into()),
        })
        .unwrap();
    session
        .append(EntryKind::Label {
            target_id: a.clone(),
            label: None,
        })
        .unwrap();
    assert_eq!(session.label(&a), None);
}

#[test]
fn pi_custom_messages_with_blocks_load() {
    let line = r#"{"type":"custom_message","id":"00000001","parentId":null,"timestamp":"2024-12-01T00:00:00.000Z","customType":"ext","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"display":false}"#;
    let file = format!("{}\n{line}\n", header_line());
    let (session, warnings) = Session::from_bytes(file.as_bytes()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(texts(&session.project()), ["a\nb"]);
    assert_eq!(session.project()[0].timestamp(), 1733011200000);
}

#[test]
fn latest_custom_follows_every_leaf_move() {
    // Random appends and leaf moves, each checked against a search of the whole branch; then
    // the same after a reopen, which rebuilds the index from the file.
    let dir = tempfile::tempdir().unwrap();
    let mut session = new_session(dir.path());
    let brute = |session: &Session, custom_type: &str| -> Option<String> {
        session
            .branch()
            .into_iter()
            .rev()
            .find(
                |e| matches!(&e.kind, EntryKind::Custom { custom_type: t, .. } if t == custom_type),
            )
            .map(|e| e.id.clone())
    };
    let check = |session: &Session| {
        for t in ["a", "b", "never"] {
            assert_eq!(
                session.latest_custom(None, t).map(|e| e.id.clone()),
                brute(session, t),
                "type {t}"
            );
        }
    };
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for step in 0..400 {
        match next(6) {
            0 | 1 => {
                let custom_type = if next(2) == 0 { "a" } else { "b" };
                session
                    .append(EntryKind::Custom {
                        custom_type: custom_type.into(),
                        data: json!({ "step": step }),
                        owner: None,
                    })
                    .unwrap();
            }
            2 | 3 => {
                session.append_message(user("m")).unwrap();
            }
            4 => {
                let ids: Vec<String> = session.entries().iter().map(|e| e.id.clone()).collect();
                let target = (!ids.is_empty()).then(|| ids[next(ids.len())].clone());
                session.set_leaf(target.as_deref()).unwrap();
            }
            _ => session.set_leaf(None).unwrap(),
        }
        check(&session);
    }
    let last = session.append_message(user("end")).unwrap().id.clone();
    check(&session);
    let path = session.path().unwrap().to_owned();
    let (reopened, _) = Session::open(&path, SessionOptions::default()).unwrap();
    assert_eq!(reopened.leaf_id(), Some(last.as_str()));
    check(&reopened);
}

#[test]
fn plugin_state_belongs_to_the_plugin_that_wrote_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = new_session(dir.path());
    session
        .append_plugin_state("permission-gate", "permission-gate", json!({"mode": "ask"}))
        .unwrap();
    // Another plugin writes the same custom type: it is its own state, not permission-gate's.
    session
        .append_plugin_state("intruder", "permission-gate", json!({"mode": "yolo"}))
        .unwrap();
    assert_eq!(
        session.plugin_state("permission-gate", "permission-gate"),
        Some(&json!({"mode": "ask"}))
    );
    assert_eq!(
        session.plugin_state("intruder", "permission-gate"),
        Some(&json!({"mode": "yolo"}))
    );
    // An entry from before owners were recorded belongs to no plugin.
    session
        .append(EntryKind::Custom {
            custom_type: "plan-mode".into(),
            data: json!({"enabled": false}),
            owner: None,
        })
        .unwrap();
    assert_eq!(session.plugin_state("plan-mode", "plan-mode"), None);

    // `branch` shows a plugin only its own state.
    let seen = session.branch_json_for("intruder");
    let customs: Vec<&Value> = seen
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "custom")
        .collect();
    assert_eq!(customs.len(), 1);
    assert_eq!(customs[0]["owner"], json!("intruder"));

    // The owner survives a reopen.
    let path = session.path().unwrap().to_owned();
    drop(session);
    let (reopened, _) = Session::open(&path, SessionOptions::default()).unwrap();
    assert_eq!(
        reopened.plugin_state("permission-gate", "permission-gate"),
        Some(&json!({"mode": "ask"}))
    );
    assert_eq!(reopened.plugin_state("intruder", "plan-mode"), None);
}

/// `entries_json_for` (a plugin's `control.session-entries`) holds every branch, in file order,
/// each entry with its parent, and leaves out other plugins' state as the branch read does,
/// without breaking the tree.
#[test]
fn every_branch_of_a_session_reads_as_one_plugin_may_see_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = new_session(dir.path());
    let a = session.append_message(user("a")).unwrap().id.clone();
    session
        .append_plugin_state("other", "secret", json!({"token": "x"}))
        .unwrap();
    let b = session.append_message(user("b")).unwrap().id.clone();
    session.set_leaf(Some(&a)).unwrap();
    let c = session.append_message(user("c")).unwrap().id.clone();
    session
        .append_plugin_state("mine", "state", json!({"n": 1}))
        .unwrap();

    let seen = session.entries_json_for("mine");
    let seen = seen.as_array().unwrap();
    let ids: Vec<&str> = seen.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 4, "{seen:?}");
    assert_eq!(&ids[..2], [a.as_str(), b.as_str()]);
    assert_eq!(ids[2], c);
    // `b` hangs under the hidden entry in the file; the plugin sees it under `a`.
    assert_ne!(
        session.entry(&b).unwrap().parent_id.as_deref(),
        Some(a.as_str())
    );
    assert_eq!(seen[1]["parentId"], json!(a));
    assert_eq!(seen[2]["parentId"], json!(a));
    assert!(seen.iter().all(|e| e["owner"] != "other"), "{seen:?}");
    assert_eq!(seen[3]["owner"], "mine");
    // The active branch is one of them.
    assert_eq!(session.branch_json_for("mine").as_array().unwrap().len(), 3);
}

#[test]
fn a_file_outside_tacks_folders_speaks_for_no_plugin() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(home.path());
    let mut session = store.create(Path::new("/work")).unwrap();
    session
        .append_plugin_state(
            "permission-gate",
            "permission-gate",
            json!({"mode": "yolo"}),
        )
        .unwrap();
    let own = session.path().unwrap().to_owned();
    drop(session);

    let (reopened, warnings) = store.open(&own).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        reopened.plugin_state("permission-gate", "permission-gate"),
        Some(&json!({"mode": "yolo"}))
    );
    drop(reopened);

    // The same file handed over from elsewhere: the state is nobody's, and a fork of it too.
    let elsewhere = tempfile::tempdir().unwrap();
    let handed = elsewhere.path().join("handed.jsonl");
    fs::copy(&own, &handed).unwrap();
    let (foreign, warnings) = store.open(&handed).unwrap();
    assert_eq!(
        foreign.plugin_state("permission-gate", "permission-gate"),
        None
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].report().starts_with(
            "1 plugin state entry is ignored: the file is outside tack's session folders"
        ),
        "{}",
        warnings[0].report()
    );
    let leaf = foreign.leaf_id().unwrap().to_owned();
    let fork = store.fork(&foreign, &leaf).unwrap();
    let fork_path = fork.path().unwrap().to_owned();
    drop(fork);
    let (fork, _) = store.open(&fork_path).unwrap();
    assert_eq!(
        fork.plugin_state("permission-gate", "permission-gate"),
        None
    );
    assert!(!fs::read_to_string(&fork_path)
        .unwrap()
        .contains("\"owner\""));
}

fn calling(id: &str, stop_reason: StopReason) -> Message {
    Message::Assistant(crate::message::AssistantMessage {
        content: vec![AssistantContent::ToolCall(crate::message::ToolCall {
            id: id.into(),
            name: "bash".into(),
            arguments: json!({"command": "ls"}),
        })],
        provider: "p".into(),
        model: "m".into(),
        usage: Default::default(),
        stop_reason,
        error_message: None,
        timestamp: 2,
    })
}

fn answering(id: &str) -> Message {
    Message::ToolResult(crate::message::ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "bash".into(),
        content: vec![Content::text("out")],
        details: None,
        is_error: false,
        timestamp: 3,
        rewrite: None,
    })
}

/// The projection and view the session keeps are what projecting the branch afresh gives.
fn assert_kept_projection_is_fresh(session: &Session) {
    let fresh = project::project(&session.branch());
    let values = |messages: &[Arc<Message>]| -> Vec<Message> {
        messages.iter().map(|m| (**m).clone()).collect()
    };
    assert_eq!(values(session.projection()), values(&fresh));
    assert_eq!(
        values(session.llm_view()),
        values(&crate::message::llm_view(&fresh))
    );
}

#[test]
fn the_kept_projection_follows_appends_compactions_and_leaf_moves() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = new_session(dir.path());
    let check = assert_kept_projection_is_fresh;
    check(&session);
    let first = session.append_message(user("one")).unwrap().id.clone();
    check(&session);
    session
        .append_message(calling("c1", StopReason::ToolUse))
        .unwrap();
    session.append_message(answering("c1")).unwrap();
    check(&session);
    // A failed call and its result stay out of the view, and so does only that result.
    session
        .append_message(calling("c2", StopReason::Error))
        .unwrap();
    session.append_message(answering("c2")).unwrap();
    session.append_message(answering("c1")).unwrap();
    check(&session);
    assert_eq!(session.llm_view().len(), session.projection().len() - 2);
    let kept = session
        .append(EntryKind::CustomMessage {
            custom_type: "plan-mode".into(),
            content: "plan only".into(),
            display: true,
            details: None,
        })
        .unwrap()
        .id
        .clone();
    session
        .append(EntryKind::Custom {
            custom_type: "todo".into(),
            data: json!({}),
            owner: Some("todo".into()),
        })
        .unwrap();
    check(&session);
    let before_compaction = session.leaf_id().map(str::to_owned);
    session.append(compaction("summary", &kept, 10)).unwrap();
    check(&session);
    assert!(matches!(
        &*session.projection()[0],
        Message::CompactionSummary(_)
    ));
    session.append_message(user("after")).unwrap();
    check(&session);
    // Back before the compaction, then a new branch from there.
    session.set_leaf(before_compaction.as_deref()).unwrap();
    check(&session);
    session.append_message(user("other way")).unwrap();
    check(&session);
    session.set_leaf(Some(&first)).unwrap();
    check(&session);
    session
        .append(EntryKind::BranchSummary {
            from_id: kept.clone(),
            summary: "tried X".into(),
            details: None,
        })
        .unwrap();
    check(&session);
    session.set_leaf(None).unwrap();
    check(&session);
    assert!(session.projection().is_empty());
    session.append_message(user("a new root")).unwrap();
    check(&session);

    let path = session.path().unwrap().to_owned();
    let (reopened, _) = Session::open(&path, SessionOptions::default()).unwrap();
    check(&reopened);
    assert_eq!(reopened.projection().len(), 1);
    let fork = reopened.fork(None, &kept).unwrap();
    check(&fork);
    assert_eq!(fork.projection().len(), 7);
}
