//! `tack --mode rpc` end to end: the real binary driven through the client library, with the
//! offline demo provider or the scripted test provider, real plugins and real session files.
//! Every line either side writes is checked against `rpc-protocol.schema.json`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_protocol::client::{ClientError, Incoming, RpcClient};
use tack_protocol::{
    BashResult, Command, ForkMessage, Model, ModelChoice, QueueMode, Request, Response, RewindMode,
    RewindPoints, Rewound, SessionRef, SessionStats, State, StreamingBehavior, UiResponse,
};
use tack_test_support::{tack, Env};

const WAIT: Duration = Duration::from_secs(60);

fn new_env() -> Env {
    let env = Env::new(tack!());
    env.write("README.md", "# Demo project\nA tiny project.\n");
    env.write("src/main.rs", "fn main() {}\n");
    env
}

/// What these tests add to the shared environment.
trait RpcEnv {
    fn plugin(&self, name: &str, wasm: &str) -> String;
    fn scripted(&self, script: Value, plugins: Value) -> String;
    fn spawn(&self, args: &[&str]) -> Rpc;
}

impl RpcEnv for Env {
    /// A package folder holding a test component and its manifest.
    fn plugin(&self, name: &str, wasm: &str) -> String {
        let dir = self.package(name, wasm, "");
        dir.to_str().expect("utf8").to_string()
    }

    /// The scripted provider as the default provider, with `plugins` merged into the plugin
    /// configuration; returns its package folder for `--plugin`.
    fn scripted(&self, script: Value, plugins: Value) -> String {
        let dir = self.scripted_provider_with(json!({ "script": script }), plugins);
        dir.to_str().expect("utf8").to_string()
    }

    fn spawn(&self, args: &[&str]) -> Rpc {
        let stderr = self.home().join("stderr.log");
        let mut process = self.command();
        process
            .arg("--mode")
            .arg("rpc")
            .args(args)
            .stderr(Stdio::from(std::fs::File::create(&stderr).expect("log")));
        let mut client = RpcClient::spawn(process).expect("spawn tack --mode rpc");
        client.set_timeout(WAIT);
        Rpc {
            client,
            stderr,
            sent: Vec::new(),
            raw_lines: 0,
        }
    }
}

/// A validator for one definition of the protocol schema.
fn validator(definition: &str) -> jsonschema::Validator {
    let text = include_str!("../../protocol/rpc-protocol.schema.json");
    let mut schema: Value = serde_json::from_str(text).expect("the schema is JSON");
    let root = schema.as_object_mut().expect("object");
    root.remove("oneOf");
    root.insert("$ref".into(), json!(format!("#/$defs/{definition}")));
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn client_lines() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| validator("ClientLine"))
}

fn server_lines() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| validator("ServerLine"))
}

fn assert_valid(validator: &jsonschema::Validator, line: &Value) {
    let errors: Vec<String> = validator.iter_errors(line).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "line does not match the schema: {line}\n{}",
        errors.join("\n")
    );
}

/// A running `tack --mode rpc` and what was sent to it.
struct Rpc {
    client: RpcClient,
    stderr: PathBuf,
    /// Ids of the commands sent.
    sent: Vec<String>,
    /// Lines sent that are not commands with an id (each gets one response without one).
    raw_lines: usize,
}

impl Rpc {
    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn send(&mut self, command: Command) -> String {
        let line = serde_json::to_value(Request {
            id: Some(String::from("0")),
            command: command.clone(),
        })
        .expect("json");
        assert_valid(client_lines(), &line);
        self.send_unchecked(command)
    }

    /// Sends a command the schema rejects (the server must answer it with an error).
    fn send_unchecked(&mut self, command: Command) -> String {
        let id = self.client.send(command).expect("send");
        self.sent.push(id.clone());
        id
    }

    fn response(&mut self, id: &str) -> Response {
        match self.client.response(id, WAIT) {
            Ok(response) => response,
            Err(e) => panic!("{e}; stderr:\n{}", self.stderr()),
        }
    }

    fn request(&mut self, command: Command) -> Response {
        let id = self.send(command);
        self.response(&id)
    }

    /// The command's data, or its error.
    fn try_call(&mut self, command: Command) -> Result<Value, String> {
        let response = self.request(command);
        if response.success {
            Ok(response.data.unwrap_or(Value::Null))
        } else {
            Err(response.error.unwrap_or_default())
        }
    }

    fn call(&mut self, command: Command) -> Value {
        let name = command.name();
        self.try_call(command)
            .unwrap_or_else(|e| panic!("{name} failed: {e}; stderr:\n{}", self.stderr()))
    }

    fn call_as<T: DeserializeOwned>(&mut self, command: Command) -> T {
        serde_json::from_value(self.call(command)).expect("data shape")
    }

    fn fails(&mut self, command: Command) -> String {
        let name = command.name();
        match self.try_call(command) {
            Ok(data) => panic!("{name} should have failed, got {data}"),
            Err(e) => e,
        }
    }

    fn raw(&mut self, line: &str) {
        self.client.send_line(line).expect("send");
        self.raw_lines += 1;
    }

    fn wait(&mut self, kind: &str) -> Value {
        self.wait_for(kind, |_| true)
    }

    fn wait_for(&mut self, kind: &str, matches: impl Fn(&Value) -> bool) -> Value {
        match self
            .client
            .wait_for_event(WAIT, kind, |e| e["type"] == kind && matches(e))
        {
            Ok(event) => event,
            Err(e) => panic!("{e}; stderr:\n{}", self.stderr()),
        }
    }

    /// The next `extension_ui_request` that waits for an answer (fire-and-forget ones, status
    /// and notifications, are passed over).
    fn dialog(&mut self) -> Value {
        self.wait_for("extension_ui_request", |e| {
            ["select", "confirm", "input"].contains(&e["method"].as_str().unwrap_or_default())
        })
    }

    fn prompt(&mut self, text: &str) {
        let response = self.request(Command::Prompt {
            message: text.into(),
            images: Vec::new(),
            streaming_behavior: None,
        });
        assert!(response.success, "{response:?}");
    }

    /// Prompts and waits for the run to end.
    fn run(&mut self, text: &str) -> Value {
        self.prompt(text);
        self.wait("agent_end")
    }

    fn messages(&mut self) -> Vec<Value> {
        let data = self.call(Command::GetMessages);
        data["messages"].as_array().expect("messages").clone()
    }

    fn state(&mut self) -> State {
        self.call_as(Command::GetState)
    }

    /// Position in the transcript of the response to `id`.
    fn position_of_response(&self, id: &str) -> usize {
        self.client
            .transcript()
            .iter()
            .position(|l| matches!(l, Incoming::Response(r) if r.id.as_deref() == Some(id)))
            .expect("the response was received")
    }

    fn position_of_event(&self, kind: &str) -> Option<usize> {
        self.client
            .transcript()
            .iter()
            .position(|l| matches!(l, Incoming::Event(e) if e["type"] == kind))
    }

    /// Closes stdin, waits for a clean exit, and checks the whole transcript: every line valid,
    /// exactly one response per command.
    fn finish(mut self) -> (ExitStatus, Vec<Incoming>) {
        let status = match self.client.finish(WAIT) {
            Ok(status) => status,
            Err(e) => panic!("{e}; stderr:\n{}", self.stderr()),
        };
        let transcript = self.client.transcript().to_vec();
        let mut answered: Vec<String> = Vec::new();
        let mut anonymous = 0;
        for line in &transcript {
            match line {
                Incoming::Invalid(text) => panic!("not a protocol line on stdout: {text}"),
                Incoming::Event(event) => assert_valid(server_lines(), event),
                Incoming::Response(response) => {
                    assert_valid(
                        server_lines(),
                        &serde_json::to_value(response).expect("json"),
                    );
                    match &response.id {
                        Some(id) => answered.push(id.clone()),
                        None => anonymous += 1,
                    }
                }
            }
        }
        let mut sent = self.sent.clone();
        sent.sort();
        answered.retain(|id| self.sent.contains(id));
        answered.sort();
        assert_eq!(answered, sent, "exactly one response per command");
        assert!(anonymous <= self.raw_lines);
        (status, transcript)
    }
}

fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn roles(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .map(|m| m["role"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn file_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("session")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("corrupt line ({e}): {l}")))
        .collect()
}

fn prompt_with(text: &str, behavior: StreamingBehavior) -> Command {
    Command::Prompt {
        message: text.into(),
        images: Vec::new(),
        streaming_behavior: Some(behavior),
    }
}

#[test]
fn a_demo_session_answers_every_query() {
    let env = new_env();
    let mut rpc = env.spawn(&[]);

    let state = rpc.state();
    assert!(!state.is_streaming && !state.is_bash_running);
    assert_eq!(state.model.as_ref().expect("a model").provider, "demo");
    assert_eq!(state.message_count, 0);
    let file = state.session_file.clone().expect("a session file");
    assert!(Path::new(&file).exists());

    let prompt = rpc.send(Command::Prompt {
        message: "list the files here and read README.md".into(),
        images: Vec::new(),
        streaming_behavior: None,
    });
    assert!(rpc.response(&prompt).success);
    let end = rpc.wait("agent_end");
    assert_eq!(end["messages"].as_array().map(Vec::len), Some(5));
    assert!(
        rpc.position_of_response(&prompt) < rpc.position_of_event("agent_start").expect("start"),
        "the prompt is answered when accepted, before its run's events"
    );

    let messages = rpc.messages();
    assert_eq!(
        roles(&messages),
        ["user", "assistant", "toolResult", "toolResult", "assistant"]
    );
    let last = rpc.call(Command::GetLastAssistantText);
    assert!(
        last["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("[demo]")),
        "{last}"
    );

    let stats: SessionStats = rpc.call_as(Command::GetSessionStats);
    assert_eq!(
        (
            stats.user_messages,
            stats.assistant_messages,
            stats.tool_calls,
            stats.tool_results
        ),
        (1, 2, 2, 2)
    );
    assert_eq!(stats.total_messages, 5);
    assert!(stats.tokens.total > 0);
    assert_eq!(stats.session_file.as_deref(), Some(file.as_str()));

    let points: Vec<ForkMessage> =
        serde_json::from_value(rpc.call(Command::GetForkMessages)["messages"].clone())
            .expect("fork points");
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].text, "list the files here and read README.md");

    rpc.call(Command::SetSessionName {
        name: "  demo run ".into(),
    });
    assert_eq!(rpc.state().session_name.as_deref(), Some("demo run"));
    assert!(rpc
        .fails(Command::SetSessionName { name: " ".into() })
        .contains("empty"));
    // An empty name is refused by the schema too; the server still answers it.
    let empty = rpc.send_unchecked(Command::SetSessionName {
        name: String::new(),
    });
    assert!(!rpc.response(&empty).success);

    let models = rpc.call(Command::GetAvailableModels);
    let models = models["models"].as_array().expect("models");
    assert!(models
        .iter()
        .any(|m| m["provider"] == "demo" && m["id"] == "demo-1" && m["keyAvailable"] == true));
    assert!(models
        .iter()
        .any(|m| m["provider"] == "anthropic" && m["keyAvailable"] == false));

    let model: Model = rpc.call_as(Command::SetModel {
        provider: "demo".into(),
        model_id: "demo-1".into(),
    });
    assert_eq!(model.id, "demo-1");
    assert!(rpc
        .fails(Command::SetModel {
            provider: "demo".into(),
            model_id: "nope".into()
        })
        .contains("no model 'nope'"));
    assert!(rpc
        .fails(Command::SetModel {
            provider: "nope".into(),
            model_id: "x".into()
        })
        .contains("unknown provider"));

    let off: ModelChoice = rpc.call_as(Command::SetThinkingLevel {
        level: "off".into(),
    });
    assert_eq!(off.thinking_level, "off");
    // A level the model cannot use is clamped, as Pi does, not refused.
    let clamped: ModelChoice = rpc.call_as(Command::SetThinkingLevel {
        level: "high".into(),
    });
    assert_eq!(clamped.thinking_level, "off");
    let loud = rpc.send_unchecked(Command::SetThinkingLevel {
        level: "loud".into(),
    });
    let response = rpc.response(&loud);
    assert!(!response.success);
    assert!(response
        .error
        .unwrap_or_default()
        .contains("unknown thinking level"));

    rpc.call(Command::SetAutoCompaction { enabled: false });
    assert!(!rpc.state().auto_compaction_enabled);
    rpc.call(Command::SetAutoCompaction { enabled: true });
    // The conversation is far too short to need it; either way the command is answered.
    if let Err(e) = rpc.try_call(Command::Compact {
        custom_instructions: Some("keep file names".into()),
    }) {
        assert!(e.contains("nothing to compact"), "{e}");
    }

    let commands = rpc.call(Command::GetCommands);
    let names: Vec<&str> = commands["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.contains(&"permissions") && names.contains(&"plan"),
        "{names:?}"
    );
    // A built-in's command says it is tack's own, not a package the user installed.
    let permissions = commands["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .find(|c| c["name"] == "permissions")
        .expect("permissions");
    assert_eq!(
        permissions["sourceInfo"],
        json!({ "path": "builtin:permission-gate", "source": "builtin", "scope": "builtin", "origin": "top-level" }),
        "{permissions}"
    );
    let output = rpc.call(Command::RunCommand {
        name: "/permissions".into(),
        args: String::new(),
    });
    assert!(
        output["output"]
            .as_str()
            .is_some_and(|o| o.contains("Permission mode")),
        "{output}"
    );
    assert!(rpc
        .fails(Command::RunCommand {
            name: "teleport".into(),
            args: String::new()
        })
        .contains("no plugin provides /teleport"));

    assert_eq!(rpc.call(Command::Abort)["wasRunning"], false);
    assert_eq!(rpc.call(Command::AbortBash)["aborted"], false);

    let (status, _) = rpc.finish();
    assert!(status.success());
    let name_recorded = file_lines(Path::new(&file))
        .iter()
        .any(|e| e["type"] == "session_info" && e["name"] == "demo run");
    assert!(name_recorded);
}

