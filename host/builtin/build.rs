//! Builds tack's guest components (first-party plugins, examples and test plugins) for
//! wasm32-wasip2 with a nested cargo in a separate target dir, the way wasmtime builds its test
//! programs, so a plain `cargo build` / `cargo test` at the root produces everything.

#![allow(clippy::expect_used)] // A build script reports failure by panicking.

use std::path::{Path, PathBuf};
use std::process::Command;

/// (cargo package, artifact stem, env name).
const GUESTS: &[(&str, &str, &str)] = &[
    ("provider-demo", "provider_demo", "PROVIDER_DEMO"),
    (
        "provider-anthropic",
        "provider_anthropic",
        "PROVIDER_ANTHROPIC",
    ),
    ("provider-openai", "provider_openai", "PROVIDER_OPENAI"),
    (
        "provider-openai-responses",
        "provider_openai_responses",
        "PROVIDER_OPENAI_RESPONSES",
    ),
    ("provider-google", "provider_google", "PROVIDER_GOOGLE"),
    ("core-tools", "core_tools", "CORE_TOOLS"),
    ("plan-mode", "plan_mode", "PLAN_MODE"),
    ("protected-paths", "protected_paths", "PROTECTED_PATHS"),
    ("permission-gate", "permission_gate", "PERMISSION_GATE"),
    ("todo", "todo", "TODO"),
    ("skills", "skills", "SKILLS"),
    ("prompt-templates", "prompt_templates", "PROMPT_TEMPLATES"),
    ("subagents", "subagents", "SUBAGENTS"),
    ("hooks", "hooks", "HOOKS"),
    ("hello-rust", "hello_rust", "HELLO_RUST"),
    ("tack-test-hostile", "tack_test_hostile", "TEST_HOSTILE"),
    (
        "tack-test-scripted-provider",
        "tack_test_scripted_provider",
        "TEST_SCRIPTED_PROVIDER",
    ),
    (
        "tack-test-future-api",
        "tack_test_future_api",
        "TEST_FUTURE_API",
    ),
    ("tack-test-hooks", "tack_test_hooks", "TEST_HOOKS"),
    (
        "tack-test-compact-hook",
        "tack_test_compact_hook",
        "TEST_COMPACT_HOOK",
    ),
];

/// The guests embedded in tack as built-in plugins (`BUILTINS` in lib.rs); the rest are examples
/// and test plugins.
const EMBEDDED: &[&str] = &[
    "provider-demo",
    "provider-anthropic",
    "provider-openai",
    "provider-openai-responses",
    "provider-google",
    "core-tools",
    "plan-mode",
    "protected-paths",
    "hooks",
    "permission-gate",
    "todo",
    "skills",
    "prompt-templates",
    "subagents",
];

const TARGET: &str = tack_preflight::WASM_TARGET;
const PROFILE: &str = "guest";

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let root = manifest_dir
        .parent()
        .and_then(Path::parent)
        .expect("host/builtin lives two levels below the workspace root")
        .to_path_buf();
    for watched in [
        "wit",
        "sdk/rust",
        "plugins",
        "examples",
        "host/test-plugins",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    for var in [
        "TACK_GUEST_TARGET_DIR",
        "TACK_GUEST_CARGO",
        "TACK_GUEST_BUILD_STD",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    // Fallback for machines where rustup cannot download the wasm target: Debian's rustc-web
    // toolchain builds std for wasm32-wasip2 itself (see TOOLCHAINS.md and .ci/run). Otherwise
    // tack-preflight's build script (a build-dependency, so it ran first) saw to the target.
    let build_std = std::env::var_os("TACK_GUEST_BUILD_STD").is_some();

    let target_dir = std::env::var_os("TACK_GUEST_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target").join("guests"));
    let cargo = std::env::var("TACK_GUEST_CARGO")
        .or_else(|_| std::env::var("CARGO"))
        .unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .arg("--target")
        .arg(TARGET)
        .arg("--profile")
        .arg(PROFILE)
        .arg("--target-dir")
        .arg(&target_dir);
    for (package, _, _) in GUESTS {
        cmd.arg("-p").arg(package);
    }
    // The outer build's flags and wrappers (clippy's driver, host RUSTFLAGS, coverage) are for the
    // host target; guests get a clean environment. The jobserver (CARGO_MAKEFLAGS) is kept, so the
    // nested build shares the outer build's CPU budget instead of oversubscribing it.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_LLVM_COV",
        "LLVM_PROFILE_FILE",
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
            .env_remove("RUSTC")
            .env_remove("RUSTDOC");
    }
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo for the guest build: {e}"));
    if !status.success() {
        panic!("building the guest plugins for {TARGET} failed (see the cargo output above)");
    }

    let out_dir = PathBuf::from(env("OUT_DIR"));
    // For dependents' build scripts (`links`): tack's precompiles the embedded ones.
    println!("cargo:out_dir={}", out_dir.display());
    let embedded: Vec<String> = EMBEDDED
        .iter()
        .map(|package| {
            let (_, stem, _) = GUESTS
                .iter()
                .find(|(p, _, _)| p == package)
                .expect("every embedded plugin is a guest");
            format!("{package}:{stem}")
        })
        .collect();
    println!("cargo:embedded={}", embedded.join(","));
    for (package, stem, env_name) in GUESTS {
        let built = target_dir
            .join(TARGET)
            .join(PROFILE)
            .join(format!("{stem}.wasm"));
        let dest = out_dir.join(format!("{stem}.wasm"));
        std::fs::copy(&built, &dest).unwrap_or_else(|e| {
            panic!(
                "guest {package} built but {} is missing: {e}",
                built.display()
            )
        });
        println!("cargo:rustc-env=TACK_GUEST_{env_name}={}", dest.display());
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo did not set {name}"))
}
