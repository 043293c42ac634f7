//! A checkpoint per turn on a 10,000-file workspace (100 folders of 100 files, 1–4 KiB each,
//! plus a `.gitignore`d `target/` of 2,000 files that must cost nothing): target ≤ 20 ms when a
//! turn changed a few files. Also measured: the first snapshot of a process (everything hashed
//! and stored, every folder watched) and a turn that changed nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a bench reports a failed setup.

use std::fs;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use criterion::{criterion_group, criterion_main, Criterion};
use tack_checkpoints::{CheckpointStore, Options};

const DIRS: usize = 100;
const FILES_PER_DIR: usize = 100;

fn workspace(root: &Path) {
    // Files last changed an hour ago, as in a checked-out repository: recent files are hashed
    // again on purpose (see scan.rs), which is not what this measures.
    let old = SystemTime::now() - Duration::from_secs(3600);
    fs::write(root.join(".gitignore"), "target/\n").unwrap();
    for d in 0..DIRS {
        let dir = root.join(format!("src/m{d:03}"));
        fs::create_dir_all(&dir).unwrap();
        for f in 0..FILES_PER_DIR {
            let path = dir.join(format!("f{f:03}.rs"));
            let line = format!("fn f{d}_{f}() -> u32 {{ {} }}\n", d * f);
            fs::write(&path, line.repeat(30 + (d * 7 + f) % 100)).unwrap();
            fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }
    let target = root.join("target/debug");
    fs::create_dir_all(&target).unwrap();
    for f in 0..2000 {
        fs::write(target.join(format!("o{f}.o")), [0u8; 64]).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    workspace(ws.path());
    let mut store = CheckpointStore::open(
        &home.path().join("checkpoints"),
        ws.path(),
        Options::default(),
    )
    .unwrap();
    let started = Instant::now();
    let first = store.snapshot().unwrap();
    println!(
        "first snapshot: {} files in {:?} ({} KiB stored)",
        first.files,
        started.elapsed(),
        first.stored_bytes / 1024
    );
    assert_eq!(first.files, DIRS * FILES_PER_DIR + 1);
    store.snapshot().unwrap();

    let mut turn = 0u64;
    c.bench_function("checkpoint: 10,000 files, 3 changed", |b| {
        b.iter(|| {
            turn += 1;
            for f in 0..3 {
                let path = ws.path().join(format!("src/m{:03}/f{f:03}.rs", turn % 100));
                fs::write(&path, format!("// turn {turn}\n")).unwrap();
            }
            black_box(store.snapshot().unwrap())
        })
    });
    c.bench_function("checkpoint: 10,000 files, none changed", |b| {
        b.iter(|| black_box(store.snapshot().unwrap()))
    });
    // The floor a walk on one thread cannot go under: `read_dir` and an `lstat` (relative to the
    // open folder) per file, no ignore rules, nothing hashed or recorded.
    c.bench_function(
        "floor: read_dir + lstat of the same tree, one thread",
        |b| b.iter(|| black_box(bare_walk(ws.path()))),
    );
}

fn bare_walk(dir: &Path) -> u64 {
    let mut size = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() && entry.file_name() != "target" {
            size += bare_walk(&entry.path());
        } else if kind.is_file() {
            size += entry.metadata().unwrap().len();
        }
    }
    size
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(8));
    targets = bench
}
criterion_main!(benches);
