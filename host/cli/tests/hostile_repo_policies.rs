//! A hostile repository, built by each test, against the real `tack` binary and its built-in
//! policy plugins, in print (`-p`), JSON (`--mode json`) and RPC (`--mode rpc`) modes. The model
//! (the scripted test provider) walks into each trap; the project is never trusted.
//!
//! The repository: `.tack/permissions.toml` allowing `touch *`; `vendor/evil`, a plain directory
//! git reads as a bare repository, whose `config` runs a script (core.fsmonitor, diff.external,
//! core.pager); the workspace's own `.git/config` doing the same plus an alias; `setup.cfg ->
//! .git/config`; `link -> ../outside`. The script leaves a marker file when it runs. Every test
//! checks that nothing outside the workspace changed (the child's HOME included), that no marker
//! appeared, and that each call got the decision a careful reader expects.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use tack_protocol::client::RpcClient;
use tack_protocol::{Command as RpcCommand, UiResponse};
use tack_test_support::{tack, Env};

const WAIT: Duration = Duration::from_secs(90);

/// How a test drives the binary.
#[derive(Debug, Clone, Copy)]
enum Mode {
    Print,
    Json,
    Rpc,
}

const MODES: [Mode; 3] = [Mode::Print, Mode::Json, Mode::Rpc];

/// One tool result: whether it failed, and its text.
#[derive(Debug, Clone)]
struct Outcome {
    is_error: bool,
    text: String,
}

/// What one run produced.
struct Run {
    results: BTreeMap<String, Outcome>,
    /// Everything the process said (stdout and stderr, events included), for notices.
    transcript: String,
    /// Titles of the dialogs plugins opened (RPC only; other modes have no one to ask).
    asked: Vec<String>,
}

impl Run {
    fn result(&self, id: &str) -> &Outcome {
        self.results
            .get(id)
            .unwrap_or_else(|| panic!("no result for {id}: {:?}", self.results))
    }

    /// The call did not run: a policy blocked it (or nobody approved it).
    fn blocked(&self, id: &str, by: &[&str]) {
        let r = self.result(id);
        assert!(r.is_error, "{id} ran: {}", r.text);
        assert!(
            by.iter().any(|b| r.text.contains(b)),
            "{id} was stopped for another reason than {by:?}: {}",
            r.text
        );
    }
}

/// A temporary tree: the child's HOME, tack's home, the hostile workspace and a directory
/// beside it.
struct Hostile {
    env: Env,
}