#[test]
fn malformed_lines_are_answered_and_the_server_keeps_serving() {
    let env = new_env();
    let mut rpc = env.spawn(&[]);
    let expectations: [(&str, Option<&str>, &str, &str); 7] = [
        ("this is not json", None, "parse", "not JSON"),
        ("[1, 2]", None, "parse", "JSON object"),
        (
            r#"{"id": 7, "type": "get_state"}"#,
            None,
            "parse",
            "`id` must be a string",
        ),
        (r#"{"id": "a"}"#, Some("a"), "parse", "no string `type`"),
        (
            r#"{"id": "b", "type": "teleport"}"#,
            Some("b"),
            "teleport",
            "unknown variant",
        ),
        (
            r#"{"id": "c", "type": "prompt"}"#,
            Some("c"),
            "prompt",
            "missing field `message`",
        ),
        (
            r#"{"type": "extension_ui_response", "id": "d", "confirmed": true}"#,
            Some("d"),
            "extension_ui_response",
            "no open dialog",
        ),
    ];
    for (line, id, command, error) in expectations {
        rpc.raw(line);
        let response = match id {
            Some(id) => rpc.client.response(id, WAIT),
            None => rpc.client.anonymous_response(WAIT),
        }
        .expect("a response");
        assert!(!response.success, "{line}");
        assert_eq!(response.command, command, "{line}");
        let text = response.error.unwrap_or_default();
        assert!(text.contains(error), "{line}: {text}");
    }
    rpc.raw("");
    rpc.raw("   ");
    rpc.raw_lines -= 2;
    assert!(!rpc.state().is_streaming, "still serving");
    let (status, transcript) = rpc.finish();
    assert!(status.success());
    let responses = transcript
        .iter()
        .filter(|l| matches!(l, Incoming::Response(_)))
        .count();
    assert_eq!(
        responses, 8,
        "blank lines are skipped, every other line answered"
    );
}

/// The scripted bash call that runs until it is aborted, with a call that must never start.
fn long_tool_script() -> Value {
    json!([
        { "tool_calls": [
            { "id": "long", "name": "bash", "arguments": { "command": "sleep 30" } },
            { "id": "later", "name": "write", "arguments": { "path": "never.txt", "content": "x" } }
        ] },
        { "text": "answered after the abort" }
    ])
}

#[test]
fn abort_stops_a_running_tool_while_commands_interleave_with_events() {
    let env = new_env();
    let plugin = env.scripted(
        long_tool_script(),
        json!({ "permission-gate": { "mode": "yolo" } }),
    );
    let mut rpc = env.spawn(&["--plugin", &plugin]);
    rpc.prompt("go");
    rpc.wait_for("tool_execution_start", |e| e["toolCallId"] == "long");

    let state = rpc.state();
    assert!(state.is_streaming, "answered mid-run");
    let error = rpc.fails(Command::Prompt {
        message: "again".into(),
        images: Vec::new(),
        streaming_behavior: None,
    });
    assert!(error.contains("streamingBehavior"), "{error}");
    assert_eq!(
        rpc.call(prompt_with("later please", StreamingBehavior::FollowUp))["queued"],
        "followUp"
    );
    assert_eq!(
        rpc.call(Command::Steer {
            message: "also this".into(),
            images: Vec::new()
        })["started"],
        false
    );
    let state = rpc.state();
    assert_eq!((state.pending_steering, state.pending_follow_up), (1, 1));
    assert!(rpc
        .fails(Command::NewSession {
            parent_session: None
        })
        .contains("running"));

    let began = Instant::now();
    let abort = rpc.send(Command::Abort);
    let response = rpc.response(&abort);
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    let data = response.data.expect("data");
    assert_eq!(data["wasRunning"], true);
    assert_eq!(data["steering"], json!(["also this"]));
    assert_eq!(data["followUp"], json!(["later please"]));
    assert!(
        rpc.position_of_event("agent_end").expect("agent_end") < rpc.position_of_response(&abort),
        "abort answers once the run has ended"
    );
    rpc.wait("agent_end");
    assert!(!rpc.state().is_streaming);
    assert!(!env.workspace().join("never.txt").exists());

    let results: Vec<Value> = rpc
        .messages()
        .into_iter()
        .filter(|m| m["role"] == "toolResult")
        .collect();
    let ids: Vec<&str> = results
        .iter()
        .filter_map(|m| m["toolCallId"].as_str())
        .collect();
    assert_eq!(ids, ["long", "later"], "every call has a result");
    assert!(results.iter().all(|m| m["isError"] == true));

    // The server is idle again and runs the next prompt.
    let end = rpc.run("go on");
    let texts: Vec<String> = end["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(text_of)
        .collect();
    assert!(
        texts.iter().any(|t| t == "answered after the abort"),
        "{texts:?}"
    );
    assert!(rpc.finish().0.success());
}

#[test]
fn steering_and_follow_ups_reach_the_model_in_order() {
    let env = new_env();
    let plugin = env.scripted(
        json!([
            { "tool_calls": [{ "id": "nap", "name": "bash", "arguments": { "command": "sleep 1" } }] },
            { "text": "after steer" },
            { "text": "after follow-up" }
        ]),
        json!({ "permission-gate": { "mode": "yolo" } }),
    );
    let mut rpc = env.spawn(&["--plugin", &plugin]);
    rpc.prompt("start");
    rpc.wait_for("tool_execution_start", |e| e["toolCallId"] == "nap");
    rpc.call(Command::Steer {
        message: "turn left".into(),
        images: Vec::new(),
    });
    rpc.call(prompt_with("and then this", StreamingBehavior::FollowUp));
    rpc.wait_for("queue_update", |e| {
        e["followUp"] == json!(["and then this"])
    });
    rpc.wait("agent_end");

    let messages = rpc.messages();
    let summary: Vec<(String, String)> = messages
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_string(),
                text_of(m),
            )
        })
        .collect();
    let expected = [
        ("user", "start"),
        ("assistant", ""),
        ("toolResult", ""),
        ("user", "turn left"),
        ("assistant", "after steer"),
        ("user", "and then this"),
        ("assistant", "after follow-up"),
    ];
    assert_eq!(summary.len(), expected.len(), "{summary:?}");
    for ((role, text), (want_role, want_text)) in summary.iter().zip(expected) {
        assert_eq!(role, want_role, "{summary:?}");
        if !want_text.is_empty() {
            assert_eq!(text, want_text, "{summary:?}");
        }
    }
    assert!(rpc.finish().0.success());
}

#[test]
fn plugin_dialogs_are_answered_by_the_client() {
    let env = new_env();
    for dir in ["build", "build2", "build3"] {
        std::fs::create_dir(env.workspace().join(dir)).expect("dir");
    }
    // permission-gate runs in its `ask` mode (the default when a client can answer).
    let plugin = env.scripted(
        json!([
            { "tool_calls": [{ "id": "rm1", "name": "bash", "arguments": { "command": "rm -r build" } }] },
            { "text": "removed" },
            { "tool_calls": [{ "id": "rm2", "name": "bash", "arguments": { "command": "rm -r build2" } }] },
            { "text": "kept" },
            { "text": "Plan:\n1. Read README.md\n2. Summarize it" },
            { "text": "[DONE:1] [DONE:2] all done" },
            { "tool_calls": [{ "id": "rm3", "name": "bash", "arguments": { "command": "rm -r build3" } }] }
        ]),
        json!({}),
    );
    let mut rpc = env.spawn(&["--plugin", &plugin]);

    // A select dialog, answered with its first option.
    rpc.prompt("clean up");
    let ask = rpc.dialog();
    assert_eq!(ask["plugin"], "permission-gate");
    assert_eq!(ask["method"], "select");
    assert_eq!(ask["options"][0], "Allow once");
    let id = ask["id"].as_str().expect("id").to_string();
    rpc.client
        .answer(&UiResponse::select_index(&id, 0))
        .expect("answer");
    rpc.wait("agent_end");
    assert!(!env.workspace().join("build").exists(), "allowed once");

    // Cancelled: the safe default, a denial.
    rpc.prompt("clean up more");
    let ask = rpc.dialog();
    rpc.client
        .answer(&UiResponse::cancel(ask["id"].as_str().expect("id")))
        .expect("answer");
    let end = rpc.wait("agent_end");
    assert!(env.workspace().join("build2").exists(), "denied");
    let denied = end["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "toolResult")
        .expect("a result");
    assert_eq!(denied["isError"], true);
    assert!(text_of(denied).contains("permission-gate"), "{denied}");

    // plan-mode: status and widget events, a notification, then a confirm dialog.
    let on = rpc.call(Command::RunCommand {
        name: "plan".into(),
        args: "on".into(),
    });
    assert!(
        on["output"]
            .as_str()
            .is_some_and(|o| o.contains("Plan mode on")),
        "{on}"
    );
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "setStatus" && e["statusText"] == "plan mode"
    });
    rpc.prompt("make a plan");
    let captured = rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "notify" && e["plugin"] == "plan-mode"
    });
    assert!(
        captured["message"]
            .as_str()
            .is_some_and(|m| m.contains("Plan captured")),
        "{captured}"
    );
    rpc.wait("agent_end");
    let off = rpc.send(Command::RunCommand {
        name: "plan".into(),
        args: "off".into(),
    });
    let confirm = rpc.dialog();
    assert_eq!(confirm["method"], "confirm");
    assert_eq!(confirm["title"], "Execute the plan?");
    assert!(confirm["message"]
        .as_str()
        .is_some_and(|m| m.contains("Read README.md")));
    rpc.client
        .answer(&UiResponse::confirm(
            confirm["id"].as_str().expect("id"),
            true,
        ))
        .expect("answer");
    let response = rpc.response(&off);
    assert!(
        response
            .data
            .as_ref()
            .and_then(|d| d["output"].as_str())
            .is_some_and(|o| o.contains("executing the plan")),
        "{response:?}"
    );
    // The plugin's steering message started a turn of its own.
    let end = rpc.wait("agent_end");
    let texts: Vec<String> = end["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(text_of)
        .collect();
    assert!(texts.iter().any(|t| t.contains("all done")), "{texts:?}");

    // Abort while a dialog is open: it closes, and the call is not run.
    rpc.prompt("clean up the rest");
    let ask = rpc.dialog();
    let abort = rpc.send(Command::Abort);
    let closed = rpc.wait("extension_ui_closed");
    assert_eq!(closed["id"], ask["id"]);
    assert_eq!(closed["reason"], "aborted");
    assert!(rpc.response(&abort).success);
    assert!(env.workspace().join("build3").exists());
    assert!(rpc.finish().0.success());
}

