//! Pi's extensions in tack (issue 37), through the real `tack` binary, printed as a table:
//!
//! - **runtime build**: tack's Pi runtime component built from sdk/pi (componentize-js), which
//!   happens once per version of its sources.
//! - **first start with an extension**: `tack -e hello.ts -p …` on an empty cache (the runtime
//!   built, compiled by wasmtime, the extension bundled), then **cached**: the same again.
//! - **start with 0, 1 and 10 extensions** (cached), wall time and peak RSS, and what each
//!   extension adds. Targets: ≤ 50 ms and ≤ 15 MiB per extension.
//! - **hook call**: 40 `ls` tool calls by a scripted model, with and without Pi's
//!   `permission-gate.ts` (a `tool_call` handler), the difference per call.
//!
//! Wall time is the median of the runs; peak RSS is the child's own `ru_maxrss` (from `wait4`),
//! the largest over the runs. Needs Node, sdk/pi's toolchain and Pi's package (scripts/
//! install-sdk-toolchains, scripts/install-pi).
//!
//! `cargo bench -p tack --bench pi_extensions` (`RUNS=n` for more runs; default 5)

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a bench reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

#[path = "support/measure.rs"]
mod measure;
use measure::{measure, Measured};

/// Median wall time and largest peak RSS over `runs` runs.
fn repeat(runs: usize, mut make: impl FnMut() -> Command) -> Measured {
    let mut walls = Vec::new();
    let mut peak = 0;
    for _ in 0..runs {
        let m = measure(&mut make());
        walls.push(m.wall);
        peak = peak.max(m.peak_kib);
    }
    walls.sort();
    Measured {
        wall: walls[walls.len() / 2],
        peak_kib: peak,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

struct Setup {
    exe: PathBuf,
    home: PathBuf,
    workspace: PathBuf,
    cache: PathBuf,
    examples: PathBuf,
}

impl Setup {
    fn tack(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.exe);
        cmd.current_dir(&self.workspace)
            .env("TACK_HOME", &self.home)
            .env("TACK_CACHE_DIR", &self.cache)
            .env_remove("TACK_LOG")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .args(args);
        cmd
    }

    fn example(&self, name: &str) -> String {
        self.examples
            .join(format!("{name}.ts"))
            .display()
            .to_string()
    }
}

const TEN: [&str; 10] = [
    "hello",
    "pirate",
    "bookmark",
    "session-name",
    "input-transform",
    "permission-gate",
    "protected-paths",
    "status-line",
    "widget-placement",
    "model-status",
];

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let examples =
        root.join("tests/pi-peer/node_modules/@mariozechner/pi-coding-agent/examples/extensions");
    assert!(
        examples.is_dir() && root.join("../../sdk/pi/node_modules/esbuild").is_dir(),
        "needs Pi's package and sdk/pi's toolchain: run scripts/install-pi and scripts/install-sdk-toolchains"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let setup = Setup {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_tack")),
        home: dir.path().join("home"),
        workspace: dir.path().join("workspace"),
        cache: dir.path().join("cache"),
        examples,
    };
    std::fs::create_dir_all(&setup.home).unwrap();
    std::fs::create_dir_all(&setup.workspace).unwrap();

    // The runtime alone, as tack builds it on first use.
    let start = Instant::now();
    let built = Command::new("node")
        .arg(root.join("../../sdk/pi/bin/build-runtime.js"))
        .arg(dir.path().join("runtime.wasm"))
        .output()
        .expect("node");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let runtime_build = start.elapsed();

    let hello = setup.example("hello");
    let first = measure(&mut setup.tack(&["-e", &hello, "-p", "hi"]));
    let cached = repeat(runs, || setup.tack(&["-e", &hello, "-p", "hi"]));

    let none = repeat(runs, || setup.tack(&["-p", "hi"]));
    let one = cached.peak_kib.max(1);
    let ten_args: Vec<String> = TEN
        .iter()
        .flat_map(|name| ["-e".to_string(), setup.example(name)])
        .collect();
    let ten_cmd = || {
        let mut args: Vec<&str> = ten_args.iter().map(String::as_str).collect();
        args.extend(["-p", "hi"]);
        setup.tack(&args)
    };
    // The first start with ten bundles each one; time the cached starts.
    measure(&mut ten_cmd());
    let ten = repeat(runs, ten_cmd);

    // A hook call: 40 `ls` calls by the scripted model, with and without a tool_call handler.
    let calls = 40;
    let mut script: Vec<serde_json::Value> = (0..calls)
        .map(
            |i| json!({ "tool_calls": [{ "id": format!("c{i}"), "name": "ls", "arguments": {} }] }),
        )
        .collect();
    script.push(json!({ "text": "done" }));
    let config = json!({ "provider": "scripted", "plugins": { "scripted": { "script": script } } });
    std::fs::write(
        setup.home.join("config.toml"),
        toml::to_string(&config).unwrap(),
    )
    .unwrap();
    let scripted = dir.path().join("scripted");
    tack_test_support::Package::new("scripted", tack_builtin::artifacts::TEST_SCRIPTED_PROVIDER)
        .write_to(&scripted);
    let scripted = scripted.display().to_string();
    let gate = setup.example("permission-gate");
    let without = repeat(runs, || setup.tack(&["--plugin", &scripted, "-p", "go on"]));
    measure(&mut setup.tack(&["--plugin", &scripted, "-e", &gate, "-p", "go on"]));
    let with = repeat(runs, || {
        setup.tack(&["--plugin", &scripted, "-e", &gate, "-p", "go on"])
    });
    let extension_alone = cached.wall.saturating_sub(none.wall);
    let per_call = (with
        .wall
        .saturating_sub(without.wall)
        .saturating_sub(extension_alone))
        / calls as u32;

    println!("| measure | wall | peak RSS |");
    println!("|---|---|---|");
    println!(
        "| runtime build (node, componentize-js) | {:.0} ms | |",
        ms(runtime_build)
    );
    println!(
        "| first start with one extension (empty cache) | {:.0} ms | {:.1} MiB |",
        ms(first.wall),
        mib(first.peak_kib)
    );
    println!(
        "| start, no extension | {:.0} ms | {:.1} MiB |",
        ms(none.wall),
        mib(none.peak_kib)
    );
    println!(
        "| start, 1 extension (cached) | {:.0} ms | {:.1} MiB |",
        ms(cached.wall),
        mib(one)
    );
    println!(
        "| start, 10 extensions (cached) | {:.0} ms | {:.1} MiB |",
        ms(ten.wall),
        mib(ten.peak_kib)
    );
    println!(
        "| per extension (10 vs none) | {:.1} ms | {:.1} MiB |",
        ms(ten.wall.saturating_sub(none.wall)) / 10.0,
        mib(ten.peak_kib.saturating_sub(none.peak_kib)) / 10.0
    );
    println!(
        "| {calls} tool calls, without / with a Pi tool_call handler | {:.0} / {:.0} ms | |",
        ms(without.wall),
        ms(with.wall)
    );
    println!(
        "| per hook call into the extension | {:.2} ms | |",
        ms(per_call)
    );
}
