//! Property tests for the bash path judgement: lines made of directory changes (`cd`, `pushd`,
//! `popd`, subshells), redirections and `touch`, to `~`, `$HOME`, `..`, links and absolute
//! paths, are judged by [`Places`] and then really run by bash in a scratch tree with its own
//! HOME. Whenever the judgement says every write stays inside the workspace, nothing outside it
//! may have changed.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::Command;

use policy_common::commands::analyze;
use policy_common::place::Places;
use policy_common::writes::write_targets;
use proptest::prelude::*;

/// A scratch tree: `home/`, `outside/`, and the workspace `ws/` with `sub/`, `sub/deeper/`,
/// `link -> ../outside` and `inner -> sub`.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        for sub in ["home", "outside", "ws/sub/deeper"] {
            std::fs::create_dir_all(root.join(sub)).expect("mkdir");
        }
        std::os::unix::fs::symlink("../outside", root.join("ws/link")).expect("link");
        std::os::unix::fs::symlink("sub", root.join("ws/inner")).expect("link");
        Tree { _dir: dir, root }
    }

    fn ws(&self) -> PathBuf {
        self.root.join("ws")
    }

    /// Every regular file outside the workspace.
    fn outside_files(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path == self.ws() {
                    continue;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    stack.push(path);
                } else {
                    found.push(path);
                }
            }
        }
        found.sort();
        found
    }
}

fn directory(outside: &str) -> impl Strategy<Value = String> {
    prop_oneof![
        Just("~".to_string()),
        Just("$HOME".to_string()),
        Just("${HOME}".to_string()),
        Just("..".to_string()),
        Just("../ws".to_string()),
        Just("sub".to_string()),
        Just("sub/deeper".to_string()),
        Just("inner".to_string()),
        Just("link".to_string()),
        Just("-".to_string()),
        Just("$(pwd)".to_string()),
        Just("`pwd`".to_string()),
        Just(outside.to_string()),
        Just(String::new()),
    ]
}

fn target(outside: &str) -> impl Strategy<Value = String> {
    prop_oneof![
        Just("~/f1".to_string()),
        Just("$HOME/f2".to_string()),
        Just("${HOME}/f3".to_string()),
        Just("../f4".to_string()),
        Just("f5".to_string()),
        Just("sub/f6".to_string()),
        Just("link/f7".to_string()),
        Just("inner/f8".to_string()),
        Just("$(pwd)/f9".to_string()),
        Just(format!("{outside}/f10")),
        Just("./f11".to_string()),
    ]
}

fn step(outside: String) -> impl Strategy<Value = String> {
    let out = outside.clone();
    prop_oneof![
        directory(&outside).prop_map(|d| format!("cd {d}")),
        directory(&outside).prop_map(|d| format!("pushd {d} >/dev/null")),
        Just("popd >/dev/null".to_string()),
        (target(&out), prop_oneof![Just(">"), Just(">>")])
            .prop_map(|(t, op)| format!("echo x {op} {t}")),
        target(&out).prop_map(|t| format!("touch {t}")),
    ]
}

/// A line of 1 to 6 steps, joined by `;`, `&&` or `||`, some of them in subshells.
fn line(outside: String) -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            step(outside),
            prop_oneof![Just("; "), Just(" && "), Just(" || ")],
            any::<bool>(),
        ),
        1..6,
    )
    .prop_map(|steps| {
        let mut text = String::new();
        let count = steps.len();
        for (i, (step, join, subshell)) in steps.into_iter().enumerate() {
            if subshell {
                text.push_str(&format!("( {step} )"));
            } else {
                text.push_str(&step);
            }
            if i + 1 < count {
                text.push_str(join);
            }
        }
        text
    })
}

/// Whether the policies would judge every write of `line` to stay inside `ws`.
fn judged_inside(line: &str, ws: &Path) -> bool {
    let Ok(analysis) = analyze(line) else {
        return false;
    };
    let ws = ws.to_string_lossy();
    let places = Places::new(line, &analysis, &ws);
    places.stays_inside()
        && write_targets(&analysis)
            .iter()
            .all(|t| places.place(&t.word).inside(&ws))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn writes_judged_inside_stay_inside(seed in line("OUTSIDE".into())) {
        let tree = Tree::new();
        let outside = tree.root.join("outside");
        let line = seed.replace("OUTSIDE", &outside.to_string_lossy());
        let before = tree.outside_files();
        let inside = judged_inside(&line, &tree.ws());
        let status = Command::new("bash")
            .arg("-c")
            .arg(&line)
            .current_dir(tree.ws())
            .env_clear()
            .env("HOME", tree.root.join("home"))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("bash runs");
        let _ = status;
        let after = tree.outside_files();
        if inside {
            prop_assert_eq!(
                &before,
                &after,
                "`{}` was judged to write inside the workspace only",
                line
            );
        }
    }
}

#[test]
fn known_escapes_are_judged_outside() {
    let tree = Tree::new();
    for line in [
        "echo x >> ~/.bashrc",
        "echo x >> $HOME/.bashrc",
        "cd ~ && touch .bashrc",
        "cd && touch x",
        "(cd ..; touch x)",
        "cd sub; cd ../..; touch x",
        "pushd ..; touch x",
        "cd link && touch x",
        "touch link/x",
        "echo x > $(pwd)/../x",
    ] {
        assert!(!judged_inside(line, &tree.ws()), "{line}");
    }
    for line in [
        "echo x > notes.txt",
        "cd sub && touch x",
        "(cd sub/deeper); touch x",
        "cd inner && echo x >> log",
    ] {
        assert!(judged_inside(line, &tree.ws()), "{line}");
    }
}
