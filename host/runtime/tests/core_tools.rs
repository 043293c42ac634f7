//! core-tools end to end: the shipped component, loaded by the real runtime with its manifest's
//! grants, run against scratch workspaces. Plain calls go through `LoadedPlugin::call_tool`; what
//! depends on the layers above the plugin (schema validation, progress events, sequential
//! batches, aborts) goes through `PluginTools` or a whole `Agent` run with the scripted provider.
//!
//! The tools' own unit tests (`cargo test -p core-tools`) cover formatting corners natively; these
//! check the same behaviour survives the sandbox, the WIT boundary and the exec broker.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use tack_builtin::artifacts;
use tack_core::agent::{ExecutionMode, ToolError, ToolExecutor, ToolProgress};
use tack_core::message::{Content, Message};
use tack_core::session::{Session, SessionHandle};
use tack_core::{Agent, AgentConfig, AgentEvent, RunOutcome, RunStatus};
use tack_runtime::api::{ContentBlock, ToolResult};
use tack_runtime::bridge::PluginTools;
use tack_runtime::{
    Capabilities, HostContext, HostServices, LoadedPlugin, PluginSet, PluginSpec, Runtime,
    RuntimeConfig,
};
use tack_test_support::runtime::{
    builtin_spec, provider, result_text as text, spec, tool_call as call, Events, Scene,
};
use tokio_util::sync::CancellationToken;

/// A 1x1 transparent PNG (valid chunks and CRCs).
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

/// Every test loads core-tools into its own runtime; a cache shared across tests (and runs) means
/// only the first load pays for compiling the component.
fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("core-tools-component-cache")
}

fn core_tools_spec() -> PluginSpec {
    builtin_spec("core-tools", json!({}))
}

/// The scene's workspace, a directory outside it (`outside/`) for escape attempts, and
/// core-tools loaded over them.
struct Fixture {
    _scene: Scene,
    ws: PathBuf,
    outside: PathBuf,
    runtime: Arc<Runtime>,
    host: HostContext,
    plugin: Arc<LoadedPlugin>,
}

async fn fixture() -> Fixture {
    let scene = Scene::with_config(RuntimeConfig {
        cache_dir: Some(cache_dir()),
        ..RuntimeConfig::default()
    });
    let host = scene.host(HostServices::headless(), false);
    let plugin = LoadedPlugin::load(&scene.runtime, core_tools_spec(), &host)
        .await
        .expect("core-tools loads");
    Fixture {
        ws: scene.workspace.clone(),
        outside: scene.outside(),
        runtime: scene.runtime.clone(),
        host,
        plugin,
        _scene: scene,
    }
}

impl Fixture {
    /// Writes a workspace file, creating its directories.
    fn file(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.ws.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, contents).expect("write fixture file");
        path
    }

    fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.ws.join(rel)).expect("read back")
    }

    async fn call(&self, name: &str, args: Value) -> ToolResult {
        self.plugin
            .call_tool(call(name, args), CancellationToken::new(), None)
            .await
            .unwrap_or_else(|e| panic!("{name} trapped instead of returning a result: {e}"))
    }

    /// A call that must succeed; returns its text.
    async fn ok(&self, name: &str, args: Value) -> String {
        let r = self.call(name, args.clone()).await;
        assert!(!r.is_error, "{name} {args} failed: {}", text(&r));
        text(&r)
    }

    /// A call that must fail with a result (not a trap); returns its text.
    async fn err(&self, name: &str, args: Value) -> String {
        let r = self.call(name, args.clone()).await;
        assert!(r.is_error, "{name} {args} should fail, got: {}", text(&r));
        text(&r)
    }

    fn tools(&self) -> Arc<PluginTools> {
        let mut set = PluginSet::default();
        set.add(self.plugin.clone()).expect("add core-tools");
        Arc::new(PluginTools::new(Arc::new(set)))
    }

    /// Runs a whole agent turn loop: the scripted provider plays `script` (one entry per
    /// assistant turn), core-tools runs the calls.
    async fn agent(
        &self,
        script: Vec<Value>,
        events: Arc<Events>,
        cancel: CancellationToken,
    ) -> RunOutcome {
        let scripted = LoadedPlugin::load(
            &self.runtime,
            spec(
                "scripted",
                artifacts::TEST_SCRIPTED_PROVIDER,
                Capabilities::default(),
                json!({ "script": script }),
            ),
            &self.host,
        )
        .await
        .expect("scripted provider loads");
        let mut set = PluginSet::default();
        set.add(scripted).expect("add scripted");
        set.add(self.plugin.clone()).expect("add core-tools");
        let set = Arc::new(set);
        let (model, provider) = provider(&set, &self.runtime, "scripted");
        let agent = Agent::new(
            AgentConfig::new(model, "test"),
            provider,
            Arc::new(PluginTools::new(set.clone())),
            SessionHandle::new(Session::in_memory(&self.ws)),
        )
        .with_events(events);
        agent.prompt_text("go", cancel).await.expect("agent run")
    }
}

fn details(result: &ToolResult) -> Value {
    serde_json::from_str(result.details.as_deref().expect("details")).expect("details are JSON")
}

fn core_text(content: &[Content]) -> String {
    content
        .iter()
        .filter_map(|c| match c {
            Content::Text(t) => Some(t.text.as_str()),
            Content::Image(_) => None,
        })
        .collect()
}

/// The text of each progress update, in order.
fn progress(events: &Events) -> Vec<String> {
    events
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolExecutionUpdate { partial, .. } => Some(core_text(&partial.content)),
            _ => None,
        })
        .collect()
}

/// (call id, is_error, text) of each tool result the run added, in order.
fn tool_results(outcome: &RunOutcome) -> Vec<(String, bool, String)> {
    outcome
        .messages
        .iter()
        .filter_map(|m| match m.as_ref() {
            Message::ToolResult(r) => {
                Some((r.tool_call_id.clone(), r.is_error, core_text(&r.content)))
            }
            _ => None,
        })
        .collect()
}

/// Names in a directory, sorted, so tests can prove nothing (a temporary file) was left behind.
fn dir_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

