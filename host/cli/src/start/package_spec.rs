//! A plugin package as the runtime loads it: its manifest and component, from a folder on disk
//! (`--plugin`) or from an installed package's files as checked against the lockfile, paired
//! with the user's grants and configuration.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use tack_runtime::grants::GrantStore;
use tack_runtime::{Manifest, PluginSource, PluginSpec};

use crate::settings::Settings;

/// A plugin package folder (`tack.toml` + component), or a `tack.toml` path.
pub fn package(path: &Path, grants: &GrantStore, settings: &Settings) -> Result<PluginSpec> {
    let dir = if path.is_file() {
        path.parent().unwrap_or(Path::new("."))
    } else {
        path
    };
    let manifest_path = dir.join("tack.toml");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("cannot read plugin manifest {}", manifest_path.display()))?;
    let manifest =
        Manifest::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", manifest_path.display()))?;
    let wasm_path = dir.join(&manifest.plugin.component);
    let wasm = std::fs::read(&wasm_path).with_context(|| {
        format!(
            "plugin '{}': cannot read component {}",
            manifest.plugin.name,
            wasm_path.display()
        )
    })?;
    Ok(spec(dir, manifest, wasm, grants, settings))
}

/// An installed package from its files as read (and checked against the lockfile) once, keyed by
/// `/`-separated path inside the package: nothing is read from disk again.
pub fn package_from_files(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    grants: &GrantStore,
    settings: &Settings,
) -> Result<PluginSpec> {
    let manifest_path = dir.join("tack.toml");
    let text = files
        .get("tack.toml")
        .with_context(|| format!("{} is missing", manifest_path.display()))?;
    let text = std::str::from_utf8(text)
        .with_context(|| format!("{} is not UTF-8", manifest_path.display()))?;
    let manifest =
        Manifest::parse(text).map_err(|e| anyhow::anyhow!("{}: {e}", manifest_path.display()))?;
    let key = Path::new(&manifest.plugin.component)
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(part) => Some(part.to_string_lossy()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/");
    let wasm = files.get(&key).cloned().with_context(|| {
        format!(
            "plugin '{}': its component {} is not in the package",
            manifest.plugin.name, manifest.plugin.component
        )
    })?;
    Ok(spec(dir, manifest, wasm, grants, settings))
}

fn spec(
    dir: &Path,
    manifest: Manifest,
    wasm: Vec<u8>,
    grants: &GrantStore,
    settings: &Settings,
) -> PluginSpec {
    let granted = grants
        .get(&manifest.plugin.name)
        .cloned()
        .unwrap_or_default();
    let config = settings.plugin_config(&manifest);
    PluginSpec {
        wasm: wasm.into(),
        wasm_label: dir.join(&manifest.plugin.component).display().to_string(),
        source: PluginSource::Path(dir.to_path_buf()),
        granted,
        config,
        manifest,
    }
}
