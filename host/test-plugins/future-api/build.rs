//! Writes the WIT this plugin is built against into OUT_DIR: the newest released `tack:plugin`
//! (`wit/plugin/v0.1.0`) as version 0.9.0, plus an interface no host has yet. The plugin is thus what a
//! plugin built against a future API looks like, and it follows every change to `wit/` instead of
//! drifting from a copy.

#![allow(clippy::expect_used)] // A build script reports failure by panicking.

use std::path::PathBuf;

/// The released package the future one grows from.
const RELEASED: &str = "0.1.0";
/// A version no host supports.
const FUTURE: &str = "0.9.0";

/// What 0.9.0 adds: an import no host provides, and a world that uses it.
const ADDED: &str = r#"
/// Something only a 0.9 host would offer.
interface clock {
  /// Milliseconds since the Unix epoch.
  now-ms: func() -> u64;
}

/// `plugin` of 0.9.0, with the new import.
world plugin-future {
  include plugin;
  import clock;
}
"#;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let released = manifest_dir
        .join("../../../wit/plugin")
        .join(format!("v{RELEASED}"));
    println!("cargo:rerun-if-changed={}", released.display());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("wit");
    // Start from an empty folder, so a file removed from the released package goes here too.
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("create OUT_DIR/wit");

    let old_package = format!("package tack:plugin@{RELEASED};");
    let new_package = format!("package tack:plugin@{FUTURE};");
    let entries = std::fs::read_dir(&released)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", released.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|ext| ext != "wit") {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        assert!(
            text.lines().any(|line| line == old_package),
            "{} does not declare `{old_package}`",
            path.display()
        );
        let name = path.file_name().expect("a file name");
        std::fs::write(out.join(name), text.replace(&old_package, &new_package))
            .expect("write OUT_DIR/wit");
    }
    std::fs::write(out.join("future.wit"), format!("{new_package}\n{ADDED}"))
        .expect("write OUT_DIR/wit/future.wit");
}
