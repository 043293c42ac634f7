//! A Claude Code (and Codex) user's set-up, used by the real `tack` binary: a project laid out as
//! Claude Code documents it (commands, agents, skills, settings with permission rules and a
//! PreToolUse hook script), the OpenAI provider talking to a loopback server that records every
//! request, and real hook scripts run by the built-in hooks plugin.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use tack_test_support::http::MockServer;
use tack_test_support::openai::{
    system_prompt, text_reply, tool_names, tool_reply, tool_results, user_text,
};
use tack_test_support::{stderr, stdout, tack, Env};

/// The project is a git repository root; the user's home (`HOME`, for `~/.claude`) is `user/`
/// beside it and tack's home.
fn new_env() -> Env {
    let env = Env::new(tack!());
    let user = env.root().join("user");
    std::fs::create_dir(&user).expect("user home");
    let env = env.with_var("HOME", user);
    std::fs::create_dir(env.workspace().join(".git")).expect("git");
    env
}

fn user(env: &Env) -> PathBuf {
    env.root().join("user")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The hook script: keeps its standard input where the test can read it, and refuses `rm -rf`
/// with exit code 2 and a reason on stderr, as Claude Code's documentation shows.
const GUARD: &str = r#"#!/bin/sh
input=$(cat)
printf '%s' "$input" > "$CLAUDE_PROJECT_DIR/hook-input.json"
case "$input" in
  *'rm -rf'*) echo "rm -rf is not allowed in this project" >&2; exit 2 ;;
esac
exit 0
"#;

/// A project set up for Claude Code.
fn claude_project(env: &Env) {
    let project = env.workspace();
    write(
        &project.join(".claude/commands/review.md"),
        "---\nallowed-tools: Bash(git diff:*), Read\nargument-hint: [file] [focus]\ndescription: Review a file\nmodel: claude-sonnet-4-5\n---\nReview $1 with a focus on $2.\n",
    );
    write(
        &project.join(".claude/commands/frontend/component.md"),
        "---\ndescription: Make a component\n---\nMake the component $ARGUMENTS.\n",
    );
    write(
        &project.join(".claude/agents/code-reviewer.md"),
        "---\nname: code-reviewer\ndescription: Reviews code for correctness and style\ntools: Read, Grep, Glob\nmodel: sonnet\n---\nYou review code.\n",
    );
    write(
        &project.join(".claude/skills/release-notes/SKILL.md"),
        "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\n# Release notes\n",
    );
    let hooks = project.join(".claude/hooks/guard.sh");
    write(&hooks, GUARD);
    std::fs::set_permissions(&hooks, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    write(
        &project.join(".claude/settings.json"),
        &serde_json::to_string_pretty(&json!({
            "$schema": "https://json.schemastore.org/claude-code-settings.json",
            "permissions": {
                "allow": ["Bash(./scripts/ok.sh:*)", "Bash(npm run test:*)", "WebFetch(domain:example.com)"],
                "deny": ["Read(./secrets/**)"]
            },
            "hooks": {
                "PreToolUse": [{
                    "matcher": "Bash",
                    "hooks": [{
                        "type": "command",
                        "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh",
                        "timeout": 30
                    }]
                }],
                "UserPromptSubmit": [{
                    "hooks": [{ "type": "command", "command": "echo 'Builds use make, never cargo directly.'" }]
                }]
            }
        }))
        .unwrap(),
    );
    let script = project.join("scripts/ok.sh");
    write(&script, "#!/bin/sh\necho ran-by-rule\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    write(&project.join("secrets/key.txt"), "sk-canary\n");
    std::fs::create_dir_all(project.join("build")).expect("build dir");
    write(&project.join("build/out.txt"), "built\n");
}

fn openai_args(mock: &MockServer) -> Vec<String> {
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

fn run_against(env: &Env, mock: &MockServer, args: &[&str]) -> Output {
    env.command()
        .args(openai_args(mock))
        .args(args)
        .output()
        .expect("tack runs")
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "tack failed\nstdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
}

fn request(mock: &MockServer, n: usize) -> Value {
    mock.json_bodies()[n].clone()
}

/// The model calls `tool` with `args` once, then answers; returns what the call's result was.
fn one_call(env: &Env, tool: &str, args: Value, flags: &[&str]) -> (String, Output) {
    let mock = MockServer::replies(vec![tool_reply(tool, args), text_reply("done")]);
    let mut all: Vec<&str> = flags.to_vec();
    all.extend(["-p", "go"]);
    let out = run_against(env, &mock, &all);
    ok(&out);
    let results = tool_results(&request(&mock, 1));
    (results.join("\n"), out)
}

#[test]
fn a_trusted_claude_code_project_works_in_tack() {
    let env = new_env();
    claude_project(&env);
    let project = env.workspace();

    // The hook blocks `rm -rf` before anything else is asked, and tells the model why.
    let (result, _) = one_call(
        &env,
        "bash",
        json!({"command": "rm -rf build"}),
        &["--trust"],
    );
    assert!(
        result.contains("rm -rf is not allowed in this project"),
        "{result}"
    );
    assert!(
        project.join("build/out.txt").exists(),
        "the command never ran"
    );

    // The hook read Claude Code's documented input on stdin.
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(project.join("hook-input.json")).unwrap())
            .expect("the hook's stdin is JSON");
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_input"]["command"], "rm -rf build");
    assert_eq!(input["tool_use_id"], "call_1");
    assert_eq!(input["cwd"], project.display().to_string());
    assert_eq!(input["permission_mode"], "default");
    assert!(
        input["session_id"].as_str().is_some_and(|s| !s.is_empty()),
        "{input}"
    );
    assert!(input["transcript_path"].is_string(), "{input}");

    // A command the hook lets through and an allow rule covers runs without a question (in
    // ask mode, with no one there to answer).
    let (result, _) = one_call(
        &env,
        "bash",
        json!({"command": "./scripts/ok.sh now"}),
        &["--trust", "--permissions", "ask"],
    );
    assert!(result.contains("ran-by-rule"), "{result}");

    // The deny rule holds.
    let (result, _) = one_call(
        &env,
        "read",
        json!({"path": "secrets/key.txt"}),
        &["--trust"],
    );
    assert!(!result.contains("sk-canary"), "{result}");
    assert!(result.contains("denied"), "{result}");

    // Commands are prompt templates; the prompt hook's output reaches the model as context;
    // skills and agents are offered.
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&run_against(
        &env,
        &mock,
        &["--trust", "-p", "/review src/lib.rs errors"],
    ));
    let first = request(&mock, 0);
    let sent = user_text(&first);
    assert!(
        sent.contains("Review src/lib.rs with a focus on errors."),
        "{sent}"
    );
    assert!(
        sent.contains("Builds use make, never cargo directly."),
        "{sent}"
    );
    let system = system_prompt(&first);
    assert!(system.contains("<name>release-notes</name>"), "{system}");
    let tools = tool_names(&first);
    assert!(
        tools.contains(&"task".to_string()),
        "agents in .claude/agents turn on the task tool: {tools:?}"
    );
    let task = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "task")
        .unwrap()
        .to_string();
    assert!(task.contains("code-reviewer"), "{task}");

    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&run_against(
        &env,
        &mock,
        &["--trust", "-p", "/component DatePicker"],
    ));
    assert!(user_text(&request(&mock, 0)).contains("Make the component DatePicker."));
}