#[test]
fn sessions_are_created_switched_and_forked() {
    let env = new_env();
    let mut rpc = env.spawn(&[]);
    rpc.run("read README.md");
    let first = rpc.state();

    let fresh: SessionRef = rpc.call_as(Command::NewSession {
        parent_session: None,
    });
    assert_ne!(fresh.session_id, first.session_id);
    assert!(Path::new(fresh.session_file.as_deref().expect("file")).exists());
    assert_eq!(rpc.state().message_count, 0);
    rpc.run("list the files");
    let second = rpc.state();
    assert_eq!(second.session_id, fresh.session_id);

    let back: SessionRef = rpc.call_as(Command::SwitchSession {
        session_path: first.session_file.clone(),
        session_id: None,
    });
    assert_eq!(back.session_id, first.session_id);
    assert_eq!(text_of(&rpc.messages()[0]), "read README.md");

    let by_id: SessionRef = rpc.call_as(Command::SwitchSession {
        session_path: None,
        session_id: Some(second.session_id[..13].to_string()),
    });
    assert_eq!(by_id.session_id, second.session_id);
    assert!(rpc
        .fails(Command::SwitchSession {
            session_path: None,
            session_id: None
        })
        .contains("either"));
    assert!(rpc
        .fails(Command::SwitchSession {
            session_path: None,
            session_id: Some("no-such-session".into())
        })
        .contains("cannot find session"));

    let points: Vec<ForkMessage> =
        serde_json::from_value(rpc.call(Command::GetForkMessages)["messages"].clone())
            .expect("points");
    let fork: SessionRef = rpc.call_as(Command::Fork {
        entry_id: points[0].entry_id.clone(),
    });
    assert_eq!(fork.text.as_deref(), Some("list the files"));
    assert_ne!(fork.session_id, second.session_id);
    assert_eq!(
        rpc.state().message_count,
        0,
        "the fork holds what came before the message"
    );
    let fork_file = fork.session_file.expect("file");
    let header = &file_lines(Path::new(&fork_file))[0];
    assert_eq!(
        header["parentSession"].as_str(),
        second.session_file.as_deref(),
        "the fork points back to its origin"
    );
    assert!(rpc
        .fails(Command::Fork {
            entry_id: "nope".into()
        })
        .contains("no entry"));

    // That a session cannot change under a running prompt is checked where the run is held
    // open by a slow tool (abort_stops_a_running_tool_...); a demo run may end before the
    // next command is read.
    assert!(rpc.finish().0.success());
    assert_eq!(env.session_files().len(), 3);
}

#[test]
fn new_session_records_the_parent_session_in_its_header() {
    let env = new_env();
    let mut rpc = env.spawn(&[]);
    rpc.run("read README.md");
    let parent = rpc.state().session_file.expect("file");

    let child: SessionRef = rpc.call_as(Command::NewSession {
        parent_session: Some(parent.clone()),
    });
    let header = &file_lines(Path::new(child.session_file.as_deref().expect("file")))[0];
    assert_eq!(header["type"], "session");
    assert_eq!(header["parentSession"].as_str(), Some(parent.as_str()));

    let orphan: SessionRef = rpc.call_as(Command::NewSession {
        parent_session: None,
    });
    let header = &file_lines(Path::new(orphan.session_file.as_deref().expect("file")))[0];
    assert!(header.get("parentSession").is_none(), "{header}");
    assert!(rpc.finish().0.success());
}

#[test]
fn queues_deliver_one_message_at_a_time_by_default_as_in_pi() {
    let env = new_env();
    let mut rpc = env.spawn(&[]);
    let state = rpc.state();
    assert_eq!(state.steering_mode, QueueMode::OneAtATime);
    assert_eq!(state.follow_up_mode, QueueMode::OneAtATime);
    rpc.call(Command::SetSteeringMode {
        mode: QueueMode::All,
    });
    rpc.call(Command::SetFollowUpMode {
        mode: QueueMode::All,
    });
    let state = rpc.state();
    assert_eq!(state.steering_mode, QueueMode::All);
    assert_eq!(state.follow_up_mode, QueueMode::All);
    assert!(rpc.finish().0.success());
}

#[test]
fn an_in_memory_session_stays_in_memory() {
    let env = new_env();
    let mut rpc = env.spawn(&["--no-session"]);
    rpc.run("list the files");
    let fresh: SessionRef = rpc.call_as(Command::NewSession {
        parent_session: None,
    });
    assert_eq!(fresh.session_file, None);
    assert!(rpc.finish().0.success());
    assert!(env.session_files().is_empty());
}

#[test]
fn bash_runs_the_users_command_and_abort_bash_stops_it() {
    let env = new_env();
    let mut rpc = env.spawn(&[]);
    let result: BashResult = rpc.call_as(Command::Bash {
        command: "echo hello; ls; echo oops >&2; exit 3".into(),
        exclude_from_context: false,
    });
    assert!(result.output.contains("hello") && result.output.contains("README.md"));
    assert!(
        result.output.contains("oops"),
        "stderr is part of the output"
    );
    assert_eq!(result.exit_code, Some(3));
    assert!(!result.cancelled && !result.truncated);
    let recorded = rpc.messages();
    let last = recorded.last().expect("a message");
    assert_eq!(last["role"], "custom");
    assert_eq!(last["customType"], "bash");
    assert!(text_of(last).contains("hello"));

    rpc.call(Command::Bash {
        command: "echo private".into(),
        exclude_from_context: true,
    });
    assert!(!rpc
        .messages()
        .iter()
        .any(|m| text_of(m).contains("private")));

    let long = rpc.send(Command::Bash {
        command: "sleep 30".into(),
        exclude_from_context: false,
    });
    let began = Instant::now();
    while !rpc.state().is_bash_running {
        assert!(began.elapsed() < WAIT, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(rpc
        .fails(Command::Bash {
            command: "true".into(),
            exclude_from_context: false
        })
        .contains("already running"));
    assert_eq!(rpc.call(Command::AbortBash)["aborted"], true);
    let response = rpc.response(&long);
    let result: BashResult = serde_json::from_value(response.data.expect("data")).expect("shape");
    assert!(result.cancelled);
    assert!(began.elapsed() < Duration::from_secs(10));
    assert!(rpc.finish().0.success());
}

#[test]
fn eof_mid_run_aborts_and_leaves_the_session_complete() {
    let env = new_env();
    let plugin = env.scripted(
        long_tool_script(),
        json!({ "permission-gate": { "mode": "yolo" } }),
    );
    let mut rpc = env.spawn(&["--plugin", &plugin]);
    rpc.prompt("go");
    rpc.wait_for("tool_execution_start", |e| e["toolCallId"] == "long");
    let file = rpc.state().session_file.expect("file");
    let began = Instant::now();
    let (status, transcript) = rpc.finish();
    assert!(status.success());
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    assert!(transcript
        .iter()
        .any(|l| matches!(l, Incoming::Event(e) if e["type"] == "agent_end")));
    let entries = file_lines(Path::new(&file));
    let results: Vec<&Value> = entries
        .iter()
        .filter(|e| e["message"]["role"] == "toolResult")
        .collect();
    assert_eq!(results.len(), 2, "every call has a result on disk");
    assert_eq!(
        entries.last().map(|e| e["message"]["role"].clone()),
        Some(json!("toolResult"))
    );
}

#[test]
fn set_model_moves_to_another_provider_between_runs() {
    let env = new_env();
    let plugin = env.plugin("scripted", artifacts::TEST_SCRIPTED_PROVIDER);
    env.config(json!({ "plugins": { "scripted": { "script": [
        { "text": "scripted answer" }, { "text": "scripted answer" }, { "text": "scripted answer" }
    ] } } }));
    let mut rpc = env.spawn(&["--plugin", &plugin]);
    assert_eq!(rpc.state().model.expect("a model").provider, "demo");
    rpc.run("list the files");

    let model: Model = rpc.call_as(Command::SetModel {
        provider: "scripted".into(),
        model_id: "scripted-1".into(),
    });
    assert_eq!(model.provider, "scripted");
    assert_eq!(rpc.state().model.expect("a model").id, "scripted-1");
    let end = rpc.run("hello");
    let last = end["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .expect("a message");
    assert_eq!(last["provider"], "scripted");
    assert_eq!(text_of(&last), "scripted answer");

    let file = rpc.state().session_file.expect("file");
    assert!(rpc.finish().0.success());
    let changes: Vec<Value> = file_lines(Path::new(&file))
        .into_iter()
        .filter(|e| e["type"] == "model_change")
        .map(|e| e["provider"].clone())
        .collect();
    assert_eq!(changes, [json!("demo"), json!("scripted")]);
}

#[test]
fn a_prompt_an_input_hook_handles_starts_no_run() {
    let env = new_env();
    // Not `hooks`: that name is the built-in Claude Code hooks plugin's.
    let hooks = env.plugin("test-hooks", artifacts::TEST_HOOKS);
    env.config(json!({ "plugins": { "test-hooks": { "input": { "do": "handled" } } } }));
    let mut rpc = env.spawn(&["--plugin", &hooks]);
    rpc.prompt("/something the hook takes");
    rpc.wait("input_handled");
    assert!(!rpc.state().is_streaming);
    let (status, transcript) = rpc.finish();
    assert!(status.success());
    assert!(!transcript
        .iter()
        .any(|l| matches!(l, Incoming::Event(e) if e["type"] == "agent_start")));
}

#[test]
fn a_startup_error_goes_to_stderr_and_stdout_stays_empty() {
    let env = new_env();
    let mut rpc = env.spawn(&["--provider", "no-such-provider"]);
    let err = rpc.client.response("1", WAIT).expect_err("no response");
    assert!(matches!(err, ClientError::Closed), "{err}");
    assert!(rpc.client.transcript().is_empty());
    assert!(
        rpc.stderr().contains("unknown provider"),
        "{}",
        rpc.stderr()
    );
}

#[test]
fn compact_summarizes_on_request_when_automatic_compaction_is_off() {
    let env = new_env();
    // A small window, so that a few long prompts are worth compacting. The summary request has
    // no assistant messages, so the scripted provider answers it with turn 0.
    let plugin = env.plugin("scripted", artifacts::TEST_SCRIPTED_PROVIDER);
    env.config(json!({
        "provider": "scripted",
        "plugins": { "scripted": {
            "context_window": 4000,
            "script": [
                { "text": "The user asked three long questions about the project." },
                { "text": "second answer" },
                { "text": "third answer" }
            ]
        } }
    }));
    let mut rpc = env.spawn(&["--plugin", &plugin]);
    rpc.call(Command::SetAutoCompaction { enabled: false });
    for i in 0..3 {
        rpc.run(&format!(
            "question {i}: {}",
            "tell me more about it ".repeat(200)
        ));
    }
    let before = rpc.state().message_count;
    let data = rpc.call(Command::Compact {
        custom_instructions: None,
    });
    assert!(
        data["summary"]
            .as_str()
            .is_some_and(|s| s.contains("three long questions")),
        "{data}"
    );
    let end = rpc.wait("compaction_end");
    assert_eq!(end["aborted"], false);
    assert_eq!(end["reason"], "manual");
    assert_eq!(end["willRetry"], false);
    assert_eq!(end["result"]["summary"], data["summary"]);
    assert_eq!(end["result"]["firstKeptEntryId"], data["firstKeptEntryId"]);
    assert!(end["result"]["tokensBefore"].as_u64().is_some(), "{end}");
    let messages = rpc.messages();
    assert_eq!(messages[0]["role"], "compactionSummary");
    assert!(messages.len() < before, "{} < {before}", messages.len());
    assert!(rpc.finish().0.success());
}

/// A call asking to run outside the command sandbox is put to the user by permission-gate;
/// "always" is remembered for that exact command, so the next time only the call's own rules ask.
#[test]
fn leaving_the_sandbox_is_asked_and_always_is_remembered() {
    let env = new_env();
    let target = env.root().join("escaped.txt");
    let command = format!("echo out > {}", target.display());
    let call = |id: &str| {
        json!({ "tool_calls": [{ "id": id, "name": "bash",
                "arguments": { "command": command, "unsandboxed": true } }] })
    };
    let plugin = env.scripted(
        json!([call("e1"), { "text": "written" }, call("e2"), { "text": "again" }]),
        json!({}),
    );
    let mut rpc = env.spawn(&["--plugin", &plugin]);

    rpc.prompt("write it outside");
    let ask = rpc.dialog();
    assert_eq!(ask["plugin"], "permission-gate");
    assert!(
        ask["title"]
            .as_str()
            .is_some_and(|t| t.contains("outside the command sandbox")),
        "{ask}"
    );
    assert_eq!(
        ask["options"][1],
        "Always allow this outside the sandbox in this project"
    );
    rpc.client
        .answer(&UiResponse::select_index(
            ask["id"].as_str().expect("id"),
            1,
        ))
        .expect("answer");
    // The write itself, outside the workspace, is asked about as any such write is.
    let write = rpc.dialog();
    assert!(
        !write["title"]
            .as_str()
            .unwrap_or_default()
            .contains("outside the command sandbox"),
        "{write}"
    );
    rpc.client
        .answer(&UiResponse::select_index(
            write["id"].as_str().expect("id"),
            0,
        ))
        .expect("answer");
    rpc.wait("agent_end");
    assert!(target.exists());
    std::fs::remove_file(&target).expect("remove");

    // The same command again: only the write is asked about now.
    rpc.prompt("and again");
    let write = rpc.dialog();
    assert!(
        !write["title"]
            .as_str()
            .unwrap_or_default()
            .contains("outside the command sandbox"),
        "{write}"
    );
    rpc.client
        .answer(&UiResponse::select_index(
            write["id"].as_str().expect("id"),
            0,
        ))
        .expect("answer");
    rpc.wait("agent_end");
    assert!(target.exists());
    assert!(rpc.finish().0.success());
}

/// One prompt whose tools edit a file, delete one with `bash`, and create two (`write` and
/// `bash`): `rewind` puts the files back (`code`), then the conversation (`conversation`).
#[test]
fn rewind_restores_the_files_and_the_conversation_of_a_turn() {
    let env = new_env();
    env.write("notes.txt", "keep me\n");
    env.write("doomed.txt", "do not lose me\n");
    env.write(".gitignore", "*.log\n");
    env.write("build.log", "ignored\n");
    let plugin = env.scripted(
        json!([
            { "tool_calls": [
                { "id": "e", "name": "edit", "arguments": {
                    "path": "notes.txt", "oldText": "keep me", "newText": "changed" } },
                { "id": "b", "name": "bash", "arguments": {
                    "command": "rm doomed.txt && mkdir -p out && echo made > out/made.txt && echo x > build.log" } },
                { "id": "w", "name": "write", "arguments": { "path": "new.txt", "content": "new\n" } }
            ] },
            { "text": "all done" }
        ]),
        json!({ "permission-gate": { "mode": "yolo" } }),
    );
    let mut rpc = env.spawn(&["--plugin", &plugin]);
    rpc.run("change the files");
    let ws = env.workspace();
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "changed\n"
    );
    assert!(!ws.join("doomed.txt").exists());

    let points: RewindPoints = rpc.call_as(Command::GetRewindPoints);
    assert_eq!(points.points.len(), 1, "{points:?}");
    let point = &points.points[0];
    assert_eq!(point.text, "change the files");
    assert_eq!(point.changed, ["doomed.txt", "notes.txt"]);
    assert_eq!(point.created, ["new.txt", "out/made.txt"]);
    let mut wire = json!(points);
    wire["points"][0]["entryId"] = json!("[id]");
    wire["points"][0]["timestamp"] = json!("[ms]");
    insta::assert_json_snapshot!("rewind_points", wire);

    let messages = rpc.messages().len();
    let done: Rewound = rpc.call_as(Command::Rewind {
        entry_id: point.entry_id.clone(),
        mode: RewindMode::Code,
    });
    assert_eq!(done.restored, ["doomed.txt", "notes.txt"]);
    assert_eq!(done.deleted, ["new.txt", "out/made.txt"]);
    assert_eq!(done.text, None);
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "keep me\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("doomed.txt")).unwrap(),
        "do not lose me\n"
    );
    assert!(!ws.join("new.txt").exists() && !ws.join("out").exists());
    assert_eq!(
        std::fs::read_to_string(ws.join("build.log")).unwrap(),
        "x\n"
    );
    assert_eq!(rpc.messages().len(), messages, "the conversation stays");

    let done: Rewound = rpc.call_as(Command::Rewind {
        entry_id: point.entry_id[..8].to_string(),
        mode: RewindMode::Conversation,
    });
    assert_eq!(done.text.as_deref(), Some("change the files"));
    assert!(done.restored.is_empty() && done.deleted.is_empty());
    assert!(rpc.messages().is_empty(), "back to before the first prompt");

    let error = rpc.fails(Command::Rewind {
        entry_id: "no-such-entry".into(),
        mode: RewindMode::Both,
    });
    assert!(error.contains("no entry"), "{error}");
    let (status, _) = rpc.finish();
    assert!(status.success());
}

/// Run-time tool registration (`tack:plugin/tools`) reaches the agent in RPC mode as it does in
/// print mode: the interactive front ends once refused it as "no agent is running".
#[test]
fn a_tool_a_plugin_registers_while_running_is_offered_in_rpc_mode() {
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "tool_calls": [{ "id": "a1", "name": "add_tool", "arguments": { "name": "weather" } }] },
            { "tool_calls": [{ "id": "w1", "name": "weather", "arguments": { "say": "sunny?" } }] },
            { "text": "done" }
        ]),
        json!({ "talker": { "command": "cat" } }),
    );
    let talker = env.plugin("talker", artifacts::TEST_PROCESS);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &talker]);
    rpc.prompt("add a tool");
    let added = rpc.wait_for("tool_execution_end", |e| e["toolCallId"] == "a1");
    assert_eq!(added["isError"], false, "{added}");
    assert_eq!(
        added["result"]["content"][0]["text"], "registered weather",
        "{added}"
    );
    let called = rpc.wait_for("tool_execution_end", |e| e["toolCallId"] == "w1");
    assert_eq!(called["isError"], false, "{called}");
    assert_eq!(
        called["result"]["content"][0]["text"],
        "dynamic weather: {\"say\":\"sunny?\"}"
    );
    rpc.wait("agent_end");
    let (status, _) = rpc.finish();
    assert!(status.success());
}

