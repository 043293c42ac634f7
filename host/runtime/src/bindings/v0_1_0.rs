//! `tack:plugin@0.1.0`, released: the WIT in `wit/plugin/v0.1.0/` is frozen (see
//! `host/runtime/tests/wit_frozen.rs`), so these bindings never change either.

/// The package version these bindings speak.
pub const VERSION: &str = "0.1.0";

wasmtime::component::bindgen!({
    path: "../../wit/plugin/v0.1.0",
    world: "plugin",
    imports: { default: async | trappable },
    exports: { default: async },
    with: {
        "tack:plugin/exec.process": crate::broker::exec::ProcessHandle,
    },
});

/// The optional extensions (`tasks`, `files`, `project`, `task-runner`), bound apart from
/// `plugin` so a component that does not export `task-runner` still matches that world.
pub mod extensions {
    wasmtime::component::bindgen!({
        path: "../../wit/plugin/v0.1.0",
        world: "extensions",
        imports: { default: async | trappable },
        exports: { default: async },
    });
}
