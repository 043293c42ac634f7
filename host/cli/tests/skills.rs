//! Skills, prompt templates and system-prompt control through the real `tack` binary: fixture
//! folders in temp dirs, the real built-in plugins, and the OpenAI provider talking to a loopback
//! server that records every request, so each test checks what the model was actually sent.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

struct Env {
    /// The tack home (`TACK_HOME`).
    home: tempfile::TempDir,
    /// The user's home (`HOME`), for `~/.agents/skills`.
    user: tempfile::TempDir,
    /// The project: a git repository root, and the working directory.
    workspace: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let env = Env {
            home: tempfile::tempdir().expect("home"),
            user: tempfile::tempdir().expect("user home"),
            workspace: tempfile::tempdir().expect("workspace"),
        };
        std::fs::create_dir(env.workspace.path().join(".git")).expect("git");
        write(
            &env.workspace.path().join("README.md"),
            "# Demo\none\ntwo\nthree\n",
        );
        env
    }

    fn home(&self) -> PathBuf {
        self.home.path().canonicalize().expect("canonical")
    }

    fn user(&self) -> PathBuf {
        self.user.path().canonicalize().expect("canonical")
    }

    fn project(&self) -> PathBuf {
        self.workspace.path().canonicalize().expect("canonical")
    }

    /// Runs `tack` against `mock` with `args` (the prompt last, after `-p`).
    fn run(&self, mock: &MockProvider, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tack"));
        cmd.current_dir(self.workspace.path())
            .env("TACK_HOME", self.home.path())
            .env("HOME", self.user.path())
            .env(
                "TACK_CACHE_DIR",
                concat!(env!("CARGO_TARGET_TMPDIR"), "/tack-component-cache"),
            )
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("TACK_LOG")
            .stdin(Stdio::null())
            .args([
                "--provider",
                "openai",
                "--model",
                "gpt-4.1",
                "--base-url",
                &format!("{}/v1", mock.url),
                "--api-key",
                "sk-test",
                "--no-session",
            ])
            .args(args);
        cmd.output().expect("tack runs")
    }

    /// Runs `tack plugins`.
    fn plugins(&self, args: &[&str]) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_tack"))
            .current_dir(self.workspace.path())
            .env("TACK_HOME", self.home.path())
            .env("HOME", self.user.path())
            .env(
                "TACK_CACHE_DIR",
                concat!(env!("CARGO_TARGET_TMPDIR"), "/tack-component-cache"),
            )
            .stdin(Stdio::null())
            .args(args)
            .arg("plugins")
            .output()
            .expect("tack runs");
        assert!(out.status.success(), "stderr: {}", stderr(&out));
        stdout(&out)
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn skill(dir: &Path, name: &str, description: &str, body: &str) -> PathBuf {
    let file = dir.join(name).join("SKILL.md");
    write(
        &file,
        &format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n"),
    );
    file
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A loopback OpenAI-compatible server: answers the n-th request with the n-th reply (the last
/// one again past the end) and keeps every request body.
struct MockProvider {
    url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl MockProvider {
    fn start(replies: Vec<String>) -> Self {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        std::thread::spawn(move || {
            for (n, conn) in listener.incoming().enumerate() {
                let Ok(mut conn) = conn else { break };
                let mut reader = BufReader::new(conn.try_clone().expect("clone"));
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0u8; length];
                let _ = reader.read_exact(&mut body);
                seen.lock()
                    .expect("lock")
                    .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
                let reply = replies
                    .get(n)
                    .or(replies.last())
                    .cloned()
                    .unwrap_or_default();
                let _ = conn.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
                );
                let _ = conn.write_all(reply.as_bytes());
            }
        });
        MockProvider { url, requests }
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().expect("lock").clone()
    }

    /// The system prompt of the n-th request.
    fn system(&self, n: usize) -> String {
        let request = &self.requests()[n];
        request["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .find(|m| m["role"] == "system" || m["role"] == "developer")
            .map(text_of)
            .unwrap_or_default()
    }

    /// The text of the user messages of the n-th request.
    fn user_text(&self, n: usize) -> String {
        let request = &self.requests()[n];
        request["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["role"] == "user")
            .map(text_of)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The tool results of the n-th request.
    fn tool_results(&self, n: usize) -> Vec<String> {
        let request = &self.requests()[n];
        request["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(text_of)
            .collect()
    }

    /// The names of the tools offered in the n-th request.
    fn tools(&self, n: usize) -> Vec<String> {
        self.requests()[n]["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let chunk = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
        "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }]
    });
    format!("data: {chunk}\n\n")
}

/// An answer in text.
fn text_reply(text: &str) -> String {
    format!(
        "{}{}data: [DONE]\n\n",
        chunk(json!({ "role": "assistant", "content": text }), None),
        chunk(json!({}), Some("stop"))
    )
}

/// A call of `tool` with `arguments`.
fn tool_reply(tool: &str, arguments: Value) -> String {
    format!(
        "{}{}data: [DONE]\n\n",
        chunk(
            json!({ "role": "assistant", "tool_calls": [{ "index": 0, "id": "call_1", "type": "function",
                "function": { "name": tool, "arguments": arguments.to_string() } }] }),
            None
        ),
        chunk(json!({}), Some("tool_calls"))
    )
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "tack failed\nstdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
}

#[test]
fn skills_come_from_every_place_later_ones_winning_and_a_malformed_one_only_warns() {
    let env = Env::new();
    let home_skills = env.home().join("skills");
    let agents = env.user().join(".agents/skills");
    let project = env.project();
    skill(&home_skills, "home-only", "From the tack home.", "h");
    skill(&home_skills, "shared", "Shared from the tack home.", "h");
    skill(&agents, "agents-only", "From ~/.agents.", "a");
    skill(&agents, "shared", "Shared from ~/.agents.", "a");
    skill(
        &project.join(".tack/skills"),
        "tack-project",
        "From .tack/skills.",
        "p",
    );
    skill(
        &project.join(".tack/skills"),
        "shared",
        "Shared from .tack.",
        "p",
    );
    skill(
        &project.join(".agents/skills"),
        "agents-project",
        "From .agents/skills.",
        "p",
    );
    let extra = tempfile::tempdir().expect("extra");
    let flagged = skill(extra.path(), "shared", "Shared from --skill.", "f");
    write(
        &home_skills.join("broken/SKILL.md"),
        "---\nname: broken\ndescription: [never closed\n---\nbody\n",
    );
    write(
        &home_skills.join("nodesc/SKILL.md"),
        "---\nname: nodesc\n---\nbody\n",
    );

    let mock = MockProvider::start(vec![text_reply("done")]);
    let out = env.run(
        &mock,
        &[
            "--trust",
            "--skill",
            flagged.parent().unwrap().to_str().unwrap(),
            "-p",
            "hello",
        ],
    );
    ok(&out);
    let system = mock.system(0);
    for name in [
        "home-only",
        "agents-only",
        "tack-project",
        "agents-project",
        "shared",
    ] {
        assert!(
            system.contains(&format!("<name>{name}</name>")),
            "{name} missing:\n{system}"
        );
    }
    assert!(system.contains("Shared from --skill."), "{system}");
    assert!(!system.contains("Shared from .tack."), "{system}");
    assert!(system.contains("<available_skills>"), "{system}");
    assert!(
        system.contains(&format!(
            "<location>{}</location>",
            home_skills.join("home-only/SKILL.md").display()
        )),
        "{system}"
    );
    let err = stderr(&out);
    assert!(
        err.contains("broken/SKILL.md") && err.contains("YAML"),
        "the malformed skill is named: {err}"
    );
    assert!(
        err.contains("nodesc/SKILL.md") && err.contains("description"),
        "{err}"
    );

    // Precedence without --skill: the project's .tack/skills beats ~/.agents and the home.
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["--trust", "-p", "hello"]));
    assert!(mock.system(0).contains("Shared from .tack."));

    // tack plugins shows exactly the folders read.
    let listing = env.plugins(&["--trust"]);
    assert!(
        listing.contains(&format!("read files in {}", home_skills.display())),
        "{listing}"
    );
    assert!(
        listing.contains(&format!("read files in {}", agents.display())),
        "{listing}"
    );
}

#[test]
fn an_untrusted_project_s_skills_and_templates_are_not_read() {
    let env = Env::new();
    let project = env.project();
    skill(&env.home().join("skills"), "mine", "My own skill.", "m");
    skill(
        &project.join(".tack/skills"),
        "theirs",
        "The repo's skill.",
        "t",
    );
    skill(
        &project.join(".agents/skills"),
        "theirs-too",
        "Also the repo's.",
        "t",
    );
    write(&project.join(".tack/prompts/repo.md"), "Repo template $1");

    let mock = MockProvider::start(vec![text_reply("done")]);
    let out = env.run(&mock, &["--no-trust", "-p", "/repo x"]);
    ok(&out);
    let system = mock.system(0);
    assert!(system.contains("<name>mine</name>"), "{system}");
    assert!(!system.contains("theirs"), "{system}");
    assert_eq!(
        mock.user_text(0),
        "/repo x",
        "the template is unknown: the text goes as typed"
    );
    let err = stderr(&out);
    assert!(
        err.contains(".tack/skills") && err.contains("not trusted"),
        "{err}"
    );
    let listing = env.plugins(&["--no-trust"]);
    assert!(!listing.contains(".tack/skills"), "{listing}");
    assert!(!listing.contains(".agents/skills"), "{listing}");

    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["--trust", "-p", "/repo x"]));
    assert!(mock.system(0).contains("<name>theirs</name>"));
    assert!(mock.system(0).contains("<name>theirs-too</name>"));
    assert_eq!(mock.user_text(0), "Repo template x");
}

#[test]
fn slash_skill_sends_the_body_and_the_arguments() {
    let env = Env::new();
    let file = skill(
        &env.home().join("skills"),
        "commit-style",
        "How to write commit messages.",
        "# Commit style\n\nUse the imperative mood.",
    );
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["-p", "/skill:commit-style for the parser change"]));
    let dir = file.parent().unwrap();
    assert_eq!(
        mock.user_text(0),
        format!(
            "<skill name=\"commit-style\" location=\"{}\">\nReferences are relative to {}.\n\n\
             # Commit style\n\nUse the imperative mood.\n</skill>\n\nfor the parser change",
            file.display(),
            dir.display()
        )
    );
}