/// Pi's `trigger-compact.ts`, ported: a turn that takes the context past the plugin's threshold
/// asks for a compaction (`tack:plugin/control`), which runs once the run is over; the plugin
/// hears the outcome from `compaction_end` and tells the user.
#[test]
fn pi_trigger_compact_compacts_after_the_turn_that_crossed_the_threshold() {
    let env = new_env();
    let scripted = env.plugin("scripted", artifacts::TEST_SCRIPTED_PROVIDER);
    let trigger = env.plugin("pi-trigger-compact", artifacts::PI_TRIGGER_COMPACT);
    env.config(json!({
        "provider": "scripted",
        "plugins": {
            "scripted": {
                "context_window": 4000,
                "script": [
                    { "text": "The user greeted and asked a long question." },
                    { "text": "second answer" }
                ]
            },
            "pi-trigger-compact": { "threshold": 500 }
        }
    }));
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &trigger]);
    rpc.call(Command::SetAutoCompaction { enabled: false });
    rpc.run("hi");
    assert!(rpc.position_of_event("compaction_start").is_none());
    rpc.run(&format!(
        "question: {}",
        "tell me more about it ".repeat(300)
    ));
    let end = rpc.wait("compaction_end");
    assert_eq!(end["reason"], "manual", "{end}");
    assert_eq!(end["aborted"], false, "{end}");
    assert!(
        end["result"]["summary"]
            .as_str()
            .is_some_and(|s| s.contains("greeted")),
        "{end}"
    );
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "notify" && e["message"] == "Compaction completed"
    });
    let messages = rpc.messages();
    assert_eq!(messages[0]["role"], "compactionSummary", "{messages:?}");
    assert!(rpc.finish().0.success());
}

/// Pi's `dynamic-tools.ts`, ported: `echo_session` is registered when the session starts and
/// `/add-echo-tool <name>` registers more while tack runs (a bad or taken name is refused with
/// Pi's messages); the model calls both kinds.
#[test]
fn pi_dynamic_tools_registers_tools_at_session_start_and_on_command() {
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "tool_calls": [
                { "id": "e1", "name": "echo_session", "arguments": { "message": "hi" } },
                { "id": "s1", "name": "shout", "arguments": { "message": "loud" } }
            ] },
            { "text": "done" }
        ]),
        json!({}),
    );
    let dynamic = env.plugin("pi-dynamic-tools", artifacts::PI_DYNAMIC_TOOLS);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &dynamic]);
    let notified = |rpc: &mut Rpc, text: &str| {
        rpc.wait_for("extension_ui_request", |e| {
            e["method"] == "notify" && e["message"] == text
        });
    };
    notified(&mut rpc, "Registered dynamic tool: echo_session");
    for (args, notice) in [
        ("shout", "Registered dynamic tool: shout"),
        (
            "Bad Name!",
            "Usage: /add-echo-tool <tool_name> (lowercase, numbers, underscores)",
        ),
        ("shout", "Tool already registered: shout"),
    ] {
        rpc.call(Command::RunCommand {
            name: "add-echo-tool".into(),
            args: args.into(),
        });
        notified(&mut rpc, notice);
    }
    rpc.prompt("echo things");
    // The two calls run in parallel on the plugin's one instance, so either may end first.
    let mut ended = std::collections::HashMap::new();
    while ended.len() < 2 {
        let end = rpc.wait("tool_execution_end");
        ended.insert(
            end["toolCallId"].as_str().unwrap_or_default().to_string(),
            end,
        );
    }
    let echoed = &ended["e1"];
    assert_eq!(echoed["isError"], false, "{echoed}");
    assert_eq!(echoed["result"]["content"][0]["text"], "[session] hi");
    assert_eq!(
        echoed["result"]["details"],
        json!({ "tool": "echo_session", "prefix": "[session] " })
    );
    let shouted = &ended["s1"];
    assert_eq!(
        shouted["result"]["content"][0]["text"], "[shout] loud",
        "{shouted}"
    );
    rpc.wait("agent_end");
    assert!(rpc.finish().0.success());
}

/// Pi's `widget-placement.ts`, ported (`tack:plugin/screen`): the client is told where each
/// widget goes, as Pi's RPC mode tells it.
#[test]
fn pi_widget_placement_puts_one_widget_above_the_editor_and_one_below() {
    widget_placement_behaves_as_pi("pi-widget-placement", artifacts::PI_WIDGET_PLACEMENT);
}

/// The same port in JavaScript on 0.2.0 (`examples/pi-js/widget-placement`), held to the same
/// scenario. Skipped without the JS SDK toolchain, unless `TACK_REQUIRE_SDKS` is set.
#[test]
fn pi_widget_placement_in_javascript_behaves_as_the_rust_port() {
    let name = "pi-widget-placement-js";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-js/widget-placement");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    let built = tack_sdk_examples::build_js_package(&toolchains, &dir, name);
    if let Some(wasm) = tack_sdk_examples::built_or_skipped(name, built) {
        widget_placement_behaves_as_pi(name, &wasm);
    }
}

/// The same port in Zig on 0.2.0 (`examples/pi-zig/widget-placement`: `tack.v2.subscribe`, the
/// `observer` export and `tack.v2.screen`), held to the same scenario. Skipped without zig,
/// unless `TACK_REQUIRE_SDKS` is set.
#[test]
fn pi_widget_placement_in_zig_behaves_as_the_rust_port() {
    let name = "pi-widget-placement-zig";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-zig/widget-placement");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    let built = tack_sdk_examples::build_zig_example(&toolchains, &dir, name);
    if let Some(wasm) = tack_sdk_examples::built_or_skipped(name, built) {
        widget_placement_behaves_as_pi(name, &wasm);
    }
}

