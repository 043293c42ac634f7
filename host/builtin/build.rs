//! Builds tack's guest components (first-party plugins, examples and test plugins) for
//! wasm32-wasip2 with a nested cargo in a separate target dir, the way wasmtime builds its test
//! programs, so a plain `cargo build` / `cargo test` at the root produces everything.

#![allow(clippy::expect_used)] // A build script reports failure by panicking.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "table.rs"]
mod table;

const TARGET: &str = tack_preflight::WASM_TARGET;

/// The guest profile (root Cargo.toml): `guest` (small: LTO, one codegen unit) for release
/// builds, which `cargo install` and the benches make; `guest-dev` for the dev profile's
/// builds and tests, which is the same code built in a third of the time.
fn guest_profile() -> &'static str {
    match std::env::var("PROFILE").as_deref() {
        Ok("release") => "guest",
        _ => "guest-dev",
    }
}

/// Whether the examples and test plugins are built too (feature `examples`, which tests and
/// benches turn on through their dev-dependencies). A plain release build of tack, README
/// command 1, needs only what it embeds: the other 19 guests were over a third of its guest
/// build, each one linked with LTO.
fn examples_wanted() -> bool {
    std::env::var_os("CARGO_FEATURE_EXAMPLES").is_some()
}

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
    let table_path = manifest_dir.join("builtins.toml");
    println!("cargo:rerun-if-changed={}", table_path.display());
    let text = std::fs::read_to_string(&table_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", table_path.display()));
    let guests: Vec<table::Guest> = table::parse(&text)
        .unwrap_or_else(|e| panic!("{e}"))
        .guests
        .into_iter()
        .filter(|guest| guest.embedded || examples_wanted())
        .collect();
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
        .arg(guest_profile())
        .arg("--target-dir")
        .arg(&target_dir);
    for guest in &guests {
        cmd.arg("-p").arg(&guest.package);
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
    let embedded: Vec<String> = guests
        .iter()
        .filter(|guest| guest.embedded)
        .map(|guest| format!("{}:{}", guest.package, guest.stem()))
        .collect();
    println!("cargo:embedded={}", embedded.join(","));
    // lib.rs `include!`s the list and the paths: `include_bytes!` and `include_str!` take only
    // literals, so they are written out here.
    let mut builtins = String::from("&[\n");
    let mut artifacts = String::new();
    for guest in &guests {
        let stem = guest.stem();
        let built = target_dir
            .join(TARGET)
            .join(guest_profile())
            .join(format!("{stem}.wasm"));
        let dest = out_dir.join(format!("{stem}.wasm"));
        std::fs::copy(&built, &dest).unwrap_or_else(|e| {
            panic!(
                "guest {} built but {} is missing: {e}",
                guest.package,
                built.display()
            )
        });
        let dest = dest.display().to_string();
        writeln!(artifacts, "pub const {}: &str = {dest:?};", guest.env()).expect("a String");
        if guest.embedded {
            let manifest = root.join(&guest.folder).join("tack.toml");
            println!("cargo:rerun-if-changed={}", manifest.display());
            writeln!(
                builtins,
                "    Builtin {{ name: {:?}, manifest: include_str!({:?}), wasm: embedded!({dest:?}) }},",
                guest.package,
                manifest.display().to_string(),
            )
            .expect("a String");
        }
    }
    builtins.push(']');
    write(&out_dir.join("builtins.rs"), &builtins);
    write(&out_dir.join("artifacts.rs"), &artifacts);
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo did not set {name}"))
}
