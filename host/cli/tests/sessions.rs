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