// ---- registration ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registers_the_nine_tools_with_their_modes() {
    let f = fixture().await;
    let specs = f.tools().tools();
    let mut names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "bash",
            "bash_kill",
            "bash_output",
            "edit",
            "find",
            "grep",
            "ls",
            "read",
            "write"
        ]
    );
    for spec in &specs {
        // Read-modify-write tools must not interleave within a batch; the rest may run in parallel.
        let expected = if matches!(spec.name.as_str(), "write" | "edit") {
            ExecutionMode::Sequential
        } else {
            ExecutionMode::Parallel
        };
        assert_eq!(spec.mode, expected, "{}", spec.name);
        assert_eq!(spec.parameters["type"], "object", "{}", spec.name);
        assert!(spec.prompt_snippet.is_some(), "{}", spec.name);
    }
}

// ---- read -----------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_pages_through_big_files_with_offset_notes() {
    let f = fixture().await;
    // 10,000 short lines (107 KB): the 2000-line cap comes first.
    let long: String = (1..=10_000).map(|i| format!("line {i:05}\n")).collect();
    f.file("big.txt", &long);
    let r = f.call("read", json!({"path": "big.txt"})).await;
    let out = text(&r);
    assert!(
        out.starts_with("line 00001\nline 00002\n"),
        "{}",
        &out[..40]
    );
    assert!(
        out.ends_with(
            "line 02000\n\n[Showing lines 1-2000 of 10000. Use offset=2001 to continue.]"
        ),
        "{}",
        &out[out.len() - 120..]
    );
    assert_eq!(
        details(&r),
        json!({"path": "big.txt", "lines": 10000, "truncated": true, "startLine": 1, "endLine": 2000})
    );

    let window = f
        .ok("read", json!({"path": "big.txt", "offset": 10, "limit": 2}))
        .await;
    assert_eq!(
        window,
        "line 00010\nline 00011\n\n[Showing lines 10-11 of 10000. Use offset=12 to continue.]"
    );
    assert_eq!(
        f.ok("read", json!({"path": "big.txt", "offset": 9999}))
            .await,
        "line 09999\nline 10000"
    );
    let past = f
        .err("read", json!({"path": "big.txt", "offset": 10_001}))
        .await;
    assert!(past.contains("Offset 10001 is past the end"), "{past}");

    // 300 lines of 1000 characters (293 KB): the 50 KB cap comes first.
    let wide: String = (0..300)
        .map(|i| {
            format!(
                "{}\n",
                char::from(b'a' + (i % 26) as u8).to_string().repeat(1000)
            )
        })
        .collect();
    f.file("wide.txt", &wide);
    let out = f.ok("read", json!({"path": "wide.txt"})).await;
    assert!(
        out.ends_with("[Showing lines 1-51 of 300 (50 KB limit). Use offset=52 to continue.]"),
        "{}",
        &out[out.len() - 100..]
    );

    // Following the notes reassembles each file exactly, whichever cap applied.
    for (name, original) in [("big.txt", &long), ("wide.txt", &wide)] {
        let mut offset = 1u64;
        let mut pages = Vec::new();
        loop {
            let out = f.ok("read", json!({"path": name, "offset": offset})).await;
            match out.rsplit_once("\n\n[Showing lines ") {
                Some((page, note)) => {
                    pages.push(page.to_string());
                    let next = note
                        .split("Use offset=")
                        .nth(1)
                        .and_then(|s| s.split(' ').next())
                        .expect("note names the next offset");
                    offset = next.parse().expect("offset is a number");
                }
                None => {
                    pages.push(out);
                    break;
                }
            }
            assert!(pages.len() < 20, "{name}: the notes do not converge");
        }
        assert_eq!(
            format!("{}\n", pages.join("\n")),
            *original,
            "{name} reassembled"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_handles_line_endings_unicode_and_paths() {
    let f = fixture().await;
    f.file("crlf.txt", "first\r\nsecond\r\n");
    assert_eq!(
        f.ok("read", json!({"path": "crlf.txt"})).await,
        "first\nsecond"
    );

    let unicode = "héllo wörld 🦀\n日本語のテキスト\nΣ = ∑ x²\n";
    f.file("src/ünï.txt", unicode);
    let relative = f.call("read", json!({"path": "src/ünï.txt"})).await;
    assert_eq!(text(&relative), unicode.trim_end_matches('\n'));
    assert_eq!(details(&relative)["path"], "src/ünï.txt");

    // Absolute paths inside the workspace, and relative ones with `.`/`..` that stay inside, work
    // and are shown workspace-relative.
    for path in [
        f.ws.join("src/ünï.txt").display().to_string(),
        "./src/../src/ünï.txt".to_string(),
    ] {
        let r = f.call("read", json!({ "path": path })).await;
        assert!(!r.is_error, "{path}: {}", text(&r));
        assert_eq!(text(&r), text(&relative), "{path}");
        assert_eq!(details(&r)["path"], "src/ünï.txt", "{path}");
    }

    // A symlink that stays inside the workspace is followed.
    std::os::unix::fs::symlink("src/ünï.txt", f.ws.join("alias.txt")).expect("symlink");
    assert_eq!(
        f.ok("read", json!({"path": "alias.txt"})).await,
        text(&relative)
    );

    f.file("empty.txt", "");
    assert_eq!(
        f.ok("read", json!({"path": "empty.txt"})).await,
        "[The file 'empty.txt' is empty.]"
    );
    let missing = f.err("read", json!({"path": "nope/x.rs"})).await;
    assert_eq!(
        missing,
        "Cannot read 'nope/x.rs': the directory 'nope' does not exist."
    );
    let dir = f.err("read", json!({"path": "src"})).await;
    assert!(dir.contains("'src' is a directory"), "{dir}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_returns_images_and_refuses_binaries() {
    let f = fixture().await;
    f.file("img/pixel.png", PNG);
    let r = f.call("read", json!({"path": "img/pixel.png"})).await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(text(&r), "Image 'img/pixel.png' (image/png, 67 B):");
    match r.content.as_slice() {
        [ContentBlock::Text(_), ContentBlock::Image(image)] => {
            assert_eq!(image.mime_type, "image/png");
            assert_eq!(image.data, PNG);
        }
        other => panic!("expected text then an image, got {other:?}"),
    }
    assert_eq!(
        details(&r),
        json!({"path": "img/pixel.png", "mimeType": "image/png", "bytes": 67})
    );

    // Through the bridge the image reaches the agent as base64, byte for byte.
    let events: Arc<Events> = Arc::default();
    let result = f
        .tools()
        .execute(
            tack_core::ToolCall {
                id: "img".into(),
                name: "read".into(),
                arguments: json!({"path": "img/pixel.png"}),
            },
            CancellationToken::new(),
            ToolProgress::new("img".into(), "read".into(), events),
        )
        .await
        .expect("read through PluginTools");
    let image = result
        .content
        .iter()
        .find_map(|c| match c {
            Content::Image(i) => Some(i),
            Content::Text(_) => None,
        })
        .expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(&image.data)
            .expect("base64"),
        PNG
    );

    let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
    elf.extend_from_slice(&[0u8; 200]);
    f.file("bin/tool", &elf);
    let refused = f.err("read", json!({"path": "bin/tool"})).await;
    assert!(
        refused.starts_with("Cannot show 'bin/tool' as text: it is a binary file (216 B)"),
        "{refused}"
    );
}

// ---- the sandbox ----------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escapes_are_refused_and_leak_nothing() {
    let f = fixture().await;
    const SECRET: &str = "SECRET-CONTENT-42";
    let secret = f.outside.join("secret.txt");
    std::fs::write(&secret, SECRET).expect("secret");
    std::os::unix::fs::symlink(&secret, f.ws.join("link_file")).expect("file symlink");
    std::os::unix::fs::symlink(&f.outside, f.ws.join("link_dir")).expect("dir symlink");
    // A relative link climbing out of the workspace, which a lexical check alone would miss.
    std::os::unix::fs::symlink("../outside", f.ws.join("rel_dir")).expect("relative symlink");
    f.file("inside.txt", "fine");
    let outside = f.outside.display().to_string();
    let secret_abs = secret.display().to_string();

    let attempts = [
        ("read", json!({"path": "../outside/secret.txt"})),
        ("read", json!({"path": secret_abs})),
        ("read", json!({"path": "/etc/passwd"})),
        ("read", json!({"path": "link_file"})),
        ("read", json!({"path": "link_dir/secret.txt"})),
        ("read", json!({"path": "rel_dir/secret.txt"})),
        ("read", json!({"path": "~/.bashrc"})),
        ("ls", json!({"path": ".."})),
        ("ls", json!({"path": "link_dir"})),
        ("ls", json!({"path": outside})),
        ("find", json!({"pattern": "*", "path": "link_dir"})),
        ("find", json!({"pattern": "*", "path": "../outside"})),
        ("grep", json!({"pattern": "SECRET", "path": "link_dir"})),
        ("grep", json!({"pattern": "SECRET", "path": "link_file"})),
        ("grep", json!({"pattern": "SECRET", "path": secret_abs})),
        (
            "write",
            json!({"path": "../outside/evil.txt", "content": "x"}),
        ),
        (
            "write",
            json!({"path": f.outside.join("evil.txt"), "content": "x"}),
        ),
        (
            "write",
            json!({"path": "link_file", "content": "clobbered"}),
        ),
        (
            "write",
            json!({"path": "link_dir/evil.txt", "content": "x"}),
        ),
        ("write", json!({"path": "rel_dir/evil.txt", "content": "x"})),
        (
            "edit",
            json!({"path": "link_file", "old_text": SECRET, "new_text": "clobbered"}),
        ),
        (
            "edit",
            json!({"path": secret_abs, "old_text": SECRET, "new_text": "clobbered"}),
        ),
    ];
    let mut unclear = Vec::new();
    for (name, args) in attempts {
        let r = f.call(name, args.clone()).await;
        let out = text(&r);
        assert!(r.is_error, "{name} {args} escaped: {out}");
        assert!(
            !out.contains(SECRET) && !out.contains("root:"),
            "{name} {args} leaked: {out}"
        );
        // The model is told why, not handed an OS error code.
        let clear = out.contains("outside the workspace")
            || out.contains("symbolic link")
            || out.contains("'~'");
        if !clear {
            unclear.push(format!("{name} {args}: {out}"));
        }
    }
    assert!(
        unclear.is_empty(),
        "unclear refusals:\n{}",
        unclear.join("\n")
    );

    // Walking the whole workspace lists the links but never enters them.
    let found = f.ok("find", json!({"pattern": "*"})).await;
    assert_eq!(found, "inside.txt\nlink_dir\nlink_file\nrel_dir", "{found}");
    let grep = f.call("grep", json!({"pattern": "S.CRET-CONTENT"})).await;
    assert!(!text(&grep).contains(SECRET), "{}", text(&grep));
    assert_eq!(details(&grep)["matches"], 0);
    let listed = f.ok("ls", json!({})).await;
    assert_eq!(listed, "inside.txt\nlink_dir@\nlink_file@\nrel_dir@");

    assert_eq!(std::fs::read_to_string(&secret).expect("secret"), SECRET);
    assert_eq!(
        dir_names(&f.outside),
        ["secret.txt"],
        "nothing was written outside"
    );
    assert_eq!(
        f.ok("read", json!({"path": "inside.txt"})).await,
        "fine",
        "the plugin still serves after the refusals"
    );
}

// ---- write ----------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_creates_directories_and_replaces_atomically() {
    let f = fixture().await;
    let r = f
        .call(
            "write",
            json!({"path": "deep/er/new.txt", "content": "one\ntwo\n"}),
        )
        .await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(text(&r), "Created deep/er/new.txt (2 lines, 8 bytes).");
    assert_eq!(
        details(&r),
        json!({"path": "deep/er/new.txt", "bytes": 8, "lines": 2, "created": true})
    );
    assert_eq!(f.read("deep/er/new.txt"), b"one\ntwo\n");

    let big = "x".repeat(3000);
    let r = f
        .call(
            "write",
            json!({"path": f.ws.join("deep/er/new.txt"), "content": big}),
        )
        .await;
    assert_eq!(
        text(&r),
        "Replaced the content of deep/er/new.txt (1 line, 2.9 KB, 3000 bytes)."
    );
    assert_eq!(details(&r)["created"], false);
    assert_eq!(f.read("deep/er/new.txt"), big.as_bytes());
    assert_eq!(
        dir_names(&f.ws.join("deep/er")),
        ["new.txt"],
        "no temporary file is left behind"
    );

    // Writing through a symlink inside the workspace replaces its target and keeps the link.
    std::os::unix::fs::symlink("deep/er/new.txt", f.ws.join("shortcut")).expect("symlink");
    f.ok("write", json!({"path": "shortcut", "content": "via link"}))
        .await;
    assert_eq!(f.read("deep/er/new.txt"), b"via link");
    assert!(std::fs::symlink_metadata(f.ws.join("shortcut"))
        .expect("link")
        .file_type()
        .is_symlink());

    // Replacing a file keeps its permission bits: a script stays executable, a private file
    // stays private, whether written whole or edited.
    use std::os::unix::fs::PermissionsExt;
    let mode_of =
        |path: &Path| std::fs::metadata(path).expect("meta").permissions().mode() & 0o7777;
    let script = f.file("run.sh", "#!/bin/sh\necho old\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).expect("chmod");
    f.ok(
        "write",
        json!({"path": "run.sh", "content": "#!/bin/sh\necho new\n"}),
    )
    .await;
    assert_eq!(mode_of(&script), 0o750);
    let secret = f.file(".env", "TOKEN=old\n");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    f.ok("write", json!({"path": ".env", "content": "TOKEN=new\n"}))
        .await;
    assert_eq!(mode_of(&secret), 0o600);
    f.ok(
        "edit",
        json!({"path": ".env", "edits": [{"old_text": "new", "new_text": "newer"}]}),
    )
    .await;
    assert_eq!(f.read(".env"), b"TOKEN=newer\n");
    assert_eq!(mode_of(&secret), 0o600);

    let dir = f
        .err("write", json!({"path": "deep", "content": "x"}))
        .await;
    assert!(dir.contains("it is a directory"), "{dir}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writes_to_one_path_leave_one_complete_file() {
    let f = fixture().await;
    // Big enough that an interleaved (non-atomic) write would be visible.
    let a = "a".repeat(1 << 20);
    let b = "b".repeat(1 << 20);

    // Straight to the executor, genuinely concurrent (the plugin runs up to 4 instances).
    let tools = f.tools();
    let write = |id: &str, content: &str| {
        tools.execute(
            tack_core::ToolCall {
                id: id.into(),
                name: "write".into(),
                arguments: json!({"path": "out/same.txt", "content": content}),
            },
            CancellationToken::new(),
            ToolProgress::new(id.into(), "write".into(), Arc::new(Events::default())),
        )
    };
    let (ra, rb) = tokio::join!(write("wa", &a), write("wb", &b));
    for r in [ra, rb] {
        let r = r.expect("write ran");
        assert!(!r.is_error, "{}", core_text(&r.content));
    }
    let content = f.read("out/same.txt");
    assert!(
        content == a.as_bytes() || content == b.as_bytes(),
        "the file is a mix of both writes ({} bytes)",
        content.len()
    );
    assert_eq!(dir_names(&f.ws.join("out")), ["same.txt"]);

    // Through the agent, one batch with two writes runs sequentially, in the model's order.
    let events: Arc<Events> = Arc::default();
    let outcome = f
        .agent(
            vec![
                json!({"tool_calls": [
                    {"id": "w1", "name": "write", "arguments": {"path": "out/same.txt", "content": a}},
                    {"id": "w2", "name": "write", "arguments": {"path": "out/same.txt", "content": b}},
                ]}),
                json!({"text": "done"}),
            ],
            events.clone(),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed);
    let results = tool_results(&outcome);
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|(_, err, _)| !err), "{results:?}");
    assert!(
        f.read("out/same.txt") == b.as_bytes(),
        "the later write wins"
    );
    assert_eq!(dir_names(&f.ws.join("out")), ["same.txt"]);
    // Sequential: the second call starts only after the first ended.
    let order: Vec<String> = events
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolExecutionStart { tool_call_id, .. } => {
                Some(format!("start {tool_call_id}"))
            }
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } => {
                Some(format!("end {tool_call_id}"))
            }
            _ => None,
        })
        .collect();
    assert_eq!(order, ["start w1", "end w1", "start w2", "end w2"]);
}

