//! `tack:agents@0.1.0` (`wit/agents/v0.1.0/`): child agent runs, a package of its own beside the
//! frozen `tack:plugin@0.1.0`, so no existing plugin's contract changes.

wasmtime::component::bindgen!({
    path: "../../wit/agents/v0.1.0",
    world: "agents-client",
    imports: { default: async | trappable },
});
