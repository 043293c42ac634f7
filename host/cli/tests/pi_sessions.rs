//! Session files shared with Pi: a session tack wrote is opened and continued by Pi's own
//! `pi --session <file> -p` (the coding agent pinned in `tests/pi-peer`, installed by
//! `scripts/install-pi`), and a session Pi wrote is opened in place and continued by tack. Both
//! talk to one local mock Chat Completions server, which records what each sends.
//!
//! Skipped with a message when node or the Pi package is missing, unless `TACK_REQUIRE_PI=1`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use tack_test_support::http::MockServer;
use tack_test_support::openai::{conversation, text_reply, thinking_tool_reply};
use tack_test_support::{pi, pi_peer, stderr, stdout, tack, Env, PiPeer};

/// A call to `read`, after some reasoning.
fn read_call_reply(id: &str, path: &str) -> tack_test_support::http::Reply {
    thinking_tool_reply("The file will say.", id, "read", json!({ "path": path }))
}

/// tack's home and the project beside Pi's agent folder, all under one temp folder that is
/// also the user's home, and the mock server both talk to.
struct PiEnv {
    env: Env,
    server: MockServer,
    pi: PiPeer,
}

impl PiEnv {
    fn new(pi: PiPeer) -> Self {
        let env = Env::with_layout(tack!(), "tack-home", "workspace");
        let root = env.root().to_owned();
        let env = env
            .with_var("HOME", &root)
            .with_var("PI_CODING_AGENT_DIR", root.join("pi-agent"));
        let server = MockServer::queued();
        env.write("notes.txt", "The secret word is marmalade.\n");
        let agent = root.join("pi-agent");
        std::fs::create_dir_all(&agent).expect("pi-agent");
        let models = pi::models_json(&format!("{}/v1", server.url()));
        std::fs::write(agent.join("models.json"), models.to_string()).expect("models.json");
        PiEnv { env, server, pi }
    }

    fn root(&self) -> &Path {
        self.env.root()
    }

    fn tack(&self, args: &[&str]) -> Output {
        let base_url = format!("{}/v1", self.server.url());
        let mut all = vec![
            "--provider",
            "openai",
            "--model",
            "gpt-4.1",
            "--base-url",
            &base_url,
            "--api-key",
            "mock-key",
            "--permissions",
            "yolo",
        ];
        all.extend_from_slice(args);
        let out = self.env.run(&all);
        assert_ok("tack", args, &out);
        out
    }

    /// tack with only `args`: no provider flags (for commands that run no model).
    fn tack_plain(&self, args: &[&str]) -> Output {
        let out = self.env.run(args);
        assert_ok("tack", args, &out);
        out
    }

    fn pi(&self, args: &[&str]) -> Output {
        let out = self
            .pi
            .pi(
                self.env.workspace(),
                self.root(),
                &self.root().join("pi-agent"),
            )
            .args(["--provider", "mock", "--model", "mock-model"])
            .args(args)
            .output()
            .expect("pi runs");
        assert_ok("pi", args, &out);
        out
    }

    fn tack_sessions(&self) -> Vec<PathBuf> {
        self.env.session_files()
    }
}