/// At the session's start, a widget above the editor and one below reach the client.
fn widget_placement_behaves_as_pi(name: &str, wasm: &str) {
    let env = new_env();
    let placement = env.plugin(name, wasm);
    let mut rpc = env.spawn(&["--plugin", &placement]);
    for (key, text, place) in [
        ("widget-above", "Above editor widget", "aboveEditor"),
        ("widget-below", "Below editor widget", "belowEditor"),
    ] {
        let widget = rpc.wait_for("extension_ui_request", |e| {
            e["method"] == "setWidget" && e["widgetKey"] == key
        });
        assert_eq!(widget["widgetLines"], json!([text]), "{widget}");
        assert_eq!(widget["widgetPlacement"], place, "{widget}");
    }
    assert!(rpc.finish().0.success());
}

/// A background command outlives the run that started it: the footer counts it (a status
/// segment), `/jobs list` lists it and `/jobs kill` stops it.
#[test]
fn a_background_command_outlives_its_run_and_jobs_lists_and_stops_it() {
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "tool_calls": [{ "id": "bg", "name": "bash", "arguments": {
                "command": "echo serving; sleep 300", "run_in_background": true } }] },
            { "text": "started" }
        ]),
        json!({}),
    );
    let mut rpc = env.spawn(&["--plugin", &scripted]);
    rpc.run("start it");
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "setStatus" && e["statusText"] == "1 background command"
    });
    let listed = rpc.call(Command::RunCommand {
        name: "jobs".into(),
        args: "list".into(),
    });
    let text = listed["output"].as_str().unwrap_or_default();
    assert!(
        text.contains("echo serving; sleep 300 — running"),
        "{listed}"
    );
    let stopped = rpc.call(Command::RunCommand {
        name: "jobs".into(),
        args: "kill 1".into(),
    });
    assert!(
        stopped["output"]
            .as_str()
            .unwrap_or_default()
            .contains("Background command 1 was stopped"),
        "{stopped}"
    );
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "setStatus" && e["statusKey"] == "jobs" && e["statusText"].is_null()
    });
    let listed = rpc.call(Command::RunCommand {
        name: "jobs".into(),
        args: "list".into(),
    });
    assert_eq!(listed["output"], "No background commands.");
    assert!(rpc.finish().0.success());
}

/// A background command that ends while the agent is idle leaves the footer's count without
/// another prompt: the host tells core-tools (`process_exit`) and no other plugin. The hostile
/// plugin, listening for the same event, hears only of its own process ending.
#[test]
fn a_background_command_ending_between_runs_updates_the_count_and_only_its_owner_hears() {
    let env = new_env();
    // Each program ends when the test says so, long after the run that started it.
    let until = |flag: &str| format!("while [ ! -e {flag} ]; do sleep 0.1; done");
    let scripted = env.scripted(
        json!([
            { "tool_calls": [
                { "id": "bg", "name": "bash", "arguments": {
                    "command": until("core-done"), "run_in_background": true } },
                { "id": "own", "name": "process_spawn", "arguments": {
                    "command": until("hostile-done") } }
            ] },
            { "text": "started" }
        ]),
        json!({ "hostile": { "listen": ["process_exit"] } }),
    );
    let hostile = env.package("hostile", artifacts::TEST_HOSTILE, "process = [\"**\"]");
    env.grant("hostile", "process = [\"**\"]");
    let hostile = hostile.to_str().expect("utf8").to_string();
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &hostile]);
    rpc.prompt("start them");
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "setStatus" && e["statusText"] == "1 background command"
    });
    rpc.wait("agent_end");
    let heard = || {
        env.session_lines()
            .into_iter()
            .filter(|l| l["customType"] == "saw-lifecycle" && l["data"]["type"] == "process_exit")
            .map(|l| l["data"].clone())
            .collect::<Vec<Value>>()
    };

    std::fs::write(env.workspace().join("core-done"), "").expect("flag");
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "setStatus" && e["statusKey"] == "jobs" && e["statusText"].is_null()
    });

    std::fs::write(env.workspace().join("hostile-done"), "").expect("flag");
    let deadline = Instant::now() + WAIT;
    while heard().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the hostile plugin never heard of its own process"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Its own process's end, told after core-tools' was: that one never reached it.
    assert_eq!(
        heard(),
        vec![json!({ "type": "process_exit", "id": 1, "code": 0 })]
    );
    assert!(rpc.finish().0.success());
}

/// A background command the user keeps runs on after tack exits: `/jobs keep` asks in tack's
/// own dialog (a "no" keeps nothing), the command leaves the keeper that would kill it with
/// tack, and its output goes on to a file in core-tools' data folder, written by tack's relay
/// once tack is gone. While tack runs, the model still reads it with `bash_output`.
#[cfg(target_os = "linux")]
#[test]
fn a_kept_background_command_runs_on_after_tack_exits_with_its_output_in_a_file() {
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "tool_calls": [{ "id": "bg", "name": "bash", "arguments": {
                "command": "i=0; while :; do echo tick $i; i=$((i+1)); sleep 0.1; done",
                "run_in_background": true } }] },
            { "text": "started" },
            { "tool_calls": [{ "id": "read", "name": "bash_output", "arguments": { "id": 1 } }] },
            { "text": "read" }
        ]),
        json!({}),
    );
    let mut rpc = env.spawn(&["--plugin", &scripted]);
    rpc.prompt("start it");
    // permission-gate asks about a loop as about any command it has no rule for.
    let asked = rpc.dialog();
    assert_eq!(asked["plugin"], "permission-gate", "{asked}");
    rpc.client
        .answer(&UiResponse::select(
            asked["id"].as_str().expect("id"),
            "Allow once",
        ))
        .expect("answer");
    rpc.wait("agent_end");

    let keep = |rpc: &mut Rpc, yes: bool| -> String {
        let id = rpc.send(Command::RunCommand {
            name: "jobs".into(),
            args: "keep 1".into(),
        });
        let confirm = rpc.dialog();
        assert_eq!(confirm["method"], "confirm", "{confirm}");
        assert_eq!(
            confirm["title"], "Keep running after tack exits?",
            "{confirm}"
        );
        let message = confirm["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("core-tools asks to keep this command running after tack exits:")
                && message.contains("while :; do echo tick"),
            "{confirm}"
        );
        rpc.client
            .answer(&UiResponse::confirm(
                confirm["id"].as_str().expect("id"),
                yes,
            ))
            .expect("answer");
        let response = rpc.response(&id);
        match (&response.data, &response.error) {
            (Some(data), _) => data["output"].as_str().unwrap_or_default().to_string(),
            (None, error) => error.clone().unwrap_or_default(),
        }
    };
    let declined = keep(&mut rpc, false);
    assert!(
        declined.contains("background command 1 is not kept: the user chose not to keep it"),
        "{declined}"
    );
    let kept = keep(&mut rpc, true);
    assert!(
        kept.starts_with("Background command 1 keeps running after tack exits."),
        "{kept}"
    );
    let log = PathBuf::from(kept.split('`').nth(1).expect("the log's path in backticks"));
    assert!(
        log.starts_with(env.home()) && log.to_string_lossy().contains("/kept/"),
        "{kept}"
    );
    let group: i32 = kept
        .rsplit("kill -- -")
        .next()
        .and_then(|rest| rest.split('`').next())
        .and_then(|g| g.parse().ok())
        .expect("the process group");
    let listed = rpc.call(Command::RunCommand {
        name: "jobs".into(),
        args: "list".into(),
    });
    assert!(
        listed["output"]
            .as_str()
            .is_some_and(|o| o.contains("— running, kept after tack exits")),
        "{listed}"
    );
    // Read as before while tack runs.
    rpc.prompt("read it");
    let read = rpc.wait_for("tool_execution_end", |e| e["toolCallId"] == "read");
    assert!(read.to_string().contains("tick "), "{read}");
    rpc.wait("agent_end");
    assert!(rpc.finish().0.success());

    // tack is gone; the command is not (its shell leads its group), and its output goes on to
    // the file.
    let pid = group.to_string();
    let size = || std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    let before = size();
    let deadline = Instant::now() + WAIT;
    while size() <= before {
        assert!(
            Instant::now() < deadline,
            "nothing was written to {} after tack exited",
            log.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(
        text.starts_with("tick ") || text.contains("\ntick "),
        "{text}"
    );
    // SAFETY: kill(2) on the group the test's own command leads; it touches no memory.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    let deadline = Instant::now() + WAIT;
    while std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit_once(") ")
            .is_some_and(|(_, r)| r.starts_with('Z'))
    }) {
        assert!(
            Instant::now() < deadline,
            "the kept command outlived its kill"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `/jobs` is a picker where someone can answer it: each background command with its state and
/// runtime. Choosing an ended one shows its latest output (without taking it from
/// `bash_output`); choosing a running one offers to stop it, showing its output.
#[test]
fn jobs_picks_a_background_command_to_show_its_output_or_stop_it() {
    let env = new_env();
    let scripted = env.scripted(
        json!([
            // One turn each, so they are numbered in this order.
            { "tool_calls": [{ "id": "serve", "name": "bash", "arguments": {
                "command": "echo serving; sleep 300", "run_in_background": true } }] },
            { "tool_calls": [{ "id": "once", "name": "bash", "arguments": {
                "command": "echo built it", "run_in_background": true } }] },
            { "text": "started" },
            { "tool_calls": [{ "id": "read", "name": "bash_output", "arguments": { "id": 2 } }] },
            { "text": "read" }
        ]),
        json!({}),
    );
    let mut rpc = env.spawn(&["--plugin", &scripted]);
    rpc.run("start them");
    let deadline = Instant::now() + WAIT;
    loop {
        let listed = rpc.call(Command::RunCommand {
            name: "jobs".into(),
            args: "list".into(),
        });
        if listed["output"]
            .as_str()
            .is_some_and(|o| o.contains("echo built it — exited with code 0"))
        {
            break;
        }
        assert!(Instant::now() < deadline, "{listed}");
        std::thread::sleep(Duration::from_millis(20));
    }

    let pick = |rpc: &mut Rpc, index: usize| -> (String, Value) {
        let id = rpc.send(Command::RunCommand {
            name: "jobs".into(),
            args: String::new(),
        });
        let select = rpc.dialog();
        assert_eq!(select["method"], "select", "{select}");
        assert_eq!(select["title"], "Background commands", "{select}");
        let option = select["options"][index]
            .as_str()
            .expect("option")
            .to_string();
        rpc.client
            .answer(&UiResponse::select(
                select["id"].as_str().expect("id"),
                &option,
            ))
            .expect("answer");
        (id, select)
    };

    let (id, select) = pick(&mut rpc, 1);
    let options = select["options"].to_string();
    assert!(
        options.contains("\"1  running ")
            && options.contains("s · echo serving; sleep 300\"")
            && options.contains("\"2  exited with code 0 after ")
            && options.contains("s · echo built it\""),
        "{select}"
    );
    let shown = rpc.response(&id);
    let shown = shown.data.as_ref().expect("output")["output"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        shown.starts_with("**Background command 2** `echo built it` — exited with code 0 after ")
            && shown.contains("```\nbuilt it\n```"),
        "{shown}"
    );

    let (id, _) = pick(&mut rpc, 0);
    let confirm = rpc.dialog();
    assert_eq!(confirm["method"], "confirm", "{confirm}");
    assert_eq!(confirm["title"], "Stop background command 1?");
    let message = confirm["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("echo serving; sleep 300\nrunning for ")
            && message.ends_with("serving"),
        "{confirm}"
    );
    rpc.client
        .answer(&UiResponse::confirm(
            confirm["id"].as_str().expect("id"),
            true,
        ))
        .expect("answer");
    let stopped = rpc.response(&id);
    assert!(
        stopped.data.as_ref().expect("output")["output"]
            .as_str()
            .is_some_and(|o| o.starts_with("Background command 1 was stopped")),
        "{stopped:?}"
    );
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "setStatus" && e["statusKey"] == "jobs" && e["statusText"].is_null()
    });

    // What the picker showed is still the model's to read.
    rpc.prompt("read it");
    let read = rpc.wait_for("tool_execution_end", |e| e["toolCallId"] == "read");
    assert!(read.to_string().contains("built it"), "{read}");
    rpc.wait("agent_end");
    assert!(rpc.finish().0.success());
}

