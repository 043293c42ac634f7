//! Cost per tool round trip in a long session, end to end (issue 23): the real `tack` binary in
//! print mode, over HTTP against a local mock speaking each provider's wire (`openai`,
//! `openai-responses`, `anthropic`, `google`), with the default plugins loaded and the session
//! written to its file. The mock answers request n with tool call n of a write/read/edit/bash
//! loop over eight files, and after the last call with text.
//!
//! tack's CPU is read when each request arrives (tack is then waiting for the answer): the sum
//! of its threads' time on CPU from `/proc/<pid>/task/*/schedstat`, in nanoseconds; the tick-
//! granular user+sys counters of `getrusage` are too coarse for a few milliseconds. The CPU of a
//! round trip at turn k is the CPU between request k-W and request k, divided by W (W = 20): the
//! tool call, its result, the session write, and building and sending the next request. The
//! bash tool's child processes are not tack's threads, so they are not counted; the last line
//! gives tack's whole CPU from `wait4` (user+sys, those children included).
//!
//! Target: turn 800 within 1.5× of turn 50, for every provider.
//!
//! `cargo bench -p tack --bench long_session_e2e [provider]` (`RUNS=n` runs per provider,
//! default 3, medians shown; `TURNS=n` round trips, default 800; `TACK_BENCH_EXE=/path/to/tack`
//! measures another build; `TACK_BENCH_MARKS=file` appends `n seconds` for each request as it
//! arrives, on the clock `perf record -k CLOCK_MONOTONIC` uses, so `scripts/profile-turns` can
//! tell which samples belong to which turns).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a bench reports a failed setup.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tack_test_support::http::{MockServer, Reply};
use tack_test_support::{anthropic, google, openai, openai_responses};

/// Round trips measured before each mark.
const WINDOW: usize = 20;

#[derive(Clone, Copy)]
enum Provider {
    OpenAi,
    OpenAiResponses,
    Anthropic,
    Google,
}

impl Provider {
    const ALL: [Provider; 4] = [
        Provider::OpenAi,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Google,
    ];

    fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Google => "google",
        }
    }

    fn base_path(self) -> &'static str {
        match self {
            Provider::OpenAi | Provider::OpenAiResponses => "/v1",
            Provider::Anthropic | Provider::Google => "",
        }
    }

    fn tool_reply(self, n: usize, tool: &str, arguments: &Value) -> Reply {
        let id = format!("call_{n:04}");
        match self {
            Provider::OpenAi => openai::stream(&[
                openai::call(&id, tool, arguments),
                openai::chunk(json!({}), Some("tool_calls")),
                openai::usage(),
            ]),
            Provider::OpenAiResponses => openai_responses::tool_reply(&id, tool, arguments),
            Provider::Anthropic => anthropic::tool_reply(&format!("toolu_{n:04}"), tool, arguments),
            Provider::Google => google::tool_reply(&format!("resp{n:04}"), tool, arguments),
        }
    }

    fn text_reply(self, answer: &str) -> Reply {
        match self {
            Provider::OpenAi => openai::text_reply(answer),
            Provider::OpenAiResponses => openai_responses::text_reply(answer),
            Provider::Anthropic => anthropic::text_reply(answer),
            Provider::Google => google::text_reply(answer),
        }
    }
}

/// A source file's worth of text (about 1.6 KB), different in each cycle.
fn file_text(cycle: usize) -> String {
    (0..40)
        .map(|line| format!("cycle {cycle:04} line {line:02}: let value = compute(input);\n"))
        .collect()
}

/// Tool call `n` of the loop: each cycle of four writes a file, reads it, edits a line and runs
/// a command over it whose output names the cycle.
fn tool_call(n: usize) -> (&'static str, Value) {
    let cycle = n / 4;
    let path = format!("src/file{}.rs", cycle % 8);
    match n % 4 {
        0 => ("write", json!({"path": path, "content": file_text(cycle)})),
        1 => ("read", json!({"path": path})),
        2 => (
            "edit",
            json!({"path": path, "edits": [{
                "old_text": format!("cycle {cycle:04} line 07: let value = compute(input);"),
                "new_text": format!("cycle {cycle:04} line 07: let value = compute_fast(input);"),
            }]}),
        ),
        _ => (
            "bash",
            json!({"command": format!("grep -c compute_fast {path} && echo cycle-{cycle:04}-done")}),
        ),
    }
}

/// `CLOCK_MONOTONIC` in seconds, the clock of `perf record -k CLOCK_MONOTONIC` (std's `Instant`
/// reads it too, but cannot say its value).
fn monotonic_seconds() -> f64 {
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: `now` is a valid output for the call.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
}

/// The CPU time of all of `pid`'s threads so far.
fn threads_cpu(pid: i32) -> Duration {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Duration::ZERO;
    };
    let nanos: u64 = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(nanos)
}

struct Run {
    /// tack's CPU when request n arrived, by n.
    cpu_at_request: Vec<Duration>,
    /// user+sys from `wait4`, children included.
    total_cpu: Duration,
    wall: Duration,
}

