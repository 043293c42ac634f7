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

use criterion::{criterion_group, criterion_main, Criterion};
use provider_common::script::{self, GOOGLE};

fn long_session(c: &mut Criterion) {
    script::bench_long_session(c, "provider-google", &GOOGLE, request::build_with);
}

criterion_group!(benches, long_session);
criterion_main!(benches);
