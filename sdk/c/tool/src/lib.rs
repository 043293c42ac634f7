//! The two steps of building a tack plugin in C that a C toolchain cannot do by itself: generating
//! the bindings for the `tack:plugin` world, and wrapping the `wasm32-wasi` core module the
//! compiler produced into a component (with the WASI preview1 reactor adapter).
//!
//! Both run in-process from crates.io crates, so a C author needs no `wit-bindgen` or
//! `wasm-tools` binary (each a ~6 minute `cargo install` on a small machine).

use std::path::{Path, PathBuf};

use wit_bindgen_core::wit_parser::Resolve;
use wit_bindgen_core::Files;

/// The world the bindings are generated for: `plugin` plus the optional extensions (`tasks`,
/// `files`, `project`, and the `task-runner` export). wit-component keeps only the imports the
/// core module calls, so a plugin that uses no extension imports none.
pub const WORLD: &str = "plugin-extended";

/// The name the generated files and C identifiers carry (`plugin.h`, `plugin_string_t`): the
/// `plugin` world's, so plugins written before the extensions were bound still compile.
pub const C_NAME: &str = "plugin";

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("cannot read the WIT package in {path}: {message}")]
    Wit { path: PathBuf, message: String },
    #[error("cannot generate C bindings: {0}")]
    Bindgen(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot make a component from the core module: {0}")]
    Componentize(String),
}

/// Writes `plugin.h`, `plugin.c` and `plugin_component_type.o` for the `plugin-extended` world of
/// the WIT package in `wit_dir` into `out_dir`, and returns the paths written.
pub fn generate_bindings(wit_dir: &Path, out_dir: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let wit_error = |e: anyhow::Error| ToolError::Wit {
        path: wit_dir.to_path_buf(),
        message: format!("{e:#}"),
    };
    let mut resolve = Resolve::default();
    let (package, _) = resolve.push_dir(wit_dir).map_err(wit_error)?;
    let world = resolve
        .select_world(&[package], Some(WORLD))
        .map_err(wit_error)?;
    let mut files = Files::default();
    let opts = wit_bindgen_c::Opts {
        rename_world: Some(C_NAME.to_string()),
        ..Default::default()
    };
    opts.build()
        .generate(&mut resolve, world, &mut files)
        .map_err(|e| ToolError::Bindgen(format!("{e:#}")))?;
    std::fs::create_dir_all(out_dir).map_err(|source| ToolError::Write {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    for (name, contents) in files.iter() {
        let path = out_dir.join(name);
        std::fs::write(&path, contents).map_err(|source| ToolError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

/// Turns a `wasm32-wasi` reactor core module (linked with `plugin_component_type.o`) into a
/// component. WASI preview1 imports are satisfied by the reactor adapter, which maps them onto
/// the preview2 interfaces the host links.
pub fn componentize(core: &[u8]) -> Result<Vec<u8>, ToolError> {
    use wasi_preview1_component_adapter_provider::{
        WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
    };
    let failed = |e: anyhow::Error| ToolError::Componentize(format!("{e:#}"));
    wit_component::ComponentEncoder::default()
        .validate(true)
        .module(core)
        .map_err(failed)?
        .adapter(
            WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME,
            WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
        )
        .map_err(failed)?
        .encode()
        .map_err(failed)
}
