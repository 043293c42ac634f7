//! The first-party policy plugins (plan-mode, permission-gate, protected-paths, todo) as real
//! components, driven through the real agent loop: the scripted provider plays the model,
//! core-tools does the work in a temporary workspace, and a test UI answers the plugins' dialogs
//! from a queue while custom entries go to a real session file. Then the host's hook chaining
//! across several plugins (first block wins, rewrites and replacements chain, failures fail
//! closed for before-tool-call and open elsewhere), with a configurable test plugin.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_core::agent::{AgentStartPatch, Hooks, InputAction, ToolDecision};
use tack_core::message::{Content, Message, ToolCall, ToolResult, ToolResultMessage};
use tack_core::session::{EntryKind, SessionHandle};
use tack_core::{Agent, RunOutcome, RunStatus};
use tack_runtime::api::Level;
use tack_runtime::bridge::PluginHooks;
use tack_runtime::{AgentServices, Manifest, PluginAgent, PluginSet, PluginSpec, PluginUi};
use tack_test_support::runtime::{
    builtin_spec, manifest_spec, wire_agent, AgentOptions, Scene, Services,
};
use tokio_util::sync::CancellationToken;

// ---- the test UI and session --------------------------------------------------------------

/// The UI for the tests: dialogs answered from queues (an empty queue answers like a front end
/// without a UI), everything shown recorded. Session and agent are the runtime's own services.
#[derive(Default)]
struct TestUi {
    confirms: Mutex<VecDeque<bool>>,
    selects: Mutex<VecDeque<Option<u32>>>,
    /// Every dialog, as "confirm: title" or "select: title".
    asked: Mutex<Vec<String>>,
    widgets: Mutex<Vec<(String, Vec<String>)>>,
    statuses: Mutex<Vec<(String, Option<String>)>>,
    notices: Mutex<Vec<String>>,
    logs: Mutex<Vec<String>>,
}

fn locked<T: Clone>(m: &Mutex<T>) -> T {
    m.lock()
        .map(|g| g.clone())
        .unwrap_or_else(|p| p.into_inner().clone())
}

fn push<T>(m: &Mutex<Vec<T>>, value: T) {
    m.lock().unwrap_or_else(|p| p.into_inner()).push(value);
}

#[async_trait::async_trait]
impl PluginUi for TestUi {
    fn log(&self, plugin: &str, _level: Level, message: &str) {
        push(&self.logs, format!("[{plugin}] {message}"));
    }

    async fn confirm(&self, _plugin: &str, title: &str, _message: &str, _t: Option<u32>) -> bool {
        push(&self.asked, format!("confirm: {title}"));
        let mut queue = self.confirms.lock().unwrap_or_else(|p| p.into_inner());
        queue.pop_front().unwrap_or(false)
    }

    async fn select(
        &self,
        _plugin: &str,
        title: &str,
        _options: &[String],
        _t: Option<u32>,
    ) -> Option<u32> {
        push(&self.asked, format!("select: {title}"));
        let mut queue = self.selects.lock().unwrap_or_else(|p| p.into_inner());
        queue.pop_front().flatten()
    }

    fn notify(&self, plugin: &str, _level: Level, message: &str) {
        push(&self.notices, format!("[{plugin}] {message}"));
    }

    fn set_status(&self, _plugin: &str, key: &str, text: Option<&str>) {
        push(&self.statuses, (key.to_string(), text.map(str::to_string)));
    }

    fn set_widget(
        &self,
        _plugin: &str,
        key: &str,
        lines: &[String],
        _placement: tack_runtime::WidgetPlacement,
    ) {
        push(&self.widgets, (key.to_string(), lines.to_vec()));
    }
}

// ---- the harness ----------------------------------------------------------------------------

/// A plugin to load beside the scripted provider and core-tools.
struct Extra {
    name: &'static str,
    wasm: &'static str,
    config: Value,
    /// Tools whose calls the plugin is granted to rewrite (a test plugin's manifest asks for
    /// exactly these).
    rewrite: Vec<String>,
}

fn extra(name: &'static str, wasm: &'static str, config: Value) -> Extra {
    Extra {
        name,
        wasm,
        config,
        rewrite: Vec::new(),
    }
}

/// A test component under a name of our choosing, asking for and granted only `rewrite`.
fn test_spec(name: &str, wasm: &str, config: Value, rewrite: &[String]) -> PluginSpec {
    let manifest = format!(
        "[plugin]\nname = \"{name}\"\nversion = \"0.0.1\"\napi = \"0.1\"\ncomponent = \"x.wasm\"\n\n[capabilities]\nrewrite = {rewrite:?}\n"
    );
    let granted = Manifest::parse(&manifest).expect("manifest").capabilities;
    manifest_spec(&manifest, wasm, granted, config)
}

struct Harness {
    agent: Agent,
    set: Arc<PluginSet>,
    hooks: Arc<PluginHooks>,
    ui: Arc<TestUi>,
    agents: Arc<AgentServices>,
    session: SessionHandle,
    workspace: PathBuf,
    scene: Scene,
}

