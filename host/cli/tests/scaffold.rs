//! `tack plugin new --lang rust|js|python|c|zig`, as a plugin author outside the tack checkout does
//! it: each scaffold is created in a temp folder outside the repository and built by its own
//! `build.sh` with a PATH holding only basic shell tools, that language's usual toolchain and
//! `tack` (Rust always; the others when installed, and always under `TACK_REQUIRE_SDKS=1`). Then
//! `tack install .` takes only the package files (not the `.venv`, `node_modules` or `target` the
//! build left), compiles it into the component cache, and its command and tool answer through the
//! real binary.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;
use tack_sdk_examples::{BuildError, Toolchains};
use tack_test_support::{tack, Env};

const LANGS: &[(&str, &[&str])] = &[
    (
        "rust",
        &[
            "Cargo.toml",
            "src/lib.rs",
            "build.sh",
            "README.md",
            "tack-sdk/Cargo.toml",
            "tack-sdk/src/lib.rs",
            "tack-sdk/wit/worlds.wit",
        ],
    ),
    (
        "js",
        &[
            "package.json",
            "src/plugin.js",
            "src/tack.js",
            "build.js",
            "build.sh",
            "README.md",
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
            "README.md",
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
            "README.md",
            "wit/types.wit",
        ],
    ),
    (
        "zig",
        &[
            "src/plugin.zig",
            "src/tack.zig",
            "src/tack_helpers.c",
            "src/tack_defaults.c",
            "include/tack.h",
            "build.sh",
            "README.md",
            "wit/worlds.wit",
        ],
    ),
];

/// Tools every build script may use, whatever the language.
const BASICS: &[&str] = &[
    "sh", "env", "dirname", "basename", "mkdir", "cp", "mv", "rm", "ln", "cat", "ls", "grep",
    "sed", "head", "tail", "tr", "uname", "chmod", "readlink",
];

