//! The wasmtime configuration of tack's engine, in one place for the two that need it: the
//! runtime, which builds its engine from it, and the tack binary's build script, which includes
//! this file to precompile the built-in plugins. A precompiled artifact is only accepted by an
//! engine whose settings match the one that compiled it, so the two must never drift; anything
//! that changes code generation belongs here, not at a call site.
//!
//! Only `wasmtime` may be used here: the build script compiles this file on its own.

/// The configuration every tack engine starts from. The runtime may add settings that do not
/// touch code generation (a profiler); a setting that does makes precompiled artifacts miss, and
/// tack falls back to compiling.
pub fn engine_config() -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    config
        .wasm_component_model(true)
        .epoch_interruption(true)
        // Deep guest recursion must trap cleanly long before the host's own stack is at risk.
        .max_wasm_stack(1 << 20)
        // No `.eh_frame` for guest code: wasmtime walks guest stacks by frame pointers and never
        // needs it, and registering it with the system unwinder read (and kept resident) every
        // component's unwind tables at load, for nothing.
        .native_unwind_info(false);
    config
}