impl Harness {
    /// Loads the scripted provider playing `script`, core-tools, then `extras` in order.
    async fn new(script: Vec<Value>, extras: Vec<Extra>) -> Harness {
        Harness::with_workspace(script, extras, |_| {}).await
    }

    /// In a project the user trusts.
    async fn with_workspace(
        script: Vec<Value>,
        extras: Vec<Extra>,
        prepare: impl FnOnce(&Path),
    ) -> Harness {
        Harness::with_trust(script, extras, prepare, true).await
    }

    async fn with_trust(
        script: Vec<Value>,
        extras: Vec<Extra>,
        prepare: impl FnOnce(&Path),
        project_trusted: bool,
    ) -> Harness {
        let scene = Scene::new();
        prepare(&scene.workspace);
        let ui = Arc::new(TestUi::default());
        let services = Services::new(ui.clone());
        let host = scene.host(services.host(), project_trusted);
        let mut specs = vec![
            test_spec(
                "scripted",
                artifacts::TEST_SCRIPTED_PROVIDER,
                json!({ "script": script }),
                &[],
            ),
            builtin_spec("core-tools", json!({})),
        ];
        for e in extras {
            specs.push(if tack_builtin::builtin(e.name).is_some() {
                builtin_spec(e.name, e.config)
            } else {
                test_spec(e.name, e.wasm, e.config, &e.rewrite)
            });
        }
        let set = scene.load(specs, &host).await;
        let (_store, session) = scene.session();
        let wired = wire_agent(&scene, &set, &session, &services, AgentOptions::default());
        Harness {
            agent: wired.agent,
            set,
            hooks: wired.hooks,
            ui,
            agents: services.agent,
            session,
            workspace: scene.workspace.clone(),
            scene,
        }
    }

    async fn prompt(&self, text: &str) -> RunOutcome {
        let outcome = self
            .agent
            .prompt_text(text, CancellationToken::new())
            .await
            .expect("the run");
        assert_eq!(outcome.status, RunStatus::Completed, "{outcome:?}");
        outcome
    }

    async fn command(&self, name: &str, args: &str) -> String {
        let (plugin, _) = self
            .set
            .command(name)
            .unwrap_or_else(|| panic!("/{name} is registered"));
        plugin
            .run_command(name, args)
            .await
            .expect("the command runs")
            .unwrap_or_else(|e| panic!("/{name} {args} failed: {e}"))
            .unwrap_or_default()
    }

    fn answer_confirms(&self, answers: &[bool]) {
        self.ui
            .confirms
            .lock()
            .expect("lock")
            .extend(answers.iter().copied());
    }

    fn answer_selects(&self, answers: &[Option<u32>]) {
        self.ui
            .selects
            .lock()
            .expect("lock")
            .extend(answers.iter().copied());
    }

    /// The `data` of every custom entry of `custom_type` on the active branch.
    fn custom_entries(&self, custom_type: &str) -> Vec<Value> {
        let session = self.session.lock();
        session
            .branch()
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Custom {
                    custom_type: t,
                    data,
                    ..
                } if t == custom_type => Some(data.clone()),
                _ => None,
            })
            .collect()
    }

    /// The id of the entry holding the result of tool call `call_id`.
    fn result_entry(&self, call_id: &str) -> String {
        let session = self.session.lock();
        session
            .entries()
            .iter()
            .find(|e| {
                matches!(&e.kind, EntryKind::Message(m)
                    if matches!(m.as_ref(), Message::ToolResult(r) if r.tool_call_id == call_id))
            })
            .map(|e| e.id.clone())
            .unwrap_or_else(|| panic!("no result for {call_id}"))
    }

    fn file(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.workspace.join(name)).ok()
    }
}

