//! Loading and projecting a ~100 MiB session, and preparing its compaction (cut point, messages to
//! summarize, file lists, transcript). Target: ≤ 1 s, peak RSS ≤ 2× the file size.
//!
//! The file is written line by line (never held in memory), then loaded once to report the
//! time and the peak RSS (VmHWM, reset before the load), then measured by criterion.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use serde_json::json;
use tack_core::compaction::{prepare_compaction, serialize_conversation};
use tack_core::message::{
    AssistantContent, AssistantMessage, Content, Message, StopReason, TextContent, ToolCall,
    ToolResultMessage, Usage, UserMessage,
};
use tack_core::session::{Entry, EntryKind, Session, SessionOptions};

const TARGET_BYTES: u64 = 100 * 1024 * 1024;

/// Code-like text: lines with quotes, backslashes and tabs, which JSON must escape.
fn file_text(seed: usize, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 100);
    let mut n = seed;
    while out.len() < bytes {
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let ident = ["value", "result", "config", "session", "entry", "tool"][(n >> 33) % 6];
        out.push_str(&format!(
            "\tlet {ident}_{} = format!(\"{{}} \\\\ {}\", {ident}.get({})?);\n",
            n % 1000,
            n >> 40,
            n % 97
        ));
    }
    out
}

fn generate(path: &Path) -> u64 {
    let file = File::create(path).unwrap();
    let mut out = BufWriter::new(file);
    writeln!(
        out,
        "{}",
        json!({"type":"session","version":1,"id":"bench","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/bench"})
    )
    .unwrap();
    let mut written = 0u64;
    let mut parent: Option<String> = None;
    let mut i = 0usize;
    let mut push = |kind: EntryKind, out: &mut BufWriter<File>, written: &mut u64| {
        let id = format!("{:08x}", i);
        i += 1;
        let entry = Entry {
            id: id.clone(),
            parent_id: parent.replace(id),
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            kind,
            verbatim: None,
        };
        let line = entry.to_line();
        *written += line.len() as u64 + 1;
        writeln!(out, "{line}").unwrap();
    };
    let mut turn = 0usize;
    while written < TARGET_BYTES {
        let message = |m: Message| EntryKind::Message(Arc::new(m));
        push(
            message(Message::User(UserMessage {
                content: vec![Content::text(format!(
                    "Please fix the bug number {turn} in src/lib.rs"
                ))],
                timestamp: 1,
            })),
            &mut out,
            &mut written,
        );
        for call in 0..4 {
            let id = format!("call_{turn}_{call}");
            push(
                message(Message::Assistant(AssistantMessage {
                    content: vec![
                        AssistantContent::Text(TextContent {
                            text: format!("Let me look at part {call} of the file."),
                        }),
                        AssistantContent::ToolCall(ToolCall {
                            id: id.clone(),
                            name: "read".into(),
                            arguments: json!({"path": format!("src/module_{call}.rs"), "offset": call * 100}),
                        }),
                    ],
                    provider: "anthropic".into(),
                    model: "claude-sonnet-4-5".into(),
                    usage: Usage {
                        input: 1000,
                        output: 100,
                        cache_read: 5000,
                        cache_write: 0,
                        cost: tack_core::message::Cost {
                            total: 0.01,
                            ..Default::default()
                        },
                    },
                    stop_reason: StopReason::ToolUse,
                    error_message: None,
                    timestamp: 2,
                })),
                &mut out,
                &mut written,
            );
            push(
                message(Message::ToolResult(ToolResultMessage {
                    tool_call_id: id,
                    tool_name: "read".into(),
                    content: vec![Content::text(file_text(turn * 4 + call, 6000))],
                    details: Some(json!({"lines": 150})),
                    is_error: false,
                    timestamp: 3,
                    rewrite: None,
                })),
                &mut out,
                &mut written,
            );
        }
        if turn.is_multiple_of(10) {
            push(
                EntryKind::Custom {
                    custom_type: "todo".into(),
                    data: json!({"items": [turn, "x"]}),
                    owner: None,
                },
                &mut out,
                &mut written,
            );
        }
        turn += 1;
    }
    out.flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

fn load_and_project(path: &Path) -> usize {
    let (session, warnings) = Session::open(path, SessionOptions::default()).unwrap();
    assert!(warnings.is_empty());
    let projected = session.project();
    projected.len()
}

/// What compaction does before asking for a summary: project, find the cut, collect the
/// messages and files to summarize, and serialize them. Returns the transcript's length.
fn prepare(session: &Session) -> usize {
    let projected = session.project();
    let preparation = prepare_compaction(session, 20_000).unwrap();
    assert!(preparation.messages_to_summarize.len() + 100 > projected.len());
    serialize_conversation(&preparation.messages_to_summarize).len()
}

fn proc_status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let size = generate(&path);

    // Reset the peak so that it measures the load alone (Linux: "5" clears VmHWM).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = proc_status_kib("VmRSS:").unwrap_or(0);
    let start = Instant::now();
    let count = load_and_project(&path);
    let elapsed = start.elapsed();
    let peak = proc_status_kib("VmHWM:").unwrap_or(0);
    println!(
        "session_load: file {:.1} MiB, {count} messages projected, first load+project {:.3} s, \
         RSS before {:.1} MiB, peak RSS (VmHWM) {:.1} MiB = {:.2}x the file",
        size as f64 / 1048576.0,
        elapsed.as_secs_f64(),
        before as f64 / 1024.0,
        peak as f64 / 1024.0,
        (peak * 1024) as f64 / size as f64
    );

    // Load, then prepare the compaction, measuring the peak of both together.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let start = Instant::now();
    let (session, _) = Session::open(&path, SessionOptions::default()).unwrap();
    let loaded = start.elapsed();
    let transcript = prepare(&session);
    let total = start.elapsed();
    let peak = proc_status_kib("VmHWM:").unwrap_or(0);
    println!(
        "compaction_prepare: load {:.3} s, project+cut+serialize {:.3} s ({:.1} MiB transcript \
         of the summarized part), peak RSS {:.1} MiB = {:.2}x the file",
        loaded.as_secs_f64(),
        (total - loaded).as_secs_f64(),
        transcript as f64 / 1048576.0,
        peak as f64 / 1024.0,
        (peak * 1024) as f64 / size as f64
    );

    let mut group = c.benchmark_group("session");
    group.sample_size(10);
    // Each iteration takes a sizeable fraction of a second.
    group.sampling_mode(SamplingMode::Flat);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("load_and_project_100MiB", |b| {
        b.iter(|| black_box(load_and_project(&path)))
    });
    group.bench_function("prepare_compaction_100MiB", |b| {
        b.iter(|| black_box(prepare(&session)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