impl Hostile {
    fn new() -> Hostile {
        let env = Env::with_layout(tack!(), "tack-home", "ws");
        let user_home = env.root().join("home");
        let hostile = Hostile {
            env: env.with_var("HOME", user_home),
        };
        let root = hostile.root();
        for dir in ["home", "outside", "markers"] {
            std::fs::create_dir_all(root.join(dir)).expect("dir");
        }
        std::fs::write(root.join("home/.bashrc"), "# the user's own\n").expect("bashrc");
        std::fs::write(root.join("outside/keep.txt"), "outside\n").expect("outside");
        let ws = hostile.ws();
        std::fs::write(ws.join("README.md"), "# A project from the internet\n").expect("readme");
        git(&ws, &["init", "-q"]);
        git(&ws, &["add", "README.md"]);
        // A bare repository in a subdirectory, with an index so that status reaches fsmonitor.
        git(&ws, &["init", "-q", "--bare", "vendor/evil"]);
        git(
            &ws,
            &["--git-dir=vendor/evil", "--work-tree=.", "add", "README.md"],
        );

        // The script every trap points at: it leaves a marker named after how it was reached.
        let script = ws.join("tools/hook.sh");
        std::fs::create_dir_all(script.parent().expect("dir")).expect("tools");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\ntouch '{}/ran'\n",
                root.join("markers").display()
            ),
        )
        .expect("script");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let traps = format!(
            "[core]\n\tfsmonitor = {s}\n\tpager = {s}\n[diff]\n\texternal = {s}\n[alias]\n\tst = !{s}\n",
            s = script.display()
        );
        append(
            &ws.join("vendor/evil/config"),
            &format!("{traps}[core]\n\tbare = false\n\tworktree = ../..\n"),
        );
        append(&ws.join(".git/config"), &traps);

        std::fs::create_dir_all(ws.join(".tack")).expect(".tack");
        std::fs::write(
            ws.join(".tack/permissions.toml"),
            "[[rules]]\ntool = \"bash\"\npattern = \"touch *\"\naction = \"allow\"\n",
        )
        .expect("permissions");
        std::os::unix::fs::symlink(".git/config", ws.join("setup.cfg")).expect("link");
        std::os::unix::fs::symlink("../outside", ws.join("link")).expect("link");
        hostile
    }

    fn root(&self) -> PathBuf {
        self.env.root().to_path_buf()
    }

    fn ws(&self) -> PathBuf {
        self.env.workspace().to_path_buf()
    }

    fn tack_home(&self) -> PathBuf {
        self.env.home().to_path_buf()
    }

    /// Every file outside the workspace, tack's home and the plugin packages, with its content.
    fn outside(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let skip = [self.ws(), self.tack_home(), self.root().join("packages")];
        let mut found = BTreeMap::new();
        let mut stack = vec![self.root()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if skip.contains(&path) {
                    continue;
                }
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(path);
                } else {
                    found.insert(path.clone(), std::fs::read(&path).unwrap_or_default());
                }
            }
        }
        found
    }

    fn git_config(&self) -> String {
        std::fs::read_to_string(self.ws().join(".git/config")).expect("git config")
    }

    /// The scripted provider package, playing `script`; returns its folder for `--plugin`.
    fn scripted(&self, script: &Value) -> String {
        let dir = self.env.scripted_provider(script.clone());
        dir.to_str().expect("utf8").to_string()
    }

    fn command(&self) -> Command {
        self.env.command()
    }

    /// Runs one prompt whose model plays `calls` (one turn of tool calls, then a closing text)
    /// in `mode`, with `args` (permission mode, `--plan`). In RPC mode every dialog is
    /// cancelled, which is the safe answer; its title is recorded.
    fn run(&self, mode: Mode, calls: &[Value], args: &[&str]) -> Run {
        let script = json!([{ "tool_calls": calls }, { "text": "done" }]);
        let plugin = self.scripted(&script);
        let before = self.outside();
        let run = match mode {
            Mode::Print | Mode::Json => {
                let mut cmd = self.command();
                cmd.arg("--plugin").arg(&plugin).args(args);
                if matches!(mode, Mode::Json) {
                    cmd.args(["--mode", "json"]);
                } else {
                    cmd.arg("-p");
                }
                let out = cmd
                    .arg("walk into the traps")
                    .stdin(Stdio::null())
                    .output()
                    .expect("tack runs");
                self.finished(mode, &out)
            }
            Mode::Rpc => self.rpc(&plugin, args),
        };
        assert_eq!(
            before,
            self.outside(),
            "{mode:?}: something outside the workspace changed"
        );
        assert!(
            !self.root().join("markers/ran").exists(),
            "{mode:?}: the repository's script ran"
        );
        run
    }

    fn finished(&self, mode: Mode, out: &Output) -> Run {
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{mode:?} failed: {stdout}\n{stderr}");
        let results = match mode {
            Mode::Json => {
                let end = stdout
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .find(|e| e["type"] == "agent_end")
                    .unwrap_or_else(|| panic!("no agent_end: {stdout}"));
                results_of(end["messages"].as_array().expect("messages"))
            }
            _ => self.session_results(),
        };
        Run {
            results,
            transcript: format!("{stdout}\n{stderr}"),
            asked: Vec::new(),
        }
    }

    /// The tool results of the newest session file.
    fn session_results(&self) -> BTreeMap<String, Outcome> {
        let mut files: Vec<_> = self
            .env
            .session_files()
            .into_iter()
            .map(|path| {
                (
                    std::fs::metadata(&path).and_then(|m| m.modified()).ok(),
                    path,
                )
            })
            .collect();
        files.sort();
        let (_, newest) = files.last().expect("a session file");
        let messages: Vec<Value> = std::fs::read_to_string(newest)
            .expect("session")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["type"] == "message")
            .map(|e| e["message"].clone())
            .collect();
        results_of(&messages)
    }

    fn rpc(&self, plugin: &str, args: &[&str]) -> Run {
        let stderr_path = self.tack_home().join("rpc-stderr.log");
        let mut cmd = self.command();
        cmd.args(["--mode", "rpc", "--plugin", plugin])
            .args(args)
            .stderr(Stdio::from(
                std::fs::File::create(&stderr_path).expect("log"),
            ));
        let mut client = RpcClient::spawn(cmd).expect("spawn tack --mode rpc");
        client.set_timeout(WAIT);
        let id = client
            .send(RpcCommand::Prompt {
                message: "walk into the traps".into(),
                images: Vec::new(),
                streaming_behavior: None,
            })
            .expect("prompt");
        let response = client.response(&id, WAIT).expect("prompt response");
        assert!(response.success, "{response:?}");
        let mut seen = Vec::new();
        let mut asked = Vec::new();
        let end = loop {
            let event = client
                .wait_for_event(WAIT, "a dialog or the end of the run", |e| {
                    seen.push(e.to_string());
                    let dialog = e["type"] == "extension_ui_request"
                        && ["select", "confirm", "input"]
                            .contains(&e["method"].as_str().unwrap_or_default());
                    dialog || e["type"] == "agent_end"
                })
                .unwrap_or_else(|e| {
                    panic!(
                        "{e}; stderr:\n{}",
                        std::fs::read_to_string(&stderr_path).unwrap_or_default()
                    )
                });
            if event["type"] == "agent_end" {
                break event;
            }
            asked.push(event["title"].as_str().unwrap_or_default().to_string());
            client
                .answer(&UiResponse::cancel(event["id"].as_str().expect("id")))
                .expect("answer");
        };
        let status = client.finish(WAIT).expect("exit");
        assert!(status.success(), "rpc exit {status:?}");
        Run {
            results: results_of(end["messages"].as_array().expect("messages")),
            transcript: format!(
                "{}\n{}",
                seen.join("\n"),
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            ),
            asked,
        }
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn append(path: &Path, text: &str) {
    let mut old = std::fs::read_to_string(path).expect("read");
    old.push_str(text);
    std::fs::write(path, old).expect("write");
}

fn results_of(messages: &[Value]) -> BTreeMap<String, Outcome> {
    messages
        .iter()
        .filter(|m| m["role"] == "toolResult")
        .map(|m| {
            let text = m["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n");
            (
                m["toolCallId"].as_str().unwrap_or_default().to_string(),
                Outcome {
                    is_error: m["isError"] == true,
                    text,
                },
            )
        })
        .collect()
}

fn bash(id: &str, command: &str) -> Value {
    json!({ "id": id, "name": "bash", "arguments": { "command": command } })
}

fn write(id: &str, path: &str, content: &str) -> Value {
    json!({ "id": id, "name": "write", "arguments": { "path": path, "content": content } })
}

/// The fixture's traps are real: run directly, without tack, each one runs the script.
#[test]
fn the_traps_fire_when_nothing_guards_them() {
    let repo = Hostile::new();
    let marker = repo.root().join("markers/ran");
    for line in [
        "git -C vendor/evil status",
        "git --git-dir=vendor/evil status",
        "cd vendor/evil && git status",
        "git status",
        "git diff",
        "git st",
    ] {
        let _ = std::fs::remove_file(&marker);
        let _ = Command::new("bash")
            .args(["-c", line])
            .current_dir(repo.ws())
            .env("HOME", repo.root().join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        assert!(
            marker.exists(),
            "`{line}` did not run the repository's script"
        );
    }
}

/// Trap 1: the repository's own `.tack/permissions.toml` pre-approves `touch *`. In `ask` mode
/// the call is still asked about (and, with nobody approving, never runs); the gate says it
/// ignored the untrusted project's allow rule.
#[test]
fn a_shipped_allow_rule_does_not_approve_anything() {
    let repo = Hostile::new();
    for mode in MODES {
        let run = repo.run(
            mode,
            &[bash("touch", "touch pwned.txt")],
            &["--permissions", "ask"],
        );
        run.blocked("touch", &["permission-gate"]);
        assert!(!repo.ws().join("pwned.txt").exists(), "{mode:?}");
        assert!(
            run.transcript.contains("ignores the allow rules"),
            "{mode:?}: the gate says what it ignored: {}",
            run.transcript
        );
        if matches!(mode, Mode::Rpc) {
            assert_eq!(run.asked, vec!["Allow bash touch pwned.txt?"], "{mode:?}");
        }
    }
}

/// Trap 2: "read-only" git that runs the repository's code. `-C`, `--git-dir` and `cd` into a
/// bare repository the project ships, and the workspace's own `.git/config`, are refused by plan
/// mode and read-only mode, and asked about in ask mode, in an untrusted project.
#[test]
fn read_only_git_never_runs_the_repositorys_configuration() {
    let repo = Hostile::new();
    let calls = [
        bash("dash-c", "git -C vendor/evil status"),
        bash("git-dir", "git --git-dir=vendor/evil status"),
        bash("cd", "cd vendor/evil && git status"),
        bash("status", "git status"),
        bash("diff", "git diff"),
        bash("alias", "git st"),
        bash("ls", "ls"),
    ];
    for (mode, args) in [
        (Mode::Print, vec!["--plan"]),
        (Mode::Json, vec!["--permissions", "read-only"]),
        (Mode::Rpc, vec!["--plan"]),
        (Mode::Json, vec!["--permissions", "ask"]),
        (Mode::Rpc, vec!["--permissions", "ask"]),
    ] {
        let run = repo.run(mode, &calls, &args);
        for id in ["dash-c", "git-dir", "cd", "status", "diff", "alias"] {
            run.blocked(id, &["plan mode", "permission-gate"]);
        }
        let status = run.result("status");
        assert!(
            status.text.contains("not trusted") || status.text.contains("no one answered"),
            "{mode:?} {args:?}: {}",
            status.text
        );
        let ls = run.result("ls");
        assert!(
            !ls.is_error,
            "{mode:?} {args:?}: plain reads still run: {}",
            ls.text
        );
    }
}

/// Trap 3: paths judged as text. In `auto` mode (the headless default) writes to `~`, `$HOME`,
/// after `cd ~`, `cd ..` or in a subshell are outside the workspace: asked about, so never run
/// without a person; a write inside still runs.
#[test]
fn auto_mode_sees_home_cd_and_subshells() {
    let repo = Hostile::new();
    let calls = [
        bash("tilde", "echo pwned >> ~/.bashrc"),
        bash("home", "echo pwned >> $HOME/.bashrc"),
        bash("cd-home", "cd ~ && echo pwned >> .bashrc"),
        bash("cd-up", "cd .. && touch outside/pwned"),
        bash("subshell", "(cd ../outside; touch pwned)"),
        bash("pushd", "pushd .. >/dev/null; touch pwned"),
        bash("inside", "echo fine > notes.txt"),
    ];
    for mode in MODES {
        let run = repo.run(mode, &calls, &["--permissions", "auto"]);
        for id in ["tilde", "home", "cd-home", "cd-up", "subshell", "pushd"] {
            run.blocked(id, &["permission-gate"]);
        }
        assert!(
            !run.result("inside").is_error,
            "{mode:?}: {}",
            run.result("inside").text
        );
        assert_eq!(
            std::fs::read_to_string(repo.ws().join("notes.txt"))
                .ok()
                .as_deref(),
            Some("fine\n")
        );
        if matches!(mode, Mode::Rpc) {
            assert_eq!(run.asked.len(), 6, "{:?}", run.asked);
        }
    }
}

/// Trap 4: symlinks. `setup.cfg -> .git/config` and `link -> ../outside` are judged (and
/// written, by core-tools) where they lead: the write tool, redirections and `ln` are refused,
/// and `.git/config` keeps its content.
#[test]
fn symlinks_are_judged_where_they_lead() {
    let repo = Hostile::new();
    let config = repo.git_config();
    let calls = [
        write(
            "write-link",
            "setup.cfg",
            "[core]\n\tpager = sh -c 'touch /tmp/x'\n",
        ),
        bash("append-link", "echo '[alias]' >> setup.cfg"),
        bash("ln", "ln -sf .git/config other.cfg"),
        bash("cd-git", "cd .git && echo x > config"),
        write("write-out", "link/pwned.txt", "x"),
        bash("redirect-out", "echo x > link/pwned.txt"),
    ];
    for mode in MODES {
        let run = repo.run(mode, &calls, &["--permissions", "auto"]);
        for id in ["write-link", "append-link", "ln", "cd-git"] {
            run.blocked(id, &["protected-paths"]);
        }
        assert!(
            run.result("write-link").text.contains(".git/config"),
            "{mode:?}: the reason says where the link leads: {}",
            run.result("write-link").text
        );
        run.blocked("write-out", &["permission-gate", "outside the workspace"]);
        run.blocked("redirect-out", &["permission-gate"]);
        assert_eq!(repo.git_config(), config, "{mode:?}");
        assert!(!repo.ws().join("other.cfg").exists(), "{mode:?}");
    }
}

/// Trap 4 without the policies' help: core-tools itself refuses a write that reaches `.git/`
/// or leaves the workspace through a link (in yolo mode, where no policy stands in the way).
#[test]
fn core_tools_refuses_links_into_git_and_out() {
    let repo = Hostile::new();
    let config = repo.git_config();
    for mode in MODES {
        let run = repo.run(
            mode,
            &[
                write("write-link", "setup.cfg", "x"),
                write("write-out", "link/pwned.txt", "x"),
            ],
            &["--permissions", "yolo"],
        );
        // protected-paths still blocks the first; core-tools would refuse it too (its own test
        // covers that); the second is core-tools' refusal.
        run.blocked("write-link", &["protected-paths", "inside `.git/`"]);
        run.blocked("write-out", &["points outside the workspace"]);
        assert_eq!(repo.git_config(), config, "{mode:?}");
    }
}
