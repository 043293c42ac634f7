//! `tack:dirs@0.1.0` (`wit/dirs/v0.1.0/`): whole-directory listings, a package of its own beside
//! the frozen `tack:plugin@0.1.0`, so no existing plugin's contract changes.

wasmtime::component::bindgen!({
    path: "../../wit/dirs/v0.1.0",
    world: "dirs-client",
    imports: { default: async | trappable },
});
