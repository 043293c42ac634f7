//! `tack:provider@0.1.0` (`wit/provider/v0.1.0/`): incremental provider requests, a package of its
//! own beside the frozen `tack:plugin@0.1.0`. Optional: a provider plugin without the export is
//! sent the whole conversation every turn.

wasmtime::component::bindgen!({
    path: "../../wit/provider/v0.1.0",
    world: "incremental-provider",
    exports: { default: async },
});
