//! Checks that rustc can build for wasm32-wasip2, and otherwise asks rustup to add the target to
//! the toolchain running this build. rustup installs a target listed in `rust-toolchain.toml` by
//! itself only together with a missing toolchain; a machine whose toolchain is already there
//! (rustup's usual state) needs telling. `rustup target add` for the running toolchain, never
//! `rustup toolchain install`: the latter also updates a `stable` toolchain that has a newer
//! release, replacing the rustc that the other crates of this very build are being compiled with
//! (seen: "could not execute process rustc (never executed)" halfway through a fresh build).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a build script reports failure.

use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-wasip2";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TACK_GUEST_BUILD_STD");
    // Debian's rustc-web builds std for the target itself (see .ci/run): nothing to install.
    if std::env::var_os("TACK_GUEST_BUILD_STD").is_some() || installed() {
        return;
    }
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("../..");
    if std::env::var_os("RUSTUP_HOME").is_some() || has_rustup() {
        println!(
            "cargo:warning=installing the Rust target {TARGET} with `rustup target add`, \
             as rust-toolchain.toml asks (tack's plugins are built for it)"
        );
        // RUSTUP_TOOLCHAIN, which the proxy set for this build, names the toolchain to add it to.
        let status = Command::new("rustup")
            .args(["target", "add", TARGET])
            .current_dir(&root)
            .status();
        if status.is_ok_and(|s| s.success()) && installed() {
            return;
        }
    }
    panic!(
        "\n\nThe Rust target {TARGET} is not installed, and tack's plugins are built for it.\n\
         rustup could not install it from rust-toolchain.toml. Install it with:\n\n    \
         rustup target add {TARGET}\n\n\
         (Without rustup, .ci/run falls back to Debian's rustc-web; see README.md.)\n"
    );
}

fn has_rustup() -> bool {
    Command::new("rustup")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether the rustc building this has a standard library for the target.
fn installed() -> bool {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    Command::new(&rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|dir| has_std(&dir))
}

fn has_std(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name == "libstd.rlib" || name.starts_with("libstd-")
            })
        })
        .unwrap_or(false)
}