#[test]
fn no_skills_leaves_them_out() {
    let env = Env::new();
    skill(&env.home().join("skills"), "mine", "My own skill.", "m");
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["--no-skills", "-p", "/skill:mine now"]));
    assert!(!mock.system(0).contains("available_skills"));
    assert_eq!(mock.user_text(0), "/skill:mine now");
}

/// The Agent Skills layout (agentskills.io/specification): SKILL.md with its front matter, a
/// script in scripts/ and a reference in references/. Written here by a shell script, as a
/// user would; listed, read by the model from outside the workspace, and its script run.
#[test]
fn a_skill_in_the_agent_skills_format_is_used_end_to_end() {
    let env = Env::new();
    let skills = env.home().join("skills");
    std::fs::create_dir_all(&skills).expect("mkdir");
    let made = Command::new("sh")
        .current_dir(&skills)
        .arg("-c")
        .arg(
            r#"set -e
mkdir -p line-count/scripts line-count/references
cat > line-count/SKILL.md <<'EOF'
---
name: line-count
description: Count the lines of text files. Use when asked how long a file is.
license: Apache-2.0
compatibility: Needs a POSIX shell.
metadata:
  author: tack-tests
  version: "1.0"
allowed-tools: bash read
---
# Line count

1. Read [the reference](references/REFERENCE.md) for the output format.
2. Run `scripts/count.sh <file>` from this skill's folder.
EOF
cat > line-count/scripts/count.sh <<'EOF'
#!/bin/sh
printf 'lines=%s\n' "$(wc -l < "$1" | tr -d ' ')"
EOF
chmod +x line-count/scripts/count.sh
cat > line-count/references/REFERENCE.md <<'EOF'
Report the count as `lines=<n>`.
EOF
"#,
        )
        .status()
        .expect("sh");
    assert!(made.success());
    let dir = skills.join("line-count");
    let reference = dir.join("references/REFERENCE.md");
    let script = dir.join("scripts/count.sh");

    let mock = MockProvider::start(vec![
        tool_reply("read", json!({ "path": reference.display().to_string() })),
        tool_reply(
            "bash",
            json!({ "command": format!("sh {} README.md", script.display()) }),
        ),
        text_reply("README.md has 4 lines."),
    ]);
    let out = env.run(
        &mock,
        &["--permissions", "yolo", "-p", "/skill:line-count README.md"],
    );
    ok(&out);
    assert!(stdout(&out).contains("README.md has 4 lines."));
    let system = mock.system(0);
    assert!(system.contains("<name>line-count</name>"), "{system}");
    assert!(
        system.contains("Count the lines of text files."),
        "{system}"
    );
    let user = mock.user_text(0);
    assert!(user.contains("Run `scripts/count.sh <file>`"), "{user}");
    assert!(
        user.contains(&format!("References are relative to {}.", dir.display())),
        "{user}"
    );
    assert!(user.ends_with("README.md"), "{user}");
    let read = mock.tool_results(1);
    assert_eq!(read.len(), 1, "{read:?}");
    assert!(
        read[0].contains("Report the count as `lines=<n>`."),
        "the model's read of the skill's reference works outside the workspace: {read:?}"
    );
    let ran = mock.tool_results(2);
    assert!(ran.iter().any(|r| r.contains("lines=4")), "{ran:?}");
}

