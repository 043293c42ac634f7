//! Plugin runtime costs: cold compile and cached load of each first-party component, a full warm
//! plugin load (cache hit, link, instantiate, init), the round trip of a no-op
//! before-tool-call hook, and what the API version costs: the same no-op hook and `message_end`
//! handler in a 0.1.0 and a 0.2.0 plugin (issue 35's target: 0.2.0 within 1.5× of 0.1.0).
//!
//! `cargo bench -p tack-runtime --bench plugins`

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use criterion::{criterion_group, criterion_main, Criterion};
use tack_builtin::artifacts;
use tack_runtime::api::ToolCall;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{Capabilities, HostContext, HostServices, LoadedPlugin, Runtime, RuntimeConfig};
use tack_test_support::runtime::{bench_tokio, builtin_spec, cached_runtime, manifest_spec};

const COMPONENTS: &[(&str, &str)] = &[
    ("provider-demo", artifacts::PROVIDER_DEMO),
    ("core-tools", artifacts::CORE_TOOLS),
    ("hello-rust", artifacts::HELLO_RUST),
];

const NOOP_MANIFEST: &str = r#"
[plugin]
name = "hostile"
version = "0.0.1"
api = "0.1"
component = "tack_test_hostile.wasm"
"#;

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bench(c: &mut Criterion) {
    let cache = tempfile::tempdir().expect("cache dir");
    let workspace = tempfile::tempdir().expect("workspace");
    let runtime = cached_runtime(cache.path().to_path_buf());
    let uncached = Runtime::new(RuntimeConfig::default()).expect("runtime");
    let tokio = bench_tokio();

    let mut group = c.benchmark_group("component");
    group.sample_size(10);
    for (name, path) in COMPONENTS {
        let bytes = read(path);
        println!("{name}: {} KiB", bytes.len() / 1024);
        group.bench_function(format!("cold_compile/{name}"), |b| {
            b.iter(|| {
                uncached
                    .cache()
                    .load(uncached.engine(), &bytes)
                    .expect("compile")
            })
        });
        runtime
            .cache()
            .load(runtime.engine(), &bytes)
            .expect("prime cache");
        group.bench_function(format!("cached_load/{name}"), |b| {
            b.iter(|| {
                runtime
                    .cache()
                    .load(runtime.engine(), &bytes)
                    .expect("cached")
            })
        });
    }
    group.finish();

    let host = HostContext {
        workspace: workspace.path().to_path_buf(),
        data_root: None,
        services: HostServices::headless(),
        secrets: SecretStore::new(None),
        project_trusted: false,
    };
    let spec = || {
        manifest_spec(
            NOOP_MANIFEST,
            artifacts::TEST_HOSTILE,
            Capabilities::default(),
            serde_json::json!({}),
        )
    };
    c.bench_function("plugin/warm_load_instantiate_init", |b| {
        b.iter(|| {
            tokio
                .block_on(LoadedPlugin::load(&runtime, spec(), &host))
                .expect("load")
        })
    });

    let plugin = tokio
        .block_on(LoadedPlugin::load(&runtime, spec(), &host))
        .expect("load");
    let call = ToolCall {
        id: "call_1".into(),
        name: "read".into(),
        arguments: r#"{"path":"src/main.rs"}"#.into(),
    };
    c.bench_function("hook/before_tool_call_noop", |b| {
        b.iter(|| {
            tokio
                .block_on(plugin.before_tool_call(&call))
                .expect("hook")
        })
    });

    // One no-op plugin per API version: the hook is 0.1.0's `guest` export in both; the event
    // comes through 0.1.0's `on-event` or 0.2.0's `observer` export (subscribed by name).
    let message_end = r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Reading the file now."}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":0.0},"stopReason":"toolUse","timestamp":1}}"#;
    for (version, wasm) in [
        ("0.1.0", artifacts::TEST_NOOP_V1),
        ("0.2.0", artifacts::TEST_NOOP_V2),
    ] {
        let manifest = format!(
            "[plugin]\nname = \"noop\"\nversion = \"0.0.1\"\napi = \"{}\"\ncomponent = \"noop.wasm\"\n",
            &version[..3]
        );
        let noop = tokio
            .block_on(LoadedPlugin::load(
                &runtime,
                manifest_spec(
                    &manifest,
                    wasm,
                    Capabilities::default(),
                    serde_json::json!({}),
                ),
                &host,
            ))
            .expect("load");
        c.bench_function(&format!("api/{version}/hook/before_tool_call"), |b| {
            b.iter(|| tokio.block_on(noop.before_tool_call(&call)).expect("hook"))
        });
        c.bench_function(&format!("api/{version}/event/message_end"), |b| {
            b.iter(|| {
                if version == "0.1.0" {
                    tokio
                        .block_on(
                            noop.on_event(tack_runtime::api::EventKind::MessageEnd, message_end),
                        )
                        .expect("event")
                } else {
                    assert!(noop.wants_event("message_end"));
                    tokio
                        .block_on(noop.on_named_event("message_end", message_end))
                        .expect("event")
                }
            })
        });
    }

    // The first-party policy plugins' hooks, as an agent run calls them per tool call.
    let bash = ToolCall {
        id: "call_2".into(),
        name: "bash".into(),
        arguments: r#"{"command":"cargo test -p tack-core"}"#.into(),
    };
    for name in ["plan-mode", "protected-paths", "permission-gate"] {
        let policy = tokio
            .block_on(LoadedPlugin::load(
                &runtime,
                builtin_spec(
                    name,
                    if name == "permission-gate" {
                        serde_json::json!({ "mode": "auto" })
                    } else {
                        serde_json::json!({})
                    },
                ),
                &host,
            ))
            .expect("load");
        for (label, call) in [("read", &call), ("bash", &bash)] {
            c.bench_function(&format!("hook/before_tool_call/{name}/{label}"), |b| {
                b.iter(|| tokio.block_on(policy.before_tool_call(call)).expect("hook"))
            });
        }
        if name == "plan-mode" {
            let event = r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Reading the file now."}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":0.0},"stopReason":"toolUse","timestamp":1}}"#;
            c.bench_function("event/message_end/plan-mode", |b| {
                b.iter(|| {
                    tokio
                        .block_on(policy.on_event(tack_runtime::api::EventKind::MessageEnd, event))
                        .expect("event")
                })
            });
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
