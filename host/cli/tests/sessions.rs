//! Session commands through the real binary: `tack import` of a Pi session, `tack sessions`, and
//! the host's slash commands in print mode (`/tree`, `/name`, `/label`, `/fork`, `/clone`,
//! `/resume`, `/compact`), with the scripted provider playing the model.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};
use tack_test_support::{tack, Env};

/// A home whose provider is the scripted one, playing `script` with a `window`-token context.
fn new_env(script: Value, window: u32) -> Env {
    let env = Env::new(tack!());
    env.scripted_provider_with(
        json!({ "script": script, "context_window": window }),
        json!({}),
    );
    env
}

/// Runs with the scripted provider's package loaded.
trait Scripted {
    fn run_scripted(&self, args: &[&str]) -> Output;
    fn ok(&self, args: &[&str]) -> String;
}

impl Scripted for Env {
    fn run_scripted(&self, args: &[&str]) -> Output {
        let plugin = self.package_dir("scripted");
        let mut all = vec!["--plugin", plugin.to_str().expect("utf8")];
        all.extend_from_slice(args);
        self.run(&all)
    }

    /// Runs and expects success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run_scripted(args);
        assert!(
            out.status.success(),
            "tack {args:?} failed:\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

fn entries(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("session")
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// The id `tack -r` takes, from "Continue it with: tack -r <id>".
fn continue_id(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("Continue it with: tack -r "))
        .expect("a continue hint")
        .trim()
        .to_owned()
}

#[test]
fn an_imported_pi_session_is_navigated_labelled_and_forked() {
    let env = new_env(json!([{ "text": "The edit broke the build." }]), 200_000);
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/pi-v3-session.jsonl");
    let out = env.ok(&["import", fixture.to_str().expect("utf8")]);
    assert!(
        out.starts_with("Imported 23 entries of a Pi session (format version 3)"),
        "{out}"
    );
    let id = continue_id(&out);

    let listed = env.ok(&["sessions", "--all"]);
    assert!(listed.contains(&id), "{listed}");
    assert!(listed.contains("Why does the build fail?"), "{listed}");
    assert!(listed.contains("[/home/me/project]"), "{listed}");

    let tree = env.ok(&["-r", &id, "-p", "/tree"]);
    assert!(
        tree.contains("* a0000003 user: Why does the build fail?  [start]"),
        "{tree}"
    );
    assert!(
        tree.contains("    b0000001 user: Try removing the call instead."),
        "{tree}"
    );
    assert!(
        tree.lines()
            .any(|l| l.ends_with("<- leaf") && l.contains("tack-import")),
        "{tree}"
    );

    let named = env.ok(&["-r", &id, "-p", "/name Build fix"]);
    assert_eq!(named.trim(), "Session named \"Build fix\".");
    env.ok(&["-r", &id, "-p", "/label a0000010 the fix"]);
    let tree = env.ok(&["-r", &id, "-p", "/tree"]);
    assert!(
        tree.contains("a0000010 user: Add the missing function.  [the fix]"),
        "{tree}"
    );

    // Back to where the branches part, summarizing the branch left (with the scripted model:
    // the imported session was using Anthropic's); a later run continues from the summary.
    let moved = env.ok(&[
        "-r",
        &id,
        "--provider",
        "scripted",
        "-p",
        "/tree a0000006 --summarize",
    ]);
    assert!(
        moved.starts_with("Moved to a0000006. The branch left is summarized"),
        "{moved}"
    );
    assert!(moved.contains("The edit broke the build."), "{moved}");
    let tree = env.ok(&["-r", &id, "-p", "/tree"]);
    let leaf = tree
        .lines()
        .find(|l| l.ends_with("<- leaf"))
        .expect("a leaf line");
    assert!(
        leaf.contains("branch summary: The edit broke the build."),
        "{tree}"
    );

    // A move without a summary is recorded too, so it outlives the process.
    env.ok(&["-r", &id, "-p", "/tree a0000003"]);
    let tree = env.ok(&["-r", &id, "-p", "/tree"]);
    let leaf = tree.lines().find(|l| l.ends_with("<- leaf")).expect("leaf");
    assert!(leaf.contains("state tack-tree"), "{tree}");

    let forked = env.ok(&["-r", &id, "-p", "/fork a0000005"]);
    let fork_id = continue_id(&forked);
    let cloned = env.ok(&["-r", &id, "-p", "/clone"]);
    let clone_id = continue_id(&cloned);
    assert_ne!(fork_id, clone_id);
    assert_eq!(env.session_files().len(), 3);
    let fork_file = env
        .session_files()
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&fork_id))
        .expect("fork file");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&fork_file)
            .expect("fork")
            .lines()
            .next()
            .expect("header"),
    )
    .expect("json");
    assert!(header["parentSession"]
        .as_str()
        .is_some_and(|p| p.ends_with(".jsonl")));
    let fork_entries = entries(&fork_file);
    assert_eq!(fork_entries.len(), 5);
    assert_eq!(fork_entries[4]["id"], "a0000005");

    let unknown = env.run_scripted(&["-r", &id, "-p", "/fork nope"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no entry \"nope\""));
}

