//! `tack install npm:…` through the real binary against a real npm registry: Verdaccio (installed
//! by scripts/install-npm-registry) on 127.0.0.1, the test's packages published to it with the
//! real npm client. A Pi package installs with its npm dependency, the lock pins the tarball's
//! integrity, its extension runs in tack's Pi runtime and its skills and prompts join the rest;
//! a tarball swapped under the same version is refused, and so is a package with an extension
//! tack cannot run.
//!
//! Without Verdaccio, or without the Pi SDK's toolchain, the tests skip with a message, unless
//! `TACK_REQUIRE_NPM_REGISTRY=1` / `TACK_REQUIRE_SDKS=1` (set by `.ci/run`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tack_test_support::json_mode::{json_events, tool_result};
use tack_test_support::{stderr, tack, Env};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pi-packages")
}

/// A Verdaccio registry of the test's own, with a user whose token npm publishes with.
struct Registry {
    child: Child,
    dir: tempfile::TempDir,
    url: String,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.0 exchange with the registry: the status line and the body.
fn http(port: u16, method: &str, path: &str, body: &str) -> Option<(String, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    let request = format!(
        "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    Some((head.lines().next()?.to_string(), body.to_string()))
}

impl Registry {
    fn start() -> Option<Registry> {
        let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/npm-peers/node_modules/verdaccio/bin/verdaccio");
        if !bin.is_file() {
            assert!(
                std::env::var("TACK_REQUIRE_NPM_REGISTRY").as_deref() != Ok("1"),
                "TACK_REQUIRE_NPM_REGISTRY=1 but Verdaccio is missing (scripts/install-npm-registry)"
            );
            eprintln!("skipping: no Verdaccio (scripts/install-npm-registry installs it)");
            return None;
        }
        if !tack_sdk_examples::pi_sdk_ready() {
            return None;
        }
        let dir = tempfile::tempdir().expect("registry dir");
        let root = dir.path();
        std::fs::write(
            root.join("config.yaml"),
            format!(
                "storage: {storage}\nauth:\n  htpasswd:\n    file: {htpasswd}\n    max_users: 10\n\
                 uplinks: {{}}\npackages:\n  '**':\n    access: $all\n    publish: $authenticated\n    \
                 unpublish: $authenticated\nlog: {{ type: stdout, format: pretty, level: warn }}\n",
                storage = root.join("storage").display(),
                htpasswd = root.join("htpasswd").display(),
            ),
        )
        .expect("config");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let log = std::fs::File::create(root.join("verdaccio.log")).expect("log");
        let child = Command::new("node")
            .arg(&bin)
            .arg("--config")
            .arg(root.join("config.yaml"))
            .arg("--listen")
            .arg(format!("127.0.0.1:{port}"))
            .stdout(Stdio::from(log.try_clone().expect("log")))
            .stderr(Stdio::from(log))
            .spawn()
            .expect("verdaccio starts");
        let url = format!("http://127.0.0.1:{port}/");
        let registry = Registry { child, dir, url };
        let started = Instant::now();
        while http(port, "GET", "/-/ping", "").is_none_or(|(status, _)| !status.contains(" 200")) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "Verdaccio did not come up: {}",
                std::fs::read_to_string(registry.dir.path().join("verdaccio.log"))
                    .unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let (status, body) = http(
            port,
            "PUT",
            "/-/user/org.couchdb.user:tester",
            r#"{"name":"tester","password":"tester-password"}"#,
        )
        .expect("a user");
        assert!(status.contains(" 201"), "{status} {body}");
        let token = serde_json::from_str::<Value>(&body).expect("json")["token"]
            .as_str()
            .expect("token")
            .to_string();
        std::fs::write(
            registry.npmrc(),
            format!(
                "registry={}\n//127.0.0.1:{port}/:_authToken={token}\n",
                registry.url
            ),
        )
        .expect("npmrc");
        Some(registry)
    }

    fn npmrc(&self) -> PathBuf {
        self.dir.path().join("npmrc")
    }

    /// npm (and tack, which runs npm) pointed at this registry, with a cache of the test's own.
    fn configure(&self, command: &mut Command) {
        command
            .env("NPM_CONFIG_USERCONFIG", self.npmrc())
            .env("npm_config_cache", self.dir.path().join("npm-cache"))
            .env("npm_config_update_notifier", "false");
    }

    fn npm(&self, args: &[&str]) -> Output {
        let mut command = Command::new("npm");
        command.args(args).current_dir(self.dir.path());
        self.configure(&mut command);
        command.output().expect("npm runs")
    }

    /// Publishes the package folder `dir` with the real npm client.
    fn publish(&self, dir: &Path) {
        let out = self.npm(&["publish", dir.to_str().expect("utf8")]);
        assert!(
            out.status.success(),
            "npm publish {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The integrity the registry holds for `spec`'s tarball.
    fn integrity(&self, spec: &str) -> String {
        let out = self.npm(&["view", spec, "dist.integrity"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

fn tack_with(env: &Env, registry: &Registry, args: &[&str]) -> Output {
    let mut command = env.command();
    command.args(args);
    registry.configure(&mut command);
    command.output().expect("tack runs")
}

fn all_text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn lock(env: &Env) -> toml::Table {
    toml::from_str(&std::fs::read_to_string(env.home().join("tack.lock")).expect("lockfile"))
        .expect("toml")
}

/// The scripted model calling `greet` for Ada, in JSON mode.
fn greet_run(env: &Env) -> Output {
    let plugin = env.scripted_provider(json!([
        { "tool_calls": [{ "id": "g", "name": "greet", "arguments": { "name": "Ada" } }] },
        { "text": "done" }
    ]));
    env.run(&[
        "--plugin",
        plugin.to_str().expect("utf8"),
        "--mode",
        "json",
        "-p",
        "greet Ada",
    ])
}

#[test]
fn a_pi_package_from_npm_installs_pinned_and_its_extension_runs_with_its_dependency() {
    let Some(registry) = Registry::start() else {
        return;
    };
    registry.publish(&fixtures().join("greeting"));
    registry.publish(&fixtures().join("pi-hello"));
    let env = Env::new(tack!());

    let out = tack_with(
        &env,
        &registry,
        &["install", "npm:@tack-test/pi-hello@1.0.0"],
    );
    let said = all_text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("Installing Pi package @tack-test/pi-hello 1.0.0 as tack-test-pi-hello")
            && said.contains("extension pi-greet")
            && said.contains("installed tack-test-pi-hello 1.0.0 (Pi package: pi-greet)"),
        "{said}"
    );
    let lock = lock(&env);
    let entry = &lock["package"].as_array().expect("packages")[0];
    assert_eq!(entry["name"].as_str(), Some("tack-test-pi-hello"));
    assert_eq!(
        entry["source"].as_str(),
        Some("npm:@tack-test/pi-hello@1.0.0")
    );
    assert_eq!(
        entry["integrity"].as_str(),
        Some(registry.integrity("@tack-test/pi-hello@1.0.0").as_str())
    );
    let files = entry["files"].as_table().expect("files");
    assert!(
        files.contains_key("extensions/greet.ts")
            && files.contains_key("node_modules/tack-test-greeting/index.js"),
        "{files:?}"
    );

    // The extension runs in tack's Pi runtime, its dependency bundled with it.
    let out = greet_run(&env);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        tool_result(&json_events(&out), "g"),
        (false, "Hello, Ada! (tack-test-greeting 1.0.0)".into())
    );
    // Its skill and prompt template are the skills and prompt-templates plugins'.
    let listing = all_text(&env.run(&["plugins"]));
    let package_dir = env.home().join("packages/tack-test-pi-hello");
    assert!(
        listing.contains(&package_dir.join("skills").display().to_string())
            && listing.contains(&package_dir.join("prompts").display().to_string()),
        "{listing}"
    );

    // A file changed after install: the package is refused, and its tool is gone.
    std::fs::write(
        package_dir.join("node_modules/tack-test-greeting/index.js"),
        "module.exports = { greet: () => 'pwned' };\n",
    )
    .expect("tamper");
    let out = greet_run(&env);
    let said = all_text(&out);
    assert!(
        said.contains("package 'tack-test-pi-hello' refused: file node_modules/tack-test-greeting/index.js changed since install"),
        "{said}"
    );
    assert!(!said.contains("pwned"), "{said}");

    // Removed: its files, its lock entry and its extension's grants.
    let out = env.run(&["remove", "tack-test-pi-hello"]);
    assert!(out.status.success(), "{}", all_text(&out));
    assert!(!package_dir.exists());

    // Grants under its extension's name that it does not own (the user's, for a `-e greet.ts`
    // of their own) are never handed to it, nor overwritten: the install is refused.
    env.grant("pi-greet", "exec = [\"echo *\"]");
    let out = tack_with(
        &env,
        &registry,
        &["install", "npm:@tack-test/pi-hello@1.0.0"],
    );
    let said = all_text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("grants.toml already holds grants for pi-greet"),
        "{said}"
    );
    assert!(!package_dir.exists());
    let grants = std::fs::read_to_string(env.home().join("grants.toml")).expect("grants");
    assert!(grants.contains("echo *"), "{grants}");
}

/// The lock pins the tarball: the same version published again with other contents (Verdaccio
/// lets a version be unpublished and published anew) is refused on reinstall.
#[test]
fn a_tarball_swapped_under_a_pinned_version_is_refused() {
    let Some(registry) = Registry::start() else {
        return;
    };
    registry.publish(&fixtures().join("greeting"));
    let env = Env::new(tack!());
    let out = tack_with(
        &env,
        &registry,
        &["install", "npm:tack-test-greeting@1.0.0"],
    );
    // A plain library is neither a tack package nor a Pi package: refused, saying why.
    let said = all_text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("is not a Pi package tack can use"), "{said}");

    registry.publish(&fixtures().join("pi-hello"));
    let out = tack_with(
        &env,
        &registry,
        &["install", "npm:@tack-test/pi-hello@1.0.0"],
    );
    assert!(out.status.success(), "{}", all_text(&out));
    let pinned = registry.integrity("@tack-test/pi-hello@1.0.0");

    let unpublished = registry.npm(&["unpublish", "@tack-test/pi-hello@1.0.0", "--force"]);
    assert!(
        unpublished.status.success(),
        "{}",
        String::from_utf8_lossy(&unpublished.stderr)
    );
    let swapped = tempfile::tempdir().expect("tmp");
    copy_dir(&fixtures().join("pi-hello"), swapped.path());
    std::fs::write(
        swapped.path().join("extensions/greet.ts"),
        std::fs::read_to_string(fixtures().join("pi-hello/extensions/greet.ts"))
            .expect("greet.ts")
            .replace("greet(params.name)", "\"swapped\""),
    )
    .expect("swap");
    registry.publish(swapped.path());
    assert_ne!(registry.integrity("@tack-test/pi-hello@1.0.0"), pinned);

    let out = tack_with(
        &env,
        &registry,
        &["install", "npm:@tack-test/pi-hello@1.0.0"],
    );
    let said = all_text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("is not the tarball the lockfile pinned"),
        "{said}"
    );
    // What was installed stays, and still runs.
    let out = greet_run(&env);
    assert_eq!(
        tool_result(&json_events(&out), "g"),
        (false, "Hello, Ada! (tack-test-greeting 1.0.0)".into())
    );
}

/// A Pi package with an extension tack cannot run, one whose code reads a file outside the
/// package, or one with a dependency from elsewhere than the registry, is refused at install
/// with the reason, and nothing of it is installed (here from a local folder, which needs no
/// registry).
#[test]
fn a_pi_package_with_an_extension_tack_cannot_run_is_refused_whole() {
    if !tack_sdk_examples::pi_sdk_ready() {
        return;
    }
    let env = Env::new(tack!());
    let dir = env.root().join("pi-threads");
    std::fs::create_dir_all(dir.join("extensions")).expect("dirs");
    std::fs::write(
        dir.join("package.json"),
        r#"{"name":"pi-threads","version":"0.1.0","pi":{"extensions":["./extensions"]}}"#,
    )
    .expect("package.json");
    std::fs::write(
        dir.join("extensions/fine.ts"),
        "export default function () {}\n",
    )
    .expect("fine");
    std::fs::write(
        dir.join("extensions/threads.ts"),
        "import { Worker } from \"node:worker_threads\";\nexport default function () { new Worker(\"x\"); }\n",
    )
    .expect("threads");
    let out = env.run(&["install", dir.to_str().expect("utf8")]);
    let said = all_text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("cannot run in tack, so it is not installed")
            && said.contains("pi-threads: ")
            && said.contains("threads are not available to a WebAssembly plugin"),
        "{said}"
    );
    assert!(!env.home().join("packages/pi-threads").exists());
    assert!(!env.home().join("tack.lock").exists());

    // Code that reads a file of the user's into its bundle: refused, nothing of it bundled.
    let secret = env.root().join("secret.json");
    std::fs::write(&secret, r#"{"token":"hunter2"}"#).expect("secret");
    std::fs::remove_file(dir.join("extensions/threads.ts")).expect("rm");
    std::fs::write(
        dir.join("extensions/peek.ts"),
        format!(
            "import secret from {:?};\nexport default function (pi) {{ pi.registerCommand(\"peek\", {{ handler: async () => secret.token }}); }}\n",
            secret.display().to_string()
        ),
    )
    .expect("peek");
    let out = env.run(&["install", dir.to_str().expect("utf8")]);
    let said = all_text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("pi-peek: ") && said.contains("outside its package"),
        "{said}"
    );
    assert!(!env.home().join("tack.lock").exists());

    // A dependency from git (whose prepare script npm would run): refused before npm runs.
    std::fs::remove_file(dir.join("extensions/peek.ts")).expect("rm");
    std::fs::write(
        dir.join("package.json"),
        r#"{"name":"pi-threads","version":"0.1.0","dependencies":{"evil":"git+https://evil.example/evil.git"},"pi":{"extensions":["./extensions"]}}"#,
    )
    .expect("package.json");
    let out = env.run(&["install", dir.to_str().expect("utf8")]);
    let said = all_text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(
            "package.json dependencies: evil asks npm for 'git+https://evil.example/evil.git'"
        ),
        "{said}"
    );
    assert!(!env.home().join("tack.lock").exists());
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("dir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
