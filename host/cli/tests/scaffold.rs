//! `tack plugin new --lang rust|js|python|c`: every scaffold has its files, builds with its
//! language's toolchain (Rust always; the others when installed, and always under
//! `TACK_REQUIRE_SDKS=1`), installs with `tack install`, which compiles it into the component
//! cache, and answers its example command.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

use tack_sdk_examples::{BuildError, Toolchains};
use tack_test_support::tack;

const LANGS: &[(&str, &[&str])] = &[
    ("rust", &["Cargo.toml", "src/lib.rs", "build.sh"]),
    (
        "js",
        &[
            "package.json",
            "src/plugin.js",
            "src/tack.js",
            "build.js",
            "build.sh",
            "wit/worlds.wit",
        ],
    ),
    (
        "python",
        &[
            "src/app.py",
            "src/tack_plugin/__init__.py",
            "src/guest.py",
            "requirements.txt",
            "build.sh",
            "wit/worlds.wit",
        ],
    ),
    (
        "c",
        &[
            "src/plugin.c",
            "src/tack_helpers.c",
            "src/tack_defaults.c",
            "include/tack.h",
            "build.sh",
            "wit/types.wit",
        ],
    ),
];

#[test]
fn scaffolds_build_install_precompiled_and_run() {
    let scratch = tempfile::tempdir().expect("scratch");
    let home = tempfile::tempdir().expect("home");
    // A cache of its own, so the test sees what install puts there.
    let cache = tempfile::tempdir().expect("cache");
    let toolchains = Toolchains::locate();
    let required = tack_sdk_examples::sdks_required();

    for (lang, files) in LANGS {
        let name = format!("my-{lang}");
        let dir = scratch.path().join(&name);
        let out = tack(
            home.path(),
            cache.path(),
            scratch.path(),
            &[
                "plugin",
                "new",
                "--lang",
                lang,
                &name,
                "--dir",
                dir.to_str().expect("utf8"),
            ],
        );
        assert!(out.status.success(), "{lang}: {}", text(&out));
        for file in *files {
            assert!(dir.join(file).is_file(), "{lang}: {file} missing");
        }
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(dir.join("tack.toml")).expect("tack.toml"))
                .expect("tack.toml parses");
        assert_eq!(manifest["plugin"]["name"].as_str(), Some(name.as_str()));

        let component = dir.join(format!("{name}.wasm"));
        match build(lang, &dir, &component, &toolchains) {
            Ok(()) => {}
            Err(e @ BuildError::Missing { .. }) if !required => {
                // Straight to stderr: the test harness captures eprintln! of passing tests.
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED building the {lang} scaffold: {e}"
                );
                continue;
            }
            Err(e) => panic!("{e}"),
        }

        let before = cached_components(cache.path());
        let out = tack(
            home.path(),
            cache.path(),
            scratch.path(),
            &["install", dir.to_str().expect("utf8")],
        );
        assert!(out.status.success(), "{lang}: install: {}", text(&out));
        assert_eq!(
            cached_components(cache.path()),
            before + 1,
            "{lang}: install compiled the component into the cache"
        );

        let command = format!("/{} Bob", name.replace('-', "_"));
        let out = tack(
            home.path(),
            cache.path(),
            scratch.path(),
            &["--no-session", "-p", &command],
        );
        assert!(out.status.success(), "{lang}: {}", text(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            format!("Hello, Bob, from {name}!")
        );
    }
}

#[test]
fn a_bad_name_or_an_existing_folder_is_refused() {
    let scratch = tempfile::tempdir().expect("scratch");
    let home = tempfile::tempdir().expect("home");
    let cache = tempfile::tempdir().expect("cache");
    let out = tack(
        home.path(),
        cache.path(),
        scratch.path(),
        &["plugin", "new", "--lang", "js", "Bad Name"],
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("invalid plugin name"), "{}", text(&out));
    std::fs::create_dir(scratch.path().join("taken")).expect("dir");
    let out = tack(
        home.path(),
        cache.path(),
        scratch.path(),
        &["plugin", "new", "--lang", "c", "taken"],
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("already exists"), "{}", text(&out));
}

/// Builds a scaffold the way its build.sh does.
fn build(lang: &str, dir: &Path, out: &Path, toolchains: &Toolchains) -> Result<(), BuildError> {
    let failed = |message: String| BuildError::Failed {
        lang: "scaffold",
        message,
    };
    let run = |cmd: &mut Command| -> Result<(), BuildError> {
        let output = cmd.output().map_err(|e| failed(e.to_string()))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(failed(text(&output)))
        }
    };
    match lang {
        "rust" => {
            // Same dependency versions as the workspace (and no index lookups): its lockfile.
            let root = tack_sdk_examples::repo_root();
            std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))
                .map_err(|e| failed(e.to_string()))?;
            let target = tack_sdk_examples::target_dir().join("scaffold-guests");
            run(&mut rust_build(dir, &target))?;
            let crate_name = dir
                .file_name()
                .map(|n| n.to_string_lossy().replace('-', "_"))
                .unwrap_or_default();
            std::fs::copy(
                target
                    .join("wasm32-wasip2/release")
                    .join(format!("{crate_name}.wasm")),
                out,
            )
            .map(|_| ())
            .map_err(|e| failed(e.to_string()))
        }
        "js" => {
            let node = toolchains.node()?;
            // The SDK's build.js is the scaffold's build.js; run from the SDK, its imports resolve
            // to sdk/js/node_modules instead of needing an `npm install` in the scaffold.
            run(Command::new(node)
                .arg(toolchains.js_sdk.join("bin/build.js"))
                .arg(dir)
                .arg(out))
        }
        "python" => run(Command::new(dir.join("build.sh"))
            .env("COMPONENTIZE_PY", toolchains.componentize_py()?)),
        "c" => tack_sdk_examples::build_c_package(toolchains, dir, out),
        other => Err(failed(format!("no such language {other}"))),
    }
}

/// `cargo build --release --target wasm32-wasip2`, or, where .ci/run fell back to Debian's
/// rustc-web, the same build with std built from source (see host/builtin/build.rs).
fn rust_build(dir: &Path, target: &Path) -> Command {
    let build_std = std::env::var_os("TACK_GUEST_BUILD_STD").is_some();
    let cargo = std::env::var("TACK_GUEST_CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--release", "--target", "wasm32-wasip2"])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target);
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "CARGO_BUILD_TARGET",
    ] {
        cmd.env_remove(var);
    }
    if build_std {
        cmd.arg("-Zbuild-std=std,panic_abort")
            .env("RUSTC_BOOTSTRAP", "1")
            .env(
                "RUSTFLAGS",
                "-C link-self-contained=no -L native=/usr/lib/wasm32-wasi",
            )
            .env_remove("RUSTC");
    }
    cmd
}

fn cached_components(cache: &Path) -> usize {
    std::fs::read_dir(cache)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
                .count()
        })
        .unwrap_or(0)
}

fn tack(home: &Path, cache: &Path, cwd: &Path, args: &[&str]) -> Output {
    tack!()
        .with_cache(cache)
        .command(home, cwd)
        .args(args)
        .output()
        .expect("tack runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
