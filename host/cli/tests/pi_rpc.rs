//! Pi's own `RpcClient` (the npm package `@mariozechner/pi-coding-agent`, pinned in
//! `tests/pi-peer`, installed by `scripts/install-pi`) drives the real `tack --mode rpc`:
//! every method of the class, a permission-gate question the client answers, steering and a
//! follow-up during a run, compaction, fork, clone and bash (`tests/pi-peer/drive-rpc.mjs`).
//!
//! Without node or the installed package the test says what is missing and passes, unless
//! `TACK_REQUIRE_PI=1` (set by `.ci/run`), which makes it fail.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use tack_builtin::artifacts;

fn peer() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-peer")
}

/// `None` when node and the package are there; else what is missing.
fn missing() -> Option<String> {
    if Command::new("node").arg("--version").output().is_err() {
        return Some("node is not installed".into());
    }
    let package = peer().join("node_modules/@mariozechner/pi-coding-agent/package.json");
    if !package.is_file() {
        return Some(format!(
            "Pi's package is not installed ({} is missing; run scripts/install-pi)",
            package.display()
        ));
    }
    None
}

/// Whether to go on; fails instead when Pi is required.
fn pi_available(test: &str) -> bool {
    match missing() {
        None => true,
        Some(what) if std::env::var("TACK_REQUIRE_PI").as_deref() == Ok("1") => {
            panic!("{test}: {what}, and TACK_REQUIRE_PI=1")
        }
        Some(what) => {
            eprintln!("skipping {test}: {what}");
            false
        }
    }
}

#[test]
fn pis_rpc_client_drives_tack_through_every_method() {
    if !pi_available("pis_rpc_client_drives_tack_through_every_method") {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    let workspace = tempfile::tempdir().expect("workspace");
    std::fs::create_dir(workspace.path().join("build")).expect("build dir");
    std::fs::write(workspace.path().join("README.md"), "# Demo\n").expect("readme");

    let package = home.path().join("scripted");
    std::fs::create_dir_all(&package).expect("dir");
    std::fs::copy(
        artifacts::TEST_SCRIPTED_PROVIDER,
        package.join("plugin.wasm"),
    )
    .expect("copy component");
    std::fs::write(
        package.join("tack.toml"),
        "[plugin]\nname = \"scripted\"\nversion = \"0.0.1\"\napi = \"0.1\"\ncomponent = \"plugin.wasm\"\n",
    )
    .expect("manifest");
    // The scripted provider answers by the number of assistant messages in the request, so the
    // summary request (none) gets turn 0 too.
    let script = json!([
        { "text": "The user said hello." },
        { "tool_calls": [{ "id": "rm1", "name": "bash", "arguments": { "command": "rm -r build" } }] },
        { "text": "removed" },
        { "tool_calls": [{ "id": "nap", "name": "bash", "arguments": { "command": "sleep 1" } }] },
        { "text": "after steer" },
        { "text": "after follow-up" }
    ]);
    let config = json!({ "provider": "scripted", "plugins": { "scripted": {
        "context_window": 4000, "script": script
    } } });
    std::fs::write(
        home.path().join("config.toml"),
        toml::to_string(&config).expect("toml"),
    )
    .expect("config");

    let output = Command::new("node")
        .arg(peer().join("drive-rpc.mjs"))
        .current_dir(peer())
        .env("TACK_BIN", env!("CARGO_BIN_EXE_tack"))
        .env("TACK_WORKSPACE", workspace.path())
        .env(
            "TACK_ARGS",
            json!(["--plugin", package.to_str().expect("utf8")]).to_string(),
        )
        .env("TACK_HOME", home.path())
        .env(
            "TACK_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/tack-component-cache"),
        )
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Pi client's run failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no summary ({e}): {stdout}\n{stderr}"));
    let methods: Vec<&str> = summary["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let called: Vec<&str> = summary["called"]
        .as_array()
        .expect("called")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let uncalled: Vec<&&str> = methods.iter().filter(|m| !called.contains(m)).collect();
    assert!(
        uncalled.is_empty(),
        "RpcClient methods never called: {uncalled:?}"
    );
    assert!(methods.len() >= 30, "{methods:?}");
}