#[test]
fn compact_in_print_mode_and_resume_lists_the_sessions() {
    // A 40k window compacts past ~23.6k tokens and keeps ~11.8k verbatim. The scripted model
    // answers the first question and every summary with entry 0.
    let env = new_env(
        json!([{ "text": "## Goal\nScripted summary." }, { "text": "It is a build log." }]),
        40_000,
    );
    env.ok(&["-p", "first question"]);
    let big = format!(
        "Explain this log:\n{}",
        "error: something failed\n".repeat(2000)
    );
    let answer = env.ok(&["-c", "-p", &big]);
    assert_eq!(answer.trim(), "It is a build log.");
    let out = env.ok(&["-c", "-p", "/compact focus on the errors"]);
    assert!(
        out.starts_with("Compacted the conversation from ~"),
        "{out}"
    );
    assert!(out.contains("## Goal\nScripted summary."), "{out}");
    let file = &env.session_files()[0];
    let compaction = entries(file)
        .into_iter()
        .find(|e| e["type"] == "compaction")
        .expect("a compaction entry");
    assert!(compaction["tokensBefore"]
        .as_u64()
        .is_some_and(|t| t > 11_000));

    let nothing = env.run_scripted(&["-c", "-p", "/compact"]);
    assert!(!nothing.status.success());
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("nothing to compact"));

    let resume = env.ok(&["-c", "-p", "/resume"]);
    assert!(resume.starts_with("* "), "{resume}");
    assert!(resume.contains("first question"), "{resume}");
    assert!(resume
        .trim_end()
        .ends_with("Continue one with: tack -r <id>"));
}

#[test]
fn export_writes_html_and_a_branch_file_and_session_reports_the_counts() {
    let env = new_env(
        json!([
            { "tool_calls": [{ "id": "c1", "name": "read", "arguments": { "path": "notes.md" } }],
              "usage": { "input": 100, "output": 20 } },
            { "text": "The notes say <hello>.", "usage": { "input": 150, "output": 10 } }
        ]),
        128_000,
    );
    env.write("notes.md", "hello & goodbye\n");
    env.ok(&["-p", "read notes.md"]);
    let file = env.session_files().remove(0);
    let id = file_id(&file);

    let info = env.ok(&["-c", "-p", "/session"]);
    assert!(
        info.contains(&format!("- File: `{}`", file.display())),
        "{info}"
    );
    assert!(info.contains(&format!("- Id: `{id}`")), "{info}");
    assert!(
        info.contains("- Messages: 1 user, 2 assistant, 1 tool calls, 1 tool results (4 in all)"),
        "{info}"
    );
    assert!(
        info.contains("- Tokens: 250 input, 30 output, 0 cache read, 0 cache write (280 in all)"),
        "{info}"
    );

    // In print mode, as a slash command of the session...
    let out = env.ok(&["-c", "-p", "/export page.html"]);
    let page_path = env.workspace().join("page.html");
    assert!(out.contains(&page_path.display().to_string()), "{out}");
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert!(page.contains("The notes say &lt;hello&gt;."), "{page}");
    assert!(
        page.contains("hello &amp; goodbye"),
        "the tool result is shown: {page}"
    );
    assert!(
        !page.contains("<script src") && !page.contains("<link"),
        "self-contained: nothing fetched"
    );

    // ...and as a subcommand, by id, without opening the session for a run.
    let short = &id[..8];
    let out = env.ok(&["export", short, "branch.jsonl"]);
    assert!(
        out.starts_with(&format!("Exported session {short}")),
        "{out}"
    );
    let branch = env.workspace().join("branch.jsonl");
    let copied = entries(&branch);
    let original = entries(&file);
    assert_eq!(copied.len(), original.len());
    for (a, b) in copied.iter().zip(&original) {
        assert_eq!(a["message"], b["message"]);
    }
    let again = env.run_scripted(&["export", short, "branch.jsonl"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("is never overwritten"));
    // The exported branch is a session file tack opens.
    let reopened = env.ok(&["--session", branch.to_str().unwrap(), "-p", "/session"]);
    assert!(reopened.contains("1 user, 2 assistant"), "{reopened}");

    let default = env.ok(&["export", short]);
    let page = default
        .trim()
        .rsplit_once(" to ")
        .map(|(_, path)| std::path::PathBuf::from(path))
        .unwrap();
    assert_eq!(page.parent(), Some(env.workspace()), "{default}");
    let name = page.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with(&format!("tack-session-{short}")) && name.ends_with(".html"));
    assert!(page.is_file());
}