#[test]
fn templates_expand_every_argument_form() {
    let env = Env::new();
    write(
        &env.home().join("prompts/forms.md"),
        "---\ndescription: Show every form\nargument-hint: <a> <b> [rest]\n---\n\
         one=$1 two=$2 nine=$9 all=$@ args=$ARGUMENTS from2=${@:2} two-from2=${@:2:2}\n",
    );
    write(
        &env.home().join("prompts/plain.md"),
        "Plain text, no arguments.",
    );
    let mock = MockProvider::start(vec![text_reply("done")]);
    let out = env.run(
        &mock,
        &["--verbose", "-p", "/forms alpha \"beta gamma\" delta 'e f'"],
    );
    ok(&out);
    assert_eq!(
        mock.user_text(0),
        "one=alpha two=beta gamma nine= all=alpha beta gamma delta e f \
         args=alpha beta gamma delta e f from2=beta gamma delta e f two-from2=beta gamma delta"
    );
    let err = stderr(&out);
    assert!(err.contains("prompt-templates: /forms /plain"), "{err}");

    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["-p", "/plain"]));
    assert_eq!(mock.user_text(0), "Plain text, no arguments.");
}

#[test]
fn tools_flags_choose_the_tools_sent() {
    let env = Env::new();
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["--tools", "read,ls", "-p", "hi"]));
    let mut tools = mock.tools(0);
    tools.sort();
    assert_eq!(tools, ["ls", "read"]);
    let system = mock.system(0);
    assert!(
        system.contains("- read:") && !system.contains("- bash:"),
        "{system}"
    );

    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["--no-tools", "-p", "hi"]));
    assert!(mock.tools(0).is_empty(), "{:?}", mock.tools(0));
    assert!(mock.system(0).contains("No tools are available"));

    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["--no-builtin-tools", "-p", "hi"]));
    assert!(mock.tools(0).is_empty(), "{:?}", mock.tools(0));

    let mock = MockProvider::start(vec![text_reply("done")]);
    let out = env.run(&mock, &["--tools", "read,nope", "-p", "hi"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("unknown tool nope"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn system_prompt_flags_and_files_shape_the_prompt_sent() {
    let env = Env::new();
    let project = env.project();
    write(&project.join("AGENTS.md"), "Project rule: use tabs.");

    // Default: tack's own prompt and the context file.
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["-p", "hi"]));
    let system = mock.system(0);
    assert!(system.starts_with("You are tack"), "{system}");
    assert!(system.contains("Project rule: use tabs."), "{system}");

    // --no-context-files.
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["--no-context-files", "-p", "hi"]));
    assert!(!mock.system(0).contains("Project rule"));

    // --system-prompt as text, then as a file; repeated --append-system-prompt.
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(
        &mock,
        &[
            "--system-prompt",
            "You are a careful reviewer.",
            "--append-system-prompt",
            "First addition.",
            "--append-system-prompt",
            "Second addition.",
            "-p",
            "hi",
        ],
    ));
    let system = mock.system(0);
    assert!(
        system.starts_with("You are a careful reviewer.\n"),
        "{system}"
    );
    assert!(!system.contains("You are tack"), "{system}");
    assert!(system.contains("Project rule: use tabs."), "{system}");
    assert!(
        system
            .trim_end()
            .ends_with("First addition.\n\nSecond addition."),
        "{system}"
    );
    let file = env.user().join("prompt.txt");
    write(&file, "Prompt from a file.");
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(
        &mock,
        &["--system-prompt", file.to_str().unwrap(), "-p", "hi"],
    ));
    assert!(mock.system(0).starts_with("Prompt from a file."));

    // SYSTEM.md and APPEND_SYSTEM.md in the tack home, then the trusted project's over it.
    write(&env.home().join("SYSTEM.md"), "Home system prompt.");
    write(&env.home().join("APPEND_SYSTEM.md"), "Home addition.");
    let mock = MockProvider::start(vec![text_reply("done")]);
    let out = env.run(&mock, &["--verbose", "-p", "hi"]);
    ok(&out);
    let system = mock.system(0);
    assert!(system.starts_with("Home system prompt."), "{system}");
    assert!(system.trim_end().ends_with("Home addition."), "{system}");
    let err = stderr(&out);
    assert!(
        err.contains("system prompt: ") && err.contains("SYSTEM.md"),
        "{err}"
    );
    assert!(err.contains("context: AGENTS.md"), "{err}");
    assert!(err.contains("plugins: ") && err.contains("skills"), "{err}");

    write(&project.join(".tack/SYSTEM.md"), "Project system prompt.");
    write(&project.join(".tack/APPEND_SYSTEM.md"), "Project addition.");
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(&mock, &["--trust", "-p", "hi"]));
    let system = mock.system(0);
    assert!(system.starts_with("Project system prompt."), "{system}");
    assert!(
        system
            .trim_end()
            .ends_with("Home addition.\n\nProject addition."),
        "{system}"
    );
    let mock = MockProvider::start(vec![text_reply("done")]);
    let out = env.run(&mock, &["--no-trust", "-p", "hi"]);
    ok(&out);
    let system = mock.system(0);
    assert!(
        system.starts_with("Home system prompt."),
        "untrusted: {system}"
    );
    assert!(!system.contains("Project addition."), "{system}");
    assert!(stderr(&out).contains(".tack/SYSTEM.md"), "{}", stderr(&out));
    // The command line beats every file.
    let mock = MockProvider::start(vec![text_reply("done")]);
    ok(&env.run(
        &mock,
        &["--trust", "--system-prompt", "Flag wins.", "-p", "hi"],
    ));
    assert!(mock.system(0).starts_with("Flag wins."));
}

