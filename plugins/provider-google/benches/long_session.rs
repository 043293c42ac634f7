//! Building the request at turns 50, 400 and 800 of a long scripted session (see
//! `provider_common::script`), from scratch and with the plugin's cache of the turn before.
//!
//! `cargo bench -p provider-google --bench long_session`

#![allow(clippy::unwrap_used, clippy::expect_used)]
// A panic is how a bench reports a failed setup.
// The plugin is a cdylib only (a native cdylib of a component does not link), so the bench
// compiles the request modules itself; it uses only part of them (and, when checked with
// cfg(test), none of their tests).
#![allow(dead_code, unused_imports)]

#[path = "../src/models.rs"]
mod models;
#[path = "../src/request.rs"]
mod request;
#[path = "../src/thinking.rs"]
mod thinking;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use provider_common::script::{self, GOOGLE};

fn long_session(c: &mut Criterion) {
    let (messages, ends) = GOOGLE.session(800);
    let mut group = c.benchmark_group("provider-google");
    group.sample_size(20);
    for turn in [50, 400, 800] {
        let request = script::request(&GOOGLE, script::to_json(&messages[..ends[turn]]));
        group.bench_function(format!("from_scratch/turn_{turn}"), |b| {
            b.iter_batched(
                || request.clone(),
                |request| request::build_with(&mut request::Cache::default(), request).unwrap(),
                BatchSize::LargeInput,
            )
        });
        // The plugin's cache as the turn before left it.
        let mut warm = request::Cache::default();
        let before = script::request(&GOOGLE, script::to_json(&messages[..ends[turn - 1]]));
        request::build_with(&mut warm, before).unwrap();
        group.bench_function(format!("incremental/turn_{turn}"), |b| {
            b.iter_batched(
                || (warm.clone(), request.clone()),
                |(mut cache, request)| {
                    let call = request::build_with(&mut cache, request).unwrap();
                    (cache, call)
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, long_session);
criterion_main!(benches);