/// Pi's `registerProvider` and `unregisterProvider` (`tack:plugin/providers`): a provider
/// registered while the extension loads is listed at once, but used only with the grants of the
/// extension that registered it (its key's `secrets`, its endpoint's `http`), by the agent or by
/// the extension's own model calls; registered again by a command, the extension's model call
/// reaches it, it is picked with `set_model`, and its requests go where it says, written by
/// Anthropic's plugin, with the user's key and the extension's header; removed, it is gone from
/// the list. A built-in provider cannot be registered over, so no extension points Anthropic's
/// key elsewhere.
#[test]
fn a_pi_extension_registers_a_provider_that_is_used_with_its_grants_and_removed() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let server = tack_test_support::http::MockServer::always(
        tack_test_support::anthropic::text_reply("from the proxy"),
    );
    let env = new_env()
        .with_var("TEAM_PROXY_KEY", "team-secret")
        .with_var("ANTHROPIC_API_KEY", "sk-ant-canary");
    std::fs::write(
        env.home().join("grants.toml"),
        format!(
            "[plugins.pi-proxy-provider]\nsecrets = [\"TEAM_PROXY_KEY\"]\nhttp = [\"{}\"]\nagents = true\n",
            server.url()
        ),
    )
    .expect("grants");
    let scripted = env.scripted(json!([{ "text": "scripted" }]), json!({}));
    let proxy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/proxy-provider.ts");
    let mut rpc = env.spawn(&["--plugin", &scripted, "-e", proxy.to_str().expect("utf8")]);
    let notified = |rpc: &mut Rpc, prefix: &str| -> String {
        let event = rpc.wait_for("extension_ui_request", |e| {
            e["method"] == "notify" && e["message"].as_str().is_some_and(|m| m.starts_with(prefix))
        });
        event["message"].as_str().unwrap_or_default().to_string()
    };
    let proxy_models = |rpc: &mut Rpc| -> Vec<Value> {
        let models = rpc.call(Command::GetAvailableModels);
        models["models"]
            .as_array()
            .expect("models")
            .iter()
            .filter(|m| m["provider"] == "team-proxy")
            .cloned()
            .collect()
    };

    // Registered during `init`, at an endpoint the user did not grant: listed, but refused.
    let listed = proxy_models(&mut rpc);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["id"], "claude-proxy");
    assert_eq!(listed[0]["contextWindow"], 100000, "{listed:?}");
    // The extension's own model calls do not list it either.
    rpc.call(Command::RunCommand {
        name: "proxy".into(),
        args: "ask".into(),
    });
    assert_eq!(
        notified(&mut rpc, "asked:"),
        "asked: the proxy is not available"
    );
    rpc.call(Command::SetModel {
        provider: "team-proxy".into(),
        model_id: "claude-proxy".into(),
    });
    let refused = rpc.run("hello nobody");
    assert!(
        refused
            .to_string()
            .contains("http://127.0.0.1:9, which the plugin was not granted"),
        "{refused}"
    );

    // Nor may a model call on the session's model, now the proxy's.
    rpc.call(Command::RunCommand {
        name: "proxy".into(),
        args: "ask".into(),
    });
    let asked = notified(&mut rpc, "asked:");
    assert!(
        asked.contains("http://127.0.0.1:9, which the plugin was not granted"),
        "{asked}"
    );
    assert!(server.requests().is_empty());
    rpc.call(Command::SetModel {
        provider: "scripted".into(),
        model_id: "scripted-1".into(),
    });

    // Registered again at the granted endpoint by a command: picked and used.
    rpc.call(Command::RunCommand {
        name: "proxy".into(),
        args: format!("on {}", server.url()),
    });
    notified(&mut rpc, "proxy at");
    // The extension's model call reaches it, registered after the session started, while the
    // session's model is another provider's.
    rpc.call(Command::RunCommand {
        name: "proxy".into(),
        args: "ask".into(),
    });
    assert_eq!(notified(&mut rpc, "asked:"), "asked: from the proxy");
    let asked = server.requests();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].body_text().contains("ping the proxy"));
    assert!(asked[0].head.contains("team-secret"));
    let model: Model = rpc.call_as(Command::SetModel {
        provider: "team-proxy".into(),
        model_id: "claude-proxy".into(),
    });
    assert_eq!(model.id, "claude-proxy");
    let end = rpc.run("hello proxy");
    assert!(end.to_string().contains("from the proxy"), "{end}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{}", rpc.stderr());
    let head = requests[1].head.to_ascii_lowercase();
    assert!(head.starts_with("post /v1/messages"), "{head}");
    assert!(head.contains("x-api-key: team-secret"), "{head}");
    assert!(head.contains("x-team: blue"), "{head}");
    assert!(!head.contains("sk-ant-canary"), "{head}");
    let body = requests[1].body_text();
    assert!(body.contains("\"model\":\"claude-proxy\""), "{body}");
    assert!(body.contains("hello proxy"), "{body}");

    // A built-in's id is refused, and says why.
    rpc.call(Command::RunCommand {
        name: "proxy".into(),
        args: format!("hijack {}", server.url()),
    });
    let hijack = notified(&mut rpc, "refused:");
    assert!(hijack.contains("'anthropic' is there already"), "{hijack}");

    // Removed: gone from the list, and no longer picked.
    rpc.call(Command::RunCommand {
        name: "proxy".into(),
        args: "off".into(),
    });
    notified(&mut rpc, "proxy removed");
    assert!(proxy_models(&mut rpc).is_empty());
    let gone = rpc.fails(Command::SetModel {
        provider: "team-proxy".into(),
        model_id: "claude-proxy".into(),
    });
    assert!(gone.contains("unknown provider"), "{gone}");
    assert!(rpc.finish().0.success());
}

/// Pi's `sendMessage` on an idle agent (`control.send-custom-message`): without `triggerTurn`
/// the message is written to the session at once, with its `details`, and starts no turn; the
/// model reads it with the next prompt. With `triggerTurn: true` it starts a turn.
#[test]
fn a_pi_message_starts_a_turn_only_when_it_asks_to() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let (server, _env, mut rpc) = notes_extension("noted");
    rpc.call(Command::RunCommand {
        name: "note".into(),
        args: "quiet one".into(),
    });
    let written = rpc.wait_for("message_end", |e| e["message"]["customType"] == "note");
    assert_eq!(
        written["message"]["content"], "note: quiet one",
        "{written}"
    );
    assert_eq!(
        written["message"]["details"],
        json!({ "length": 9 }),
        "{written}"
    );
    let messages = rpc.messages();
    assert!(
        messages.iter().any(|m| m["customType"] == "note"),
        "{messages:?}"
    );
    assert!(
        rpc.position_of_event("agent_start").is_none(),
        "no turn started"
    );
    assert!(server.requests().is_empty());

    rpc.call(Command::RunCommand {
        name: "ask-note".into(),
        args: "why".into(),
    });
    rpc.wait("agent_end");
    let requests = server.bodies();
    assert_eq!(requests.len(), 1, "{requests:?}");
    // The quiet note is read with the turn the second message started.
    assert!(requests[0].contains("note: quiet one"), "{}", requests[0]);
    assert!(requests[0].contains("question: why"), "{}", requests[0]);
    assert!(rpc.finish().0.success());
}

/// tests/pi-extensions/notes.ts over RPC, on Anthropic's API at a local server answering `reply`.
fn notes_extension(reply: &str) -> (tack_test_support::http::MockServer, Env, Rpc) {
    let server = tack_test_support::http::MockServer::always(
        tack_test_support::anthropic::text_reply(reply),
    );
    let env = new_env().with_var("ANTHROPIC_API_KEY", "sk-ant-test");
    let notes = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/notes.ts");
    let rpc = env.spawn(&[
        "--provider",
        "anthropic",
        "--base-url",
        server.url(),
        "-e",
        notes.to_str().expect("utf8"),
    ]);
    (server, env, rpc)
}

/// Pi's `ctx.waitForIdle` (`control.wait-for-idle`): a command that sent a question and waits for
/// the run returns to tack meanwhile, so the run calls the extension's own `context` hook (its one
/// instance is free); once the agent is idle the command goes on with a command's powers (it starts a new
/// session), but may not wait a second time.
#[test]
fn a_pi_command_waits_for_idle_without_holding_its_extension() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let (server, _env, mut rpc) = notes_extension("forty-two");
    let first = rpc.state();
    rpc.call(Command::RunCommand {
        name: "ask-and-wait".into(),
        args: "the answer?".into(),
    });
    let said = rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "notify"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("after idle: "))
    });
    assert_eq!(
        said["message"],
        "after idle: forty-two (idle: true, provider calls: 1; ctx.waitForIdle: a command waits for idle once: it went on after the run it waited for)",
        "{said}"
    );
    assert_eq!(server.requests().len(), 1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while rpc.state().session_id == first.session_id {
        assert!(
            std::time::Instant::now() < deadline,
            "the command's new session never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(rpc.finish().0.success());
}

/// A Pi extension's commands move the session as Pi's do (`ctx.fork`, `ctx.switchSession`),
/// through `control.fork` / `switch-session`: once the command has returned, as RPC `fork` and
/// `switch_session` would, with `withSession` run in the session moved to. A tool may not move
/// the session, and a switch reaches only tack's own sessions, never a file of the plugin's
/// choosing.
#[test]
fn a_pi_command_forks_and_switches_sessions_once_it_has_returned() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "text": "first answer" },
            { "tool_calls": [{ "id": "t", "name": "fork_from_tool", "arguments": {} }] },
            { "text": "second answer" }
        ]),
        json!({}),
    );
    let moves = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/moves.ts");
    let mut rpc = env.spawn(&["--plugin", &scripted, "-e", moves.to_str().expect("utf8")]);
    rpc.run("first question");
    rpc.prompt("second question");
    let refused = rpc.wait_for("tool_execution_end", |e| e["toolCallId"] == "t");
    assert!(
        refused
            .to_string()
            .contains("only a command the user runs may fork the session"),
        "{refused}"
    );
    assert!(
        refused
            .to_string()
            .contains("only a command the user runs may wait for idle"),
        "{refused}"
    );
    rpc.wait("agent_end");
    let first = rpc.state();

    let notified = |rpc: &mut Rpc, prefix: &str| -> String {
        let event = rpc.wait_for("extension_ui_request", |e| {
            e["method"] == "notify" && e["message"].as_str().is_some_and(|m| m.starts_with(prefix))
        });
        event["message"].as_str().unwrap_or_default().to_string()
    };
    rpc.call(Command::RunCommand {
        name: "fork-last".into(),
        args: String::new(),
    });
    let said = notified(&mut rpc, "forked into ");
    let forked = rpc.state();
    assert_ne!(forked.session_id, first.session_id);
    assert_eq!(said, format!("forked into {}", forked.session_id));
    // Before the last user message: the first exchange only.
    let texts: Vec<String> = rpc
        .messages()
        .iter()
        .map(|m| m["content"].to_string())
        .collect();
    assert!(
        texts.len() == 2
            && texts[0].contains("first question")
            && texts[1].contains("first answer"),
        "{texts:?}"
    );

    rpc.call(Command::RunCommand {
        name: "switch-to".into(),
        args: first.session_id.clone(),
    });
    let said = notified(&mut rpc, "switched to ");
    assert_eq!(said, format!("switched to {}", first.session_id));
    assert_eq!(rpc.state().session_id, first.session_id);

    // Reads of the whole session (Pi's getEntries, getTree, getLabel, getLeafId, getHeader):
    // the label is an entry of its own, at the leaf.
    rpc.call(Command::RunCommand {
        name: "session-summary".into(),
        args: String::new(),
    });
    let said = notified(&mut rpc, "summary ");
    let summary: Value = serde_json::from_str(&said["summary ".len()..]).expect("summary JSON");
    let entries = summary["entries"].as_u64().expect("entries");
    assert_eq!(summary["branch"].as_u64(), Some(entries), "{summary}");
    assert_eq!(summary["roots"], 1, "{summary}");
    assert_eq!(summary["depth"].as_u64(), Some(entries), "{summary}");
    assert_eq!(summary["rootLabel"], "start", "{summary}");
    assert_eq!(summary["label"], "start", "{summary}");
    assert_eq!(summary["leafIsBranchEnd"], true, "{summary}");
    assert_eq!(summary["leafEntryType"], "label", "{summary}");
    assert_eq!(summary["found"], true, "{summary}");
    assert_eq!(summary["header"]["type"], "session", "{summary}");
    assert_eq!(
        summary["header"]["id"],
        first.session_id.as_str(),
        "{summary}"
    );
    assert!(summary["header"]["timestamp"].is_string(), "{summary}");
    assert!(
        summary["header"]["cwd"].is_string() && summary["header"].get("parentSession").is_none(),
        "{summary}"
    );

    // With the entry: a fork holding both exchanges.
    rpc.call(Command::RunCommand {
        name: "fork-at-last".into(),
        args: String::new(),
    });
    notified(&mut rpc, "forked into ");
    assert_eq!(
        rpc.messages().len(),
        3,
        "up to and with the second question"
    );

    // Not a file of the plugin's choosing, even a session-shaped one.
    let planted = env.workspace().join("planted.jsonl");
    std::fs::copy(
        first.session_file.as_deref().expect("a session file"),
        &planted,
    )
    .expect("plant");
    let before = rpc.state().session_id;
    rpc.call(Command::RunCommand {
        name: "switch-to".into(),
        args: planted.display().to_string(),
    });
    let deadline = Instant::now() + WAIT;
    while !rpc.stderr().contains("is not one of tack's sessions") {
        assert!(Instant::now() < deadline, "{}", rpc.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(rpc.state().session_id, before);
    assert!(rpc.finish().0.success());
}

/// Pi's `ctx.abort` (0.2.0 `control.abort`) from a tool stops the run that called it, as the
/// user's abort would: the calls after it never start, the model is not asked again, and the
/// user is told which plugin stopped it. The server then runs the next prompt.
#[test]
fn a_pi_tool_stops_the_run_with_ctx_abort() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "tool_calls": [
                { "id": "stop", "name": "stop_run", "arguments": {} },
                { "id": "later", "name": "write", "arguments": { "path": "never.txt", "content": "x" } }
            ] },
            { "text": "said after the abort" },
            { "text": "the next answer" }
        ]),
        json!({ "permission-gate": { "mode": "yolo" } }),
    );
    let moves = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/moves.ts");
    let mut rpc = env.spawn(&["--plugin", &scripted, "-e", moves.to_str().expect("utf8")]);
    rpc.prompt("go");
    let told = rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "notify"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.contains("stopped the agent's run"))
    });
    assert_eq!(told["notifyType"], "warning", "{told}");
    rpc.wait("agent_end");
    assert!(!env.workspace().join("never.txt").exists());
    let texts: Vec<String> = rpc.messages().iter().map(text_of).collect();
    assert!(
        !texts.iter().any(|t| t.contains("said after the abort")),
        "{texts:?}"
    );
    let end = rpc.run("again");
    assert!(end.to_string().contains("said after the abort"), "{end}");
    assert!(rpc.finish().0.success());
}

