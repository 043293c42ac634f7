//! The real `tack` binary's start and footprint (issue 23), printed as a table:
//!
//! - **first run**: `tack -p` on an empty home (nothing cached; the offline demo provider), the
//!   very first thing a new user sees. Target: under 150 ms wall and 60 MiB peak RSS.
//! - **warm run**: the same again on that home.
//! - **five-step task**: `tack -p` against a local OpenAI-compatible mock (provider `openai`
//!   through `--base-url`) that answers with five tool calls in turn (write, read, edit, bash,
//!   ls) and then text, with the default plugins loaded. Target: peak RSS ≤ 32 MiB.
//!
//! Wall time is the median of the runs; peak RSS is the child's own `ru_maxrss` (from `wait4`),
//! the largest over the runs.
//!
//! Peak RSS counts the binary's code pages the run maps, and how many come with each fault
//! depends on how the file sits in the page cache: a binary just written (built, copied) is
//! cached in the large folios its writes made, and the same build then reads 2–3 MiB higher
//! than after the pages were read back in on demand. So the bench first drops the binary's
//! cached pages, and every build is measured as it would be after a reboot or eviction.
//!
//! `cargo bench -p tack --bench startup` (`RUNS=n` for more runs; default 5)
//! `TACK_BENCH_EXE=/path/to/tack` measures another build of the binary instead (a before/after
//! comparison).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a bench reports a failed setup.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use tack_test_support::http::{MockServer, Reply};

#[path = "support/measure.rs"]
mod measure;
use measure::{measure, Measured};

fn tack(exe: &Path, home: &Path, workspace: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.current_dir(workspace)
        .env("TACK_HOME", home)
        .env_remove("TACK_CACHE_DIR")
        .env_remove("TACK_LOG")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("GEMINI_API_KEY");
    cmd
}

/// One OpenAI Chat Completions stream calling `tool` with `args`.
fn tool_call(n: usize, tool: &str, args: serde_json::Value) -> Vec<u8> {
    let call = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{
        "index": 0, "id": format!("call_{n}"), "type": "function",
        "function": {"name": tool, "arguments": args.to_string()}}]}, "finish_reason": null}]});
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    format!("data: {call}\n\ndata: {end}\n\ndata: [DONE]\n\n").into_bytes()
}

fn text(answer: &str) -> Vec<u8> {
    let chunk = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": answer}, "finish_reason": null}]});
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    format!("data: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n").into_bytes()
}

fn five_steps() -> Vec<Vec<u8>> {
    vec![
        tool_call(
            0,
            "write",
            json!({"path": "notes.txt", "content": "one\ntwo\nthree\n"}),
        ),
        tool_call(1, "read", json!({"path": "notes.txt"})),
        tool_call(
            2,
            "edit",
            json!({"path": "notes.txt", "edits": [{"old_text": "two", "new_text": "2"}]}),
        ),
        tool_call(3, "bash", json!({"command": "cat notes.txt"})),
        tool_call(4, "ls", json!({"path": "."})),
        text("Done: notes.txt written, read, edited, shown and listed."),
    ]
}

fn median(mut walls: Vec<Duration>) -> Duration {
    walls.sort();
    walls[walls.len() / 2]
}

fn row(label: &str, runs: &[Measured]) {
    let wall = median(runs.iter().map(|m| m.wall).collect());
    let peak = runs.iter().map(|m| m.peak_kib).max().unwrap_or(0);
    println!(
        "| {label:<28} | {:>9.1} | {:>14.1} |",
        wall.as_secs_f64() * 1000.0,
        peak as f64 / 1024.0
    );
}

/// Drops `path`'s clean pages from the page cache (see the top of this file).
fn drop_cached_pages(path: &Path) {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).expect("the tack binary");
    // SAFETY: advice on a descriptor this function owns; it changes no file contents.
    let failed = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if failed != 0 {
        eprintln!("cannot drop the binary's cached pages (error {failed}); peak RSS may read high");
    }
}

fn main() {
    // `cargo bench` passes harness flags (`--bench`); a filter names the rows to run.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5)
        .max(1);
    let exe = std::env::var_os("TACK_BENCH_EXE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_tack").into());
    println!("tack: {}", exe.display());
    drop_cached_pages(&exe);
    println!(
        "| {:<28} | {:>9} | {:>14} |",
        "run", "wall (ms)", "peak RSS (MiB)"
    );
    println!("|{:-<30}|{:-<11}|{:-<16}|", "", "", "");

    if wanted("first_run") {
        let mut first = Vec::new();
        let mut warm = Vec::new();
        for _ in 0..runs {
            let dir = tempfile::tempdir().expect("tempdir");
            let (home, workspace) = (dir.path().join("home"), dir.path().join("work"));
            std::fs::create_dir_all(&home).expect("home");
            std::fs::create_dir_all(&workspace).expect("workspace");
            first.push(measure(tack(&exe, &home, &workspace).args(["-p", "hello"])));
            warm.push(measure(tack(&exe, &home, &workspace).args(["-p", "hello"])));
        }
        row("first run (empty home)", &first);
        row("warm run", &warm);
    }

    if wanted("five_step") {
        let dir = tempfile::tempdir().expect("tempdir");
        let (home, workspace) = (dir.path().join("home"), dir.path().join("work"));
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&workspace).expect("workspace");
        // A first run fills the home's cache, as any run after the first finds it.
        let warmup = five_steps();
        let mock = MockServer::start(move |n| Reply::sse(warmup[n % warmup.len()].clone()));
        let mut measured = Vec::new();
        for _ in 0..=runs {
            let _ = std::fs::remove_file(workspace.join("notes.txt"));
            measured.push(measure(tack(&exe, &home, &workspace).args([
                "--provider",
                "openai",
                "--base-url",
                &format!("{}/v1", mock.url()),
                "--api-key",
                "sk-bench",
                "--no-session",
                "-p",
                "write notes.txt, read it, edit it, show it and list the folder",
            ])));
            let notes = std::fs::read_to_string(workspace.join("notes.txt")).unwrap_or_default();
            assert_eq!(notes, "one\n2\nthree\n", "the five steps ran");
        }
        assert_eq!(mock.requests().len(), 6 * (runs + 1), "six requests a run");
        row("five-step task (warm home)", &measured[1..]);
    }
}