fn assert_ok(program: &str, args: &[&str], out: &Output) {
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\nstdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("session file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

/// Every entry's `parentId` names an earlier entry (or is null for the first): one tree.
fn assert_one_tree(entries: &[Value]) {
    let mut seen = std::collections::HashSet::new();
    for (i, entry) in entries.iter().enumerate() {
        let id = entry["id"].as_str().expect("id");
        match entry["parentId"].as_str() {
            None => assert_eq!(i, 0, "only the first entry is a root: {entry}"),
            Some(parent) => assert!(seen.contains(parent), "dangling parent: {entry}"),
        }
        assert!(seen.insert(id.to_owned()), "duplicate id {id}");
    }
}

fn roles(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| e["message"]["role"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_session_tack_wrote_is_continued_by_pi_and_then_by_tack_again() {
    let Some(pi) = pi_peer() else { return };
    let env = PiEnv::new(pi);

    // tack: a turn with a tool call.
    env.server.push(read_call_reply("call_tack_1", "notes.txt"));
    env.server
        .push(text_reply("The word in notes.txt is marmalade."));
    let out = env.tack(&["-p", "What is the secret word in notes.txt?"]);
    assert!(stdout(&out).contains("marmalade"), "{}", stdout(&out));
    let files = env.tack_sessions();
    assert_eq!(files.len(), 1, "{files:?}");
    let file = files[0].clone();
    let written_by_tack = std::fs::read(&file).expect("session");
    let tack_entries = lines(&file);
    assert_eq!(tack_entries[0]["type"], "session");
    assert_eq!(tack_entries[0]["version"], 3);

    // Pi opens it in print mode and continues.
    env.server.push(text_reply("Pi here: we read notes.txt."));
    let file_arg = file.to_str().expect("utf8");
    let out = env.pi(&["--session", file_arg, "-p", "Summarize what we did so far."]);
    assert!(stdout(&out).contains("Pi here"), "{}", stdout(&out));
    let requests = env.server.json_bodies();
    assert_eq!(requests.len(), 3, "{requests:#?}");
    let pi_saw = conversation(&requests[2]);
    for earlier in [
        "What is the secret word in notes.txt?",
        "call_tack_1",
        "The secret word is marmalade.",
        "The word in notes.txt is marmalade.",
        "Summarize what we did so far.",
    ] {
        assert!(
            pi_saw.contains(earlier),
            "Pi's request lacks {earlier:?}: {pi_saw}"
        );
    }
    let after_pi = std::fs::read(&file).expect("session");
    assert!(
        after_pi.starts_with(&written_by_tack),
        "Pi changed what tack wrote"
    );
    let entries = lines(&file);
    assert_one_tree(&entries[1..]);
    let pi_entries = &entries[tack_entries.len()..];
    assert_eq!(roles(pi_entries), ["user", "assistant"], "{pi_entries:#?}");
    assert_eq!(
        pi_entries[0]["parentId"],
        tack_entries.last().expect("entries")["id"],
        "Pi continued from tack's leaf"
    );
    assert_eq!(
        pi_entries.last().expect("pi")["message"]["api"],
        "openai-completions"
    );

    // tack opens the same file again and continues after Pi's turn.
    env.server.push(text_reply("tack again, after Pi."));
    let out = env.tack(&["--session", file_arg, "-p", "And what did Pi say?"]);
    assert!(stdout(&out).contains("tack again"), "{}", stdout(&out));
    let requests = env.server.json_bodies();
    let tack_saw = conversation(&requests[3]);
    for earlier in [
        "What is the secret word in notes.txt?",
        "The secret word is marmalade.",
        "Summarize what we did so far.",
        "Pi here: we read notes.txt.",
        "And what did Pi say?",
    ] {
        assert!(
            tack_saw.contains(earlier),
            "tack's request lacks {earlier:?}: {tack_saw}"
        );
    }
    assert_eq!(
        env.tack_sessions(),
        vec![file.clone()],
        "no new session file"
    );
    let entries = lines(&file);
    assert_one_tree(&entries[1..]);
    assert_eq!(
        roles(&entries[1..]),
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant"
        ]
    );

    // And Pi still opens the result.
    env.server.push(text_reply("Pi once more."));
    let out = env.pi(&["--session", file_arg, "-p", "One more time."]);
    assert!(stdout(&out).contains("Pi once more"), "{}", stdout(&out));
    assert!(conversation(&env.server.json_bodies()[4]).contains("tack again, after Pi."));
}

#[test]
fn a_session_pi_wrote_is_continued_in_place_by_tack_and_cloned_without_loss() {
    let Some(pi) = pi_peer() else { return };
    let env = PiEnv::new(pi);
    let file = env.root().join("pi-session.jsonl");
    let file_arg = file.to_str().expect("utf8");

    // Pi writes a session with a tool call.
    env.server.push(read_call_reply("call_pi_1", "notes.txt"));
    env.server.push(text_reply("Pi read it: marmalade."));
    let out = env.pi(&["--session", file_arg, "-p", "Read notes.txt for me."]);
    assert!(stdout(&out).contains("marmalade"), "{}", stdout(&out));
    let written_by_pi = std::fs::read(&file).expect("Pi wrote the session");
    let pi_entries = lines(&file);
    assert_eq!(pi_entries[0]["version"], 3);

    // tack continues it in place, with Pi's history in the request.
    env.server.push(text_reply("tack continues Pi's session."));
    let out = env.tack(&["--session", file_arg, "-p", "What did you find?"]);
    assert!(stdout(&out).contains("tack continues"), "{}", stdout(&out));
    let tack_saw = conversation(&env.server.json_bodies()[2]);
    for earlier in [
        "Read notes.txt for me.",
        "call_pi_1",
        "The secret word is marmalade.",
        "Pi read it: marmalade.",
        "What did you find?",
    ] {
        assert!(
            tack_saw.contains(earlier),
            "tack's request lacks {earlier:?}: {tack_saw}"
        );
    }
    let after_tack = std::fs::read(&file).expect("session");
    assert!(
        after_tack.starts_with(&written_by_pi),
        "tack changed what Pi wrote"
    );
    assert!(env.tack_sessions().is_empty(), "no copy was imported");
    let entries = lines(&file);
    assert_one_tree(&entries[1..]);
    let tack_entries = &entries[pi_entries.len()..];
    assert_eq!(roles(tack_entries), ["user", "assistant"]);
    let answer = tack_entries
        .iter()
        .find(|e| e["message"]["role"] == "assistant")
        .expect("tack's answer");
    let usage = &answer["message"]["usage"];
    assert_eq!(usage["totalTokens"], 48, "{usage}");
    assert!(usage["cost"]["total"].is_number(), "{usage}");

    // Pi still opens the result, and sees tack's turn.
    env.server.push(text_reply("Pi sees tack's turn."));
    env.pi(&["--session", file_arg, "-p", "Anything else?"]);
    assert!(conversation(&env.server.json_bodies()[3]).contains("tack continues Pi's session."));

    // A clone through tack copies Pi's entries exactly, field for field.
    let out = env.tack(&["--session", file_arg, "-p", "/clone"]);
    let clone = stdout(&out)
        .lines()
        .nth(1)
        .map(|l| PathBuf::from(l.trim()))
        .expect("the clone's path");
    let original = lines(&file);
    let cloned = lines(&clone);
    assert_eq!(cloned.len(), original.len());
    // The file is outside tack's session folders, so the plugin state tack wrote into it is
    // nobody's once reopened (SECURITY.md, "Authority between plugins"): a clone carries it
    // without its owner. Every other field is copied exactly.
    let without_owner = |entries: &[Value]| -> Vec<Value> {
        entries
            .iter()
            .map(|e| {
                let mut e = e.clone();
                if let Some(fields) = e.as_object_mut() {
                    fields.remove("owner");
                }
                e
            })
            .collect()
    };
    assert_eq!(
        without_owner(&cloned[1..]),
        without_owner(&original[1..]),
        "entries differ after a clone"
    );
    // What earlier runs stored (all but the last entry, written by the cloning run itself).
    let stored_earlier: Vec<&Value> = cloned[1..cloned.len() - 1]
        .iter()
        .filter(|e| e["type"] == "custom")
        .collect();
    assert!(
        stored_earlier.iter().all(|e| e.get("owner").is_none()),
        "{stored_earlier:?}"
    );
    assert_eq!(
        cloned[0]["parentSession"],
        json!(file.display().to_string())
    );
}

#[test]
fn pis_newest_session_of_the_directory_is_listed_and_continued_by_tack_c() {
    let Some(pi) = pi_peer() else { return };
    let env = PiEnv::new(pi);

    // Pi keeps this session in its own agent folder, as it does by default.
    env.server
        .push(text_reply("Pi answered in its own folder."));
    env.pi(&["-p", "A question asked in Pi."]);
    let pi_files: Vec<PathBuf> = std::fs::read_dir(env.root().join("pi-agent/sessions"))
        .expect("Pi's sessions")
        .flatten()
        .flat_map(|dir| std::fs::read_dir(dir.path()).expect("dir").flatten())
        .map(|e| e.path())
        .collect();
    assert_eq!(pi_files.len(), 1, "{pi_files:?}");
    let before = std::fs::read(&pi_files[0]).expect("Pi's file");

    let listing = stdout(&env.tack_plain(&["sessions"]));
    assert!(listing.contains("A question asked in Pi."), "{listing}");

    env.server.push(text_reply("tack continued with -c."));
    let out = env.tack(&["-c", "-p", "Go on."]);
    assert!(stdout(&out).contains("tack continued"), "{}", stdout(&out));
    let saw = conversation(&env.server.json_bodies()[1]);
    assert!(saw.contains("A question asked in Pi."), "{saw}");
    assert!(saw.contains("Pi answered in its own folder."), "{saw}");
    assert!(
        env.tack_sessions().is_empty(),
        "continued in place, not copied"
    );
    let after = std::fs::read(&pi_files[0]).expect("Pi's file");
    assert!(after.starts_with(&before) && after.len() > before.len());
}
