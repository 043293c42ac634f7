//! The runtime against real components built from source in this repo: the example plugin's
//! entry points, the hostile plugin's escape attempts and resource abuse, version and format
//! checks, and the compiled-component cache.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tack_builtin::artifacts;
use tack_core::session::{EntryKind, Session, SessionHandle};
use tack_runtime::api::{InputAction, Level, ToolDecision, ToolResult};
use tack_runtime::{
    AgentServices, CallLimits, Capabilities, HostContext, HostServices, LoadError, LoadedPlugin,
    Manifest, PluginError, PluginUi, Runtime, RuntimeConfig, SessionServices,
};
use tack_test_support::runtime::{manifest_spec, result_text as text, tool_call as call, Scene};
use tokio_util::sync::CancellationToken;

/// Records what plugins log.
#[derive(Default)]
struct Recorder {
    logs: Mutex<Vec<(String, String)>>,
}

impl PluginUi for Recorder {
    fn log(&self, plugin: &str, _level: Level, message: &str) {
        if let Ok(mut logs) = self.logs.lock() {
            logs.push((plugin.to_string(), message.to_string()));
        }
    }
}

/// The recorder over the real session services, on a session kept in memory.
fn recording_services(cwd: &Path) -> (HostServices, Arc<Recorder>, SessionHandle) {
    let recorder = Arc::new(Recorder::default());
    let session = SessionHandle::new(Session::in_memory(cwd));
    let sessions = Arc::new(SessionServices::default());
    sessions.attach(session.clone());
    let services = HostServices {
        ui: recorder.clone(),
        session: sessions,
        agent: Arc::new(AgentServices::default()),
    };
    (services, recorder, session)
}

struct Fixture {
    runtime: Arc<Runtime>,
    host: HostContext,
    services: Arc<Recorder>,
    session: SessionHandle,
    /// A folder outside the workspace, for escape attempts.
    outside: PathBuf,
    _scene: Scene,
}

fn fixture(config: RuntimeConfig) -> Fixture {
    let scene = Scene::with_config(config);
    let (host_services, services, session) = recording_services(&scene.workspace);
    let host = scene.host(host_services, false);
    Fixture {
        runtime: scene.runtime.clone(),
        host,
        services,
        session,
        outside: scene.outside(),
        _scene: scene,
    }
}

fn quick_limits() -> RuntimeConfig {
    RuntimeConfig {
        memory_limit: 64 << 20,
        limits: CallLimits {
            tool: Duration::from_millis(500),
            ..CallLimits::default()
        },
        max_faults: 100,
        ..RuntimeConfig::default()
    }
}

const HOSTILE_MANIFEST: &str = r#"
[plugin]
name = "hostile"
version = "0.0.1"
api = "0.1"
component = "tack_test_hostile.wasm"

[capabilities]
fs = [{ path = "$WORKSPACE", access = "read-write" }]
exec = ["echo *"]
"#;

async fn hostile(f: &Fixture) -> Arc<LoadedPlugin> {
    let manifest = Manifest::parse(HOSTILE_MANIFEST).expect("manifest");
    let granted = manifest.capabilities.clone();
    LoadedPlugin::load(
        &f.runtime,
        manifest_spec(
            HOSTILE_MANIFEST,
            artifacts::TEST_HOSTILE,
            granted,
            serde_json::json!({}),
        ),
        &f.host,
    )
    .await
    .expect("hostile plugin loads")
}

async fn tool(
    p: &LoadedPlugin,
    name: &str,
    args: serde_json::Value,
) -> Result<ToolResult, PluginError> {
    p.call_tool(call(name, args), CancellationToken::new(), None)
        .await
}