#[test]
fn an_untrusted_projects_hooks_allow_rules_and_commands_are_ignored() {
    let env = new_env();
    claude_project(&env);
    let project = env.workspace();

    let (result, out) = one_call(
        &env,
        "bash",
        json!({"command": "rm -rf build"}),
        &["--no-trust"],
    );
    assert!(
        !project.join("hook-input.json").exists(),
        "no repository script ran"
    );
    assert!(!result.contains("not allowed in this project"), "{result}");
    assert!(
        project.join("build/out.txt").exists(),
        "permission-gate still refused it: {result}"
    );
    let err = stderr(&out);
    assert!(err.contains(".claude/settings.json"), "{err}");

    let (result, out) = one_call(
        &env,
        "bash",
        json!({"command": "./scripts/ok.sh now"}),
        &["--no-trust", "--permissions", "ask"],
    );
    assert!(
        !result.contains("ran-by-rule") && result.contains("permission-gate"),
        "the project's allow rule is ignored: {result}"
    );
    assert!(
        stderr(&out).contains("ignores the allow rules"),
        "{}",
        stderr(&out)
    );

    let (result, _) = one_call(
        &env,
        "read",
        json!({"path": "secrets/key.txt"}),
        &["--no-trust"],
    );
    assert!(
        !result.contains("sk-canary"),
        "deny rules count untrusted: {result}"
    );

    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&run_against(
        &env,
        &mock,
        &["--no-trust", "-p", "/review a b"],
    ));
    let first = request(&mock, 0);
    assert_eq!(user_text(&first), "/review a b");
    assert!(!system_prompt(&first).contains("release-notes"));
    assert!(!tool_names(&first).contains(&"task".to_string()));
}

