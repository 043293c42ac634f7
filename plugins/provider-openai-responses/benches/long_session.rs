//! `cargo bench -p provider-openai-responses --bench long_session`: the Responses API body at turns
//! 50, 400 and 800 of the scripted session (`provider_common::script`). The plugin is a `cdylib`
//! only (a native `cdylib` of a component does not link), so the bench compiles the plugin's
//! modules itself and uses only part of them (a panic is how it reports a failed setup).

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code, unused_imports)]

#[path = "../src/call_ids.rs"]
mod call_ids;
#[path = "../src/decode.rs"]
mod decode;
#[path = "../src/errors.rs"]
mod errors;
#[path = "../src/provider.rs"]
mod provider;
#[path = "../src/request.rs"]
mod request;

provider_common::bench_long_session!(provider::OpenAiResponses, OPENAI_RESPONSES);
