//! `cargo bench -p provider-openai --bench long_session`: the Chat Completions body at turns 50,
//! 400 and 800 of the scripted session (`provider_common::script`).

#![allow(clippy::unwrap_used, clippy::expect_used)]
// A panic is how a bench reports a failed setup.
// The plugin is a cdylib only (a native cdylib of a component does not link), so the bench
// compiles the plugin's modules itself; it uses only part of them.
#![allow(dead_code, unused_imports)]

#[path = "../src/compat.rs"]
mod compat;
#[path = "../src/decode.rs"]
mod decode;
#[path = "../src/errors.rs"]
mod errors;
#[path = "../src/provider.rs"]
mod provider;
#[path = "../src/request.rs"]
mod request;

fn long_session(c: &mut criterion::Criterion) {
    use provider_common::script::{bench_kit, OPENAI};
    bench_kit::<provider::OpenAi>(c, "provider-openai", &OPENAI);
}

criterion::criterion_group!(benches, long_session);
criterion::criterion_main!(benches);
