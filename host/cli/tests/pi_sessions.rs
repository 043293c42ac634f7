//! Session files shared with Pi: a session tack wrote is opened and continued by Pi's own
//! `pi --session <file> -p` (the coding agent pinned in `tests/pi-peer`, installed by
//! `scripts/install-pi`), and a session Pi wrote is opened in place and continued by tack. Both
//! talk to one local mock Chat Completions server, which records what each sends.
//!
//! Skipped with a message when node or the Pi package is missing, unless `TACK_REQUIRE_PI=1`.
//! The small `Env` here is this file's own (no shared test-support crate yet).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// The Pi binary, or `None` (after saying what is missing) when the test cannot run.
fn pi_binary() -> Option<PathBuf> {
    let pi = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-peer/node_modules/.bin/pi");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let missing = if !node {
        "node is not installed"
    } else if !pi.exists() {
        "Pi's package is not installed in host/cli/tests/pi-peer (run scripts/install-pi)"
    } else {
        return Some(pi);
    };
    assert!(
        std::env::var("TACK_REQUIRE_PI").as_deref() != Ok("1"),
        "TACK_REQUIRE_PI=1 but {missing}"
    );
    eprintln!("skipped: {missing}");
    None
}

/// A loopback Chat Completions server: each request gets the next queued SSE reply; every
/// request body is recorded.
struct MockServer {
    url: String,
    replies: Arc<Mutex<VecDeque<String>>>,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl MockServer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let replies: Arc<Mutex<VecDeque<String>>> = Arc::default();
        let requests: Arc<Mutex<Vec<Value>>> = Arc::default();
        let (queue, seen) = (replies.clone(), requests.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { break };
                let mut reader = BufReader::new(conn.try_clone().expect("clone"));
                let mut length = 0usize;
                let mut chunked = false;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                        chunked = true;
                    }
                }
                let body = if chunked {
                    read_chunked(&mut reader)
                } else {
                    let mut body = vec![0u8; length];
                    let _ = reader.read_exact(&mut body);
                    body
                };
                seen.lock()
                    .expect("lock")
                    .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
                let reply = queue.lock().expect("lock").pop_front().unwrap_or_default();
                let _ = write!(
                    conn,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
                let _ = conn.flush();
            }
        });
        MockServer {
            url,
            replies,
            requests,
        }
    }

    fn queue(&self, reply: String) {
        self.replies.lock().expect("lock").push_back(reply);
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().expect("lock").clone()
    }
}

fn read_chunked(reader: &mut impl BufRead) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        if reader.read_line(&mut size).unwrap_or(0) == 0 {
            break;
        }
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let mut chunk = vec![0u8; size + 2];
        if size == 0 || reader.read_exact(&mut chunk).is_err() {
            break;
        }
        body.extend_from_slice(&chunk[..size]);
    }
    body
}

fn sse(chunks: &[Value]) -> String {
    let mut out = String::new();
    for chunk in chunks {
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": "mock-model",
        "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }]
    })
}

fn usage() -> Value {
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": "mock-model",
        "choices": [], "usage": { "prompt_tokens": 40, "completion_tokens": 8, "total_tokens": 48 }
    })
}

fn text_reply(text: &str) -> String {
    sse(&[
        chunk(json!({ "role": "assistant", "content": text }), None),
        chunk(json!({}), Some("stop")),
        usage(),
    ])
}

/// A tool call to `read`, after some reasoning (in the `reasoning_content` field servers such as
/// DeepSeek and vLLM use).
fn read_call_reply(id: &str, path: &str) -> String {
    let call = json!({
        "index": 0, "id": id, "type": "function",
        "function": { "name": "read", "arguments": json!({ "path": path }).to_string() }
    });
    sse(&[
        chunk(
            json!({ "role": "assistant", "reasoning_content": "The file will say." }),
            None,
        ),
        chunk(json!({ "tool_calls": [call] }), None),
        chunk(json!({}), Some("tool_calls")),
        usage(),
    ])
}