fn result<'a>(outcome: &'a RunOutcome, call_id: &str) -> &'a ToolResultMessage {
    outcome
        .messages
        .iter()
        .find_map(|m| match m.as_ref() {
            Message::ToolResult(r) if r.tool_call_id == call_id => Some(r),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no result for {call_id}"))
}

fn text(result: &ToolResultMessage) -> String {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Text(t) => Some(t.text.as_str()),
            Content::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({ "id": id, "name": name, "arguments": arguments })
}

fn bash(id: &str, command: &str) -> Value {
    call(id, "bash", json!({ "command": command }))
}

// ---- plan mode --------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_explores_read_only_then_executes_the_approved_plan() {
    let script = vec![
        json!({ "tool_calls": [
            call("edit", "edit", json!({ "path": "README.md", "edits": [{ "old_text": "hello", "new_text": "bye" }] })),
            bash("rm", "rm -rf README.md"),
            bash("ls", "ls"),
            bash("git", "git status"),
            bash("sneaky", "cat README.md > copy.md"),
        ]}),
        json!({ "text": "I looked around.\n\nPlan:\n1. Write notes.txt with a summary\n2. Report back\n" }),
        json!({ "text": "Writing notes.txt. [DONE:1]", "tool_calls": [call("write", "write", json!({ "path": "notes.txt", "content": "summary\n" }))] }),
        json!({ "text": "notes.txt holds the summary. [DONE:2]" }),
    ];
    let h = Harness::with_workspace(
        script,
        vec![
            extra(
                "plan-mode",
                artifacts::PLAN_MODE,
                json!({ "enabled": true }),
            ),
            extra("todo", artifacts::TODO, json!({})),
        ],
        |ws| std::fs::write(ws.join("README.md"), "hello\n").expect("readme"),
    )
    .await;

    // Turned on by config: the prompt gets the plan instructions, the tools become read-only.
    let patch: AgentStartPatch = h.hooks.before_agent_start("look", "base").await;
    let system = patch.system_prompt.expect("plan instructions");
    assert!(
        system.starts_with("base") && system.contains("Plan:"),
        "{system}"
    );
    let out = h.prompt("Plan how to summarize this repo").await;
    let mut active = h.agents.active_tools();
    active.sort();
    assert_eq!(
        active,
        vec![
            "bash",
            "bash_kill",
            "bash_output",
            "find",
            "grep",
            "ls",
            "read",
            "todo"
        ]
    );

    let edit = result(&out, "edit");
    assert!(edit.is_error, "edit must not run: {}", text(edit));
    let rm = result(&out, "rm");
    assert!(
        rm.is_error && text(rm).contains("plan mode"),
        "{}",
        text(rm)
    );
    assert!(text(rm).contains("rm -rf README.md"), "{}", text(rm));
    let sneaky = result(&out, "sneaky");
    assert!(text(sneaky).contains("copy.md"), "{}", text(sneaky));
    assert_eq!(h.file("README.md").as_deref(), Some("hello\n"));
    assert!(h.file("copy.md").is_none());
    let ls = result(&out, "ls");
    assert!(
        !ls.is_error && text(ls).contains("README.md"),
        "{}",
        text(ls)
    );
    let git = result(&out, "git");
    assert!(
        !text(git).contains("blocked"),
        "git status is allowed: {}",
        text(git)
    );
    // The hook itself blocks edits with the planning reason, should the tool still be active.
    let decision = h
        .hooks
        .before_tool_call(&ToolCall {
            id: "x".into(),
            name: "write".into(),
            arguments: json!({ "path": "a", "content": "" }),
        })
        .await;
    assert!(
        matches!(&decision, ToolDecision::Block(r) if r.contains("planning") && r.contains("Plan:")),
        "{decision:?}"
    );

    // The plan was captured from the assistant's message into the session.
    let states = h.custom_entries("plan-mode");
    let latest = states.last().expect("a plan-mode entry");
    assert_eq!(latest["enabled"], true);
    assert_eq!(latest["steps"][0]["text"], "Write notes.txt with a summary");
    assert_eq!(latest["steps"][1]["n"], 2);

    // `/plan off`, answered yes: execution starts with the full tool set.
    h.answer_confirms(&[true]);
    let reply = h.command("plan", "off").await;
    assert!(reply.contains("executing the plan (2 steps)"), "{reply}");
    assert_eq!(locked(&h.ui.asked), vec!["confirm: Execute the plan?"]);
    assert!(h.agents.active_tools().contains(&"write".to_string()));

    let out = h.prompt("go").await;
    let write = result(&out, "write");
    assert!(!write.is_error, "{}", text(write));
    assert_eq!(h.file("notes.txt").as_deref(), Some("summary\n"));
    // The steering message that started execution reached the session.
    assert!(out.messages.iter().any(|m| matches!(m.as_ref(),
        Message::Custom(c) if c.custom_type == "plan-mode" && c.content.contains("[DONE:n]"))));

    let latest = h.custom_entries("plan-mode").pop().expect("state");
    assert_eq!(latest["executing"], false, "{latest}");
    assert_eq!(latest["steps"][0]["done"], true);
    assert_eq!(latest["steps"][1]["done"], true);
    // Progress showed in the widget and status line, then cleared once the plan was complete.
    let widgets = locked(&h.ui.widgets);
    assert!(
        widgets.iter().any(|(key, lines)| key == "plan"
            && lines
                == &[
                    "[x] 1. Write notes.txt with a summary",
                    "[ ] 2. Report back"
                ]),
        "{widgets:?}"
    );
    assert_eq!(widgets.last(), Some(&("plan".to_string(), Vec::new())));
    let statuses = locked(&h.ui.statuses);
    assert!(
        statuses.contains(&("plan".to_string(), Some("plan 1/2".to_string()))),
        "{statuses:?}"
    );
    assert!(locked(&h.ui.notices)
        .iter()
        .any(|n| n.contains("Plan complete")));
    // Plan mode is off now: nothing is blocked.
    let decision = h
        .hooks
        .before_tool_call(&ToolCall {
            id: "y".into(),
            name: "bash".into(),
            arguments: json!({ "command": "rm -rf x" }),
        })
        .await;
    assert_eq!(decision, ToolDecision::Allow);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_toggles_and_a_declined_plan_is_not_executed() {
    let script = vec![json!({ "text": "Plan:\n1. Do a thing" })];
    let h = Harness::new(
        script,
        vec![extra("plan-mode", artifacts::PLAN_MODE, json!({}))],
    )
    .await;
    let reply = h.command("plan", "").await;
    assert!(reply.contains("Plan mode on"), "{reply}");
    assert!(!h.agents.active_tools().contains(&"write".to_string()));
    h.prompt("plan it").await;
    h.answer_confirms(&[false]);
    let reply = h.command("plan", "").await;
    assert!(reply.contains("not executed"), "{reply}");
    let latest = h.custom_entries("plan-mode").pop().expect("state");
    assert_eq!(latest["enabled"], false);
    assert_eq!(latest["executing"], false);
    assert!(h.agents.active_tools().contains(&"write".to_string()));
    assert_eq!(h.command("plan", "off").await, "Plan mode is already off.");
}

// ---- permission gate ----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_gate_denies_asks_and_remembers() {
    let script = vec![
        json!({ "tool_calls": [bash("push", "git push origin main")] }),
        json!({ "tool_calls": [bash("once", "touch once.txt")] }),
        json!({ "tool_calls": [bash("always", "touch always.txt")] }),
        json!({ "tool_calls": [bash("again", "touch always.txt")] }),
        json!({ "tool_calls": [bash("sudo", "sudo ls")] }),
        json!({ "tool_calls": [bash("unanswered", "touch never.txt")] }),
        json!({ "tool_calls": [bash("read", "ls -a")] }),
        json!({ "text": "done" }),
    ];
    let h = Harness::with_workspace(
        script,
        vec![extra("permission-gate", artifacts::PERMISSION_GATE, json!({}))],
        |ws| {
            std::fs::create_dir_all(ws.join(".tack")).expect("dir");
            std::fs::write(
                ws.join(".tack/permissions.toml"),
                "# team rules\n[[rules]]\ntool = \"bash\"\npattern = \"git push\"\naction = \"deny\"\n",
            )
            .expect("rules");
        },
    )
    .await;
    // Allow once, always allow, deny; the fourth question finds nobody to answer.
    h.answer_selects(&[Some(0), Some(1), Some(2)]);
    let out = h.prompt("make some files").await;

    let push = result(&out, "push");
    assert!(push.is_error, "{}", text(push));
    assert!(
        text(push).contains("pattern = \"git push\"") && text(push).contains("project rules"),
        "the reason names the rule: {}",
        text(push)
    );
    assert!(!result(&out, "once").is_error);
    assert!(h.file("once.txt").is_some());
    assert!(!result(&out, "always").is_error);
    assert!(!result(&out, "again").is_error);
    assert!(h.file("always.txt").is_some());
    let sudo = result(&out, "sudo");
    assert!(
        sudo.is_error && text(sudo).contains("the user denied") && text(sudo).contains("\"sudo\""),
        "{}",
        text(sudo)
    );
    let unanswered = result(&out, "unanswered");
    assert!(unanswered.is_error && text(unanswered).contains("no one answered"));
    assert!(h.file("never.txt").is_none());
    assert!(
        !result(&out, "read").is_error,
        "read-only commands run unasked"
    );
    assert_eq!(
        locked(&h.ui.asked),
        vec![
            "select: Allow bash touch once.txt?",
            "select: Allow bash touch always.txt?",
            "select: Allow bash sudo ls?",
            "select: Allow bash touch never.txt?",
        ],
        "the remembered command is not asked again"
    );
    let rules = h.file(".tack/permissions.toml").expect("rules file");
    assert!(rules.starts_with("# team rules"), "{rules}");
    assert!(
        rules.contains("pattern = \"touch always.txt\"\naction = \"allow\"\nmatch = \"exact\""),
        "{rules}"
    );
    assert!(!rules.contains("once.txt"), "{rules}");

    // Switching mode is kept in the session and shown by /permissions.
    let reply = h.command("permissions", "read-only").await;
    assert!(reply.contains("read-only"), "{reply}");
    assert_eq!(
        h.custom_entries("permission-gate"),
        vec![json!({ "mode": "read-only" })]
    );
    let touch = h
        .hooks
        .before_tool_call(&ToolCall {
            id: "t".into(),
            name: "bash".into(),
            arguments: json!({ "command": "touch always.txt" }),
        })
        .await;
    assert!(
        matches!(&touch, ToolDecision::Block(r) if r.contains("read-only mode")),
        "{touch:?}"
    );
    let overview = h.command("permissions", "").await;
    assert!(
        overview.contains("Permission mode: read-only"),
        "{overview}"
    );
    assert!(
        overview.contains("allow bash `touch always.txt`"),
        "{overview}"
    );
    assert!(overview.contains("deny bash `git push`"), "{overview}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_gate_auto_mode_asks_only_for_dangerous_commands() {
    let script = vec![
        json!({ "tool_calls": [bash("touch", "touch made.txt")] }),
        json!({ "tool_calls": [bash("rm1", "rm -r build")] }),
        json!({ "tool_calls": [bash("mk", "mkdir build")] }),
        json!({ "tool_calls": [bash("rm2", "rm -r build")] }),
        json!({ "text": "done" }),
    ];
    let h = Harness::with_workspace(
        script,
        vec![extra(
            "permission-gate",
            artifacts::PERMISSION_GATE,
            json!({ "mode": "auto" }),
        )],
        |ws| std::fs::create_dir(ws.join("build")).expect("build dir"),
    )
    .await;
    h.answer_selects(&[Some(1)]);
    let out = h.prompt("clean up").await;
    for id in ["touch", "rm1", "mk", "rm2"] {
        assert!(
            !result(&out, id).is_error,
            "{id}: {}",
            text(result(&out, id))
        );
    }
    assert_eq!(
        locked(&h.ui.asked),
        vec!["select: Allow bash rm -r build?"],
        "auto mode runs workspace work unasked, asks once for the dangerous command"
    );
    let rules = h.file(".tack/permissions.toml").expect("created");
    assert!(rules.starts_with("# permission-gate rules"), "{rules}");
    assert!(rules.contains("pattern = \"rm -r build\""), "{rules}");
    assert!(!h.workspace.join("build").exists() && h.file("made.txt").is_some());
}

// ---- protected paths ------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protected_paths_block_secrets_and_name_the_rule() {
    let script = vec![
        json!({ "tool_calls": [
            call("env", "write", json!({ "path": ".env", "content": "KEY=1\n" })),
            call("nested", "write", json!({ "path": "vendor/lib/.git/config", "content": "x" })),
            bash("redirect", "echo KEY=2 >> ./config/../.env.local"),
            bash("extra", "mkdir -p secrets && echo x > secrets/key.txt"),
            call("fine", "write", json!({ "path": "notes.md", "content": "ok\n" })),
        ]}),
        json!({ "text": "done" }),
    ];
    // Loaded in the built-in order: protected-paths blocks before permission-gate would ask.
    let h = Harness::new(
        script,
        vec![
            extra(
                "protected-paths",
                artifacts::PROTECTED_PATHS,
                json!({ "extra": ["secrets/**"] }),
            ),
            extra("permission-gate", artifacts::PERMISSION_GATE, json!({})),
        ],
    )
    .await;
    h.answer_selects(&[Some(0)]);
    // Absolute paths are judged like relative ones.
    let ws = h.workspace.display().to_string();
    let absolute = ToolCall {
        id: "abs2".into(),
        name: "write".into(),
        arguments: json!({ "path": format!("{ws}/.git/config"), "content": "x" }),
    };
    let decision = h.hooks.before_tool_call(&absolute).await;
    assert!(
        matches!(&decision, ToolDecision::Block(r) if r.contains("`.git/`")),
        "{decision:?}"
    );

    let out = h.prompt("set up secrets").await;
    let env = result(&out, "env");
    assert!(env.is_error, "{}", text(env));
    assert!(
        text(env).contains("protected-paths rule `.env*`"),
        "the reason names the rule: {}",
        text(env)
    );
    assert!(h.file(".env").is_none());
    let nested = result(&out, "nested");
    assert!(
        nested.is_error && text(nested).contains("`.git/`"),
        "{}",
        text(nested)
    );
    let redirect = result(&out, "redirect");
    assert!(
        redirect.is_error && text(redirect).contains("`.env*`"),
        "{}",
        text(redirect)
    );
    assert!(h.file(".env.local").is_none());
    let secret = result(&out, "extra");
    assert!(
        secret.is_error && text(secret).contains("`secrets/**`"),
        "{}",
        text(secret)
    );
    assert!(h.file("secrets/key.txt").is_none());
    assert!(!result(&out, "fine").is_error);
    assert_eq!(h.file("notes.md").as_deref(), Some("ok\n"));
    assert_eq!(
        locked(&h.ui.asked),
        vec!["select: Allow write notes.md?"],
        "only the call no policy blocked was asked about"
    );
}

