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

/// The world a 0.2.0 plugin's bindings are generated for: 0.2.0's `plugin`, which includes
/// 0.1.0's `plugin-extended` and adds 0.2.0's imports and its optional exports (`observer`,
/// `provider-hooks`, `session-hooks`, `completions`, `renderers`, `editor`). Named with its
/// package, since
/// the 0.1.0 package pushed beside it has a `plugin` world too.
pub const WORLD_0_2: &str = "tack:plugin/plugin@0.2.0";

/// Writes `plugin.h`, `plugin.c` and `plugin_component_type.o` for the `plugin-extended` world of
/// the WIT package in `wit_dir` into `out_dir`, and returns the paths written.
pub fn generate_bindings(wit_dir: &Path, out_dir: &Path) -> Result<Vec<PathBuf>, ToolError> {
    generate(&[wit_dir], WORLD, out_dir)
}

/// The same for a plugin built against `tack:plugin@0.2.0` (`api = "0.2"` in its tack.toml): the
/// 0.1.0 package in `wit_0_1` and the 0.2.0 package in `wit_0_2`, bound for 0.2.0's `plugin`
/// world under the same `plugin` names, so 0.1.0 code compiles unchanged against them.
pub fn generate_bindings_0_2(
    wit_0_1: &Path,
    wit_0_2: &Path,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ToolError> {
    generate(&[wit_0_1, wit_0_2], WORLD_0_2, out_dir)
}

/// Pushes the WIT packages in `dirs` in order (a later one may use an earlier one) and binds
/// `world` of the last.
fn generate(dirs: &[&Path], world: &str, out_dir: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let mut resolve = Resolve::default();
    let mut last = None;
    for dir in dirs {
        let (package, _) = resolve.push_dir(dir).map_err(|e| wit_error(dir, e))?;
        last = Some((package, *dir));
    }
    let Some((package, dir)) = last else {
        return Err(ToolError::Bindgen("no WIT folder given".to_string()));
    };
    let world = resolve
        .select_world(&[package], Some(world))
        .map_err(|e| wit_error(dir, e))?;
    let mut files = Files::default();
    let opts = wit_bindgen_c::Opts {
        rename_world: Some(C_NAME.to_string()),
        rename: unversioned_names(&resolve, world),
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

/// With two versions of `tack:plugin` in one resolve, wit-bindgen-c puts the version into every
/// C name (`tack_plugin_0_1_0_types_…`), which would break every 0.1.0 source against 0.2.0's
/// bindings. The two versions name no interface alike, so each interface keeps its unversioned
/// name (`tack_plugin_types_…`, `tack_plugin_control_…`). With one version nothing is renamed,
/// so 0.1.0's output stays exactly as it was.
fn unversioned_names(
    resolve: &Resolve,
    world: wit_bindgen_core::wit_parser::WorldId,
) -> Vec<(String, String)> {
    use wit_bindgen_core::wit_parser::WorldKey;
    let names: std::collections::HashSet<_> = resolve
        .packages
        .iter()
        .map(|(_, p)| (&p.name.namespace, &p.name.name))
        .collect();
    if names.len() == resolve.packages.len() {
        return Vec::new();
    }
    let world = &resolve.worlds[world];
    let mut renames = Vec::new();
    for key in world.imports.keys().chain(world.exports.keys()) {
        let WorldKey::Interface(id) = key else {
            continue;
        };
        let iface = &resolve.interfaces[*id];
        let (Some(package), Some(name)) = (iface.package, iface.name.as_ref()) else {
            continue;
        };
        let package = &resolve.packages[package].name;
        let snake = |s: &str| s.replace('-', "_");
        renames.push((
            resolve.name_world_key(key),
            format!(
                "{}_{}_{}",
                snake(&package.namespace),
                snake(&package.name),
                snake(name)
            ),
        ));
    }
    renames
}

fn wit_error(dir: &Path, e: anyhow::Error) -> ToolError {
    ToolError::Wit {
        path: dir.to_path_buf(),
        message: format!("{e:#}"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn wit(version: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../wit/plugin")
            .join(version)
    }

    fn header(files: &[PathBuf]) -> String {
        let path = files
            .iter()
            .find(|p| p.ends_with("plugin.h"))
            .expect("plugin.h written");
        std::fs::read_to_string(path).expect("read plugin.h")
    }

    /// 0.2.0's bindings keep every C name 0.1.0's have (so tack.h, tack_helpers.c and 0.1.0
    /// plugins compile against them) and add 0.2.0's imports and exports, unversioned.
    #[test]
    fn bindings_0_2_keep_the_0_1_names_and_add_the_new_ones() {
        let old = tempfile::tempdir().unwrap();
        let new = tempfile::tempdir().unwrap();
        let old = header(&generate_bindings(&wit("v0.1.0"), old.path()).unwrap());
        let new =
            header(&generate_bindings_0_2(&wit("v0.1.0"), &wit("v0.2.0"), new.path()).unwrap());
        let names = |text: &str| -> std::collections::BTreeSet<String> {
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with("tack_plugin_") || w.starts_with("exports_tack_plugin_"))
                .map(str::to_string)
                .collect()
        };
        let (old_names, new_names) = (names(&old), names(&new));
        let missing: Vec<_> = old_names.difference(&new_names).collect();
        assert!(missing.is_empty(), "0.1.0 names missing: {missing:?}");
        assert!(!new.contains("0_1_0") && !new.contains("0_2_0"));
        for name in [
            "tack_plugin_control_set_session_name",
            "tack_plugin_events_subscribe",
            "tack_plugin_screen_set_widget",
            "exports_tack_plugin_observer_on_event",
            "exports_tack_plugin_session_hooks_before_tree",
            "exports_tack_plugin_completions_input",
            "exports_tack_plugin_renderers_render_message",
            "exports_tack_plugin_editor_key",
        ] {
            assert!(new_names.contains(name), "{name} missing");
        }
        assert!(!old.contains("tack_plugin_control_"));
    }
}
