//! Nothing to call: the build script is the point. It runs before tack-builtin's build script
//! (which builds every plugin for [`WASM_TARGET`]) and makes sure the target is installed,
//! installing it through rustup from `rust-toolchain.toml` when it is not, so a fresh clone
//! needs no `rustup target add` and a machine that cannot get the target says so at once rather
//! than after the host's dependencies have compiled.

/// The target every plugin is built for.
pub const WASM_TARGET: &str = "wasm32-wasip2";
