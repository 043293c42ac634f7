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

/// Built-in plugins in load order. Providers come first so that tools and hooks can rely on the
/// model list being known.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "provider-demo",
        manifest: include_str!("../../../plugins/provider-demo/tack.toml"),
        wasm: include_bytes!(env!("TACK_GUEST_PROVIDER_DEMO")),
    },
    Builtin {
        name: "core-tools",
        manifest: include_str!("../../../plugins/core-tools/tack.toml"),
        wasm: include_bytes!(env!("TACK_GUEST_CORE_TOOLS")),
    },
];

pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Components built for examples and tests; not embedded.
pub mod artifacts {
    pub const HELLO_RUST: &str = env!("TACK_GUEST_HELLO_RUST");
    pub const HELLO_RUST_MANIFEST: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/hello-rust/tack.toml"
    );
    pub const TEST_HOSTILE: &str = env!("TACK_GUEST_TEST_HOSTILE");
    pub const TEST_SCRIPTED_PROVIDER: &str = env!("TACK_GUEST_TEST_SCRIPTED_PROVIDER");
    pub const TEST_FUTURE_API: &str = env!("TACK_GUEST_TEST_FUTURE_API");
    pub const PROVIDER_DEMO: &str = env!("TACK_GUEST_PROVIDER_DEMO");
    pub const CORE_TOOLS: &str = env!("TACK_GUEST_CORE_TOOLS");
}
