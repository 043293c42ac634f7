//! Skills, prompt templates and system-prompt control through the real `tack` binary: fixture
//! folders in temp dirs, the real built-in plugins, and the OpenAI provider talking to a loopback
//! server that records every request, so each test checks what the model was actually sent.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};
use tack_test_support::http::MockServer;
use tack_test_support::openai::{
    system_prompt, text_reply, tool_names, tool_reply, tool_results, user_text,
};
use tack_test_support::{stderr, stdout, tack, Env};

/// The project is a git repository root; the user's home (`HOME`, for `~/.agents/skills`) is
/// `user/` beside it and tack's home.
fn new_env() -> Env {
    let env = Env::new(tack!());
    let user = env.root().join("user");
    std::fs::create_dir(&user).expect("user home");
    let env = env.with_var("HOME", user);
    std::fs::create_dir(env.workspace().join(".git")).expect("git");
    env.write("README.md", "# Demo\none\ntwo\nthree\n");
    env
}

/// What these tests add to the shared environment.
trait SkillsEnv {
    fn user(&self) -> PathBuf;
    fn project(&self) -> PathBuf;
    fn openai_args(&self, mock: &MockServer) -> Vec<String>;
    fn run_against(&self, mock: &MockServer, args: &[&str]) -> Output;
    fn plugins(&self, args: &[&str]) -> String;
}

impl SkillsEnv for Env {
    fn user(&self) -> PathBuf {
        self.root().join("user")
    }

    fn project(&self) -> PathBuf {
        self.workspace().to_owned()
    }

    /// The OpenAI provider at `mock`, and no session file.
    fn openai_args(&self, mock: &MockServer) -> Vec<String> {
        [
            "--provider",
            "openai",
            "--model",
            "gpt-4.1",
            "--base-url",
            &format!("{}/v1", mock.url()),
            "--api-key",
            "sk-test",
            "--no-session",
        ]
        .map(String::from)
        .to_vec()
    }

    /// Runs `tack` against `mock` with `args` (the prompt last, after `-p`).
    fn run_against(&self, mock: &MockServer, args: &[&str]) -> Output {
        self.command()
            .args(self.openai_args(mock))
            .args(args)
            .output()
            .expect("tack runs")
    }

    /// Runs `tack plugins`.
    fn plugins(&self, args: &[&str]) -> String {
        let out = self
            .command()
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

/// What the n-th request to the mock provider carried.
trait Sent {
    fn request(&self, n: usize) -> Value;

    /// The system prompt of the n-th request.
    fn system(&self, n: usize) -> String {
        system_prompt(&self.request(n))
    }

    /// The text of the user messages of the n-th request.
    fn user_text(&self, n: usize) -> String {
        user_text(&self.request(n))
    }

    /// The tool results of the n-th request.
    fn tool_results(&self, n: usize) -> Vec<String> {
        tool_results(&self.request(n))
    }

    /// The names of the tools offered in the n-th request.
    fn tools(&self, n: usize) -> Vec<String> {
        tool_names(&self.request(n))
    }
}

impl Sent for MockServer {
    fn request(&self, n: usize) -> Value {
        let request = self.json_bodies()[n].clone();
        assert!(request["messages"].is_array(), "no messages: {request}");
        request
    }
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
    let env = new_env();
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

    let mock = MockServer::replies(vec![text_reply("done")]);
    let out = env.run_against(
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
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["--trust", "-p", "hello"]));
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
    let env = new_env();
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

    let mock = MockServer::replies(vec![text_reply("done")]);
    let out = env.run_against(&mock, &["--no-trust", "-p", "/repo x"]);
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

    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["--trust", "-p", "/repo x"]));
    assert!(mock.system(0).contains("<name>theirs</name>"));
    assert!(mock.system(0).contains("<name>theirs-too</name>"));
    assert_eq!(mock.user_text(0), "Repo template x");
}

#[test]
fn slash_skill_sends_the_body_and_the_arguments() {
    let env = new_env();
    let file = skill(
        &env.home().join("skills"),
        "commit-style",
        "How to write commit messages.",
        "# Commit style\n\nUse the imperative mood.",
    );
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["-p", "/skill:commit-style for the parser change"]));
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
    let env = new_env();
    skill(&env.home().join("skills"), "mine", "My own skill.", "m");
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["--no-skills", "-p", "/skill:mine now"]));
    assert!(!mock.system(0).contains("available_skills"));
    assert_eq!(mock.user_text(0), "/skill:mine now");
}

/// The Agent Skills layout (agentskills.io/specification): SKILL.md with its front matter, a
/// script in scripts/ and a reference in references/. Written here by a shell script, as a
/// user would; listed, read by the model from outside the workspace, and its script run.
#[test]
fn a_skill_in_the_agent_skills_format_is_used_end_to_end() {
    let env = new_env();
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

    let mock = MockServer::replies(vec![
        tool_reply("read", json!({ "path": reference.display().to_string() })),
        tool_reply(
            "bash",
            json!({ "command": format!("sh {} README.md", script.display()) }),
        ),
        text_reply("README.md has 4 lines."),
    ]);
    let out = env.run_against(
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
    let env = new_env();
    write(
        &env.home().join("prompts/forms.md"),
        "---\ndescription: Show every form\nargument-hint: <a> <b> [rest]\n---\n\
         one=$1 two=$2 nine=$9 all=$@ args=$ARGUMENTS from2=${@:2} two-from2=${@:2:2}\n",
    );
    write(
        &env.home().join("prompts/plain.md"),
        "Plain text, no arguments.",
    );
    let mock = MockServer::replies(vec![text_reply("done")]);
    let out = env.run_against(
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
    assert!(
        err.contains("prompt-templates: /forms /init /plain"),
        "{err}"
    );

    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["-p", "/plain"]));
    assert_eq!(mock.user_text(0), "Plain text, no arguments.");
}

