//! Built-in plugins from artifacts precompiled for the engine's configuration, the fallback to
//! compiling when wasmtime refuses one, and provider plugins deferred until a call reaches them
//! (and plugins that register nothing, never loaded).
//! The artifacts are made here as tack's build script makes them: `Engine::precompile_component`
//! with [`engine_config`].

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::Path;
use std::sync::Arc;

use sha2::Digest as _;
use tack_runtime::broker::secrets::SecretStore;
use tack_runtime::cache::{CodeOrigin, Precompiled};
use tack_runtime::engine_config::engine_config;
use tack_runtime::{
    Access, FsGrant, HostContext, HostServices, LoadedPlugin, Manifest, PluginSet, PluginSource,
    PluginSpec, Runtime, RuntimeConfig,
};

/// `name`'s artifact as tack's build makes it, from an engine configured by `config`.
fn precompiled(name: &'static str, config: &wasmtime::Config) -> Precompiled {
    let builtin = tack_builtin::builtin(name).expect("built in");
    let engine = wasmtime::Engine::new(config).expect("engine");
    let artifact = engine
        .precompile_component(builtin.wasm)
        .expect("precompile");
    artifact_for(name, Box::leak(artifact.into_boxed_slice()))
}

fn artifact_for(name: &'static str, artifact: &'static [u8]) -> Precompiled {
    let builtin = tack_builtin::builtin(name).expect("built in");
    Precompiled {
        name: builtin.name,
        wasm: builtin.wasm,
        artifact,
        digest: Box::leak(hex::encode(sha2::Sha256::digest(builtin.wasm)).into_boxed_str()),
    }
}

fn runtime(cache: &Path, precompiled: Vec<Precompiled>) -> Arc<Runtime> {
    Runtime::new(RuntimeConfig {
        cache_dir: Some(cache.to_path_buf()),
        precompiled,
        ..RuntimeConfig::default()
    })
    .expect("runtime")
}

/// The built-in `name` as tack hands it over when the runtime holds it precompiled: without a
/// copy of the component.
fn builtin_spec(name: &str) -> PluginSpec {
    builtin_spec_with(name, serde_json::json!({}))
}

fn builtin_spec_with(name: &str, config: serde_json::Value) -> PluginSpec {
    let builtin = tack_builtin::builtin(name).expect("built in");
    let manifest = Manifest::parse(builtin.manifest).expect("manifest");
    PluginSpec {
        granted: manifest.capabilities.clone(),
        manifest,
        wasm: Default::default(),
        wasm_label: format!("builtin:{name}"),
        source: PluginSource::Builtin,
        config,
    }
}

fn host(workspace: &Path) -> HostContext {
    HostContext {
        workspace: workspace.to_path_buf(),
        data_root: None,
        services: HostServices::headless(),
        secrets: SecretStore::new(None),
        project_trusted: false,
    }
}

/// The demo provider answers a call, which needs a live instance.
async fn answers(plugin: &Arc<LoadedPlugin>) {
    let mut session = plugin.provider_session().await.expect("an instance");
    session
        .decode_error("demo", 500, Vec::new(), b"boom".to_vec())
        .await
        .expect("decode-error runs");
    session.close().await;
}

#[tokio::test]
async fn a_precompiled_builtin_is_deserialized_not_compiled() {
    let dir = tempfile::tempdir().expect("tempdir");
    let artifacts = vec![precompiled("provider-demo", &engine_config())];

    let first = runtime(&dir.path().join("cache"), artifacts.clone());
    let plugin = LoadedPlugin::load(&first, builtin_spec("provider-demo"), &host(dir.path()))
        .await
        .expect("loads");
    assert_eq!(plugin.code_origin(), Some(CodeOrigin::Precompiled));
    let stats = first.cache().stats();
    assert_eq!((stats.precompiled, stats.compiles), (1, 0), "{stats:?}");
    answers(&plugin).await;

    // The next process maps the artifact from the cache it was copied into.
    let second = runtime(&dir.path().join("cache"), artifacts);
    let plugin = LoadedPlugin::load(&second, builtin_spec("provider-demo"), &host(dir.path()))
        .await
        .expect("loads");
    assert_eq!(plugin.code_origin(), Some(CodeOrigin::Cache));
    assert_eq!(second.cache().stats().compiles, 0);
    answers(&plugin).await;

    // Without a cache directory the artifact is deserialized from memory.
    let bare = Runtime::new(RuntimeConfig {
        precompiled: vec![precompiled("provider-demo", &engine_config())],
        ..RuntimeConfig::default()
    })
    .expect("runtime");
    let plugin = LoadedPlugin::load(&bare, builtin_spec("provider-demo"), &host(dir.path()))
        .await
        .expect("loads");
    assert_eq!(plugin.code_origin(), Some(CodeOrigin::Precompiled));
    answers(&plugin).await;
}