struct Env {
    root: tempfile::TempDir,
    server: MockServer,
    pi: PathBuf,
}

impl Env {
    fn new(pi: PathBuf) -> Self {
        let env = Env {
            root: tempfile::tempdir().expect("root"),
            server: MockServer::start(),
            pi,
        };
        for dir in ["tack-home", "workspace", "pi-agent"] {
            std::fs::create_dir_all(env.root.path().join(dir)).expect("dir");
        }
        std::fs::write(
            env.workspace().join("notes.txt"),
            "The secret word is marmalade.\n",
        )
        .expect("notes");
        let models = json!({
            "providers": { "mock": {
                "baseUrl": env.server.url, "api": "openai-completions", "apiKey": "mock-key",
                "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
                "models": [{ "id": "mock-model", "contextWindow": 128000, "maxTokens": 4096 }]
            } }
        });
        std::fs::write(
            env.root.path().join("pi-agent/models.json"),
            models.to_string(),
        )
        .expect("models.json");
        env
    }

    fn workspace(&self) -> PathBuf {
        self.root.path().join("workspace")
    }

    fn tack(&self, args: &[&str]) -> Output {
        let out = Command::new(env!("CARGO_BIN_EXE_tack"))
            .current_dir(self.workspace())
            .env("TACK_HOME", self.root.path().join("tack-home"))
            .env("HOME", self.root.path())
            .env("PI_CODING_AGENT_DIR", self.root.path().join("pi-agent"))
            .env(
                "TACK_CACHE_DIR",
                concat!(env!("CARGO_TARGET_TMPDIR"), "/tack-component-cache"),
            )
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .args([
                "--provider",
                "openai",
                "--model",
                "gpt-4.1",
                "--base-url",
                &self.server.url,
                "--api-key",
                "mock-key",
                "--permissions",
                "yolo",
            ])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("tack runs");
        assert_ok("tack", args, &out);
        out
    }

