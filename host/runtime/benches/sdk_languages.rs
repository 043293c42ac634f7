//! The conformance example in each SDK language (examples/hello-{rust,js,python,c,zig}): cold compile,
//! cached load of the compiled artifact, a warm plugin load (cached load, link, instantiate,
//! init), and the round trip of a `word_count` tool call. sdk/README.md has the table.
//!
//! `cargo bench -p tack-runtime --bench sdk_languages` (languages whose toolchain is missing are
//! skipped; see scripts/install-sdk-toolchains).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use criterion::{criterion_group, criterion_main, Criterion};
use tack_runtime::api::ToolCall;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::{
    Capabilities, HostContext, HostServices, LoadedPlugin, Manifest, PluginSource, PluginSpec,
    Runtime, RuntimeConfig,
};
use tack_sdk_examples::{Lang, Toolchains};
use tack_test_support::runtime::{bench_tokio, cached_runtime};
use tokio_util::sync::CancellationToken;

fn bench(c: &mut Criterion) {
    let cache = tempfile::tempdir().expect("cache dir");
    let workspace = tempfile::tempdir().expect("workspace");
    let runtime = cached_runtime(cache.path().to_path_buf());
    let uncached = Runtime::new(RuntimeConfig::default()).expect("runtime");
    let tokio = bench_tokio();
    let host = HostContext {
        workspace: workspace.path().to_path_buf(),
        data_root: None,
        services: HostServices::headless(),
        secrets: SecretStore::new(None),
        project_trusted: false,
    };
    let toolchains = Toolchains::locate();
    let call = ToolCall {
        id: "call_1".into(),
        name: "word_count".into(),
        arguments: r#"{"text":"the quick brown fox jumps over the lazy dog"}"#.into(),
    };

    for lang in Lang::ALL {
        let path = match tack_sdk_examples::build(lang, &toolchains) {
            Ok(path) => path,
            Err(e) => {
                eprintln!("skipping {}: {e}", lang.name());
                continue;
            }
        };
        let bytes = std::fs::read(&path).expect("component");
        let manifest = std::fs::read_to_string(lang.example_dir().join("tack.toml"))
            .expect("example tack.toml");
        println!("{}: {:.1} MB", lang.plugin_name(), bytes.len() as f64 / 1e6);

        let mut group = c.benchmark_group(lang.plugin_name());
        // Large components take seconds per cold compile: few samples are enough to see it.
        group.sample_size(10);
        group.bench_function("cold_compile", |b| {
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
        group.bench_function("cached_load", |b| {
            b.iter(|| {
                runtime
                    .cache()
                    .load(runtime.engine(), &bytes)
                    .expect("cached")
            })
        });
        let spec = || PluginSpec {
            manifest: Manifest::parse(&manifest).expect("manifest"),
            wasm: bytes.clone().into(),
            wasm_label: lang.plugin_name(),
            source: PluginSource::Builtin,
            granted: Capabilities::default(),
            config: serde_json::json!({}),
        };
        group.bench_function("load_instantiate_init", |b| {
            b.iter(|| {
                tokio
                    .block_on(LoadedPlugin::load(&runtime, spec(), &host))
                    .expect("load")
            })
        });
        let plugin = tokio
            .block_on(LoadedPlugin::load(&runtime, spec(), &host))
            .expect("load");
        group.bench_function("tool_call", |b| {
            b.iter(|| {
                tokio
                    .block_on(plugin.call_tool(call.clone(), CancellationToken::new(), None))
                    .expect("tool")
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
