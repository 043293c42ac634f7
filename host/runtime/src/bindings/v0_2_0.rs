//! `tack:plugin@0.2.0` (`wit/plugin/v0.2.0/`): what 0.2.0 adds to 0.1.0. The 0.2.0 world
//! includes every 0.1.0 interface unchanged, so those stay bound once, by [`super::v0_1_0`]; this
//! module binds only the additions, and a component that imports none of them is exactly a 0.1.0
//! plugin to the host.

/// The package version these bindings speak.
pub const VERSION: &str = "0.2.0";

wasmtime::component::bindgen!({
    path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
    world: "tack:plugin/additions@0.2.0",
    imports: { default: async | trappable },
    with: {
        "tack:plugin/types@0.1.0": super::v0_1_0::tack::plugin::types,
        "tack:plugin/http@0.1.0": super::v0_1_0::tack::plugin::http,
        "tack:plugin/session@0.1.0": super::v0_1_0::tack::plugin::session,
    },
});

/// The optional exports of 0.2.0 (`observer`), bound apart so a component without them still
/// matches `additions`.
pub mod observer {
    wasmtime::component::bindgen!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/observer-export@0.2.0",
        exports: { default: async },
    });
}

/// The optional `provider-hooks` export of 0.2.0 (Pi's `before_provider_request` and
/// `after_provider_response`), called only on a plugin with the `provider_payload` grant.
pub mod provider_hooks {
    wasmtime::component::bindgen!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/provider-hooks-export@0.2.0",
        exports: { default: async },
    });
}

/// The optional `session-hooks` export of 0.2.0 (Pi's `session_before_switch`,
/// `session_before_fork` and `session_before_tree`).
pub mod session_hooks {
    wasmtime::component::bindgen!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/session-hooks-export@0.2.0",
        exports: { default: async },
    });
}

/// The optional `completions` export of 0.2.0 (Pi's `getArgumentCompletions` and
/// `addAutocompleteProvider`), asked by the terminal UI while the user types.
pub mod completions {
    wasmtime::component::bindgen!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/completions-export@0.2.0",
        exports: { default: async },
    });
}

/// The optional `renderers` export of 0.2.0 (Pi's `renderCall`, `renderResult` and
/// `registerMessageRenderer`), asked by the terminal UI for the plugin's own blocks.
pub mod renderers {
    wasmtime::component::bindgen!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/renderers-export@0.2.0",
        exports: { default: async },
    });
}

/// The optional `editor` export of 0.2.0 (Pi's `setEditorComponent`), asked by the terminal UI
/// once the plugin put its editor in place of tack's.
pub mod editor {
    wasmtime::component::bindgen!({
        path: ["../../wit/plugin/v0.1.0", "../../wit/plugin/v0.2.0"],
        world: "tack:plugin/editor-export@0.2.0",
        exports: { default: async },
    });
}
