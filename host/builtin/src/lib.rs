//! The first-party plugins, built from `plugins/` for wasm32-wasip2 by this crate's build script
//! and embedded in the tack binary, plus the paths of example and test components built beside
//! them.

/// A plugin shipped inside tack.
pub struct Builtin {
    pub name: &'static str,
    /// Its `tack.toml`.
    pub manifest: &'static str,
    /// The component.
    pub wasm: &'static [u8],
}

/// A file's bytes as a static in a section of their own, apart from the small constants a run
/// reads. The components are megabytes a warm run never reads (it maps the compiled code from the
/// cache); placed among strings such as the manifests, every one of those reads made the kernel
/// map the pages of component around it as well (file pages are mapped in blocks of up to 64
/// KiB), over 1 MiB in all.
#[macro_export]
macro_rules! embedded {
    ($path:expr) => {{
        #[cfg_attr(target_os = "linux", link_section = ".tack_embedded")]
        static BYTES: [u8; include_bytes!($path).len()] = *include_bytes!($path);
        &BYTES
    }};
}

/// Built-in plugins in load order: the embedded guests of `builtins.toml` (which says why they
/// come in that order), written out by the build script.
pub const BUILTINS: &[Builtin] = include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Where each guest component was built (the embedded ones too, for tests that load them from a
/// file).
pub mod artifacts {
    pub const HELLO_RUST_MANIFEST: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/hello-rust/tack.toml"
    );
    // One path per guest of `builtins.toml`, named by its `env`: `HELLO_RUST`, `TEST_HOSTILE`, ...
    include!(concat!(env!("OUT_DIR"), "/artifacts.rs"));
}