/// A plugin's `session-hooks` export (0.2.0) may cancel a session move, as Pi's
/// `session_before_switch` / `session_before_fork` may: RPC answers `cancelled: true` on the
/// session that stays open, and stderr names the plugin. The hostile plugin cancels everything.
#[test]
fn a_plugin_may_cancel_session_moves_and_is_named_for_it() {
    let env = new_env();
    let scripted = env.scripted(
        json!([{ "text": "first answer" }]),
        json!({ "hostile": { "sessions": "cancel" } }),
    );
    let hostile = env.plugin("hostile", artifacts::TEST_HOSTILE);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &hostile]);
    rpc.run("first question");
    let open = rpc.state().session_id;

    let new: SessionRef = rpc.call_as(Command::NewSession {
        parent_session: None,
    });
    assert!(new.cancelled, "{new:?}");
    assert_eq!(new.session_id, open);
    let points: Vec<ForkMessage> =
        serde_json::from_value(rpc.call(Command::GetForkMessages)["messages"].clone())
            .expect("points");
    let fork: SessionRef = rpc.call_as(Command::Fork {
        entry_id: points[0].entry_id.clone(),
    });
    assert!(fork.cancelled && fork.text.is_none(), "{fork:?}");
    let clone: SessionRef = rpc.call_as(Command::Clone);
    assert!(clone.cancelled, "{clone:?}");
    assert_eq!(rpc.state().session_id, open);
    let err = rpc.stderr();
    assert!(
        err.contains("plugin 'hostile' cancelled the new session"),
        "{err}"
    );
    assert!(err.contains("plugin 'hostile' cancelled the fork"), "{err}");
    assert!(rpc.finish().0.success());
    assert_eq!(env.session_files().len(), 1, "no session was made");

    // `/tree` asks too (print mode here): the move is refused, naming the plugin.
    let out = env.run(&[
        "--plugin",
        &scripted,
        "--plugin",
        &hostile,
        "-c",
        "-p",
        &format!("/tree {}", points[0].entry_id),
    ]);
    assert!(!out.status.success());
    assert!(
        tack_test_support::stderr(&out)
            .contains("plugin 'hostile' cancelled the move in the session tree"),
        "{}",
        tack_test_support::stderr(&out)
    );
}

/// The C SDK's defaults for 0.2.0's optional exports (tack_defaults.c) change nothing: a C plugin
/// built against 0.2.0 that defines none of them (Pi's session-name in C) exports
/// `session-hooks`, `provider-hooks` and `observer` all the same, and with it loaded a run
/// answers, and a new session, a fork and a clone each go ahead. Skipped without zig, unless
/// `TACK_REQUIRE_SDKS` is set.
#[test]
fn a_c_plugin_on_0_2_with_default_exports_lets_session_moves_proceed() {
    let name = "pi-session-name-c";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-c/session-name");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    let built = tack_sdk_examples::build_c_example(&toolchains, &dir, name);
    let Some(wasm) = tack_sdk_examples::built_or_skipped(name, built) else {
        return;
    };
    let env = new_env();
    let scripted = env.scripted(json!([{ "text": "first answer" }]), json!({}));
    let plugin = env.plugin(name, &wasm);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &plugin]);
    rpc.run("first question");
    let open = rpc.state().session_id;
    let points: Vec<ForkMessage> =
        serde_json::from_value(rpc.call(Command::GetForkMessages)["messages"].clone())
            .expect("points");

    let fork: SessionRef = rpc.call_as(Command::Fork {
        entry_id: points[0].entry_id.clone(),
    });
    assert!(!fork.cancelled, "{fork:?}");
    assert_eq!(fork.text.as_deref(), Some("first question"), "{fork:?}");
    let clone: SessionRef = rpc.call_as(Command::Clone);
    assert!(!clone.cancelled, "{clone:?}");
    let new: SessionRef = rpc.call_as(Command::NewSession {
        parent_session: None,
    });
    assert!(!new.cancelled, "{new:?}");
    assert_ne!(new.session_id, open);
    assert_eq!(rpc.state().session_id, new.session_id);
    let err = rpc.stderr();
    assert!(!err.contains("cancelled"), "{err}");
    assert!(rpc.finish().0.success());
}

/// A plugin subscribed to `dialog_open` (the hostile one) hears that another plugin's dialog
/// waits for the user: who asks and what kind of dialog, never its title, message or options,
/// and never when it asks itself.
#[test]
fn a_plugin_hears_that_a_dialog_waits_but_not_what_it_says() {
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "tool_calls": [{ "id": "rm1", "name": "bash",
                "arguments": { "command": "rm -r dialog-canary" } }] },
            { "text": "left it" }
        ]),
        json!({ "hostile": { "sessions": "trap" }, "permission-gate": { "mode": "auto" } }),
    );
    let hostile = env.plugin("hostile", artifacts::TEST_HOSTILE);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &hostile]);
    rpc.prompt("clean up");
    let dialog = rpc.dialog();
    let heard = || {
        env.session_lines()
            .into_iter()
            .filter(|l| l["customType"] == "saw-lifecycle" && l["data"]["type"] == "dialog_open")
            .map(|l| l["data"].clone())
            .collect::<Vec<Value>>()
    };
    let deadline = Instant::now() + WAIT;
    while heard().is_empty() {
        assert!(Instant::now() < deadline, "dialog_open never arrived");
        std::thread::sleep(Duration::from_millis(20));
    }
    rpc.client
        .answer(&UiResponse::cancel(dialog["id"].as_str().expect("id")))
        .expect("answer");
    rpc.wait("agent_end");
    let heard = heard();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(
        heard[0],
        json!({ "type": "dialog_open", "plugin": "permission-gate",
                "kind": dialog["method"] })
    );
    assert!(!heard[0].to_string().contains("dialog-canary"));
    assert!(rpc.finish().0.success());
}