// ---- hostile repositories ----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_projects_rules_only_make_the_gate_stricter() {
    let script = vec![
        json!({ "tool_calls": [bash("shipped", "touch shipped.txt")] }),
        json!({ "tool_calls": [bash("push", "git push origin main")] }),
        json!({ "tool_calls": [bash("status", "git status")] }),
        json!({ "tool_calls": [bash("always", "touch mine.txt")] }),
        json!({ "tool_calls": [bash("again", "touch mine.txt")] }),
        json!({ "text": "done" }),
    ];
    let shipped = "[[rules]]\ntool = \"bash\"\npattern = \"touch *\"\naction = \"allow\"\n\n\
                   [[rules]]\ntool = \"bash\"\npattern = \"git push\"\naction = \"deny\"\n";
    let h = Harness::with_trust(
        script,
        vec![extra(
            "permission-gate",
            artifacts::PERMISSION_GATE,
            json!({}),
        )],
        |ws| {
            std::fs::create_dir_all(ws.join(".tack")).expect("dir");
            std::fs::write(ws.join(".tack/permissions.toml"), shipped).expect("rules");
        },
        false,
    )
    .await;
    // The shipped allow is ignored: asked, and nobody answers; "status" is asked too (git runs
    // what the repository configures); then always allow.
    h.answer_selects(&[None, Some(0), Some(1)]);
    let out = h.prompt("touch things").await;
    let shipped_call = result(&out, "shipped");
    assert!(
        shipped_call.is_error && text(shipped_call).contains("no one answered"),
        "{}",
        text(shipped_call)
    );
    assert!(h.file("shipped.txt").is_none());
    let push = result(&out, "push");
    assert!(
        push.is_error && text(push).contains("project rules"),
        "the project's deny still holds: {}",
        text(push)
    );
    assert!(!result(&out, "always").is_error);
    assert!(!result(&out, "again").is_error);
    assert_eq!(
        locked(&h.ui.asked),
        vec![
            "select: Allow bash touch shipped.txt?",
            "select: Allow bash git status?",
            "select: Allow bash touch mine.txt?",
        ]
    );
    let notices = locked(&h.ui.notices).join("\n");
    assert!(
        notices.contains("ignores the allow rules") && notices.contains("bash `touch *`"),
        "{notices}"
    );
    // The user's answer is kept outside the repository, where it cannot be shipped.
    assert_eq!(h.file(".tack/permissions.toml").as_deref(), Some(shipped));
    let approvals = std::fs::read_dir(h.scene.home.path().join("data/permission-gate/projects"))
        .expect("approvals dir")
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).expect("approvals"))
        .collect::<String>();
    assert!(approvals.contains("touch mine.txt"), "{approvals}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policies_judge_where_a_write_really_lands() {
    let script = vec![
        json!({ "tool_calls": [
            call("link", "write", json!({ "path": "setup.cfg", "content": "[core]\n\tpager = evil\n" })),
            bash("append", "echo '[alias]' >> setup.cfg"),
            bash("cd", "cd .git && echo x > config"),
            bash("ln", "ln -sf .git/hooks/pre-commit hook.sh"),
            bash("home", "echo x >> ~/.bashrc"),
        ]}),
        json!({ "text": "done" }),
    ];
    let h = Harness::with_workspace(
        script,
        vec![
            extra("protected-paths", artifacts::PROTECTED_PATHS, json!({})),
            extra(
                "permission-gate",
                artifacts::PERMISSION_GATE,
                json!({ "mode": "auto" }),
            ),
        ],
        |ws| {
            std::fs::create_dir_all(ws.join(".git")).expect("git dir");
            std::fs::write(ws.join(".git/config"), "[core]\n").expect("config");
            std::os::unix::fs::symlink(".git/config", ws.join("setup.cfg")).expect("link");
        },
    )
    .await;
    let out = h.prompt("configure").await;
    for id in ["link", "append", "cd", "ln"] {
        let r = result(&out, id);
        assert!(
            r.is_error && text(r).contains("`.git/`"),
            "{id}: {}",
            text(r)
        );
    }
    assert!(
        text(result(&out, "link")).contains(".git/config"),
        "the reason names where the link leads"
    );
    let home = result(&out, "home");
    assert!(
        home.is_error && text(home).contains("no one answered"),
        "auto mode asks before writing to ~: {}",
        text(home)
    );
    assert_eq!(h.file(".git/config").as_deref(), Some("[core]\n"));
    assert!(h.file("hook.sh").is_none());
}