#[test]
fn fork_copies_a_session_and_session_dir_keeps_sessions_in_one_folder() {
    let env = new_env(
        json!([{ "text": "first answer" }, { "text": "second answer" }]),
        128_000,
    );
    env.ok(&["-p", "first question"]);
    let original = env.session_files().remove(0);
    let before = std::fs::read_to_string(&original).unwrap();
    let id = file_id(&original);

    let answer = env.ok(&["--fork", &id[..8], "-p", "go on"]);
    assert_eq!(answer.trim(), "second answer");
    assert_eq!(
        std::fs::read_to_string(&original).unwrap(),
        before,
        "the original is untouched"
    );
    let files = env.session_files();
    assert_eq!(files.len(), 2);
    let fork = files.into_iter().find(|f| *f != original).unwrap();
    let texts: Vec<String> = entries(&fork)
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| {
            e["message"]["content"][0]["text"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(
        texts,
        ["first question", "first answer", "go on", "second answer"]
    );

    let dir = env.root().join("my-sessions");
    let out = env.ok(&["--session-dir", dir.to_str().unwrap(), "-p", "elsewhere"]);
    assert_eq!(out.trim(), "first answer");
    let kept: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(kept.len(), 1, "the new session is in --session-dir");
    assert_eq!(env.session_files().len(), 2, "and not in the home");
    let listed = env.ok(&["sessions", "--session-dir", dir.to_str().unwrap()]);
    assert!(listed.contains("elsewhere"), "{listed}");
    assert!(!listed.contains("first question"), "{listed}");
    let continued = env.ok(&[
        "--session-dir",
        dir.to_str().unwrap(),
        "-c",
        "-p",
        "/session",
    ]);
    assert!(
        continued.contains(&dir.display().to_string()),
        "{continued}"
    );
}

#[test]
fn at_file_arguments_inline_text_and_attach_images() {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01";
    let env = Env::new(tack!());
    env.scripted_provider_with(
        json!({ "script": [{ "text": "seen" }, { "text": "seen again" }], "images": true }),
        json!({}),
    );
    env.write("spec.md", "# Spec\nBe quick.\n");
    env.write("shot.png", PNG);
    let out = env.ok(&["-p", "@spec.md", "@shot.png", "review", "this"]);
    assert_eq!(out.trim(), "seen");
    let user = env
        .session_lines()
        .into_iter()
        .find(|e| e["type"] == "message" && e["message"]["role"] == "user")
        .expect("the prompt");
    let content = &user["message"]["content"];
    let spec = env.workspace().join("spec.md");
    let shot = env.workspace().join("shot.png");
    assert_eq!(
        content[0]["text"],
        format!(
            "<file name=\"{}\">\n# Spec\nBe quick.\n\n</file>\n<file name=\"{}\"></file>\nreview this",
            spec.display(),
            shot.display()
        )
    );
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");

    // A model without image input gets the file names and a note instead of the image.
    let env = new_env(json!([{ "text": "no eyes" }]), 128_000);
    env.write("shot.png", PNG);
    let out = env.run_scripted(&["-p", "@shot.png", "what is it"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("model 'scripted-1' does not accept images"),
        "{stderr}"
    );
    let missing = env.run_scripted(&["-p", "@nope.md", "hi"]);
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("@"),
        "names the file"
    );
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope.md: cannot read it"));
}

/// The session id in a session file's header.
fn file_id(path: &Path) -> String {
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    header["id"].as_str().unwrap().to_string()
}

#[test]
fn a_second_process_on_a_session_another_is_writing_is_refused_and_lines_never_interleave() {
    let env = new_env(
        json!([
            { "text": "waiting", "tool_calls": [{ "id": "w1", "name": "bash", "arguments": { "command": "sleep 8" } }] },
            { "text": "done" }
        ]),
        100_000,
    );
    env.ok(&["-p", "/name shared"]);
    let plugin = env.package_dir("scripted");
    let plugin = plugin.to_str().expect("utf8");
    let first = env
        .command()
        .args(["--plugin", plugin, "-c", "-p", "go"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tack starts");
    // The first process holds the session once its tool call is in the file.
    let file = env.session_files().pop().expect("session file");
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&file)
        .expect("read")
        .contains("\"w1\"")
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "the first run never called its tool"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let second = env.run_scripted(&["-c", "-p", "also go"]);
    assert!(!second.status.success());
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("is open in another tack process, which is still writing it")
            && err.contains("tack --fork"),
        "{err}"
    );
    // Forking it, the way out the message names, works meanwhile.
    let id = file_id(&file);
    env.ok(&["--fork", &id, "-p", "/name the copy"]);

    let first = first.wait_with_output().expect("first run ends");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // Every line of the file is whole JSON, and the second process wrote none of them.
    let text = std::fs::read_to_string(&file).expect("read");
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert!(!text.contains("also go"), "{text}");
    // Once the first is done, the session is free again.
    env.ok(&["-c", "-p", "/name shared again"]);
}

#[test]
fn a_full_disk_is_a_clear_error_and_the_session_stays_valid_to_its_last_whole_line() {
    // Each turn's command prints 40 KB; the session folder is a 400 KiB tmpfs of the test's own
    // (a mount namespace, `unshare -rm`), so the run fills it within a few turns.
    let turns: Vec<Value> = (0..40)
        .map(|i| json!({ "text": format!("step {i}"), "tool_calls": [{ "id": format!("c{i}"), "name": "bash", "arguments": { "command": "head -c 40000 /dev/zero | tr '\\0' x" } }] }))
        .chain(std::iter::once(json!({ "text": "all done" })))
        .collect();
    let env = new_env(Value::Array(turns), 1_000_000);
    let small = env.root().join("small");
    let kept = env.root().join("kept");
    std::fs::create_dir_all(&small).expect("mkdir");
    std::fs::create_dir_all(&kept).expect("mkdir");
    let plugin = env.package_dir("scripted");
    let mut tack_command = env.command();
    tack_command.args([
        "--plugin",
        plugin.to_str().expect("utf8"),
        "--session-dir",
        small.to_str().expect("utf8"),
        "-p",
        "fill the disk",
    ]);
    // Mount, run, and copy what was written out before the namespace (and the mount) goes.
    let script = r#"dir="$1"; out="$2"; shift 2
mount -t tmpfs -o size=400k tmpfs "$dir" || exit 97
"$@"; status=$?
cp -a "$dir"/. "$out"/
exit $status"#;
    let mut command = std::process::Command::new("unshare");
    command
        .args(["-rm", "sh", "-c", script, "sh"])
        .arg(&small)
        .arg(&kept)
        .arg(tack_command.get_program())
        .args(tack_command.get_args())
        .stdin(std::process::Stdio::null());
    for (key, value) in tack_command.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    if let Some(dir) = tack_command.get_current_dir() {
        command.current_dir(dir);
    }
    let out = command.output().expect("unshare runs");
    assert_ne!(out.status.code(), Some(97), "could not mount a tmpfs");
    assert!(!out.status.success(), "the run cannot have finished");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("No space left on device") && err.contains("cannot write session file"),
        "{err}"
    );
    let file = std::fs::read_dir(&kept)
        .expect("kept")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("the session file");
    let text = std::fs::read_to_string(&file).expect("read");
    let all: Vec<&str> = text.split('\n').collect();
    let (complete, _torn) = all.split_at(all.len() - 1);
    assert!(complete.len() > 3, "{} lines", complete.len());
    for line in complete {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    // tack opens it again, the torn end skipped with a warning at most.
    let out = env.run_scripted(&["--session", file.to_str().expect("utf8"), "-p", "/session"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
