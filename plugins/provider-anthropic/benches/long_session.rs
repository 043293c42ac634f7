//! `cargo bench -p provider-anthropic --bench long_session`: the Messages API body at turns 50, 400
//! and 800 of the scripted session (`provider_common::script`). The plugin is a `cdylib` only (a
//! native `cdylib` of a component does not link), so the bench compiles the plugin's modules itself
//! and uses only part of them (a panic is how it reports a failed setup).

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code, unused_imports)]

#[path = "../src/decode.rs"]
mod decode;
#[path = "../src/errors.rs"]
mod errors;
#[path = "../src/models.rs"]
mod models;
#[path = "../src/request.rs"]
mod request;
#[path = "../src/thinking.rs"]
mod thinking;

provider_common::bench_long_session!(request::Anthropic, ANTHROPIC);
