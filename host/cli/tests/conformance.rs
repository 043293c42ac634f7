//! One conformance plugin, every SDK language: examples/hello-{rust,js,python,c,zig} run the same
//! scenario through the real `tack` binary and must produce identical results: the `word_count`
//! tool (schema-validated arguments, text + details), the before-tool-call hook blocking a bash
//! command that contains the configured word, the `/hello` command with its counter kept in
//! custom session entries, the log line, and the optional extensions: `count_lines` fans out one
//! task per line through `tasks`, and `file_mode` reads permission bits through `files`, inside
//! its `fs` grant (the workspace) and refused outside it.
//!
//! A language whose toolchain is not installed is skipped with a message naming what to install,
//! unless `TACK_REQUIRE_SDKS=1` (set by .ci/run), where it fails.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use tack_sdk_examples::{BuildError, Lang, Toolchains};
use tack_test_support::{tack, Env};

const BLOCKED_WORD: &str = "xyzzy";
/// Runs of ASCII whitespace, an em dash and non-ASCII letters: words and code points differ from
/// bytes and UTF-16 units, so a language counting the wrong thing shows.
const TEXT: &str = "The quick  brown\tfox\njumps — naïve café ✓ ";
/// Three lines, so three tasks.
const LINES: &str = "one two\nthree\n four  five six ";
/// The workspace file whose mode `file_mode` reads (inside the plugin's `fs` grant).
const INSIDE: &str = "notes.txt";
const INSIDE_MODE: u32 = 0o640;
/// Stands for the test's temp folder in results, which differs between runs.
const ROOT: &str = "<root>";
/// What one language's plugin did, in a form two languages can be compared by.
#[derive(Debug, Clone, PartialEq)]
struct Observed {
    /// The plugin's log line at init.
    log: String,
    /// (text, details, is_error) of each tool result, in call order.
    results: Vec<(String, Value, bool)>,
    /// What two `/hello` commands printed.
    greetings: Vec<String>,
    /// The `data` of every `hello-counter` custom entry, in session order.
    counters: Vec<Value>,
    /// (text, is_error) of `file_mode` on the workspace file in a run without the `fs` grant.
    ungranted: (String, bool),
}

fn expected() -> Observed {
    Observed {
        log: format!("hello: blocking bash commands containing \"{BLOCKED_WORD}\""),
        results: vec![
            (
                "9 words".into(),
                json!({"words": 9, "chars": TEXT.chars().count()}),
                false,
            ),
            ("1 word".into(), json!({"words": 1, "chars": 4}), false),
            (
                "6 words in 3 lines".into(),
                json!({"words": [2, 1, 3], "total": 6}),
                false,
            ),
            (
                format!("{INSIDE_MODE:04o}"),
                json!({"mode": INSIDE_MODE}),
                false,
            ),
            // Outside the grant: the host's refusal, passed on by the plugin.
            (
                format!("'{ROOT}/outside.txt' is outside the directories this plugin may read"),
                Value::Null,
                true,
            ),
            (
                "Invalid arguments for tool `word_count`:\n- at /text: 7 is not of type \"string\""
                    .into(),
                Value::Null,
                true,
            ),
            (
                format!(
                    "Tool call blocked: bash commands containing \"{BLOCKED_WORD}\" are blocked \
                     by the hello plugin"
                ),
                Value::Null,
                true,
            ),
        ],
        greetings: vec![
            "Hello, Ada! (greeting 1 in this session)".into(),
            "Hello, world! (greeting 2 in this session)".into(),
        ],
        counters: vec![json!({"count": 1}), json!({"count": 2})],
        ungranted: (
            format!("'{ROOT}/workspace/{INSIDE}' is outside the directories this plugin may read"),
            true,
        ),
    }
}