#[test]
fn no_plugins_loads_only_the_named_ones() {
    let env = Env::new();
    skill(&env.home().join("skills"), "mine", "My own skill.", "m");
    let mock = MockProvider::start(vec![text_reply("done")]);
    // Without any plugin there is no provider at all.
    let out = env.run(&mock, &["--no-plugins", "-p", "hi"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("openai"), "{}", stderr(&out));
    let out = env.run(&mock, &["--no-extensions", "-p", "hi"]);
    assert!(!out.status.success(), "--no-extensions is the same flag");
    assert!(mock.requests().is_empty());
}

/// RPC: `get_commands` lists templates and skills with their descriptions, and a `prompt` of a
/// template line sends its expansion.
#[test]
fn rpc_lists_templates_and_skills_and_expands_a_template_prompt() {
    use std::io::{BufRead, BufReader, Write};
    let env = Env::new();
    write(
        &env.home().join("prompts/review.md"),
        "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 carefully.",
    );
    skill(&env.home().join("skills"), "mine", "My own skill.", "m");
    let mock = MockProvider::start(vec![text_reply("done")]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tack"))
        .current_dir(env.workspace.path())
        .env("TACK_HOME", env.home.path())
        .env("HOME", env.user.path())
        .env(
            "TACK_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/tack-component-cache"),
        )
        .args([
            "--provider",
            "openai",
            "--model",
            "gpt-4.1",
            "--base-url",
            &format!("{}/v1", mock.url),
            "--api-key",
            "sk-test",
            "--no-session",
            "--mode",
            "rpc",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tack runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    writeln!(stdin, r#"{{"id": "c", "type": "get_commands"}}"#).expect("write");
    writeln!(
        stdin,
        r#"{{"id": "p", "type": "prompt", "message": "/review src/lib.rs"}}"#
    )
    .expect("write");
    let mut commands = None;
    let mut ended = false;
    for line in lines.by_ref() {
        let line = line.expect("line");
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if value["id"] == "c" {
            commands = Some(value["data"]["commands"].clone());
        }
        if value["type"] == "agent_end" {
            ended = true;
            break;
        }
    }
    drop(stdin);
    let _ = child.wait();
    assert!(ended, "the run ended");
    let commands = commands.expect("get_commands answered");
    let find = |name: &str| {
        commands
            .as_array()
            .expect("list")
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("/{name} missing: {commands}"))
    };
    let review = find("review");
    assert_eq!(review["description"], "Review a file — <file> (user)");
    assert_eq!(review["plugin"], "prompt-templates");
    assert_eq!(find("skill:mine")["description"], "My own skill. (user)");
    assert_eq!(mock.user_text(0), "Review src/lib.rs carefully.");
}

/// The model reads a skill file in the tack home (outside the workspace) with the permissions
/// print mode has by default.
#[test]
fn the_model_reads_a_skill_outside_the_workspace_by_default() {
    let env = Env::new();
    let file = skill(
        &env.home().join("skills"),
        "notes",
        "Team notes.",
        "See the notes.",
    );
    let mock = MockProvider::start(vec![
        tool_reply("read", json!({ "path": file.display().to_string() })),
        text_reply("read it"),
    ]);
    ok(&env.run(&mock, &["-p", "what do the notes say?"]));
    let results = mock.tool_results(1);
    assert!(
        results.iter().any(|r| r.contains("See the notes.")),
        "{results:?}"
    );
    // Files beside the skills are not: the plugin answers only for its skills' folders.
    let outside = env.home().join("secret.txt");
    write(&outside, "private");
    let mock = MockProvider::start(vec![
        tool_reply("read", json!({ "path": outside.display().to_string() })),
        text_reply("no"),
    ]);
    ok(&env.run(&mock, &["-p", "read it"]));
    let results = mock.tool_results(1);
    assert!(
        results.iter().all(|r| !r.contains("private")),
        "{results:?}"
    );
}