#[test]
fn scaffolds_build_outside_the_repository_install_and_run() {
    // One cache for the whole test, so it sees what each install adds.
    let cache = tempfile::tempdir().expect("cache");
    let toolchains = Toolchains::locate();
    let required = tack_sdk_examples::sdks_required();
    let repo = tack_sdk_examples::repo_root()
        .canonicalize()
        .expect("repo root");

    for (lang, files) in LANGS {
        let env = Env::new(tack!().with_cache(cache.path()));
        assert!(
            !env.root().starts_with(&repo),
            "the plugin must be built outside the checkout"
        );
        let name = format!("my-{lang}");
        let snake = name.replace('-', "_");
        let dir = env.root().join(&name);
        let out = env.run_in(
            env.root(),
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

        match build(lang, &dir, &toolchains, env.root()) {
            Ok(path) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "built the {lang} scaffold with PATH={path}"
                );
            }
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
        let out = env.run_in(&dir, &["install", "."]);
        assert!(out.status.success(), "{lang}: install: {}", text(&out));
        assert_eq!(
            cached_components(cache.path()),
            before + 1,
            "{lang}: install compiled the component into the cache"
        );
        // The package is what tack.toml names, whatever the build left in the folder.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("Took 3 files, ")
                && stderr.contains(&format!(": tack.toml, {name}.wasm, README.md")),
            "{lang}: {stderr}"
        );
        let mut installed: Vec<String> = std::fs::read_dir(env.home().join("packages").join(&name))
            .expect("installed package")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        installed.sort();
        assert_eq!(
            installed,
            [
                "README.md".to_string(),
                format!("{name}.wasm"),
                "tack.toml".into()
            ],
            "{lang}"
        );

        let command = format!("/{snake} Bob");
        let out = env.run_in(&dir, &["--no-session", "-p", &command]);
        assert!(out.status.success(), "{lang}: {}", text(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            format!("Hello, Bob, from {name}!")
        );

        let tool = format!("{snake}_greet");
        let scripted = env.scripted_provider(json!([
            { "tool_calls": [{ "id": "c1", "name": tool, "arguments": { "name": "Ada" } }] },
            { "text": "done" }
        ]));
        let out = env.run_in(
            &dir,
            &[
                "--plugin",
                scripted.to_str().expect("utf8"),
                "-p",
                "greet Ada",
            ],
        );
        assert!(out.status.success(), "{lang}: {}", text(&out));
        let results: Vec<String> = env
            .session_lines()
            .iter()
            .filter(|e| e["message"]["role"] == "toolResult")
            .map(|e| {
                e["message"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        assert_eq!(results, [format!("Hello, Ada, from {name}!")], "{lang}");
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

/// Runs the scaffold's build.sh with PATH = basic shell tools, the language's toolchain and
/// `tack`, each linked into a folder of its own; returns that PATH.
fn build(
    lang: &str,
    dir: &Path,
    toolchains: &Toolchains,
    scratch: &Path,
) -> Result<String, BuildError> {
    let failed = |message: String| BuildError::Failed {
        lang: "scaffold",
        message,
    };
    let missing = |what: &str, install: &str| BuildError::Missing {
        lang: "scaffold",
        what: what.to_string(),
        install: install.to_string(),
    };
    let bin = |name: &str| scratch.join("path").join(name);
    let basics = bin("basics");
    for tool in BASICS {
        let found = which(tool).ok_or_else(|| failed(format!("no `{tool}` on this machine")))?;
        link(&found, &basics.join(tool));
    }
    let tools = bin(lang);
    let tack_dir = bin("tack");
    link(
        Path::new(env!("CARGO_BIN_EXE_tack")),
        &tack_dir.join("tack"),
    );
    let mut cmd = Command::new(dir.join("build.sh"));
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "CARGO_BUILD_TARGET",
        "RUSTC",
        "CARGO",
        "RUSTUP_TOOLCHAIN",
        "COMPONENTIZE_PY",
        "CC",
        "ZIG",
        "TACK",
    ] {
        cmd.env_remove(var);
    }
    match lang {
        "rust" => {
            if std::env::var_os("TACK_GUEST_BUILD_STD").is_some() {
                // Debian's rustc-web builds std from source: not what a plugin author runs, and
                // not what build.sh does.
                return Err(missing(
                    "rustup's wasm32-wasip2 target",
                    "rustup target add wasm32-wasip2",
                ));
            }
            let cargo = std::env::var("TACK_GUEST_CARGO")
                .ok()
                .map(PathBuf::from)
                .or_else(|| which("cargo"))
                .ok_or_else(|| missing("cargo", "https://rustup.rs"))?;
            // cargo, rustc and rustup; cc, as and ld link the dependencies' build scripts.
            let cargo_bin = cargo.parent().unwrap_or(Path::new("/"));
            for tool in ["cargo", "rustc", "rustup"] {
                if cargo_bin.join(tool).is_file() {
                    link(&cargo_bin.join(tool), &tools.join(tool));
                }
            }
            for tool in ["cc", "as", "ld"] {
                let found = which(tool).ok_or_else(|| missing(tool, "apt-get install gcc"))?;
                link(&found, &tools.join(tool));
            }
            // The workspace's lockfile pins the same crate versions the SDK is tested with; the
            // crates still come from crates.io.
            let root = tack_sdk_examples::repo_root();
            std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))
                .map_err(|e| failed(e.to_string()))?;
            cmd.env(
                "CARGO_TARGET_DIR",
                tack_sdk_examples::target_dir().join("scaffold-guests"),
            );
        }
        "js" => {
            for tool in ["node", "npm"] {
                let found =
                    which(tool).ok_or_else(|| missing(tool, "apt-get install nodejs npm"))?;
                link(&found, &tools.join(tool));
            }
            // The npm cache scripts/install-sdk-toolchains filled: no download twice.
            cmd.env(
                "npm_config_cache",
                toolchains_dir(toolchains).join("npm-cache"),
            )
            .env("npm_config_prefer_offline", "true");
        }
        "python" => {
            let python = real_python()
                .ok_or_else(|| missing("python3", "apt-get install python3 python3-venv"))?;
            link(&python, &tools.join("python3"));
            cmd.env(
                "PIP_CACHE_DIR",
                toolchains_dir(toolchains).join("pip-cache"),
            );
        }
        "c" | "zig" => {
            let zig = zig_binary(toolchains).ok_or_else(|| {
                missing(
                    "zig (the ziglang Python package)",
                    "scripts/install-sdk-toolchains",
                )
            })?;
            link(&zig, &tools.join("zig"));
            cmd.env("ZIG_GLOBAL_CACHE_DIR", toolchains.zig_cache())
                .env("ZIG_LOCAL_CACHE_DIR", toolchains.zig_cache());
        }
        other => return Err(failed(format!("no such language {other}"))),
    }
    std::fs::create_dir_all(&tools).map_err(|e| failed(e.to_string()))?;
    let path = [basics, tools, tack_dir]
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let output = cmd
        .env("PATH", &path)
        .current_dir(dir)
        .output()
        .map_err(|e| failed(format!("cannot run build.sh: {e}")))?;
    if !output.status.success() {
        return Err(failed(format!(
            "{lang} build.sh with PATH={path}: {}",
            text(&output)
        )));
    }
    let component = dir.join(format!(
        "{}.wasm",
        dir.file_name().expect("name").to_string_lossy()
    ));
    if !component.is_file() {
        return Err(failed(format!(
            "{lang} build.sh did not write {}",
            component.display()
        )));
    }
    Ok(path)
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(tool))
            .find(|p| p.is_file())
    })
}

/// The interpreter behind `python3` (pyenv puts a shell script on PATH).
fn real_python() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args(["-c", "import sys, venv; print(sys.executable)"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// zig from the ziglang package in the SDK venv.
fn zig_binary(toolchains: &Toolchains) -> Option<PathBuf> {
    std::fs::read_dir(toolchains.venv.join("lib"))
        .ok()?
        .flatten()
        .map(|e| e.path().join("site-packages/ziglang/zig"))
        .find(|p| p.is_file())
}

/// target/sdk-toolchains, holding the venv and the package caches.
fn toolchains_dir(toolchains: &Toolchains) -> PathBuf {
    toolchains
        .venv
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| tack_sdk_examples::target_dir().join("sdk-toolchains"))
}

fn link(target: &Path, at: &Path) {
    std::fs::create_dir_all(at.parent().expect("parent")).expect("tool dir");
    if !at.exists() {
        std::os::unix::fs::symlink(target, at).expect("link a tool");
    }
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