#[test]
fn the_example_plugin_behaves_identically_in_every_language() {
    let toolchains = Toolchains::locate();
    let required = tack_sdk_examples::sdks_required();
    let mut observed: Vec<(Lang, Observed)> = Vec::new();
    let mut skipped = Vec::new();
    for lang in Lang::ALL {
        let wasm = match tack_sdk_examples::build(lang, &toolchains) {
            Ok(wasm) => wasm,
            Err(e @ BuildError::Missing { .. }) if !required => {
                skip(&format!("SKIPPED hello-{}: {e}", lang.name()));
                skipped.push(lang);
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        observed.push((lang, observe(lang, &wasm)));
    }
    assert!(
        !observed.is_empty() && observed[0].0 == Lang::Rust,
        "the Rust example always runs"
    );
    let expected = expected();
    for (lang, got) in &observed {
        assert_eq!(
            got,
            &expected,
            "hello-{} differs from the conformance behaviour",
            lang.name()
        );
    }
    if !skipped.is_empty() {
        skip(&format!(
            "conformance ran for {} of {} languages; skipped: {}",
            observed.len(),
            Lang::ALL.len(),
            skipped
                .iter()
                .map(|l| l.name())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
}

/// Straight to stderr: the test harness captures `eprintln!` of passing tests, and a skipped
/// language must be visible.
fn skip(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// Installs nothing globally: the package is passed with `--plugin`, the provider is the
/// scripted test plugin, and everything lives in temp dirs.
fn observe(lang: Lang, wasm: &Path) -> Observed {
    let env = Env::new(tack!())
        .with_var("TACK_LOG", "info")
        .with_var("NO_COLOR", "1");
    let package = package(lang, wasm, env.home());
    let inside = env.write(INSIDE, "for file_mode\n");
    std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(INSIDE_MODE)).expect("chmod");
    let outside = env.root().join("outside.txt");
    std::fs::write(&outside, "outside the grant\n").expect("outside file");
    let path = |p: &Path| p.to_str().expect("utf8").to_string();
    let scripted = env.package(
        "scripted",
        tack_builtin::artifacts::TEST_SCRIPTED_PROVIDER,
        "",
    );
    let config = json!({
        "provider": "scripted",
        "plugins": {
            "scripted": { "script": [
                { "tool_calls": [
                    { "id": "c1", "name": "word_count", "arguments": { "text": TEXT } },
                    { "id": "c2", "name": "word_count", "arguments": { "text": "solo" } },
                    { "id": "c5", "name": "count_lines", "arguments": { "text": LINES } },
                    { "id": "c6", "name": "file_mode", "arguments": { "path": path(&inside) } },
                    { "id": "c7", "name": "file_mode", "arguments": { "path": path(&outside) } },
                    // Fails the schema: the host refuses it before the plugin sees it.
                    { "id": "c3", "name": "word_count", "arguments": { "text": 7 } },
                    { "id": "c4", "name": "bash",
                      "arguments": { "command": format!("echo {BLOCKED_WORD}") } }
                ] },
                { "text": "done" }
            ] },
            lang.plugin_name(): { "blocked_word": BLOCKED_WORD }
        }
    });
    env.config(config);
    // What the example's tack.toml asks for; `--plugin` gives only what grants.toml grants.
    env.grant(
        &lang.plugin_name(),
        "fs = [{ path = \"$WORKSPACE\", access = \"read\" }]",
    );

    let tack = |args: &[&str]| -> Output {
        let mut all = vec!["--plugin", package.to_str().expect("utf8")];
        all.extend(["--plugin", scripted.to_str().expect("utf8")]);
        all.extend(args);
        env.run(&all)
    };

    let run = tack(&["-p", "count the words"]);
    let stderr = String::from_utf8_lossy(&run.stderr).to_string();
    assert!(
        run.status.success(),
        "hello-{}: tack failed: {stderr}",
        lang.name()
    );
    let log = log_line(&stderr, &lang.plugin_name())
        .unwrap_or_else(|| panic!("hello-{}: no log line in {stderr}", lang.name()));

    let mut greetings = Vec::new();
    for command in ["/hello Ada", "/hello"] {
        let out = tack(&["-c", "-p", command]);
        assert!(
            out.status.success(),
            "hello-{}: {command}: {}",
            lang.name(),
            String::from_utf8_lossy(&out.stderr)
        );
        greetings.push(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }

    let entries = session_entries(&env);
    let results = entries
        .iter()
        .filter(|e| e["message"]["role"] == "toolResult")
        .map(|e| {
            let m = &e["message"];
            let text = m["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .replace(&path(env.root()), ROOT);
            (text, m["details"].clone(), m["isError"] == true)
        })
        .collect();
    let counters = entries
        .iter()
        .filter(|e| e["type"] == "custom" && e["customType"] == "hello-counter")
        .map(|e| e["data"].clone())
        .collect();
    let ungranted = ungranted_file_mode(&env, &package, &path(&inside));
    Observed {
        log,
        results,
        greetings,
        counters,
        ungranted,
    }
}

/// `file_mode` on a workspace file when grants.toml grants the plugin nothing: the tack.toml's
/// `fs` request alone opens no directory, and the host says so.
fn ungranted_file_mode(env: &Env, package: &Path, file: &str) -> (String, bool) {
    std::fs::remove_file(env.home().join("grants.toml")).expect("grants.toml");
    let scripted = env.scripted_provider(json!([
        { "tool_calls": [
            { "id": "u1", "name": "file_mode", "arguments": { "path": file } }
        ] },
        { "text": "done" }
    ]));
    let out = env.run(&[
        "--plugin",
        package.to_str().expect("utf8"),
        "--plugin",
        scripted.to_str().expect("utf8"),
        "--no-session",
        "--mode",
        "json",
        "mode?",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let end = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "tool_execution_end" && e["toolCallId"] == "u1")
        .expect("the file_mode call ended");
    let text = end["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .replace(env.root().to_str().expect("utf8"), ROOT);
    (text, end["isError"] == true)
}

/// A package folder: the example's tack.toml and the built component under the name it names.
fn package(lang: Lang, wasm: &Path, home: &Path) -> PathBuf {
    let dir = home.join(format!("pkg-{}", lang.name()));
    std::fs::create_dir_all(&dir).expect("package dir");
    let manifest =
        std::fs::read_to_string(lang.example_dir().join("tack.toml")).expect("example tack.toml");
    let parsed: toml::Table = toml::from_str(&manifest).expect("tack.toml parses");
    let component = parsed["plugin"]["component"]
        .as_str()
        .expect("tack.toml names its component");
    std::fs::write(dir.join("tack.toml"), &manifest).expect("manifest");
    std::fs::copy(wasm, dir.join(component)).expect("component");
    dir
}

/// The plugin's message from its tagged log line, without the log format around it.
fn log_line(stderr: &str, plugin: &str) -> Option<String> {
    let clean = strip_ansi(stderr);
    clean
        .lines()
        .find(|l| l.contains(plugin) && l.contains("hello: "))
        .and_then(|l| {
            let start = l.find("hello: ")?;
            let message = &l[start..];
            // The field that names the plugin follows the message.
            let end = message.find(" plugin=").unwrap_or(message.len());
            Some(message[..end].trim_end().to_string())
        })
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn session_entries(env: &Env) -> Vec<Value> {
    let files = env.session_files();
    assert_eq!(files.len(), 1, "one session, continued: {files:?}");
    std::fs::read_to_string(&files[0])
        .expect("session file")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
