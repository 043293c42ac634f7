//! `tack export` opened in a real browser: Debian's headless Chromium loads the page (nothing is
//! fetched), every message of a session with two branches is in the DOM, a branch path selected
//! through the URL's `#e<id>` is highlighted, and a screenshot is taken. Without Chromium the
//! test skips with a message, unless `TACK_REQUIRE_CHROMIUM=1` (set by `.ci/run`, which installs
//! it) makes that a failure.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use tack_test_support::{tack, Env};

fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join(name))
                    .find(|p| p.is_file())
            })
        });
    if found.is_none() {
        assert!(
            std::env::var_os("TACK_REQUIRE_CHROMIUM").is_none(),
            "TACK_REQUIRE_CHROMIUM is set but no chromium is on PATH (scripts/install-chromium)"
        );
        eprintln!("skipping: no chromium on PATH (scripts/install-chromium installs Debian's)");
    }
    found
}

/// Headless Chromium as this machine lets it run: as root, offline, with a fresh profile.
fn browser(exe: &Path, profile: &Path) -> Command {
    let mut command = Command::new(exe);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--virtual-time-budget=2000",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

fn run_ok(env: &Env, plugin: &str, args: &[&str]) -> String {
    let mut all = vec!["--plugin", plugin];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert!(
        out.status.success(),
        "tack {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn an_exported_session_with_two_branches_renders_in_chromium() {
    let Some(exe) = chromium() else {
        return;
    };
    let env = Env::new(tack!());
    let plugin = env.scripted_provider(json!([
        { "text": "answer one" },
        { "text": "answer two" },
        { "text": "answer three" }
    ]));
    let plugin = plugin.to_str().unwrap();
    run_ok(&env, plugin, &["-p", "first question"]);
    run_ok(&env, plugin, &["-c", "-p", "second question"]);
    let file = env.session_files().remove(0);
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first_answer = lines
        .iter()
        .find(|l| l["message"]["role"] == "assistant")
        .and_then(|l| l["id"].as_str())
        .unwrap()
        .to_string();
    // Back to the first answer, and a second branch from there.
    run_ok(
        &env,
        plugin,
        &["-c", "-p", &format!("/tree {first_answer}")],
    );
    run_ok(&env, plugin, &["-c", "-p", "other question"]);
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let other_answer = lines
        .iter()
        .rev()
        .find(|l| l["message"]["role"] == "assistant")
        .and_then(|l| l["id"].as_str())
        .unwrap()
        .to_string();

    let page = env.workspace().join("session.html");
    run_ok(
        &env,
        plugin,
        &["export", file.to_str().unwrap(), page.to_str().unwrap()],
    );
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}#e{other_answer}", page.display());
    let dom = browser(&exe, profile.path())
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        dom.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    for text in [
        "first question",
        "answer one",
        "second question",
        "answer two",
        "other question",
    ] {
        assert!(dom.contains(text), "{text:?} is on the page:\n{dom}");
    }
    // The script ran: the selected branch (root → first answer → other question → its answer)
    // is marked, the abandoned one is not.
    assert!(dom.contains("<body class=\"picked\">"), "{dom}");
    let on_path = dom.matches("entry active path").count() + dom.matches("entry off path").count();
    assert!(
        on_path >= 4,
        "{on_path} entries on the selected path:\n{dom}"
    );
    let second = lines
        .iter()
        .find(|l| l["message"]["content"][0]["text"] == "second question")
        .and_then(|l| l["id"].as_str())
        .unwrap();
    let second_div = dom
        .split("<div ")
        .find(|d| d.contains(&format!("id=\"e{second}\"")))
        .unwrap();
    assert!(!second_div.contains(" path\""), "{second_div}");

    let shot = profile.path().join("shot.png");
    let status = browser(&exe, profile.path())
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1200,1600")
        .arg(&url)
        .status()
        .expect("run chromium");
    assert!(status.success());
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}