// ---- edit -----------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_replaces_blocks_and_reports_a_diff() {
    let f = fixture().await;
    f.file(
        "src/lib.rs",
        "fn alpha() {\n    1\n}\n\nfn beta() {\n    2\n}\n\nfn gamma() {\n    3\n}\n",
    );
    let r = f
        .call(
            "edit",
            json!({"path": "src/lib.rs", "old_text": "    2\n", "new_text": "    20\n"}),
        )
        .await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(text(&r), "Edited src/lib.rs: replaced 1 block at line 6.");
    let d = details(&r);
    assert_eq!(d["firstChangedLine"], 6);
    assert_eq!(d["replacements"], 1);
    let diff = d["diff"].as_str().expect("diff");
    assert!(
        diff.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@"),
        "{diff}"
    );
    assert!(diff.contains("\n-    2\n+    20\n"), "{diff}");

    let r = f
        .call(
            "edit",
            json!({"path": "src/lib.rs", "edits": [
                {"old_text": "fn gamma() {\n    3", "new_text": "fn gamma() {\n    30"},
                {"old_text": "fn alpha() {\n    1", "new_text": "fn alpha() {\n    10"},
            ]}),
        )
        .await;
    assert!(!r.is_error, "{}", text(&r));
    assert_eq!(
        text(&r),
        "Edited src/lib.rs: replaced 2 blocks at lines 2 and 10."
    );
    let d = details(&r);
    assert_eq!(d["firstChangedLine"], 2);
    assert_eq!(d["replacements"], 2);
    let diff = d["diff"].as_str().expect("diff");
    assert!(
        diff.contains("-    1\n+    10\n") && diff.contains("-    3\n+    30\n"),
        "{diff}"
    );
    assert_eq!(
        f.read("src/lib.rs"),
        b"fn alpha() {\n    10\n}\n\nfn beta() {\n    20\n}\n\nfn gamma() {\n    30\n}\n"
    );
    assert_eq!(dir_names(&f.ws.join("src")), ["lib.rs"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_failures_name_the_edit_and_change_nothing() {
    let f = fixture().await;
    let original = "let a = 1;\nlet b = 2;\nlet a = 1;\nlet c = 3;\n";
    f.file("v.rs", original);

    let missing = f
        .err(
            "edit",
            json!({"path": "v.rs", "edits": [
                {"old_text": "let b = 2;", "new_text": "let b = 20;"},
                {"old_text": "let zeta = 9;", "new_text": "x"},
            ]}),
        )
        .await;
    assert!(
        missing.starts_with("Edit of 'v.rs' failed; no changes were made.\n- edits[1] (old_text starting `let zeta = 9;`): old_text was not found"),
        "{missing}"
    );
    assert!(
        missing.contains("The other replacements matched"),
        "{missing}"
    );

    let ambiguous = f
        .err(
            "edit",
            json!({"path": "v.rs", "old_text": "let a = 1;", "new_text": "let a = 10;"}),
        )
        .await;
    assert!(
        ambiguous.contains(
            "- old_text (starting `let a = 1;`): old_text matches 2 places (lines 1 and 3)"
        ),
        "{ambiguous}"
    );

    let overlap = f
        .err(
            "edit",
            json!({"path": "v.rs", "edits": [
                {"old_text": "let b = 2;\nlet a", "new_text": "x"},
                {"old_text": "let a = 1;\nlet c", "new_text": "y"},
            ]}),
        )
        .await;
    assert!(
        overlap.contains("edits[0] (lines 2-3) and edits[1] (lines 3-4) overlap"),
        "{overlap}"
    );

    let same = f
        .err(
            "edit",
            json!({"path": "v.rs", "old_text": "let c = 3;", "new_text": "let c = 3;"}),
        )
        .await;
    assert!(same.contains("identical"), "{same}");
    let absent = f
        .err(
            "edit",
            json!({"path": "nope.rs", "old_text": "a", "new_text": "b"}),
        )
        .await;
    assert!(absent.contains("Cannot edit 'nope.rs'"), "{absent}");

    assert_eq!(f.read("v.rs"), original.as_bytes(), "all or nothing");
    assert_eq!(dir_names(&f.ws), ["v.rs"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_tolerates_invisible_differences_only_when_unique() {
    let f = fixture().await;
    // Trailing spaces and typographic quotes the model is unlikely to reproduce.
    f.file(
        "t.py",
        "def greet():   \n    print(\u{201c}hello\u{201d})\n\nother = \u{2018}x\u{2019}\n",
    );
    let r = f
        .call(
            "edit",
            json!({"path": "t.py", "old_text": "def greet():\n    print(\"hello\")", "new_text": "def greet():\n    print(\"hi\")"}),
        )
        .await;
    assert!(!r.is_error, "{}", text(&r));
    assert!(
        text(&r).contains("old_text matched only after ignoring differences"),
        "{}",
        text(&r)
    );
    assert_eq!(
        String::from_utf8(f.read("t.py")).expect("utf8"),
        "def greet():\n    print(\"hi\")\n\nother = \u{2018}x\u{2019}\n",
        "only the matched range changed; the rest keeps its curly quotes"
    );

    // Two places match tolerantly and none exactly: refused, naming both lines.
    let twice = "say(\u{201c}x\u{201d})\nsay(\u{201c}x\u{201d})\n";
    f.file("twice.txt", twice);
    let err = f
        .err(
            "edit",
            json!({"path": "twice.txt", "old_text": "say(\"x\")", "new_text": "say(\"y\")"}),
        )
        .await;
    assert!(
        err.contains("has no exact match, and tolerantly matches 2 places (lines 1 and 2)"),
        "{err}"
    );
    assert_eq!(f.read("twice.txt"), twice.as_bytes());

    // CRLF files take LF old_text and keep CRLF; a byte-order mark survives too.
    f.file("win.txt", "\u{feff}one\r\ntwo\r\nthree\r\n");
    f.ok(
        "edit",
        json!({"path": "win.txt", "old_text": "one\ntwo\n", "new_text": "1\n2\n2.5\n"}),
    )
    .await;
    assert_eq!(
        f.read("win.txt"),
        "\u{feff}1\r\n2\r\n2.5\r\nthree\r\n".as_bytes()
    );
}

// ---- ls, find, grep -------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ls_shows_dotfiles_markers_and_caps() {
    let f = fixture().await;
    f.file(".env", "");
    f.file("b.txt", "");
    f.file("Dir/inner", "");
    f.file(".hidden/x", "");
    std::os::unix::fs::symlink("b.txt", f.ws.join("link")).expect("symlink");
    let r = f.call("ls", json!({})).await;
    assert_eq!(text(&r), ".env\n.hidden/\nb.txt\nDir/\nlink@");
    assert_eq!(
        details(&r),
        json!({"path": ".", "entries": 5, "truncated": false})
    );
    assert_eq!(f.ok("ls", json!({"path": "Dir"})).await, "inner");

    for i in 0..600 {
        f.file(&format!("many/f{i:03}"), "");
    }
    let r = f.call("ls", json!({"path": "many"})).await;
    let out = text(&r);
    assert!(out.starts_with("f000\nf001\n"), "{}", &out[..20]);
    assert!(
        out.ends_with(
            "f499\n\n[Showing 500 of 600 entries. Pass a larger limit (up to 5000), or use find with a pattern.]"
        ),
        "{}",
        &out[out.len() - 120..]
    );
    assert_eq!(details(&r)["truncated"], true);
    let out = f.ok("ls", json!({"path": "many", "limit": 2})).await;
    assert!(
        out.starts_with("f000\nf001\n\n[Showing 2 of 600 entries."),
        "{out}"
    );

    let file = f.err("ls", json!({"path": "b.txt"})).await;
    assert!(file.contains("is a file, not a directory"), "{file}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_globs_sorted_and_honours_ignore_files() {
    let f = fixture().await;
    f.file(".gitignore", "target/\n*.log\n");
    f.file("src/main.rs", "");
    f.file("src/lib/mod.rs", "");
    f.file("src/lib/.ignore", "skip.rs\n");
    f.file("src/lib/skip.rs", "");
    f.file("target/debug/build.rs", "");
    f.file("debug.log", "");
    f.file(".git/info/exclude", "secret.rs\n");
    f.file("secret.rs", "");
    f.file("z.rs", "");
    f.file("a.rs", "");
    f.file("docs/README.md", "");

    let r = f.call("find", json!({"pattern": "*.rs"})).await;
    assert_eq!(text(&r), "a.rs\nsrc/lib/mod.rs\nsrc/main.rs\nz.rs");
    assert_eq!(
        details(&r),
        json!({"pattern": "*.rs", "path": ".", "matches": 4, "truncated": false})
    );
    assert_eq!(
        f.ok("find", json!({"pattern": "src/**/*.rs"})).await,
        "src/lib/mod.rs\nsrc/main.rs"
    );
    assert_eq!(
        f.ok("find", json!({"pattern": "lib/*", "path": "src"}))
            .await,
        "src/lib/.ignore\nsrc/lib/mod.rs"
    );
    assert_eq!(
        f.ok("find", json!({"pattern": "readme*"})).await,
        "docs/README.md"
    );
    assert_eq!(
        f.ok("find", json!({"pattern": "*.{md,log}"})).await,
        "docs/README.md"
    );
    let none = f.ok("find", json!({"pattern": "*.log"})).await;
    assert!(
        none.starts_with("No files match '*.log' under '.'"),
        "{none}"
    );
    let dirs = f.ok("find", json!({"pattern": "*"})).await;
    assert!(
        dirs.contains("\nsrc/\n") && dirs.contains("\nsrc/lib/\n"),
        "{dirs}"
    );
    assert!(
        !dirs.contains(".git/") && !dirs.contains("target"),
        "{dirs}"
    );

    for i in 0..1100 {
        f.file(&format!("gen/{i:04}.txt"), "");
    }
    let r = f.call("find", json!({"pattern": "*.txt"})).await;
    let out = text(&r);
    assert!(
        out.starts_with("gen/0000.txt\ngen/0001.txt\n"),
        "{}",
        &out[..40]
    );
    assert!(
        out.ends_with(
            "gen/0999.txt\n\n[Showing 1000 of 1100 matches. Narrow the pattern or path, or pass a larger limit.]"
        ),
        "{}",
        &out[out.len() - 120..]
    );
    assert_eq!(details(&r)["matches"], 1100);
    assert_eq!(details(&r)["truncated"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_searches_like_ripgrep() {
    let f = fixture().await;
    f.file(".gitignore", "target/\n");
    f.file(
        "src/lib.rs",
        "pub fn alpha() {}\nfn beta(x: u32) {}\n// call a.b(c) here\nlet FOO = 1;\n",
    );
    f.file("src/main.rs", "fn main() {\n    alpha();\n}\n");
    f.file("notes.md", "fn prose() in markdown\nfoo bar\n");
    f.file("target/gen.rs", "fn generated() {}\n");
    f.file("blob.bin", b"fn binary()\0\0\0");

    let r = f
        .call("grep", json!({"pattern": r"fn \w+\(", "glob": "*.rs"}))
        .await;
    assert_eq!(
        text(&r),
        "src/lib.rs:1: pub fn alpha() {}\nsrc/lib.rs:2: fn beta(x: u32) {}\nsrc/main.rs:1: fn main() {"
    );
    assert_eq!(
        details(&r),
        json!({"pattern": r"fn \w+\(", "path": ".", "matches": 3, "files": 2, "truncated": false})
    );
    // Without a glob: markdown too, but never the ignored tree or the binary file.
    assert_eq!(
        f.ok("grep", json!({"pattern": r"fn \w+\("})).await,
        "notes.md:1: fn prose() in markdown\nsrc/lib.rs:1: pub fn alpha() {}\nsrc/lib.rs:2: fn beta(x: u32) {}\nsrc/main.rs:1: fn main() {"
    );
    assert_eq!(
        f.ok("grep", json!({"pattern": "a.b(c)", "literal": true}))
            .await,
        "src/lib.rs:3: // call a.b(c) here"
    );
    let invalid = f.err("grep", json!({"pattern": "a.b(c"})).await;
    assert!(
        invalid.starts_with("Invalid regular expression 'a.b(c'"),
        "{invalid}"
    );
    assert_eq!(
        f.ok("grep", json!({"pattern": "foo", "ignore_case": true}))
            .await,
        "notes.md:2: foo bar\nsrc/lib.rs:4: let FOO = 1;"
    );
    assert_eq!(
        f.ok("grep", json!({"pattern": "alpha", "context": 1})).await,
        "src/lib.rs:1: pub fn alpha() {}\nsrc/lib.rs-2- fn beta(x: u32) {}\n--\nsrc/main.rs-1- fn main() {\nsrc/main.rs:2:     alpha();\nsrc/main.rs-3- }"
    );
    // A file named explicitly is searched even if ignored.
    assert_eq!(
        f.ok(
            "grep",
            json!({"pattern": "generated", "path": "target/gen.rs"})
        )
        .await,
        "target/gen.rs:1: fn generated() {}"
    );
    let none = f
        .ok("grep", json!({"pattern": "zzz", "glob": "*.md"}))
        .await;
    assert_eq!(none, "No matches for 'zzz' in '.' (files matching '*.md').");

    // Long lines are cut; past 100 matching lines the rest is summarised.
    f.file("long.txt", format!("needle {}\n", "x".repeat(2000)));
    let cut = f
        .ok("grep", json!({"pattern": "needle", "path": "long.txt"}))
        .await;
    assert_eq!(
        cut,
        format!(
            "long.txt:1: needle {} … [line cut at 500 characters]",
            "x".repeat(493)
        )
    );
    let many: String = (1..=150).map(|i| format!("hit {i}\n")).collect();
    f.file("many/hits.txt", &many);
    let r = f
        .call("grep", json!({"pattern": "^hit", "path": "many"}))
        .await;
    let out = text(&r);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "many/hits.txt:1: hit 1");
    assert_eq!(lines[99], "many/hits.txt:100: hit 100");
    assert_eq!(
        lines[100..],
        ["", "[Showing the first 100 matching lines; there are more. Narrow the search (pattern, path, glob) or pass a larger limit.]"]
    );
    assert_eq!(details(&r)["truncated"], true);
    assert_eq!(details(&r)["matches"], 100);
}

/// A tree big enough for grep and find to cut into pieces that run on several instances:
/// whatever the cut, the output is what one sorted walk prints.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_and_find_over_a_split_tree_print_what_one_walk_would() {
    let f = fixture().await;
    let mut files = vec![PathBuf::from("a.txt"), PathBuf::from("zz.txt")];
    for d in 0..30 {
        for s in 0..2 {
            for n in 0..3 {
                files.push(PathBuf::from(format!("d{d:02}/s{s}/f{n}.txt")));
            }
        }
    }
    let body = |path: &Path| {
        format!(
            "one\nhit in {}\nthree\nfour\nhit again\nsix\n",
            path.display()
        )
    };
    for path in &files {
        f.file(path.to_str().expect("utf-8"), body(path));
    }
    // Ignored below one directory only, and a deeper level of nesting elsewhere.
    f.file("d05/.gitignore", "*.log\n");
    f.file("d05/s0/skip.log", "hit but ignored\n");
    f.file("d07/s1/deep/er/f.txt", "hit deep\n");
    files.push(PathBuf::from("d07/s1/deep/er/f.txt"));
    files.sort();
    let expected: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let shown = path.display().to_string();
            if shown.contains("deep") {
                vec![format!("{shown}:1: hit deep")]
            } else {
                vec![
                    format!("{shown}:2: hit in {shown}"),
                    format!("{shown}:5: hit again"),
                ]
            }
        })
        .collect();
    let total = expected.len();

    let all = f
        .call("grep", json!({"pattern": "hit", "limit": total}))
        .await;
    assert_eq!(text(&all), expected.join("\n"));
    assert_eq!(details(&all)["matches"], total);
    assert_eq!(details(&all)["files"], files.len());
    assert_eq!(details(&all)["truncated"], false);

    let first = f.call("grep", json!({"pattern": "hit"})).await;
    let out = text(&first);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[..100], expected[..100]);
    assert!(lines[101].starts_with("[Showing the first 100 matching lines; there are more."));
    assert_eq!(details(&first)["truncated"], true);

    // The cut falls inside a file: its first match is shown, the second is not.
    let odd = f.call("grep", json!({"pattern": "hit", "limit": 7})).await;
    let odd_text = text(&odd);
    let odd_lines: Vec<&str> = odd_text.lines().collect();
    assert_eq!(odd_lines[..7], expected[..7]);
    assert!(odd_lines[8].starts_with("[Showing the first 7 matching lines; there are more."));

    let with_context = f
        .ok(
            "grep",
            json!({"pattern": "again", "context": 1, "glob": "d0[0-1]/s0/*"}),
        )
        .await;
    let blocks: Vec<String> = files
        .iter()
        .filter(|p| p.starts_with("d00/s0") || p.starts_with("d01/s0"))
        .map(|p| {
            let s = p.display();
            format!("{s}-4- four\n{s}:5: hit again\n{s}-6- six")
        })
        .collect();
    assert_eq!(with_context, blocks.join("\n--\n"));

    // find over the same pieces: directories at every level of the cut are matched too.
    let mut names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    names.sort();
    assert_eq!(
        f.ok("find", json!({"pattern": "*.txt", "limit": 10000}))
            .await,
        names.join("\n")
    );
    let s1: Vec<String> = (0..30).map(|d| format!("d{d:02}/s1/")).collect();
    assert_eq!(f.ok("find", json!({"pattern": "s1"})).await, s1.join("\n"));
    assert_eq!(
        f.ok("find", json!({"pattern": "d0[5-6]"})).await,
        "d05/\nd06/"
    );
    assert_eq!(
        f.ok("find", json!({"pattern": "er"})).await,
        "d07/s1/deep/er/"
    );
}

// ---- bash -----------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_runs_in_the_workspace_and_reports_exit_codes() {
    let f = fixture().await;
    let r = f
        .call(
            "bash",
            json!({"command": "pwd; echo out; echo err >&2; echo out2; echo err2 >&2"}),
        )
        .await;
    assert!(!r.is_error, "{}", text(&r));
    // stderr goes into stdout's pipe, so the lines keep the order they were written in.
    let ws = f.ws.display().to_string();
    assert_eq!(text(&r), format!("{ws}\nout\nerr\nout2\nerr2"));
    let d = details(&r);
    assert_eq!(d["exitCode"], 0);
    assert_eq!(d["timedOut"], false);
    assert_eq!(d["truncated"], false);
    assert!(d["fullOutputPath"].is_null());

    let r = f
        .call("bash", json!({"command": "echo boom; exit 3"}))
        .await;
    assert!(r.is_error);
    assert_eq!(text(&r), "boom\n\n[Command exited with code 3]");
    assert_eq!(details(&r)["exitCode"], 3);

    assert_eq!(
        f.ok("bash", json!({"command": "true"})).await,
        "(no output)"
    );
    // Files the shell makes are visible to the file tools at once.
    f.ok(
        "bash",
        json!({"command": "mkdir -p made && printf 'x\\n' > made/by_sh"}),
    )
    .await;
    assert_eq!(f.ok("read", json!({"path": "made/by_sh"})).await, "x");
}

/// With a narrowed exec grant commands run without a shell, so the stream merge is left out
/// and the command still runs, as long as the grant allows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_under_a_narrowed_grant_runs_allowed_commands_as_given() {
    let f = fixture().await;
    let mut spec = core_tools_spec();
    spec.manifest.capabilities.exec = vec!["echo *".into()];
    spec.granted.exec = vec!["echo *".into()];
    let narrowed = LoadedPlugin::load(&f.runtime, spec, &f.host)
        .await
        .expect("core-tools loads");
    let run = |command: &str| {
        narrowed.call_tool(
            call("bash", json!({ "command": command })),
            CancellationToken::new(),
            None,
        )
    };
    let ok = run("echo narrowed").await.expect("bash returns");
    assert!(!ok.is_error, "{}", text(&ok));
    assert_eq!(text(&ok), "narrowed");
    let refused = run("ls -la").await.expect("bash returns");
    assert!(refused.is_error);
    assert!(
        text(&refused).starts_with("The command was not run:"),
        "{}",
        text(&refused)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_streams_progress_and_saves_long_output() {
    let f = fixture().await;
    let events: Arc<Events> = Arc::default();
    let result = f
        .tools()
        .execute(
            tack_core::ToolCall {
                id: "slow".into(),
                name: "bash".into(),
                arguments: json!({"command": "for i in 1 2 3 4; do echo step$i; sleep 0.4; done"}),
            },
            CancellationToken::new(),
            ToolProgress::new("slow".into(), "bash".into(), events.clone()),
        )
        .await
        .expect("bash ran");
    assert!(!result.is_error);
    assert_eq!(core_text(&result.content), "step1\nstep2\nstep3\nstep4");
    let progress = progress(&events);
    assert!(
        progress.len() >= 2,
        "too few progress updates: {progress:?}"
    );
    assert!(progress[0].starts_with("step1"), "{progress:?}");
    assert!(
        progress.windows(2).all(|w| w[1].starts_with(&w[0])),
        "each update extends the last: {progress:?}"
    );

    // 5000 lines: the last 2000 are shown, all of them are saved where read can page them.
    let r = f.call("bash", json!({"command": "seq 1 5000"})).await;
    assert!(!r.is_error, "{}", &text(&r)[..200]);
    let d = details(&r);
    assert_eq!(d["truncated"], true);
    assert_eq!(d["totalLines"], 5000);
    let full = d["fullOutputPath"]
        .as_str()
        .expect("saved output")
        .to_string();
    let out = text(&r);
    assert!(out.starts_with("3001\n3002\n"), "{}", &out[..20]);
    assert!(
        out.ends_with(&format!(
            "5000\n\n[Showing the last 2000 of 5000 lines (23.3 KB in all). Full output: {full} (page through it with read, using offset and limit).]"
        )),
        "{}",
        &out[out.len() - 250..]
    );
    let expected: String = (1..=5000).map(|i| format!("{i}\n")).collect();
    assert_eq!(
        std::fs::read_to_string(&full).expect("full output on disk"),
        expected
    );
    assert_eq!(
        f.ok("read", json!({"path": full, "offset": 4999})).await,
        "4999\n5000"
    );
    // Saved outputs are readable, not writable.
    let w = f.err("write", json!({"path": full, "content": "x"})).await;
    assert!(w.contains("outside the workspace"), "{w}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_timeout_kills_the_whole_process_group() {
    let f = fixture().await;
    let started = Instant::now();
    let r = f
        .call(
            "bash",
            json!({"command": "echo begun; (sleep 3; touch marker) & sleep 30", "timeout": 1}),
        )
        .await;
    let took = started.elapsed();
    assert!(r.is_error);
    // Well under the 30 s the command asked for, with room for a loaded machine.
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(
        text(&r),
        "begun\n\n[Command timed out after 1 s and was killed. Pass a larger timeout if it needs longer.]"
    );
    let d = details(&r);
    assert_eq!(d["timedOut"], true);
    assert!(d["exitCode"].is_null());
    // The backgrounded subshell would have touched the marker at 3 s.
    tokio::time::sleep(Duration::from_secs(4).saturating_sub(started.elapsed())).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !f.ws.join("marker").exists(),
        "a child of the timed-out command survived"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborting_the_agent_cancels_a_running_command() {
    let f = fixture().await;
    let events: Arc<Events> = Arc::default();
    let cancel = CancellationToken::new();
    let started = Instant::now();
    let run = f.agent(
        vec![
            json!({"tool_calls": [{"id": "long", "name": "bash", "arguments": {
                "command": "(sleep 2; touch marker) & echo running; sleep 30"
            }}]}),
            json!({"text": "never reached"}),
        ],
        events.clone(),
        cancel.clone(),
    );
    let abort = async {
        // Abort once the command is visibly running.
        while progress(&events).is_empty() {
            assert!(started.elapsed() < Duration::from_secs(20), "no progress");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
        Instant::now()
    };
    let (outcome, aborted_at) = tokio::join!(run, abort);
    let stop = aborted_at.elapsed();
    // Below the agent's 5 s abort grace, so the command itself stopped rather than being dropped.
    assert!(stop < Duration::from_secs(3), "the abort took {stop:?}");
    assert_eq!(outcome.status, RunStatus::Aborted);
    let results = tool_results(&outcome);
    assert_eq!(results.len(), 1, "{results:?}");
    let (id, is_error, out) = &results[0];
    assert_eq!(id, "long");
    assert!(*is_error);
    assert_eq!(out, "running\n\n[Command cancelled by the user]");
    assert_eq!(progress(&events)[0].trim_end(), "running");

    tokio::time::sleep(Duration::from_millis(2500).saturating_sub(started.elapsed())).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !f.ws.join("marker").exists(),
        "a child of the cancelled command survived"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_an_executor_call_returns_quickly() {
    let f = fixture().await;
    let tools = f.tools();
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        canceller.cancel();
    });
    let started = Instant::now();
    let r = tools
        .execute(
            tack_core::ToolCall {
                id: "c".into(),
                name: "bash".into(),
                arguments: json!({"command": "sleep 30"}),
            },
            cancel,
            ToolProgress::new("c".into(), "bash".into(), Arc::new(Events::default())),
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    match r {
        Ok(result) => {
            assert!(result.is_error);
            assert!(core_text(&result.content).contains("[Command cancelled by the user]"));
            assert_eq!(result.details.expect("details")["cancelled"], true);
        }
        Err(e) => assert_eq!(e, ToolError::Cancelled),
    }
}

// ---- argument validation --------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_refused_before_the_tool_runs() {
    let f = fixture().await;
    let events: Arc<Events> = Arc::default();
    let outcome = f
        .agent(
            vec![
                json!({"tool_calls": [
                    {"id": "a", "name": "read", "arguments": {"path": 5}},
                    {"id": "b", "name": "read", "arguments": {}},
                    {"id": "c", "name": "grep", "arguments": {"pattern": "x", "context": 99}},
                    {"id": "d", "name": "write", "arguments": {"path": "w.txt", "content": "y", "mode": "0755"}},
                    {"id": "e", "name": "bash", "arguments": {"command": "touch ran", "timeout": 0}},
                    {"id": "f", "name": "edit", "arguments": {"path": "w.txt", "edits": []}},
                    {"id": "g", "name": "ls", "arguments": {"limit": 0}},
                ]}),
                json!({"text": "done"}),
            ],
            events,
            CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed);
    let results = tool_results(&outcome);
    let expected = [
        ("a", "read"),
        ("b", "read"),
        ("c", "grep"),
        ("d", "write"),
        ("e", "bash"),
        ("f", "edit"),
        ("g", "ls"),
    ];
    assert_eq!(results.len(), expected.len());
    for ((id, is_error, out), (want_id, tool)) in results.iter().zip(expected) {
        assert_eq!(id, want_id);
        assert!(*is_error, "{id}: {out}");
        assert!(
            out.starts_with(&format!("Invalid arguments for tool `{tool}`:")),
            "{id}: {out}"
        );
    }
    assert!(!f.ws.join("w.txt").exists() && !f.ws.join("ran").exists());
}