#[test]
fn the_users_own_claude_code_and_codex_files_work_everywhere() {
    let env = new_env();
    let home = user(&env);
    write(
        &home.join(".claude/commands/explain.md"),
        "Explain $ARGUMENTS simply.",
    );
    write(
        &home.join(".codex/prompts/draft.md"),
        "Draft a note about $1.",
    );
    write(
        &home.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Read(~/notes/**)"]}}"#,
    );

    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&run_against(
        &env,
        &mock,
        &["--no-trust", "-p", "/explain monads"],
    ));
    assert_eq!(user_text(&request(&mock, 0)), "Explain monads simply.");
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&run_against(&env, &mock, &["-p", "/prompts:draft tack"]));
    assert_eq!(user_text(&request(&mock, 0)), "Draft a note about tack.");
    let mock = MockServer::replies(vec![text_reply("done")]);
    ok(&run_against(&env, &mock, &["-p", "/init"]));
    assert!(user_text(&request(&mock, 0)).contains("AGENTS.md"));
}

#[test]
fn agents_md_is_read_from_every_folder_up_to_the_home_folder() {
    let env = Env::new(tack!());
    // The user's home holds the project (not a git repository) two folders down.
    let root = env.root().to_owned();
    let env = env.with_var("HOME", root.clone());
    write(&root.join("AGENTS.md"), "Rule from the home folder.");
    let work = env.workspace().join("team");
    write(&work.join("CLAUDE.md"), "Rule from the team folder.");
    let cwd = work.join("app");
    write(&cwd.join("AGENTS.md"), "Rule from the project.");
    let mock = MockServer::replies(vec![text_reply("done")]);
    let out = env
        .command_in(&cwd)
        .args(openai_args(&mock))
        .args(["-p", "hi"])
        .output()
        .expect("tack runs");
    ok(&out);
    let system = system_prompt(&request(&mock, 0));
    let home_at = system.find("Rule from the home folder.").expect(&system);
    let team_at = system.find("Rule from the team folder.").expect(&system);
    let project_at = system.find("Rule from the project.").expect(&system);
    assert!(home_at < team_at && team_at < project_at, "{system}");
}

#[test]
fn tack_import_claude_and_codex_show_what_they_found_and_what_it_is() {
    let env = new_env();
    claude_project(&env);
    write(&env.workspace().join("CLAUDE.md"), "# Project\n");
    let home = user(&env);
    write(&home.join(".claude/CLAUDE.md"), "Be brief.");
    write(
        &home.join(".claude/commands/explain.md"),
        "Explain $ARGUMENTS simply.",
    );
    write(
        &home.join(".claude/settings.json"),
        r#"{"model": "opus", "permissions": {"ask": ["Bash(git push:*)"]},
            "hooks": {"Notification": [{"hooks": [{"type": "command", "command": "notify-send tack"}]}]}}"#,
    );
    write(&home.join(".codex/prompts/draft.md"), "Draft $1.");

    let redact = |text: String| {
        text.replace(&env.workspace().display().to_string(), "[project]")
            .replace(&env.home().display().to_string(), "[tack home]")
    };
    let out = env.run(&["import", "claude"]);
    ok(&out);
    insta::assert_snapshot!("import_claude_untrusted", redact(stdout(&out)));
    let out = env.run(&["--trust", "import", "claude"]);
    ok(&out);
    let trusted = stdout(&out);
    assert!(trusted.contains("The project is trusted"), "{trusted}");
    assert!(!trusted.contains("[not used until you trust"), "{trusted}");
    let out = env.run(&["import", "codex"]);
    ok(&out);
    insta::assert_snapshot!("import_codex", redact(stdout(&out)));
}

/// The Stop hook of the test below: copies the transcript its input names, and sends the agent
/// back once, then lets it stop (Claude Code's documented use of `stop_hook_active`).
const STOP: &str = r#"#!/bin/sh
input=$(cat)
transcript=$(printf '%s' "$input" | sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p')
cp "$transcript" "$CLAUDE_PROJECT_DIR/transcript-at-stop.jsonl"
case "$input" in
  *'"stop_hook_active":false'*) echo "Also update the changelog." >&2; exit 2 ;;
esac
exit 0
"#;

#[test]
fn post_tool_use_session_start_and_stop_hooks_follow_claude_codes_rules() {
    let env = new_env();
    let home = user(&env);
    let stop = home.join(".claude/hooks/stop.sh");
    write(&stop, STOP);
    std::fs::set_permissions(&stop, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    write(
        &home.join(".claude/settings.json"),
        &serde_json::to_string(&json!({
            "hooks": {
                "SessionStart": [{"hooks": [{"type": "command",
                    "command": "echo 'Session facts: the main branch is trunk.'"}]}],
                "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command",
                    "command": "cat > \"$CLAUDE_PROJECT_DIR/post-input.json\"; echo '{\"decision\": \"block\", \"reason\": \"Run the formatter on that file.\"}'"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": stop.display().to_string()}]}]
            }
        }))
        .unwrap(),
    );
    let mock = MockServer::replies(vec![
        tool_reply("write", json!({"path": "a.txt", "content": "x\n"})),
        text_reply("done"),
        text_reply("changelog updated"),
    ]);
    let out = run_against(&env, &mock, &["--no-trust", "-p", "write a.txt"]);
    ok(&out);
    let project = env.workspace();
    assert!(
        user_text(&request(&mock, 0)).contains("Session facts: the main branch is trunk."),
        "SessionStart's output is context: {}",
        user_text(&request(&mock, 0))
    );
    let results = tool_results(&request(&mock, 1)).join("\n");
    assert!(
        results.contains("Run the formatter on that file."),
        "{results}"
    );
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(project.join("post-input.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_name"], "Write");
    assert_eq!(
        input["tool_input"]["file_path"],
        project.join("a.txt").display().to_string()
    );
    assert_eq!(input["tool_response"]["success"], true);
    let bodies = mock.json_bodies();
    assert_eq!(bodies.len(), 3, "the Stop hook sent the agent back once");
    assert!(
        user_text(&bodies[2]).contains("Also update the changelog."),
        "{}",
        user_text(&bodies[2])
    );

    // `transcript_path` named the session as Claude Code's transcript, up to the last answer.
    let transcript = std::fs::read_to_string(project.join("transcript-at-stop.jsonl"))
        .expect("the Stop hook copied the transcript");
    let lines: Vec<Value> = transcript
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let has = |kind: &str, check: &dyn Fn(&Value) -> bool| {
        lines
            .iter()
            .filter(|line| line["type"] == kind)
            .flat_map(|line| {
                line["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .any(|block| check(&block))
    };
    assert!(
        has("user", &|b| b["text"]
            .as_str()
            .is_some_and(|t| t.contains("write a.txt"))),
        "{transcript}"
    );
    assert!(
        has("assistant", &|b| b["type"] == "tool_use"
            && b["name"] == "Write"
            && b["input"]["file_path"]
                == project.join("a.txt").display().to_string()),
        "{transcript}"
    );
    assert!(
        has("user", &|b| b["type"] == "tool_result"
            && b["tool_use_id"] == "call_1"),
        "{transcript}"
    );
    assert!(
        has("assistant", &|b| b["text"] == "changelog updated"),
        "{transcript}"
    );
    for pair in lines.windows(2) {
        assert_eq!(pair[1]["parentUuid"], pair[0]["uuid"], "{transcript}");
        assert_eq!(pair[1]["sessionId"], pair[0]["sessionId"], "{transcript}");
    }
}

#[test]
fn updated_input_pre_compact_and_subagent_stop_hooks_follow_claude_codes_rules() {
    let env = new_env();
    let home = user(&env);
    write(
        &home.join(".claude/settings.json"),
        &serde_json::to_string(&json!({
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "cat > /dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"echo rewritten-by-hook\"}}}'"}]}],
                "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command",
                    "command": "cat > \"$CLAUDE_PROJECT_DIR/precompact.json\""}]}]
            }
        }))
        .unwrap(),
    );
    // The hook's updatedInput is what runs (and every policy judged it).
    let (result, _) = one_call(&env, "bash", json!({"command": "echo original"}), &[]);
    assert!(result.contains("rewritten-by-hook"), "{result}");
    assert!(!result.contains("original"), "{result}");

    // PreCompact hears of a /compact, as `manual` (with so short a conversation, only when
    // nothing is kept verbatim).
    env.config(json!({"compaction": {"keep_recent_tokens": 1}}));
    let mock = MockServer::replies(vec![
        text_reply("first answer"),
        text_reply("## Goal\nA summary."),
    ]);
    let base = format!("{}/v1", mock.url());
    let args = |prompt: &'static str, more: &[&'static str]| {
        let mut args = vec![
            "--provider".to_string(),
            "openai".into(),
            "--model".into(),
            "gpt-4.1".into(),
            "--base-url".into(),
            base.clone(),
            "--api-key".into(),
            "sk-test".into(),
        ];
        args.extend(more.iter().map(|s| s.to_string()));
        args.extend(["-p".to_string(), prompt.to_string()]);
        args
    };
    ok(&env
        .command()
        .args(args("hello", &[]))
        .output()
        .expect("runs"));
    ok(&env
        .command()
        .args(args("/compact keep the error handling decisions", &["-c"]))
        .output()
        .expect("runs"));
    let input: Value = serde_json::from_str(
        &std::fs::read_to_string(env.workspace().join("precompact.json"))
            .expect("the PreCompact hook ran"),
    )
    .expect("its input is JSON");
    assert_eq!(input["hook_event_name"], "PreCompact");
    assert_eq!(input["trigger"], "manual");
    assert_eq!(
        input["custom_instructions"], "keep the error handling decisions",
        "what /compact asked for, as Claude Code's /compact <instructions>"
    );
}
