//! What the command sandbox adds to a command: the wall time of starting `sh -c true` and
//! waiting for it, median over 200 runs, unconfined (`full`) and in each confined mode, through
//! the one spawn point plugins' commands take (`ProcessHandle::spawn`).
//!
//! A confined command needs a step between its start and its exec, which std only offers by
//! forking, and a fork's cost grows with the parent's memory (10 ms more at 64 MiB on a small VM);
//! `broker::exec` starts it with a vfork-style clone instead. Each mode is measured again with 64
//! and 256 MiB of written ballast, standing in for a session's plugins and conversation (tack
//! holds about 60 MiB early in a session), to show the cost does not grow with it.
//!
//! Then the same through core-tools' `bash` tool in the real runtime (the component tack embeds,
//! `{"command": "true"}`), which is what one sandboxed call of the model costs more.
//!
//! Not criterion: one table, `cargo bench -p tack-runtime --bench sandbox`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a bench reports a failed setup.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_runtime::api::ToolCall;
use tack_runtime::broker::exec::{ChildEnv, CommandPlan, Observed, ProcessHandle, Sandboxing};
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::sandbox::{probe, SandboxMode, SandboxPolicy};
use tack_runtime::{HostContext, HostServices, LoadedPlugin, Runtime, RuntimeConfig};
use tack_test_support::runtime::builtin_spec;
use tokio_util::sync::CancellationToken;

const RUNS: usize = 200;

async fn once(policy: &SandboxPolicy, workspace: &std::path::Path) -> Duration {
    let started = Instant::now();
    let mut process = ProcessHandle::spawn(
        CommandPlan::Shell("true".into()),
        ChildEnv::Only(vec![("PATH".into(), "/usr/bin:/bin".into())]),
        workspace,
        None,
        CancellationToken::new(),
        Some(Sandboxing { policy, workspace }),
    )
    .expect("spawn");
    loop {
        match process.next(Duration::from_secs(10)).await {
            Observed::Exited(code) => {
                assert_eq!(code, Some(0), "the command ran");
                break;
            }
            Observed::Stdout(_) | Observed::Stderr(_) | Observed::Idle => {}
            other => panic!("{other:?}"),
        }
    }
    drop(process);
    started.elapsed()
}

async fn median(policy: &SandboxPolicy, workspace: &std::path::Path) -> Duration {
    for _ in 0..10 {
        once(policy, workspace).await;
    }
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        times.push(once(policy, workspace).await);
    }
    times.sort();
    times[RUNS / 2]
}

/// Median wall time of core-tools' `bash` running `true` under `policy`.
fn bash_tool(
    tokio: &tokio::runtime::Runtime,
    policy: &SandboxPolicy,
    workspace: &Path,
) -> Duration {
    let runtime = Runtime::new(RuntimeConfig {
        cache_dir: Some(concat!(env!("CARGO_TARGET_TMPDIR"), "/sandbox-bench-cache").into()),
        sandbox: policy.clone(),
        ..RuntimeConfig::default()
    })
    .expect("runtime");
    let host = HostContext {
        workspace: workspace.to_path_buf(),
        data_root: None,
        services: HostServices::headless(),
        secrets: SecretStore::new(None),
        project_trusted: false,
    };
    let plugin = tokio
        .block_on(LoadedPlugin::load(
            &runtime,
            builtin_spec("core-tools", json!({})),
            &host,
        ))
        .expect("core-tools loads");
    let call = ToolCall {
        id: "bench".into(),
        name: "bash".into(),
        arguments: json!({ "command": "true" }).to_string(),
    };
    let mut times: Vec<Duration> = (0..RUNS + 10)
        .map(|_| {
            let started = Instant::now();
            let result = tokio
                .block_on(plugin.call_tool(call.clone(), CancellationToken::new(), None))
                .expect("tool call");
            assert!(!result.is_error, "bash failed: {result:?}");
            started.elapsed()
        })
        .skip(10)
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio");
    let dir = tempfile::tempdir().expect("tempdir");
    let workspace = dir.path().canonicalize().expect("real");
    std::fs::create_dir_all(workspace.join(".git/hooks")).expect("git");
    std::fs::write(workspace.join(".git/config"), "").expect("config");
    println!("probe: {:?}", probe());
    let policies = [
        ("full", SandboxPolicy::full()),
        (
            "workspace-write",
            SandboxPolicy::new(SandboxMode::WorkspaceWrite, false, 512),
        ),
        (
            "read-only",
            SandboxPolicy::new(SandboxMode::ReadOnly, false, 512),
        ),
        (
            "workspace-write, no process limit",
            SandboxPolicy::new(SandboxMode::WorkspaceWrite, false, 0),
        ),
    ];
    let mut ballast: Vec<u8> = Vec::new();
    for ballast_mib in [0usize, 64, 256] {
        ballast.resize(ballast_mib << 20, 1);
        let full = runtime.block_on(median(&policies[0].1, &workspace));
        println!("\nparent memory +{ballast_mib} MiB, median of {RUNS} runs of `sh -c true`:");
        println!("  {:<36} {:>8.2} ms", "full", full.as_secs_f64() * 1e3);
        for (name, policy) in &policies[1..] {
            let t = runtime.block_on(median(policy, &workspace));
            println!(
                "  {name:<36} {:>8.2} ms  (+{:.2} ms)",
                t.as_secs_f64() * 1e3,
                (t.as_secs_f64() - full.as_secs_f64()) * 1e3
            );
        }
    }
    std::hint::black_box(&ballast);
    drop(ballast);

    let full = bash_tool(&runtime, &policies[0].1, &workspace);
    println!("\ncore-tools' bash tool, `true`, median of {RUNS} calls:");
    println!("  {:<36} {:>8.2} ms", "full", full.as_secs_f64() * 1e3);
    for (name, policy) in &policies[1..3] {
        let t = bash_tool(&runtime, policy, &workspace);
        println!(
            "  {name:<36} {:>8.2} ms  (+{:.2} ms)",
            t.as_secs_f64() * 1e3,
            (t.as_secs_f64() - full.as_secs_f64()) * 1e3
        );
    }
}