// ---- todo ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn todo_list_follows_the_session_branch() {
    let todo = |id: &str, args: Value| call(id, "todo", args);
    let script = vec![
        json!({ "tool_calls": [todo("add1", json!({ "action": "add", "text": "write tests" }))] }),
        json!({ "tool_calls": [todo("add2", json!({ "action": "add", "text": "ship it" }))] }),
        json!({ "tool_calls": [todo("done1", json!({ "action": "complete", "id": 1 }))] }),
        json!({ "tool_calls": [todo("bad", json!({ "action": "remove", "id": 9 }))] }),
        json!({ "text": "done" }),
    ];
    let h = Harness::new(script, vec![extra("todo", artifacts::TODO, json!({}))]).await;
    let out = h.prompt("track the work").await;

    let done = result(&out, "done1");
    assert!(!done.is_error);
    assert!(
        text(done).contains("[x] #1 write tests\n[ ] #2 ship it"),
        "{}",
        text(done)
    );
    let details = done.details.as_ref().expect("details");
    assert_eq!(
        details["todos"][0],
        json!({ "id": 1, "text": "write tests", "done": true })
    );
    let bad = result(&out, "bad");
    assert!(
        bad.is_error && text(bad).contains("no todo #9"),
        "{}",
        text(bad)
    );

    let now = h.command("todos", "").await;
    assert!(now.contains("[x] #1 write tests"), "{now}");

    // Back to before the completion: the list is what that branch built.
    let before = h.result_entry("add2");
    h.session.lock().set_leaf(Some(&before)).expect("set leaf");
    let then = h.command("todos", "").await;
    assert_eq!(
        then,
        "Todos (0/2 done):\n[ ] #1 write tests\n[ ] #2 ship it"
    );
    let first = h.result_entry("add1");
    h.session.lock().set_leaf(Some(&first)).expect("set leaf");
    assert_eq!(
        h.command("todos", "").await,
        "Todos (0/1 done):\n[ ] #1 write tests"
    );
}