/// After any failure, the same plugin still answers.
async fn still_serves(p: &LoadedPlugin) {
    let echoed = tool(p, "echo", serde_json::json!({"x": 1}))
        .await
        .expect("echo after a fault");
    assert!(text(&echoed).contains("\"x\":1"), "{}", text(&echoed));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn example_plugin_round_trips_every_entry_point() {
    let f = fixture(RuntimeConfig::default());
    let manifest = std::fs::read_to_string(artifacts::HELLO_RUST_MANIFEST).expect("manifest");
    let p = LoadedPlugin::load(
        &f.runtime,
        manifest_spec(
            &manifest,
            artifacts::HELLO_RUST,
            Capabilities::default(),
            serde_json::json!({"blocked_word": "banana"}),
        ),
        &f.host,
    )
    .await
    .expect("hello-rust loads");

    let reg = &p.registration;
    assert!(reg.tools.iter().any(|t| t.name == "word_count"));
    assert!(reg.commands.iter().any(|c| c.name == "hello"));

    let counted = tool(
        &p,
        "word_count",
        serde_json::json!({"text": "one two three"}),
    )
    .await
    .expect("tool");
    assert!(!counted.is_error);
    assert!(text(&counted).contains('3'), "{}", text(&counted));
    let details: serde_json::Value =
        serde_json::from_str(counted.details.as_deref().expect("details")).expect("json");
    assert_eq!(details["words"], 3);

    let hello = p
        .run_command("hello", "tack")
        .await
        .expect("command")
        .expect("ok");
    assert_eq!(
        hello.as_deref(),
        Some("Hello, tack! (greeting 1 in this session)")
    );
    let again = p
        .run_command("hello", "")
        .await
        .expect("command")
        .expect("ok");
    assert_eq!(
        again.as_deref(),
        Some("Hello, world! (greeting 2 in this session)")
    );
    assert_eq!(
        f.session
            .lock()
            .entries()
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::Custom { .. }))
            .count(),
        2,
        "the counter is kept in custom entries"
    );

    let blocked = p
        .before_tool_call(&call("bash", serde_json::json!({"command": "echo banana"})))
        .await
        .expect("hook");
    assert!(
        matches!(blocked, ToolDecision::Block(ref reason) if reason.contains("banana")),
        "{blocked:?}"
    );
    let allowed = p
        .before_tool_call(&call("bash", serde_json::json!({"command": "ls"})))
        .await
        .expect("hook");
    assert!(matches!(allowed, ToolDecision::Allow));
    assert!(matches!(
        p.on_input("hi").await.expect("input"),
        InputAction::Continue
    ));
    assert!(f
        .services
        .logs
        .lock()
        .expect("lock")
        .iter()
        .any(|(plugin, _)| plugin == "hello-rust"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_escapes_are_refused() {
    let f = fixture(quick_limits());
    let outside = f.outside.join("secret.txt");
    std::fs::write(&outside, "top secret").expect("write secret");
    std::os::unix::fs::symlink(&outside, f.host.workspace.join("link")).expect("symlink");
    std::fs::write(f.host.workspace.join("inside.txt"), "fine").expect("inside");
    let p = hostile(&f).await;
    let ws = f.host.workspace.canonicalize().expect("canonical");

    let inside = tool(
        &p,
        "read_absolute",
        serde_json::json!({"path": ws.join("inside.txt")}),
    )
    .await
    .expect("call");
    assert_eq!(
        text(&inside),
        "ok: fine",
        "reading inside the workspace works"
    );

    for (name, args) in [
        ("read_dotdot", serde_json::json!({})),
        ("read_absolute", serde_json::json!({"path": outside})),
        ("read_absolute", serde_json::json!({"path": "/etc/passwd"})),
        ("read_symlink", serde_json::json!({"path": ws.join("link")})),
    ] {
        let r = tool(&p, name, args).await.expect("escape attempt returns");
        assert!(r.is_error, "{name} escaped: {}", text(&r));
        assert!(
            !text(&r).contains("top secret") && !text(&r).contains("root:"),
            "{name}: {}",
            text(&r)
        );
    }
    still_serves(&p).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_ambient_env_or_network() {
    let f = fixture(quick_limits());
    let p = hostile(&f).await;
    let env = tool(&p, "read_env", serde_json::json!({}))
        .await
        .expect("env");
    let details: serde_json::Value =
        serde_json::from_str(env.details.as_deref().expect("details")).expect("json");
    assert_eq!(details["vars"], 0, "{}", text(&env));
    assert!(details["home"].is_null());

    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let r = tool(&p, "open_socket", serde_json::json!({"port": port}))
        .await
        .expect("socket attempt returns");
    assert!(r.is_error, "socket opened: {}", text(&r));
    assert!(listener.accept().is_err(), "the guest reached the listener");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_is_checked_against_the_grant() {
    let f = fixture(quick_limits());
    let p = hostile(&f).await;
    let ok = tool(&p, "exec", serde_json::json!({"command": "echo hello"}))
        .await
        .expect("exec");
    assert_eq!(text(&ok).trim(), "ok: hello");
    for command in ["echo two words", "ls /", "echo hi; touch pwned"] {
        let r = tool(&p, "exec", serde_json::json!({"command": command}))
            .await
            .expect("exec");
        assert!(
            r.is_error && text(&r).contains("Denied"),
            "{command}: {}",
            text(&r)
        );
    }
    assert!(!f.host.workspace.join("pwned").exists());

    // The same plugin without any exec grant.
    let manifest = Manifest::parse(HOSTILE_MANIFEST).expect("manifest");
    let mut granted = manifest.capabilities.clone();
    granted.exec.clear();
    let f2 = fixture(quick_limits());
    let ungranted = LoadedPlugin::load(
        &f2.runtime,
        manifest_spec(
            HOSTILE_MANIFEST,
            artifacts::TEST_HOSTILE,
            granted,
            serde_json::json!({}),
        ),
        &f2.host,
    )
    .await
    .expect("loads");
    assert_eq!(ungranted.denied.exec, vec!["echo *"]);
    let r = tool(
        &ungranted,
        "exec",
        serde_json::json!({"command": "echo hello"}),
    )
    .await
    .expect("exec");
    assert!(text(&r).contains("no exec grant"), "{}", text(&r));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runaway_calls_are_stopped_and_the_plugin_goes_on() {
    let f = fixture(quick_limits());
    let p = hostile(&f).await;

    let spin = tool(&p, "spin", serde_json::json!({})).await;
    assert!(matches!(spin, Err(PluginError::Timeout { .. })), "{spin:?}");
    still_serves(&p).await;

    let bomb = tool(&p, "membomb", serde_json::json!({})).await;
    assert!(
        matches!(bomb, Err(PluginError::OutOfMemory { .. })),
        "{bomb:?}"
    );
    still_serves(&p).await;

    let deep = tool(&p, "recurse", serde_json::json!({})).await;
    assert!(
        matches!(deep, Err(PluginError::StackOverflow { .. })),
        "{deep:?}"
    );
    still_serves(&p).await;

    let trap = tool(&p, "trap", serde_json::json!({})).await;
    match trap {
        Err(PluginError::Trap {
            ref message,
            ref plugin,
            ..
        }) => {
            assert_eq!(plugin, "hostile");
            assert!(
                message.contains("deliberate trap"),
                "the panic message is reported: {message}"
            );
        }
        other => panic!("expected a trap, got {other:?}"),
    }
    still_serves(&p).await;
    assert_eq!(
        p.run_command("ping", "").await.expect("command"),
        Ok(Some("pong".into()))
    );
    assert_eq!(p.fault_count(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_faults_disable_the_plugin_but_not_its_neighbours() {
    let f = fixture(RuntimeConfig {
        max_faults: 2,
        ..quick_limits()
    });
    let p = hostile(&f).await;
    let manifest = std::fs::read_to_string(artifacts::HELLO_RUST_MANIFEST).expect("manifest");
    let neighbour = LoadedPlugin::load(
        &f.runtime,
        manifest_spec(
            &manifest,
            artifacts::HELLO_RUST,
            Capabilities::default(),
            serde_json::json!({}),
        ),
        &f.host,
    )
    .await
    .expect("hello-rust");
    for _ in 0..2 {
        assert!(tool(&p, "trap", serde_json::json!({})).await.is_err());
    }
    let after = tool(&p, "echo", serde_json::json!({})).await;
    assert!(
        matches!(after, Err(PluginError::Disabled { .. })),
        "{after:?}"
    );
    assert!(p
        .disabled_reason()
        .expect("disabled")
        .contains("deliberate trap"));
    let ok = tool(
        &neighbour,
        "word_count",
        serde_json::json!({"text": "still here"}),
    )
    .await
    .expect("neighbour works");
    assert!(!ok.is_error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_bits_change_only_inside_a_read_write_grant() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture(quick_limits());
    let outside = f.outside.join("secret.txt");
    std::fs::write(&outside, "top secret").expect("write secret");
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::os::unix::fs::symlink(&outside, f.host.workspace.join("link")).expect("symlink");
    std::fs::write(f.host.workspace.join("inside.txt"), "fine").expect("inside");
    let p = hostile(&f).await;
    let ws = f.host.workspace.canonicalize().expect("canonical");
    let inside = ws.join("inside.txt");
    let mode_of = |path: &std::path::Path| {
        std::fs::metadata(path).expect("meta").permissions().mode() & 0o7777
    };
    let chmod = |path: &std::path::Path, mode: u32| {
        tool(&p, "chmod", serde_json::json!({"path": path, "mode": mode}))
    };

    let changed = chmod(&inside, 0o640).await.expect("chmod returns");
    assert_eq!(text(&changed), "ok: changed");
    assert_eq!(mode_of(&inside), 0o640);
    let read = tool(&p, "mode", serde_json::json!({"path": inside}))
        .await
        .expect("mode returns");
    assert_eq!(text(&read), "ok: 640");

    for (path, mode, why) in [
        (outside.clone(), 0o644, "outside the directories"),
        (ws.join("link"), 0o644, ""),
        (ws.join("../secret.txt"), 0o644, "contains '..'"),
        (inside.clone(), 0o4755, "set-user-id"),
    ] {
        let refused = chmod(&path, mode).await.expect("chmod returns");
        assert!(refused.is_error, "{path:?} {mode:o}: {}", text(&refused));
        assert!(text(&refused).contains(why), "{path:?}: {}", text(&refused));
    }
    assert_eq!(mode_of(&outside), 0o600, "nothing outside changed");
    assert_eq!(mode_of(&inside), 0o640);
    let peek = tool(&p, "mode", serde_json::json!({"path": outside}))
        .await
        .expect("mode returns");
    assert!(peek.is_error, "{}", text(&peek));
    still_serves(&p).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directory_listings_stay_inside_the_grants() {
    let f = fixture(quick_limits());
    let outside = f.outside.join("outside");
    std::fs::create_dir(&outside).expect("outside dir");
    std::fs::write(outside.join("secret.txt"), "top secret").expect("write secret");
    std::os::unix::fs::symlink(&outside, f.host.workspace.join("link")).expect("symlink");
    std::fs::create_dir(f.host.workspace.join("sub")).expect("sub");
    std::fs::write(f.host.workspace.join("sub/a.txt"), "a").expect("inside");
    let p = hostile(&f).await;
    let ws = f.host.workspace.canonicalize().expect("canonical");
    let list = |path: std::path::PathBuf| tool(&p, "list_dir", serde_json::json!({"path": path}));

    let listed = list(ws.join("sub")).await.expect("list returns");
    assert_eq!(text(&listed), "ok: a.txt");
    let listed = list(ws.clone()).await.expect("list returns");
    assert_eq!(text(&listed), "ok: link,sub");

    for (path, why) in [
        (outside.clone(), "outside the directories"),
        (ws.join("link"), ""),
        (ws.join("sub/../../outside"), "contains '..'"),
        (std::path::PathBuf::from("sub"), "not an absolute path"),
        (ws.join("sub/a.txt"), ""),
    ] {
        let refused = list(path.clone()).await.expect("list returns");
        assert!(refused.is_error, "{path:?}: {}", text(&refused));
        assert!(text(&refused).contains(why), "{path:?}: {}", text(&refused));
        assert!(
            !text(&refused).contains("secret"),
            "{path:?}: {}",
            text(&refused)
        );
    }
    still_serves(&p).await;
}

/// The outcomes `fan_out` reports, one JSON object per task.
async fn fan_out(p: &LoadedPlugin, tasks: &[&str]) -> Vec<serde_json::Value> {
    let result = tool(p, "fan_out", serde_json::json!({ "tasks": tasks }))
        .await
        .expect("fan_out returns");
    assert!(!result.is_error, "{}", text(&result));
    serde_json::from_str(&text(&result)).expect("JSON outcomes")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_run_at_once_on_instances_with_the_same_grants() {
    let f = fixture(RuntimeConfig {
        task_parallelism: 2,
        limits: CallLimits {
            tool: Duration::from_secs(20),
            ..CallLimits::default()
        },
        ..quick_limits()
    });
    let outside = f.outside.join("secret.txt");
    std::fs::write(&outside, "top secret").expect("write secret");
    std::fs::write(f.host.workspace.join("inside.txt"), "fine").expect("inside");
    let p = hostile(&f).await;
    let ws = f.host.workspace.canonicalize().expect("canonical");

    // Each `meet` task waits for the other's file: both finish only if they run at once.
    let met = fan_out(&p, &["meet:a:b", "meet:b:a"]).await;
    assert_eq!(
        met,
        vec![
            serde_json::json!({"ok": "a met b"}),
            serde_json::json!({"ok": "b met a"})
        ]
    );

    let inside = format!("read:{}", ws.join("inside.txt").display());
    let escape = format!("read:{}", outside.display());
    let outcomes = fan_out(
        &p,
        &["echo:first", &inside, &escape, "trap", "nest", "echo:last"],
    )
    .await;
    assert_eq!(outcomes.len(), 6, "{outcomes:?}");
    assert_eq!(outcomes[0], serde_json::json!({"ok": "first"}));
    assert_eq!(
        outcomes[1],
        serde_json::json!({"ok": "fine"}),
        "same grants"
    );
    let refused = outcomes[2]["err"].as_str().expect("escape refused");
    assert!(!refused.contains("top secret"), "{refused}");
    let trapped = outcomes[3]["err"].as_str().expect("the trap is an error");
    assert!(trapped.contains("deliberate trap in a task"), "{trapped}");
    let nested = outcomes[4]["ok"].as_str().expect("nest returns");
    assert!(
        nested.starts_with("refused: ") && nested.contains("inside another task"),
        "{nested}"
    );
    assert_eq!(outcomes[5], serde_json::json!({"ok": "last"}));
    assert_eq!(p.fault_count(), 1, "the trapping task counts as one fault");

    let flood = tool(
        &p,
        "fan_out",
        serde_json::json!({ "tasks": ["echo:x"], "repeat": 4097 }),
    )
    .await
    .expect("fan_out returns");
    assert!(flood.is_error);
    assert!(text(&flood).contains("at most 4096"), "{}", text(&flood));
    still_serves(&p).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_that_run_out_of_time_fault_their_call_once() {
    let f = fixture(RuntimeConfig {
        task_parallelism: 2,
        ..quick_limits()
    });
    let p = hostile(&f).await;
    let slow = tool(
        &p,
        "fan_out",
        serde_json::json!({"tasks": ["spin", "spin", "spin"]}),
    )
    .await;
    assert!(matches!(slow, Err(PluginError::Timeout { .. })), "{slow:?}");
    assert_eq!(p.fault_count(), 1, "the tasks share the call's deadline");
    assert!(p.disabled_reason().is_none());
    still_serves(&p).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_and_malformed_components_are_refused_clearly() {
    let f = fixture(RuntimeConfig::default());
    let future = r#"
[plugin]
name = "future"
version = "0.0.1"
api = "0.1"
component = "x.wasm"
"#;
    let err = LoadedPlugin::load(
        &f.runtime,
        manifest_spec(
            future,
            artifacts::TEST_FUTURE_API,
            Capabilities::default(),
            serde_json::json!({}),
        ),
        &f.host,
    )
    .await
    .err()
    .expect("refused");
    assert!(
        matches!(err, LoadError::UnsupportedApi { ref found, .. } if found == "0.9.0"),
        "{err}"
    );
    assert!(
        err.to_string().contains("0.9.0") && err.to_string().contains("0.1.0"),
        "{err}"
    );

    let dir = tempfile::tempdir().expect("tmp");
    type Expect = fn(&LoadError) -> bool;
    let cases: [(&str, &[u8], Expect); 3] = [
        ("text.wasm", b"this is not wasm at all", |e| {
            matches!(e, LoadError::NotWasm { .. })
        }),
        ("module.wasm", b"\0asm\x01\0\0\0", |e| {
            matches!(e, LoadError::CoreModule { .. })
        }),
        ("truncated.wasm", b"\0asm\x0d\0\x01\0\x01\x02", |e| {
            matches!(e, LoadError::InvalidComponent { .. })
        }),
    ];
    for (file, bytes, expected) in cases {
        let path = dir.path().join(file);
        std::fs::write(&path, bytes).expect("write");
        let err = LoadedPlugin::load(
            &f.runtime,
            manifest_spec(
                future,
                path.to_str().expect("utf8"),
                Capabilities::default(),
                serde_json::json!({}),
            ),
            &f.host,
        )
        .await
        .err()
        .expect("refused");
        assert!(expected(&err), "{file}: {err}");
        assert!(
            err.to_string().contains("future"),
            "the error names the plugin: {err}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warm_start_loads_from_the_cache_without_compiling() {
    // Two runtimes over one cache folder: the scene's first, then a second, warm one.
    let scene = Scene::new();
    let host = scene.host(HostServices::headless(), false);
    let config = RuntimeConfig {
        cache_dir: Some(scene.home.path().join("cache")),
        ..RuntimeConfig::default()
    };
    let manifest = std::fs::read_to_string(artifacts::HELLO_RUST_MANIFEST).expect("manifest");

    let cold = Runtime::new(config.clone()).expect("runtime");
    LoadedPlugin::load(
        &cold,
        manifest_spec(
            &manifest,
            artifacts::HELLO_RUST,
            Capabilities::default(),
            serde_json::json!({}),
        ),
        &host,
    )
    .await
    .expect("cold load");
    assert_eq!(cold.cache().stats().compiles, 1);
    assert_eq!(cold.cache().stats().hits, 0);

    // A new engine, as in a new process.
    let warm = Runtime::new(config).expect("runtime");
    let p = LoadedPlugin::load(
        &warm,
        manifest_spec(
            &manifest,
            artifacts::HELLO_RUST,
            Capabilities::default(),
            serde_json::json!({}),
        ),
        &host,
    )
    .await
    .expect("warm load");
    assert_eq!(
        warm.cache().stats().compiles,
        0,
        "a warm start must not compile"
    );
    assert_eq!(warm.cache().stats().hits, 1);
    assert!(
        !tool(&p, "word_count", serde_json::json!({"text": "a b"}))
            .await
            .expect("works")
            .is_error
    );
}