#[test]
fn tools_flags_choose_the_tools_sent() {
    let env = new_env();
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["--tools", "read,ls", "-p", "hi"]));
    let mut tools = mock.tools(0);
    tools.sort();
    assert_eq!(tools, ["ls", "read"]);
    let system = mock.system(0);
    assert!(
        system.contains("- read:") && !system.contains("- bash:"),
        "{system}"
    );

    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["--no-tools", "-p", "hi"]));
    assert!(mock.tools(0).is_empty(), "{:?}", mock.tools(0));
    assert!(mock.system(0).contains("No tools are available"));

    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["--no-builtin-tools", "-p", "hi"]));
    assert!(mock.tools(0).is_empty(), "{:?}", mock.tools(0));

    let mock = MockServer::replies(vec![text_reply("done")]);
    let out = env.run_against(&mock, &["--tools", "read,nope", "-p", "hi"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("unknown tool nope"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn system_prompt_flags_and_files_shape_the_prompt_sent() {
    let env = new_env();
    let project = env.project();
    write(&project.join("AGENTS.md"), "Project rule: use tabs.");

    // Default: tack's own prompt and the context file.
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["-p", "hi"]));
    let system = mock.system(0);
    assert!(system.starts_with("You are tack"), "{system}");
    assert!(system.contains("Project rule: use tabs."), "{system}");

    // --no-context-files.
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["--no-context-files", "-p", "hi"]));
    assert!(!mock.system(0).contains("Project rule"));

    // --system-prompt as text, then as a file; repeated --append-system-prompt.
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(
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
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(
        &mock,
        &["--system-prompt", file.to_str().unwrap(), "-p", "hi"],
    ));
    assert!(mock.system(0).starts_with("Prompt from a file."));

    // SYSTEM.md and APPEND_SYSTEM.md in the tack home, then the trusted project's over it.
    write(&env.home().join("SYSTEM.md"), "Home system prompt.");
    write(&env.home().join("APPEND_SYSTEM.md"), "Home addition.");
    let mock = MockServer::replies(vec![text_reply("done")]);
    let out = env.run_against(&mock, &["--verbose", "-p", "hi"]);
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
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(&mock, &["--trust", "-p", "hi"]));
    let system = mock.system(0);
    assert!(system.starts_with("Project system prompt."), "{system}");
    assert!(
        system
            .trim_end()
            .ends_with("Home addition.\n\nProject addition."),
        "{system}"
    );
    let mock = MockServer::replies(vec![text_reply("done")]);
    let out = env.run_against(&mock, &["--no-trust", "-p", "hi"]);
    ok(&out);
    let system = mock.system(0);
    assert!(
        system.starts_with("Home system prompt."),
        "untrusted: {system}"
    );
    assert!(!system.contains("Project addition."), "{system}");
    assert!(stderr(&out).contains(".tack/SYSTEM.md"), "{}", stderr(&out));
    // The command line beats every file.
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&env.run_against(
        &mock,
        &["--trust", "--system-prompt", "Flag wins.", "-p", "hi"],
    ));
    assert!(mock.system(0).starts_with("Flag wins."));
}

#[test]
fn no_plugins_loads_only_the_named_ones() {
    let env = new_env();
    skill(&env.home().join("skills"), "mine", "My own skill.", "m");
    let mock = MockServer::replies(vec![text_reply("done")]);
    // Without any plugin there is no provider at all.
    let out = env.run_against(&mock, &["--no-plugins", "-p", "hi"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("openai"), "{}", stderr(&out));
    let out = env.run_against(&mock, &["--no-extensions", "-p", "hi"]);
    assert!(!out.status.success(), "--no-extensions is the same flag");
    assert!(mock.requests().is_empty());
}

/// RPC: `get_commands` lists templates and skills with their descriptions, and a `prompt` of a
/// template line sends its expansion.
#[test]
fn rpc_lists_templates_and_skills_and_expands_a_template_prompt() {
    use std::io::{BufRead, BufReader, Write};
    let env = new_env();
    write(
        &env.home().join("prompts/review.md"),
        "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 carefully.",
    );
    skill(&env.home().join("skills"), "mine", "My own skill.", "m");
    let mock = MockServer::replies(vec![text_reply("done")]);
    let mut child = env
        .command()
        .args(env.openai_args(&mock))
        .args(["--mode", "rpc"])
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
    let env = new_env();
    let file = skill(
        &env.home().join("skills"),
        "notes",
        "Team notes.",
        "See the notes.",
    );
    let mock = MockServer::replies(vec![
        tool_reply("read", json!({ "path": file.display().to_string() })),
        text_reply("read it"),
    ]);
    ok(&env.run_against(&mock, &["-p", "what do the notes say?"]));
    let results = mock.tool_results(1);
    assert!(
        results.iter().any(|r| r.contains("See the notes.")),
        "{results:?}"
    );
    // Files beside the skills are not: the plugin answers only for its skills' folders.
    let outside = env.home().join("secret.txt");
    write(&outside, "private");
    let mock = MockServer::replies(vec![
        tool_reply("read", json!({ "path": outside.display().to_string() })),
        text_reply("no"),
    ]);
    ok(&env.run_against(&mock, &["-p", "read it"]));
    let results = mock.tool_results(1);
    assert!(
        results.iter().all(|r| !r.contains("private")),
        "{results:?}"
    );
}
