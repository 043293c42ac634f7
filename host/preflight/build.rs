//! Checks that rustc can build for wasm32-wasip2, and otherwise asks rustup to install what
//! `rust-toolchain.toml` lists. rustup installs a listed target by itself only together with a
//! missing toolchain; a machine whose toolchain is already there (rustup's usual state) needs
//! `rustup toolchain install`, which reads the file.

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
            "cargo:warning=installing the Rust target {TARGET} with `rustup toolchain install`, \
             as rust-toolchain.toml asks (tack's plugins are built for it)"
        );
        // Without RUSTUP_TOOLCHAIN, which the proxy set for this build: it would win over the
        // toolchain file, and the file is what names the target.
        let status = Command::new("rustup")
            .args(["toolchain", "install"])
            .current_dir(&root)
            .env_remove("RUSTUP_TOOLCHAIN")
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