#[tokio::test]
async fn a_refused_artifact_falls_back_to_compiling() {
    // Compiled for another configuration: wasmtime's header check refuses it.
    let mut other = engine_config();
    other.epoch_interruption(false);
    let mismatched = precompiled("provider-demo", &other);
    // Not an artifact at all.
    let garbage = artifact_for("provider-demo", b"\x7fELF but not wasmtime's");

    for (what, artifact) in [("mismatched", mismatched), ("garbage", garbage)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = dir.path().join("cache");
        let rt = runtime(&cache, vec![artifact]);
        let plugin = LoadedPlugin::load(&rt, builtin_spec("provider-demo"), &host(dir.path()))
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(plugin.code_origin(), Some(CodeOrigin::Compiled), "{what}");
        let stats = rt.cache().stats();
        assert_eq!(
            (stats.precompiled, stats.precompiled_refused, stats.compiles),
            (0, 1, 1),
            "{what}: {stats:?}"
        );
        assert!(plugin.registration.providers.iter().any(|p| p.id == "demo"));
        answers(&plugin).await;

        // What was compiled went into the cache in the artifact's place.
        let again = runtime(&cache, vec![artifact]);
        let plugin = LoadedPlugin::load(&again, builtin_spec("provider-demo"), &host(dir.path()))
            .await
            .expect("loads");
        assert_eq!(plugin.code_origin(), Some(CodeOrigin::Cache), "{what}");
        assert_eq!(again.cache().stats().compiles, 0, "{what}");
    }
}

#[tokio::test]
async fn an_unselected_provider_is_not_instantiated_until_a_call_reaches_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let artifacts = vec![
        precompiled("provider-demo", &engine_config()),
        precompiled("provider-openai", &engine_config()),
        precompiled("todo", &engine_config()),
    ];
    let specs = || {
        vec![
            builtin_spec("provider-demo"),
            builtin_spec("provider-openai"),
            builtin_spec("todo"),
        ]
    };

    // The first run loads every plugin and remembers what the providers registered.
    let first = runtime(&cache, artifacts.clone());
    let set = PluginSet::load(&first, specs(), &host(dir.path())).await;
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    assert!(set.plugins().iter().all(|p| p.is_loaded()));

    // The next one lists the same providers and models without loading their plugins; the
    // plugin with hooks and tools loads at start as before.
    let second = runtime(&cache, artifacts);
    let set = PluginSet::load(&second, specs(), &host(dir.path())).await;
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    let (demo, demo_spec) = set.provider("demo").expect("demo listed");
    let (openai, openai_spec) = set.provider("openai").expect("openai listed");
    assert!(!demo.is_loaded() && !openai.is_loaded());
    assert_eq!(demo_spec.models[0].id, "demo-1");
    assert!(!openai_spec.models.is_empty());
    assert_eq!(openai_spec.secret.as_deref(), Some("OPENAI_API_KEY"));
    // The version the component speaks, remembered with what it registered.
    assert_eq!(openai.api_version, "0.1.0");
    assert!(set.get("todo").expect("todo").is_loaded());

    // Selected later, it loads on its first call and works; the other stays unloaded.
    answers(demo).await;
    assert!(demo.is_loaded());
    assert_eq!(demo.code_origin(), Some(CodeOrigin::Cache));
    assert!(!openai.is_loaded());
}

