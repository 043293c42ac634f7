//! Pi's own `RpcClient` (the npm package `@mariozechner/pi-coding-agent`, pinned in
//! `tests/pi-peer`, installed by `scripts/install-pi`) drives the real `tack --mode rpc`:
//! every method of the class, a permission-gate question the client answers, steering and a
//! follow-up during a run, compaction, fork, clone and bash (`tests/pi-peer/drive-rpc.mjs`).
//!
//! Without node or the installed package the test says what is missing and passes, unless
//! `TACK_REQUIRE_PI=1` (set by `.ci/run`), which makes it fail (see [`pi_peer`]).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use serde_json::{json, Value};
use tack_test_support::{pi_peer, tack, Env};

#[test]
fn pis_rpc_client_drives_tack_through_every_method() {
    let Some(pi) = pi_peer() else { return };
    let env = Env::new(tack!());
    std::fs::create_dir(env.workspace().join("build")).expect("build dir");
    env.write("README.md", "# Demo\n");
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
    let package = env.scripted_provider_with(
        json!({ "context_window": 4000, "script": script }),
        json!({}),
    );

    // The shim runs the binary as `tack!()` would, with the environment given here.
    let tack = env.command();
    let mut node = pi.node("drive-rpc.mjs");
    node.env("TACK_BIN", tack.get_program())
        .env("TACK_WORKSPACE", env.workspace())
        .env(
            "TACK_ARGS",
            json!(["--plugin", package.to_str().expect("utf8")]).to_string(),
        );
    for (key, value) in tack.get_envs() {
        match value {
            Some(value) => node.env(key, value),
            None => node.env_remove(key),
        };
    }
    let output = node.output().expect("run node");
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