// The child is reaped by `wait4` (which std's `wait` cannot replace: it returns no rusage).
#[allow(clippy::zombie_processes)]
fn run(exe: &Path, provider: Provider, turns: usize) -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, workspace) = (dir.path().join("home"), dir.path().join("work"));
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(workspace.join("src")).expect("workspace");

    let pid = Arc::new(AtomicI32::new(0));
    let marks = std::env::var_os("TACK_BENCH_MARKS")
        .map(|path| Mutex::new(std::fs::File::create(path).expect("marks file")));
    let samples = Arc::new(Mutex::new(Vec::with_capacity(turns + 1)));
    let failure = Arc::new(Mutex::new(None::<String>));
    let mock = {
        let (pid, samples, failure) = (pid.clone(), samples.clone(), failure.clone());
        MockServer::unrecorded(move |n, request| {
            samples
                .lock()
                .unwrap()
                .push(threads_cpu(pid.load(Ordering::SeqCst)));
            if let Some(marks) = &marks {
                let now = monotonic_seconds();
                writeln!(marks.lock().unwrap(), "{n} {now:.9}").expect("marks file");
            }
            // The bash call of the previous cycle reported its cycle: the loop is running as
            // scripted (checked at each mark, not on every turn, to keep the mock quick).
            if n % 50 == 0 && n >= 4 {
                let marker = format!("cycle-{:04}-done", (n - 4) / 4);
                if !request.body_text().contains(&marker) {
                    failure
                        .lock()
                        .unwrap()
                        .get_or_insert(format!("request {n} lacks {marker}"));
                }
            }
            if n < turns {
                let (tool, arguments) = tool_call(n);
                provider.tool_reply(n, tool, &arguments)
            } else {
                provider.text_reply("All files written, read, edited and checked.")
            }
        })
    };

    let stderr = std::fs::File::create(dir.path().join("stderr")).expect("stderr file");
    let start = Instant::now();
    let child = Command::new(exe)
        .current_dir(&workspace)
        .env("TACK_HOME", &home)
        .env_remove("TACK_CACHE_DIR")
        .env_remove("TACK_LOG")
        .args([
            "--provider",
            provider.name(),
            "--base-url",
            &format!("{}{}", mock.url(), provider.base_path()),
            "--api-key",
            "sk-bench",
            "-p",
            "Rewrite, check and edit the files in src/ until every one calls compute_fast.",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("spawn tack");
    pid.store(child.id() as i32, Ordering::SeqCst);
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our child, not yet waited for; `status` and `usage` are valid outputs.
    let waited = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(waited, child.id() as libc::pid_t, "wait4");
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let err = std::fs::read_to_string(dir.path().join("stderr")).unwrap_or_default();
        panic!("{}: tack failed ({status}): {err}", provider.name());
    }
    if let Some(failure) = failure.lock().unwrap().take() {
        panic!("{}: {failure}", provider.name());
    }
    let cpu_at_request = samples.lock().unwrap().clone();
    assert_eq!(
        cpu_at_request.len(),
        turns + 1,
        "{}: one request a round trip and one for the answer",
        provider.name()
    );
    for file in 0..8.min(turns / 4) {
        let text = std::fs::read_to_string(workspace.join(format!("src/file{file}.rs")))
            .expect("a written file");
        assert!(
            text.contains("compute_fast"),
            "{}: edits ran",
            provider.name()
        );
    }
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Run {
        cpu_at_request,
        total_cpu: time(usage.ru_utime) + time(usage.ru_stime),
        wall,
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    // `cargo bench` passes harness flags (`--bench`); a filter names the providers to run.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let env_number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let runs = env_number("RUNS", 3).max(1);
    let turns = env_number("TURNS", 800).max(WINDOW);
    let exe = std::env::var_os("TACK_BENCH_EXE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_tack").into());
    let marks: Vec<usize> = [50, 400, 800]
        .into_iter()
        .filter(|&m| m <= turns)
        .chain((turns < 800).then_some(turns))
        .collect();
    println!("tack: {}", exe.display());
    println!("{turns} round trips, {runs} runs a provider, medians; CPU per round trip over the {WINDOW} before the mark");
    let header: Vec<String> = marks.iter().map(|m| format!("turn {m} (ms)")).collect();
    println!(
        "| {:<16} | {} | {:>10} | {:>13} | {:>8} |",
        "provider",
        header.join(" | "),
        "last/first",
        "total CPU (s)",
        "wall (s)"
    );
    println!(
        "|{:-<18}|{}|{:-<12}|{:-<15}|{:-<10}|",
        "",
        marks
            .iter()
            .map(|m| "-".repeat(format!("turn {m} (ms)").len() + 2))
            .collect::<Vec<_>>()
            .join("|"),
        "",
        "",
        ""
    );
    for provider in Provider::ALL {
        if filter.as_deref().is_some_and(|f| provider.name() != f) {
            continue;
        }
        let measured: Vec<Run> = (0..runs).map(|_| run(&exe, provider, turns)).collect();
        let per_trip = |mark: usize| {
            median(
                measured
                    .iter()
                    .map(|r| {
                        let spent = r.cpu_at_request[mark] - r.cpu_at_request[mark - WINDOW];
                        spent.as_secs_f64() * 1000.0 / WINDOW as f64
                    })
                    .collect(),
            )
        };
        let figures: Vec<f64> = marks.iter().map(|&m| per_trip(m)).collect();
        let cells: Vec<String> = marks
            .iter()
            .zip(&figures)
            .map(|(m, f)| format!("{f:>w$.3}", w = format!("turn {m} (ms)").len()))
            .collect();
        println!(
            "| {:<16} | {} | {:>9.2}× | {:>13.2} | {:>8.2} |",
            provider.name(),
            cells.join(" | "),
            figures[figures.len() - 1] / figures[0],
            median(measured.iter().map(|r| r.total_cpu.as_secs_f64()).collect()),
            median(measured.iter().map(|r| r.wall.as_secs_f64()).collect()),
        );
    }
}
