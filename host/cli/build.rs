//! Precompiles the built-in plugins for the engine configuration tack runs with, so that a first
//! run deserializes them instead of compiling (seconds of CPU). tack-builtin's build script built
//! the components (`links` metadata says where); the artifacts land in OUT_DIR and
//! `precompiled.rs` embeds them. A binary run on a machine whose CPU or wasmtime differs is
//! refused by wasmtime's header check at load, and tack compiles from the embedded component.

#![allow(clippy::expect_used)] // A build script reports failure by panicking.

use std::fmt::Write as _;
use std::path::PathBuf;

use sha2::Digest as _;

// The very configuration the runtime builds its engine from.
#[path = "../runtime/src/engine_config.rs"]
mod engine_config;

fn main() {
    println!("cargo:rerun-if-changed=../runtime/src/engine_config.rs");
    println!("cargo:rerun-if-env-changed=DEP_TACK_GUESTS_OUT_DIR");
    println!("cargo:rerun-if-env-changed=DEP_TACK_GUESTS_EMBEDDED");
    let guests = PathBuf::from(env("DEP_TACK_GUESTS_OUT_DIR"));
    let embedded = env("DEP_TACK_GUESTS_EMBEDDED");
    let out_dir = PathBuf::from(env("OUT_DIR"));
    let engine = wasmtime::Engine::new(&engine_config::engine_config())
        .unwrap_or_else(|e| panic!("cannot create the engine to precompile with: {e:#}"));

    let mut table = String::from(
        "/// Each built-in plugin's name, the SHA-256 of its component, and the component as \
         `Engine::precompile_component` compiled it at build time.\n\
         pub const PRECOMPILED: &[(&str, &str, &[u8])] = &[\n",
    );
    for entry in embedded.split(',').filter(|e| !e.is_empty()) {
        let (name, stem) = entry
            .split_once(':')
            .unwrap_or_else(|| panic!("malformed embedded entry {entry:?}"));
        let wasm_path = guests.join(format!("{stem}.wasm"));
        println!("cargo:rerun-if-changed={}", wasm_path.display());
        let wasm = std::fs::read(&wasm_path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", wasm_path.display()));
        let artifact = engine
            .precompile_component(&wasm)
            .unwrap_or_else(|e| panic!("cannot precompile {name}: {e:#}"));
        let dest = out_dir.join(format!("{stem}.cwasm"));
        std::fs::write(&dest, artifact)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
        let digest = hex::encode(sha2::Sha256::digest(&wasm));
        // In the section of the embedded components, away from the constants a run reads
        // (see `tack_builtin::embedded`).
        writeln!(
            table,
            "    ({name:?}, {digest:?}, tack_builtin::embedded!({:?})),",
            dest.display().to_string()
        )
        .expect("writing to a String");
    }
    table.push_str("];\n");
    std::fs::write(out_dir.join("precompiled.rs"), table).expect("write precompiled.rs");
    embed_scaffold_sources(&out_dir);
    pack_relative_relocations();
}

/// Links the binary with its relative relocations packed (`DT_RELR`). A position-independent
/// tack has some 80,000 of them, and the loader reads every `.rela.dyn` entry at start: 1.9 MB
/// of the file resident in every run, about 5% of a short task's peak RSS, for a table RELR
/// writes in a few KB. GNU ld (2.38+) and lld leave it out when the C library cannot load it
/// (glibc before 2.36), so the binary still runs there.
fn pack_relative_relocations() {
    let target = |key: &str| std::env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Every file `tack plugin new` copies verbatim from the repository, listed here rather than by
/// hand so a WIT file or SDK module added later is shipped too: the newest released WIT package
/// and the Rust SDK's sources (vendored into Rust scaffolds).
fn embed_scaffold_sources(out_dir: &std::path::Path) {
    let root = PathBuf::from(env("CARGO_MANIFEST_DIR")).join("../..");
    let mut code = String::new();
    for (konst, dir, ext) in [
        ("WIT_FILES", "wit/plugin/v0.1.0", "wit"),
        ("PLUGIN_V0_2_WIT_FILES", "wit/plugin/v0.2.0", "wit"),
        ("AGENTS_WIT_FILES", "wit/agents/v0.1.0", "wit"),
        ("PROVIDER_WIT_FILES", "wit/provider/v0.1.0", "wit"),
        ("SDK_RUST_FILES", "sdk/rust/src", "rs"),
    ] {
        let dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|entry| entry.expect("a directory entry").file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .filter(|name| name.ends_with(&format!(".{ext}")))
            .collect();
        names.sort();
        writeln!(code, "pub const {konst}: &[(&str, &str)] = &[").expect("writing to a String");
        for name in names {
            let path = dir
                .join(&name)
                .canonicalize()
                .expect("a listed file exists");
            writeln!(
                code,
                "    ({name:?}, include_str!({:?})),",
                path.display().to_string()
            )
            .expect("writing to a String");
        }
        code.push_str("];\n");
    }
    std::fs::write(out_dir.join("scaffold_sources.rs"), code).expect("write scaffold_sources.rs");
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo did not set {name}"))
}