// ---- hook chaining ------------------------------------------------------------------------------

/// The hooks test plugin, granted to rewrite any tool's calls.
fn hooks_plugin(name: &'static str, config: Value) -> Extra {
    Extra {
        rewrite: vec!["*".into()],
        ..extra(name, artifacts::TEST_HOOKS, config)
    }
}

/// The hooks test plugin without the rewrite grant.
fn ungranted_hooks_plugin(name: &'static str, config: Value) -> Extra {
    extra(name, artifacts::TEST_HOOKS, config)
}

fn core_call(name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: "c".into(),
        name: name.into(),
        arguments,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_tool_call_rewrites_chain_and_are_revalidated_in_the_loop() {
    let script = vec![
        json!({ "tool_calls": [call("read", "read", json!({ "path": "a.txt" }))] }),
        json!({ "text": "done" }),
    ];
    let h = Harness::with_workspace(
        script,
        vec![
            hooks_plugin("a", json!({ "tag": "A", "before_tool_call": { "do": "rewrite", "set": { "path": "b.txt" } } })),
            hooks_plugin("b", json!({ "tag": "B", "before_tool_call": { "do": "allow" } })),
        ],
        |ws| {
            std::fs::write(ws.join("a.txt"), "content of a\n").expect("a");
            std::fs::write(ws.join("b.txt"), "content of b\n").expect("b");
        },
    )
    .await;
    let out = h.prompt("read a").await;
    let read = result(&out, "read");
    assert!(
        text(read).contains("content of b"),
        "the tool ran the rewritten call: {}",
        text(read)
    );

    let invalid = Harness::new(
        vec![
            json!({ "tool_calls": [call("read", "read", json!({ "path": "a.txt" }))] }),
            json!({ "text": "done" }),
        ],
        vec![hooks_plugin(
            "a",
            json!({ "before_tool_call": { "do": "rewrite", "set": { "path": 42 } } }),
        )],
    )
    .await;
    let out = invalid.prompt("read a").await;
    let read = result(&out, "read");
    assert!(
        read.is_error && text(read).contains("rewrote the arguments"),
        "a rewrite that breaks the schema is refused: {}",
        text(read)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_chain_in_load_order() {
    let h = Harness::new(
        Vec::new(),
        vec![
            hooks_plugin(
                "a",
                json!({
                    "tag": "A",
                    "before_tool_call": { "do": "rewrite", "set": { "path": "rewritten.txt" } },
                    "after_tool_call": { "do": "append" },
                    "input": { "do": "append" },
                    "before_agent_start": { "do": "append" },
                    "context": { "do": "append" }
                }),
            ),
            hooks_plugin(
                "b",
                json!({
                    "tag": "B",
                    "before_tool_call": { "do": "block" },
                    "after_tool_call": { "do": "append" },
                    "input": { "do": "append" },
                    "before_agent_start": { "do": "inject" },
                    "context": { "do": "append" }
                }),
            ),
            hooks_plugin("c", json!({ "tag": "C", "before_tool_call": { "do": "block" }, "input": { "do": "handled" } })),
        ],
    )
    .await;

    // The first plugin rewrites, the second sees the rewrite and blocks; the third never runs.
    let decision = h
        .hooks
        .before_tool_call(&core_call("read", json!({ "path": "a.txt" })))
        .await;
    match decision {
        ToolDecision::Block(reason) => {
            assert!(reason.starts_with("blocked by B"), "{reason}");
            assert!(reason.contains("rewritten.txt"), "{reason}");
        }
        other => panic!("expected a block, got {other:?}"),
    }

    let replaced = h
        .hooks
        .after_tool_call(
            &core_call("read", json!({ "path": "a.txt" })),
            &ToolResult::text("original"),
        )
        .await
        .expect("replaced");
    assert_eq!(replaced.text_content(), "original [A] [B]");

    assert_eq!(
        h.hooks.input("hi").await,
        InputAction::Handled,
        "handled ends the chain"
    );

    let patch = h.hooks.before_agent_start("prompt", "system").await;
    assert_eq!(
        patch.system_prompt.as_deref(),
        Some("system\n\n[A] saw 6 characters")
    );
    assert_eq!(patch.inject.len(), 1);
    assert_eq!(patch.inject[0].text, "injected by B");

    let messages = vec![Arc::new(Message::user("hello"))];
    let rewritten = h.hooks.context(&messages).await.expect("rewritten");
    match rewritten[0].as_ref() {
        Message::User(user) => assert_eq!(user.text_content(), "hello [A] [B]"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook_failures_fail_closed_for_tool_calls_and_open_elsewhere() {
    let h = Harness::new(
        Vec::new(),
        vec![
            hooks_plugin(
                "trapper",
                json!({
                    "after_tool_call": { "do": "trap" },
                    "input": { "do": "trap" },
                    "before_agent_start": { "do": "trap" },
                    "context": { "do": "trap" }
                }),
            ),
            hooks_plugin(
                "a",
                json!({
                    "tag": "A",
                    "after_tool_call": { "do": "append" },
                    "input": { "do": "append" },
                    "before_agent_start": { "do": "append" },
                    "context": { "do": "append" }
                }),
            ),
            hooks_plugin("crash", json!({ "before_tool_call": { "do": "trap" } })),
            hooks_plugin(
                "shape",
                json!({ "before_tool_call": { "do": "not_an_object" } }),
            ),
        ],
    )
    .await;

    let decision = h
        .hooks
        .before_tool_call(&core_call("read", json!({ "path": "a.txt" })))
        .await;
    assert!(
        matches!(&decision, ToolDecision::Block(r) if r.contains("before-tool-call hook of plugin 'crash' failed")),
        "a trapping hook blocks the call: {decision:?}"
    );

    let replaced = h
        .hooks
        .after_tool_call(
            &core_call("read", json!({ "path": "a.txt" })),
            &ToolResult::text("original"),
        )
        .await
        .expect("the next plugin still replaces");
    assert_eq!(replaced.text_content(), "original [A]");
    assert_eq!(
        h.hooks.input("hi").await,
        InputAction::Transform("hi [A]".into())
    );
    let patch = h.hooks.before_agent_start("p", "sys").await;
    assert_eq!(
        patch.system_prompt.as_deref(),
        Some("sys\n\n[A] saw 3 characters")
    );
    let messages = vec![Arc::new(Message::user("hello"))];
    let rewritten = h.hooks.context(&messages).await.expect("rewritten");
    assert!(matches!(rewritten[0].as_ref(), Message::User(u) if u.text_content() == "hello [A]"));
    let logs = locked(&h.ui.logs);
    assert!(
        logs.iter()
            .any(|l| l.contains("after-tool-call hook failed")),
        "failures are reported: {logs:?}"
    );

    // A rewrite into something that is not an object blocks too, naming the plugin.
    let only_shape = Harness::new(
        Vec::new(),
        vec![hooks_plugin(
            "shape",
            json!({ "before_tool_call": { "do": "not_an_object" } }),
        )],
    )
    .await;
    let decision = only_shape
        .hooks
        .before_tool_call(&core_call("read", json!({ "path": "a.txt" })))
        .await;
    assert!(
        matches!(&decision, ToolDecision::Block(r) if r.contains("'shape'") && r.contains("not a JSON object")),
        "{decision:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewrite_needs_the_grant_and_every_hook_judges_the_result() {
    // Without the grant, the rewrite blocks the call instead of changing it.
    let h = Harness::new(
        Vec::new(),
        vec![ungranted_hooks_plugin(
            "a",
            json!({ "tag": "A", "before_tool_call": { "do": "rewrite", "set": { "path": "b.txt" } } }),
        )],
    )
    .await;
    match h
        .hooks
        .before_tool_call(&core_call("read", json!({ "path": "a.txt" })))
        .await
    {
        ToolDecision::Block(reason) => assert!(
            reason.contains("plugin 'a'") && reason.contains("`rewrite` grant"),
            "{reason}"
        ),
        other => panic!("expected a block, got {other:?}"),
    }

    // With it, a hook loaded *before* the rewriter still judges the rewritten arguments: `b`
    // blocks on seeing them even though it had already allowed the original.
    let h = Harness::new(
        Vec::new(),
        vec![
            hooks_plugin(
                "b",
                json!({ "tag": "B", "before_tool_call": { "do": "block_path", "path": "b.txt" } }),
            ),
            hooks_plugin(
                "a",
                json!({ "tag": "A", "before_tool_call": { "do": "rewrite", "set": { "path": "b.txt" } } }),
            ),
        ],
    )
    .await;
    match h
        .hooks
        .before_tool_call(&core_call("read", json!({ "path": "a.txt" })))
        .await
    {
        ToolDecision::Block(reason) => {
            assert_eq!(reason, "blocked by B on path b.txt")
        }
        other => panic!("expected a block, got {other:?}"),
    }

    // A rewrite every hook accepts is reported with who made it.
    let h = Harness::new(
        Vec::new(),
        vec![
            hooks_plugin("b", json!({ "tag": "B", "before_tool_call": { "do": "allow" } })),
            hooks_plugin(
                "a",
                json!({ "tag": "A", "before_tool_call": { "do": "rewrite", "set": { "path": "b.txt" } } }),
            ),
        ],
    )
    .await;
    match h
        .hooks
        .before_tool_call(&core_call("read", json!({ "path": "a.txt" })))
        .await
    {
        ToolDecision::Rewrite { arguments, by } => {
            assert_eq!(arguments, json!({ "path": "b.txt" }));
            assert_eq!(by, vec!["a".to_string()]);
        }
        other => panic!("expected a rewrite, got {other:?}"),
    }
}