#[tokio::test]
async fn a_plugin_that_registers_nothing_is_not_loaded_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let artifacts = vec![precompiled("subagents", &engine_config())];
    let off = || {
        vec![builtin_spec_with(
            "subagents",
            serde_json::json!({"enabled": false}),
        )]
    };
    let on = || {
        vec![builtin_spec_with(
            "subagents",
            serde_json::json!({"enabled": true}),
        )]
    };

    // Off, sub-agents register nothing; the next run remembers that and leaves the plugin be.
    let first = runtime(&cache, artifacts.clone());
    let set = PluginSet::load(&first, off(), &host(dir.path())).await;
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    assert!(set.get("subagents").expect("listed").is_loaded());
    let second = runtime(&cache, artifacts.clone());
    let set = PluginSet::load(&second, off(), &host(dir.path())).await;
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    let subagents = set.get("subagents").expect("still listed");
    assert!(!subagents.is_loaded());
    assert!(set.tool("task").is_none());

    // Turned on (another configuration, so another key), it loads and registers its tool.
    let third = runtime(&cache, artifacts);
    let set = PluginSet::load(&third, on(), &host(dir.path())).await;
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    assert!(set.get("subagents").expect("listed").is_loaded());
    assert!(set.tool("task").is_some());
}

#[tokio::test]
async fn a_plugin_with_nothing_to_register_yet_loads_again() {
    // prompt-templates registers nothing while its folder is empty; that depends on the folder,
    // not on the configuration, so it must not be remembered: a template added later must show.
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let prompts = dir.path().join("prompts");
    std::fs::create_dir(&prompts).expect("prompts folder");
    let artifacts = vec![precompiled("prompt-templates", &engine_config())];
    let spec = || {
        let mut spec = builtin_spec_with(
            "prompt-templates",
            serde_json::json!({"dirs": [{"path": prompts, "scope": "user"}]}),
        );
        // Granted as tack grants a `[[paths]]` folder that exists: declared and given.
        let grant = FsGrant {
            path: prompts.display().to_string(),
            access: Access::Read,
        };
        spec.manifest.capabilities.fs.push(grant.clone());
        spec.granted.fs.push(grant);
        spec
    };

    let first = runtime(&cache, artifacts.clone());
    let set = PluginSet::load(&first, vec![spec()], &host(dir.path())).await;
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    assert!(set.command("review").is_none());

    std::fs::write(prompts.join("review.md"), "Review $1 carefully.\n").expect("template");
    let second = runtime(&cache, artifacts);
    let set = PluginSet::load(&second, vec![spec()], &host(dir.path())).await;
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    assert!(set.get("prompt-templates").expect("listed").is_loaded());
    assert!(
        set.command("review").is_some(),
        "the new template is a command"
    );
}

/// Specs holding the same bytes (every Pi extension holds the one Pi runtime) are instances of
/// one compiled component: the first is loaded, the others share it, each with its own
/// instance. Equal bytes in another allocation are loaded on their own (from the disk cache).
#[tokio::test]
async fn specs_holding_the_same_bytes_share_one_component() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rt = runtime(&dir.path().join("cache"), Vec::new());
    let bytes: Arc<[u8]> = std::fs::read(tack_builtin::artifacts::TEST_NOOP_V2)
        .expect("noop-v2 built by tack-builtin")
        .into();
    let spec = |name: &str, wasm: Arc<[u8]>| {
        PluginSpec {
        manifest: Manifest::parse(&format!(
            "[plugin]\nname = \"{name}\"\nversion = \"0.0.1\"\napi = \"0.2\"\ncomponent = \"noop.wasm\"\n"
        ))
        .expect("manifest"),
        wasm,
        wasm_label: format!("{name}.wasm"),
        source: PluginSource::Path(dir.path().join(name)),
        granted: Default::default(),
        config: serde_json::json!({}),
    }
    };
    let specs = vec![
        spec("first", bytes.clone()),
        spec("second", bytes.clone()),
        spec("third", bytes.clone()),
    ];
    drop(bytes);
    let set = PluginSet::load(&rt, specs, &host(dir.path())).await;
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    let mut origins: Vec<CodeOrigin> = set
        .plugins()
        .iter()
        .filter_map(|p| p.code_origin())
        .collect();
    origins.sort_by_key(|o| format!("{o:?}"));
    assert_eq!(
        origins,
        [CodeOrigin::Compiled, CodeOrigin::Shared, CodeOrigin::Shared]
    );
    assert_eq!(rt.cache().stats().compiles, 1);

    let copy: Arc<[u8]> = std::fs::read(tack_builtin::artifacts::TEST_NOOP_V2)
        .expect("noop-v2")
        .into();
    let fourth = LoadedPlugin::load(&rt, spec("fourth", copy), &host(dir.path()))
        .await
        .expect("loads");
    assert_eq!(fourth.code_origin(), Some(CodeOrigin::Cache));
}
