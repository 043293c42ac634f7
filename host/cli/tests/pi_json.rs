//! `--mode json` next to Pi's: the same scripted run (a prompt; the model thinks and reads a
//! file; thinks and runs a command; thinks and answers in text) by Pi's own `pi --mode json -p`
//! and by `tack --mode json -p`, both against one loopback Chat Completions server. The two event
//! streams must have the same shape: the same sequence of events (with the `assistantMessageEvent`
//! types of `message_update` and the roles of `message_start`/`message_end`), and every field
//! name Pi writes, at every depth, also in tack's lines. Values (ids, timestamps, text, token
//! counts) may differ, and tack may add fields of its own.
//!
//! Skipped with a message when node or the Pi package is missing, unless `TACK_REQUIRE_PI=1`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Output;

use serde_json::{json, Value};
use tack_test_support::http::{MockServer, Reply};
use tack_test_support::openai::{chunk, stream, text, thinking, thinking_tool_reply, usage};
use tack_test_support::{pi, pi_peer, stderr, stdout, tack, Env};

/// Fields of Pi's that tack's lines lack, each for a reason that holds outside this test. The
/// names are `<where>.<field>` as [`Shapes`] records them.
const PI_ONLY: &[(&str, &str)] = &[
    (
        "toolCall.partialArgs",
        "Pi's parser scratch buffer, left in partial messages mid-stream; Pi strips it before \
         storing the message",
    ),
    (
        "toolCall.streamIndex",
        "Pi's parser scratch index, as partialArgs",
    ),
    (
        "event:tool_execution_update.partialResult.details",
        "Pi's bash reports progress with an empty `details` object; tack's tools set details \
         only when they have some",
    ),
    (
        "role:assistant.api",
        "tack's messages do not record which wire API their provider spoke (Pi reads tack's \
         messages without it: see pi_sessions.rs)",
    ),
    (
        "role:assistant.responseId",
        "tack's provider plugins do not pass the response id of the HTTP API on",
    ),
];

/// Events only tack writes (not in Pi's stream at all), left out of the sequence.
const TACK_ONLY_EVENTS: &[&str] = &["notice"];

/// The three replies of the scenario, in order.
fn script() -> Vec<Reply> {
    vec![
        thinking_tool_reply(
            "The notes will say.",
            "call_read",
            "read",
            json!({ "path": "notes.txt" }),
        ),
        thinking_tool_reply(
            "Check the shell too.",
            "call_bash",
            "bash",
            json!({ "command": "echo shell-ok" }),
        ),
        stream(&[
            thinking("Both agree."),
            text("The secret word "),
            text("is marmalade."),
            chunk(json!({}), Some("stop")),
            usage(),
        ]),
    ]
}

const PROMPT: &str = "What is the secret word in notes.txt?";

#[test]
fn json_mode_streams_the_events_pi_streams() {
    let Some(peer) = pi_peer() else { return };
    let env = Env::with_layout(tack!(), "tack-home", "workspace");
    let root = env.root().to_owned();
    let agent_dir = root.join("pi-agent");
    let env = env
        .with_var("HOME", &root)
        .with_var("PI_CODING_AGENT_DIR", &agent_dir);
    env.write("notes.txt", "The secret word is marmalade.\n");
    let server = MockServer::queued();
    let base_url = format!("{}/v1", server.url());
    std::fs::create_dir_all(&agent_dir).expect("pi-agent");
    std::fs::write(
        agent_dir.join("models.json"),
        pi::models_json(&base_url).to_string(),
    )
    .expect("models.json");
    std::fs::write(
        env.home().join("config.toml"),
        format!(
            "provider = \"mock\"\nmodel = \"mock-model\"\n\n[providers.mock]\napi = \"openai\"\n\
             base_url = \"{base_url}\"\nsecret = \"\"\n\
             models = [{{ id = \"mock-model\", context_window = 128000 }}]\n"
        ),
    )
    .expect("config.toml");

    for reply in script() {
        server.push(reply);
    }
    let out = peer
        .pi(env.workspace(), &root, &agent_dir)
        .args(["--provider", "mock", "--model", "mock-model"])
        .args(["--mode", "json", "-p", PROMPT])
        .output()
        .expect("pi runs");
    let pi_lines = json_lines("pi", &out);

    for reply in script() {
        server.push(reply);
    }
    let out = env.run(&["--permissions", "yolo", "--mode", "json", "-p", PROMPT]);
    let tack_lines = json_lines("tack", &out);

    // Both ran the whole scenario: three requests each, the tools' output in the later ones.
    let requests = server.json_bodies();
    assert_eq!(requests.len(), 6, "{requests:#?}");
    for (who, second, third) in [("pi", 1, 2), ("tack", 4, 5)] {
        let saw = requests[second]["messages"].to_string();
        assert!(
            saw.contains("The secret word is marmalade."),
            "{who}: {saw}"
        );
        let saw = requests[third]["messages"].to_string();
        assert!(saw.contains("shell-ok"), "{who}: {saw}");
    }

    let pi_sequence = sequence(&pi_lines, &[]);
    let tack_sequence = sequence(&tack_lines, TACK_ONLY_EVENTS);
    assert_eq!(
        tack_sequence.join("\n"),
        pi_sequence.join("\n"),
        "tack's events (left) differ from Pi's (right)"
    );
    for expected in [
        "session",
        "message_update/thinking_start",
        "message_update/thinking_end",
        "message_update/toolcall_start",
        "message_update/toolcall_end",
        "message_update/text_start",
        "message_update/text_end",
        "tool_execution_end",
    ] {
        assert!(
            pi_sequence.iter().any(|key| key == expected),
            "the scenario exercises {expected}: {pi_sequence:?}"
        );
    }

    let pi_shapes = Shapes::of(&pi_lines);
    let tack_shapes = Shapes::of(&tack_lines);
    let mut missing = Vec::new();
    for (place, fields) in &pi_shapes.0 {
        let tack_fields = tack_shapes.0.get(place).cloned().unwrap_or_default();
        for field in fields.difference(&tack_fields) {
            let name = format!("{place}.{field}");
            if !PI_ONLY.iter().any(|(allowed, _)| *allowed == name) {
                missing.push(name);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "fields Pi writes and tack does not:\n{}",
        missing.join("\n")
    );
}

fn json_lines(program: &str, out: &Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{program} failed:\nstdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
    stdout(out)
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{program} wrote a line that is not JSON ({e}): {line}"))
        })
        .collect()
}