    /// tack with only `args`: no provider flags (for commands that run no model).
    fn tack_plain(&self, args: &[&str]) -> Output {
        let out = Command::new(env!("CARGO_BIN_EXE_tack"))
            .current_dir(self.workspace())
            .env("TACK_HOME", self.root.path().join("tack-home"))
            .env("HOME", self.root.path())
            .env("PI_CODING_AGENT_DIR", self.root.path().join("pi-agent"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("tack runs");
        assert_ok("tack", args, &out);
        out
    }

    fn pi(&self, args: &[&str]) -> Output {
        let out = Command::new(&self.pi)
            .current_dir(self.workspace())
            .env("HOME", self.root.path())
            .env("PI_CODING_AGENT_DIR", self.root.path().join("pi-agent"))
            .env("PI_OFFLINE", "1")
            .env("PI_SKIP_VERSION_CHECK", "1")
            .env("PI_TELEMETRY", "0")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .args(["--provider", "mock", "--model", "mock-model"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("pi runs");
        assert_ok("pi", args, &out);
        out
    }

    fn tack_sessions(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut stack = vec![self.root.path().join("tack-home/sessions")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }
}

fn assert_ok(program: &str, args: &[&str], out: &Output) {
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("session file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

/// The messages of a Chat Completions request, as one text to search.
fn conversation(request: &Value) -> String {
    request["messages"].to_string()
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
    let Some(pi) = pi_binary() else { return };
    let env = Env::new(pi);

    // tack: a turn with a tool call.
    env.server
        .queue(read_call_reply("call_tack_1", "notes.txt"));
    env.server
        .queue(text_reply("The word in notes.txt is marmalade."));
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
    env.server.queue(text_reply("Pi here: we read notes.txt."));
    let file_arg = file.to_str().expect("utf8");
    let out = env.pi(&["--session", file_arg, "-p", "Summarize what we did so far."]);
    assert!(stdout(&out).contains("Pi here"), "{}", stdout(&out));
    let requests = env.server.requests();
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
    env.server.queue(text_reply("tack again, after Pi."));
    let out = env.tack(&["--session", file_arg, "-p", "And what did Pi say?"]);
    assert!(stdout(&out).contains("tack again"), "{}", stdout(&out));
    let requests = env.server.requests();
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
    env.server.queue(text_reply("Pi once more."));
    let out = env.pi(&["--session", file_arg, "-p", "One more time."]);
    assert!(stdout(&out).contains("Pi once more"), "{}", stdout(&out));
    assert!(conversation(&env.server.requests()[4]).contains("tack again, after Pi."));
}

#[test]
fn a_session_pi_wrote_is_continued_in_place_by_tack_and_cloned_without_loss() {
    let Some(pi) = pi_binary() else { return };
    let env = Env::new(pi);
    let file = env.root.path().join("pi-session.jsonl");
    let file_arg = file.to_str().expect("utf8");

    // Pi writes a session with a tool call.
    env.server.queue(read_call_reply("call_pi_1", "notes.txt"));
    env.server.queue(text_reply("Pi read it: marmalade."));
    let out = env.pi(&["--session", file_arg, "-p", "Read notes.txt for me."]);
    assert!(stdout(&out).contains("marmalade"), "{}", stdout(&out));
    let written_by_pi = std::fs::read(&file).expect("Pi wrote the session");
    let pi_entries = lines(&file);
    assert_eq!(pi_entries[0]["version"], 3);

    // tack continues it in place, with Pi's history in the request.
    env.server.queue(text_reply("tack continues Pi's session."));
    let out = env.tack(&["--session", file_arg, "-p", "What did you find?"]);
    assert!(stdout(&out).contains("tack continues"), "{}", stdout(&out));
    let tack_saw = conversation(&env.server.requests()[2]);
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
    env.server.queue(text_reply("Pi sees tack's turn."));
    env.pi(&["--session", file_arg, "-p", "Anything else?"]);
    assert!(conversation(&env.server.requests()[3]).contains("tack continues Pi's session."));

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
    assert_eq!(cloned[1..], original[1..], "entries differ after a clone");
    assert_eq!(
        cloned[0]["parentSession"],
        json!(file.display().to_string())
    );
}

#[test]
fn pis_newest_session_of_the_directory_is_listed_and_continued_by_tack_c() {
    let Some(pi) = pi_binary() else { return };
    let env = Env::new(pi);

    // Pi keeps this session in its own agent folder, as it does by default.
    env.server
        .queue(text_reply("Pi answered in its own folder."));
    env.pi(&["-p", "A question asked in Pi."]);
    let pi_files: Vec<PathBuf> = std::fs::read_dir(env.root.path().join("pi-agent/sessions"))
        .expect("Pi's sessions")
        .flatten()
        .flat_map(|dir| std::fs::read_dir(dir.path()).expect("dir").flatten())
        .map(|e| e.path())
        .collect();
    assert_eq!(pi_files.len(), 1, "{pi_files:?}");
    let before = std::fs::read(&pi_files[0]).expect("Pi's file");

    let listing = stdout(&env.tack_plain(&["sessions"]));
    assert!(listing.contains("A question asked in Pi."), "{listing}");

    env.server.queue(text_reply("tack continued with -c."));
    let out = env.tack(&["-c", "-p", "Go on."]);
    assert!(stdout(&out).contains("tack continued"), "{}", stdout(&out));
    let saw = conversation(&env.server.requests()[1]);
    assert!(saw.contains("A question asked in Pi."), "{saw}");
    assert!(saw.contains("Pi answered in its own folder."), "{saw}");
    assert!(
        env.tack_sessions().is_empty(),
        "continued in place, not copied"
    );
    let after = std::fs::read(&pi_files[0]).expect("Pi's file");
    assert!(after.starts_with(&before) && after.len() > before.len());
}
