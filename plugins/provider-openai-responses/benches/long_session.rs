//! Building the request at turns 50, 400 and 800 of a long scripted session (see
//! `provider_common::script`), from scratch and with the plugin's cache of the turn before.
//!
//! `cargo bench -p provider-openai-responses --bench long_session`

#![allow(clippy::unwrap_used, clippy::expect_used)]
// A panic is how a bench reports a failed setup.
// The plugin is a cdylib only (a native cdylib of a component does not link), so the bench
// compiles the request modules itself; it uses only part of them (and, when checked with
// cfg(test), none of their tests).
#![allow(dead_code, unused_imports)]

#[path = "../src/call_ids.rs"]
mod call_ids;
#[path = "../src/request.rs"]
mod request;

use criterion::{criterion_group, criterion_main, Criterion};
use provider_common::script::{self, OPENAI_RESPONSES};

fn long_session(c: &mut Criterion) {
    script::bench_long_session(
        c,
        "provider-openai-responses",
        &OPENAI_RESPONSES,
        request::build_with,
    );
}

criterion_group!(benches, long_session);
criterion_main!(benches);