/// A session hook that traps is logged and cancels nothing: a broken plugin never holds the
/// user in a session.
#[test]
fn a_session_hook_that_traps_cancels_nothing() {
    let env = new_env();
    let scripted = env.scripted(
        json!([{ "text": "first answer" }]),
        json!({ "hostile": { "sessions": "trap" } }),
    );
    let hostile = env.plugin("hostile", artifacts::TEST_HOSTILE);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &hostile]);
    rpc.run("first question");
    let open = rpc.state().session_id;
    rpc.call(Command::SetModel {
        provider: "scripted".into(),
        model_id: "scripted-1".into(),
    });
    // Delivered after the switch, on its own: seen once it is in the session.
    let arrived = |kind: &str| {
        let deadline = Instant::now() + WAIT;
        while !env
            .session_lines()
            .iter()
            .any(|l| l["customType"] == "saw-lifecycle" && l["data"]["type"] == kind)
        {
            assert!(Instant::now() < deadline, "{kind} never arrived");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    arrived("model_select");
    rpc.call(Command::SetThinkingLevel {
        level: "high".into(),
    });
    arrived("thinking_level_select");
    let new: SessionRef = rpc.call_as(Command::NewSession {
        parent_session: None,
    });
    assert!(!new.cancelled, "{new:?}");
    assert_ne!(new.session_id, open);
    assert!(rpc.finish().0.success());

    // What the plugin heard by name (0.2.0 `events`): why each session started and ended.
    let heard = |id: &str| -> Vec<Value> {
        let file = env
            .session_files()
            .into_iter()
            .find(|f| f.display().to_string().contains(id))
            .expect("session file");
        file_lines(&file)
            .into_iter()
            .filter(|l| l["customType"] == "saw-lifecycle")
            .map(|l| l["data"].clone())
            .collect()
    };
    let old = heard(&open);
    assert_eq!(old[0]["type"], "session_start", "{old:?}");
    assert_eq!(old[0]["reason"], "startup", "{old:?}");
    assert_eq!(old[1]["type"], "model_select", "{old:?}");
    assert_eq!(old[1]["source"], "set", "{old:?}");
    assert_eq!(old[1]["model"]["id"], "scripted-1", "{old:?}");
    assert_eq!(old[1]["previousModel"]["provider"], "scripted", "{old:?}");
    // The scripted model does not think: the level asked for is clamped, as Pi clamps it.
    assert_eq!(old[2]["type"], "thinking_level_select", "{old:?}");
    assert_eq!(old[2]["level"], "off", "{old:?}");
    assert_eq!(old[2]["previousLevel"], "off", "{old:?}");
    assert_eq!(old[3]["type"], "session_shutdown", "{old:?}");
    assert_eq!(old[3]["reason"], "new", "{old:?}");
    assert_eq!(
        old[3]["targetSessionId"],
        new.session_id.as_str(),
        "{old:?}"
    );
    let fresh = heard(&new.session_id);
    assert_eq!(fresh[0]["type"], "session_start", "{fresh:?}");
    assert_eq!(fresh[0]["reason"], "new", "{fresh:?}");
    assert_eq!(fresh[0]["previousSessionId"], open.as_str(), "{fresh:?}");
    assert_eq!(fresh[1]["reason"], "quit", "{fresh:?}");

    // A `/tree` move in the first session (print mode): `session_tree` names both leaves.
    let first_prompt = env
        .session_lines()
        .into_iter()
        .find(|l| l["type"] == "message" && l["message"]["role"] == "user")
        .and_then(|l| l["id"].as_str().map(str::to_string))
        .expect("the first prompt");
    let out = env.run(&[
        "--plugin",
        &scripted,
        "--plugin",
        &hostile,
        "-r",
        &open,
        "-p",
        &format!("/tree {first_prompt}"),
    ]);
    assert!(out.status.success(), "{}", tack_test_support::stderr(&out));
    let moved: Vec<Value> = heard(&open)
        .into_iter()
        .filter(|e| e["type"] == "session_tree")
        .collect();
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(moved[0]["newLeafId"], first_prompt.as_str(), "{moved:?}");
    assert!(moved[0]["oldLeafId"].is_string(), "{moved:?}");
}

/// Pi's `git-checkpoint.ts`, ported (`examples/pi/git-checkpoint`): the working tree is
/// checkpointed before the model changes it for a prompt; forking at that prompt asks whether to
/// restore it, and "yes" puts the files back as they were.
#[test]
fn pi_git_checkpoint_offers_the_code_of_a_prompt_back_when_forking_at_it() {
    let env = new_env();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(env.workspace())
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "add", "."]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "start",
    ]);
    // A change of the user's own, not committed: the checkpoint keeps it too.
    std::fs::write(
        env.workspace().join("README.md"),
        "# Demo, edited by the user\n",
    )
    .expect("edit");
    let scripted = env.scripted(
        json!([
            { "tool_calls": [{ "id": "w1", "name": "write", "arguments": {
                "path": "README.md", "content": "# Rewritten by the model\n" } }] },
            { "text": "rewritten" }
        ]),
        // The write is the model's to make here; the permission dialog is another test's.
        json!({ "permission-gate": { "mode": "yolo" } }),
    );
    let dir = env.example_package("pi/git-checkpoint", artifacts::PI_GIT_CHECKPOINT);
    env.grant(
        "pi-git-checkpoint",
        r#"exec = ["git stash create", "git rev-parse HEAD", "git checkout * -- ."]"#,
    );
    let checkpoint = dir.display().to_string();
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &checkpoint]);
    rpc.run("rewrite the readme");
    let readme = || std::fs::read_to_string(env.workspace().join("README.md")).expect("readme");
    assert_eq!(readme(), "# Rewritten by the model\n");

    let points: Vec<ForkMessage> =
        serde_json::from_value(rpc.call(Command::GetForkMessages)["messages"].clone())
            .expect("points");
    let id = rpc.send(Command::Fork {
        entry_id: points[0].entry_id.clone(),
    });
    let ask = rpc.dialog();
    assert_eq!(ask["plugin"], "pi-git-checkpoint");
    assert_eq!(ask["title"], "Restore code state?");
    assert_eq!(ask["options"][0], "Yes, restore code to that point");
    let dialog = ask["id"].as_str().expect("id").to_string();
    rpc.client
        .answer(&UiResponse::select_index(&dialog, 0))
        .expect("answer");
    let forked = rpc.response(&id);
    assert!(forked.success, "{forked:?}");
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "notify" && e["message"] == "Code restored to checkpoint"
    });
    assert_eq!(
        readme(),
        "# Demo, edited by the user\n",
        "the code as it was"
    );
    assert!(rpc.finish().0.success());
}

/// A plugin's title and editor text (`tack:plugin/screen`, 0.2.0) reach the client as Pi's
/// `setTitle` and `set_editor_text`, with terminal escape sequences made visible, never sent;
/// more editor text than the budget fails the call, naming the budget.
#[test]
fn screen_text_from_a_plugin_reaches_the_client_neutralised_and_budgeted() {
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "tool_calls": [{ "id": "s1", "name": "screen_escape", "arguments": {} }] },
            { "tool_calls": [{ "id": "s2", "name": "screen_escape", "arguments": { "huge": true } }] },
            { "text": "done" }
        ]),
        json!({}),
    );
    let hostile = env.plugin("hostile", artifacts::TEST_HOSTILE);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &hostile]);
    rpc.run("set the screen");
    let requests: Vec<Value> = rpc
        .client
        .transcript()
        .iter()
        .filter_map(|l| match l {
            Incoming::Event(e) if e["type"] == "extension_ui_request" => Some(e.clone()),
            _ => None,
        })
        .collect();
    let title = requests
        .iter()
        .find(|e| e["method"] == "setTitle")
        .and_then(|e| e["title"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(title.starts_with("title "), "{title}");
    assert!(
        !title.contains('\x1b') && !title.contains('\x07'),
        "{title:?}"
    );
    let texts: Vec<String> = rpc
        .client
        .transcript()
        .iter()
        .filter_map(|l| match l {
            Incoming::Event(e) if e["method"] == "set_editor_text" => {
                e["text"].as_str().map(str::to_string)
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        texts.len(),
        2,
        "set, then a paste (a set in RPC, as Pi's): {texts:?}"
    );
    assert!(
        texts[0].starts_with("rm -rf ~ ") && texts[1].starts_with("pasted "),
        "{texts:?}"
    );
    assert!(texts.iter().all(|t| !t.contains('\x1b')), "{texts:?}");
    let end = rpc
        .client
        .transcript()
        .iter()
        .find_map(|l| match l {
            Incoming::Event(e) if e["type"] == "tool_execution_end" && e["toolCallId"] == "s2" => {
                Some(e.clone())
            }
            _ => None,
        })
        .expect("the second call ended");
    assert_eq!(end["isError"], true, "{end}");
    assert!(end.to_string().contains("editor text"), "{end}");
    assert!(rpc.finish().0.success());
}

/// Pi's `question.ts`, ported to Python on 0.2.0 (`examples/pi-python/question`): the model's
/// `question` call asks the client to pick an option, or to write an answer after picking "Type
/// something."; the tool's result says which, as Pi's does. In print mode, with nobody to ask,
/// it says so. Skipped without the Python SDK toolchain, unless `TACK_REQUIRE_SDKS` is set.
#[test]
fn pi_question_in_python_asks_the_client_and_returns_the_answer() {
    let name = "pi-question-python";
    let dir = tack_sdk_examples::repo_root().join("examples/pi-python/question");
    let toolchains = tack_sdk_examples::Toolchains::locate();
    let Some(wasm) = tack_sdk_examples::built_or_skipped(
        name,
        tack_sdk_examples::build_python_package(&toolchains, &dir, name),
    ) else {
        return;
    };
    let env = new_env();
    let ask = json!({ "tool_calls": [{ "id": "q", "name": "question", "arguments": {
        "question": "Which database?",
        "options": [
            { "label": "SQLite", "description": "one file, no server" },
            { "label": "PostgreSQL" }
        ] } }] });
    let scripted = env.scripted(
        json!([ask, { "text": "noted" }, ask, { "text": "noted again" }, ask, { "text": "x" }]),
        json!({}),
    );
    let question = env.plugin(name, &wasm);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &question]);

    rpc.prompt("pick a database");
    let dialog = rpc.dialog();
    assert_eq!(dialog["method"], "select");
    assert_eq!(dialog["title"], "Which database?");
    assert_eq!(
        dialog["options"],
        json!([
            "SQLite — one file, no server",
            "PostgreSQL",
            "Type something."
        ])
    );
    let id = dialog["id"].as_str().expect("id").to_string();
    rpc.client
        .answer(&UiResponse::select_index(&id, 1))
        .expect("answer");
    let end = rpc.wait_for("tool_execution_end", |e| e["toolCallId"] == "q");
    assert!(
        end.to_string().contains("User selected: 2. PostgreSQL"),
        "{end}"
    );
    rpc.wait("agent_end");

    rpc.prompt("again");
    let dialog = rpc.dialog();
    let id = dialog["id"].as_str().expect("id").to_string();
    rpc.client
        .answer(&UiResponse::select_index(&id, 2))
        .expect("answer");
    let input = rpc.dialog();
    assert_eq!(input["method"], "input");
    let id = input["id"].as_str().expect("id").to_string();
    rpc.client
        .answer(&UiResponse::input(&id, "DuckDB"))
        .expect("answer");
    let end = rpc.wait_for("tool_execution_end", |e| e["toolCallId"] == "q");
    assert!(end.to_string().contains("User wrote: DuckDB"), "{end}");
    assert!(end.to_string().contains("\"wasCustom\":true"), "{end}");
    rpc.wait("agent_end");
    assert!(rpc.finish().0.success());

    let out = env.run(&[
        "--plugin", &scripted, "--plugin", &question, "--mode", "json", "pick one",
    ]);
    let events = tack_test_support::json_mode::json_events(&out);
    let (_, text) = tack_test_support::json_mode::tool_result(&events, "q");
    assert_eq!(
        text,
        "Error: UI not available (running in non-interactive mode)"
    );
}

/// A plugin may end tack (`control.shutdown`, Pi's `ctx.shutdown`), but only as `/quit` does and
/// only once the run that asked is over: the model still answers after the tool that asked, then
/// tack closes its output by itself, naming the plugin.
#[test]
fn a_plugin_ends_tack_only_once_the_run_is_over() {
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "tool_calls": [{ "id": "q", "name": "end_tack", "arguments": {} }] },
            { "text": "answered after the request" }
        ]),
        json!({}),
    );
    let hostile = env.plugin("hostile", artifacts::TEST_HOSTILE);
    let mut rpc = env.spawn(&["--plugin", &scripted, "--plugin", &hostile]);
    rpc.prompt("finish up");
    let end = rpc.wait("agent_end");
    assert!(
        end.to_string().contains("answered after the request"),
        "{end}"
    );
    loop {
        match rpc.client.next_event(WAIT) {
            Ok(_) => continue,
            Err(tack_protocol::client::ClientError::Closed) => break,
            Err(e) => panic!("tack did not end by itself: {e}; stderr:\n{}", rpc.stderr()),
        }
    }
    assert!(
        rpc.stderr().contains("tack: hostile ended tack"),
        "{}",
        rpc.stderr()
    );
}

/// Pi's `ctx.navigateTree` from a command (`tests/pi-extensions/moves.ts`, through
/// `control.navigate-tree`): once the command has returned, the move the user's `/tree` makes,
/// in the same session; a user message is moved before, its text sent to the client's editor,
/// and the next prompt follows the first exchange.
#[test]
fn a_pi_command_moves_in_the_session_tree_once_it_has_returned() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let env = new_env();
    let scripted = env.scripted(
        json!([
            { "text": "first answer" },
            { "text": "second answer" },
            { "text": "third answer" }
        ]),
        json!({}),
    );
    let moves = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-extensions/moves.ts");
    let mut rpc = env.spawn(&["--plugin", &scripted, "-e", moves.to_str().expect("utf8")]);
    rpc.run("first question");
    rpc.run("second question");
    let session = rpc.state().session_id;
    rpc.call(Command::RunCommand {
        name: "tree-to-last".into(),
        args: String::new(),
    });
    rpc.wait_for("extension_ui_request", |e| {
        e["method"] == "notify" && e["message"] == "tree move asked: cancelled=false"
    });
    let edit = rpc.wait_for("extension_ui_request", |e| e["method"] == "set_editor_text");
    assert_eq!(edit["text"], "second question", "{edit}");
    assert_eq!(rpc.state().session_id, session, "the same session");
    let texts: Vec<String> = rpc
        .messages()
        .iter()
        .map(|m| m["content"].to_string())
        .collect();
    assert!(
        texts.len() == 2
            && texts[0].contains("first question")
            && texts[1].contains("first answer"),
        "before the second question: {texts:?}"
    );
    rpc.run("another question");
    let texts: Vec<String> = rpc
        .messages()
        .iter()
        .map(|m| m["content"].to_string())
        .collect();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(texts[2].contains("another question"), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.contains("second question")),
        "{texts:?}"
    );
    assert!(rpc.finish().0.success());
}
