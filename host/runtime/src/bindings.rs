//! Host bindings for every supported version of the `tack:plugin` WIT package.
//!
//! Only 0.1.0 exists today. When 0.2.0 lands, its bindings go beside these and
//! 0.1.x plugins are adapted to the newest shape, as Zed's extension host does.

/// The WIT package version this host speaks natively.
pub const API_VERSION: &str = "0.1.0";

/// `tack:plugin` versions this host can load.
pub const SUPPORTED_API_VERSIONS: &[&str] = &["0.1.0"];

pub mod v0_1_0 {
    wasmtime::component::bindgen!({
        path: "../../wit/v0.1.0",
        world: "plugin",
        imports: { default: async | trappable },
        exports: { default: async },
        with: {
            "tack:plugin/exec.process": crate::broker::exec::ProcessHandle,
        },
    });
}

/// The optional extensions of `tack:plugin@0.1.0` (`wit/extensions.wit`), bound apart from
/// `plugin` so a component that does not export `task-runner` still matches that world.
pub mod extensions_v0_1_0 {
    wasmtime::component::bindgen!({
        path: "../../wit/v0.1.0",
        world: "extensions",
        imports: { default: async | trappable },
        exports: { default: async },
    });
}