/// What identifies an event in the sequence: its type, the `assistantMessageEvent` type of an
/// update and the role of a message's start and end.
fn key(event: &Value) -> String {
    let kind = event["type"].as_str().unwrap_or("?");
    match kind {
        "message_update" => format!(
            "{kind}/{}",
            event["assistantMessageEvent"]["type"]
                .as_str()
                .unwrap_or("?")
        ),
        "message_start" | "message_end" => {
            format!(
                "{kind}/{}",
                event["message"]["role"].as_str().unwrap_or("?")
            )
        }
        _ => kind.to_owned(),
    }
}

/// The events' keys, with a run of deltas or of progress updates as one: how a stream is cut
/// into deltas, and how often a running command reports, is the network's and the clock's.
fn sequence(events: &[Value], left_out: &[&str]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for event in events {
        if left_out.contains(&event["type"].as_str().unwrap_or_default()) {
            continue;
        }
        let key = key(event);
        let repeats = key.ends_with("_delta") || key == "tool_execution_update";
        if repeats && keys.last() == Some(&key) {
            continue;
        }
        keys.push(key);
    }
    keys
}

/// Field names by where they occur: `event:<key>` for an event's own fields (nested ones as
/// `a.b`, list items as `a[]`), `role:<role>` for every message wherever it stands, and
/// `<type>` for every other object with a `type` (content blocks, `assistantMessageEvent`);
/// where such a message or block stands is recorded as `path<tag>`. A message or
/// block is recorded on its own, not in what holds it, so that the blocks a partial message
/// happens to hold at one moment (Pi's partials are serialized after the parser has gone on)
/// do not count.
#[derive(Default)]
struct Shapes(BTreeMap<String, BTreeSet<String>>);

impl Shapes {
    fn of(events: &[Value]) -> Self {
        let mut shapes = Shapes::default();
        for event in events {
            let place = format!("event:{}", key(event));
            shapes.object(&place, "", event);
        }
        shapes
    }

    fn object(&mut self, place: &str, prefix: &str, value: &Value) {
        let Value::Object(map) = value else { return };
        for (name, field) in map {
            let path = format!("{prefix}{name}");
            self.0
                .entry(place.to_owned())
                .or_default()
                .insert(path.clone());
            self.value(place, &path, field);
        }
    }

    fn value(&mut self, place: &str, path: &str, value: &Value) {
        match value {
            Value::Object(_) => match tagged(value) {
                Some(tag) => {
                    // What is tagged where counts: a block must not lose its `type` on the way.
                    self.0
                        .entry(place.to_owned())
                        .or_default()
                        .insert(format!("{path}<{tag}>"));
                    self.object(&tag, "", value)
                }
                None => self.object(place, &format!("{path}."), value),
            },
            Value::Array(items) => {
                for item in items {
                    self.value(place, &format!("{path}[]"), item);
                }
            }
            _ => {}
        }
    }
}

/// The place of a message (`role:<role>`) or a content block (its `type`).
fn tagged(value: &Value) -> Option<String> {
    if let Some(role) = value["role"].as_str() {
        return Some(format!("role:{role}"));
    }
    value["type"].as_str().map(str::to_owned)
}
