//! Finding the plugins to load: the built-in ones shipped in the binary, installed packages
//! (global, then trusted project ones), then plugin packages named with `--plugin`, each paired with the user's grants and configuration.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tack_runtime::grants::GrantStore;
use tack_runtime::{Manifest, PluginSource, PluginSpec};

use crate::home::Home;
use crate::settings::Settings;

/// `only_extra` (`--no-plugins`): neither built-in nor installed plugins, only `extra`.
pub fn collect(
    home: &Home,
    settings: &Settings,
    extra: &[PathBuf],
    cwd: &Path,
    project_trusted: bool,
    only_extra: bool,
) -> Result<(Vec<PluginSpec>, Vec<String>)> {
    let grants = GrantStore::load(&home.grants()).context("loading plugin grants")?;
    let mut specs = Vec::new();
    let mut warnings = Vec::new();
    let builtins = if only_extra {
        &[][..]
    } else {
        tack_builtin::BUILTINS
    };
    for builtin in builtins {
        let manifest = Manifest::parse(builtin.manifest).map_err(|e| {
            anyhow::anyhow!("built-in plugin {} has a bad manifest: {e}", builtin.name)
        })?;
        // First-party plugins are granted what they declare unless the user narrowed that.
        let granted = grants
            .get(&manifest.plugin.name)
            .cloned()
            .unwrap_or_else(|| manifest.capabilities.clone());
        let config = settings.plugin_config(&manifest);
        specs.push(PluginSpec {
            // The runtime holds a precompiled built-in itself (see `precompiled.rs`).
            wasm: if crate::precompiled::has(builtin.name) {
                Vec::new()
            } else {
                builtin.wasm.to_vec()
            },
            wasm_label: format!("builtin:{}", builtin.name),
            source: PluginSource::Builtin,
            granted,
            config,
            manifest,
        });
    }
    if !only_extra {
        let (installed, installed_warnings) =
            crate::packages::load::installed(home, settings, cwd, project_trusted)?;
        specs.extend(installed);
        warnings.extend(installed_warnings);
    }
    for dir in extra {
        match package(dir, &grants, settings) {
            Ok(spec) => {
                if !spec
                    .manifest
                    .capabilities
                    .intersect(&spec.granted)
                    .eq(&spec.manifest.capabilities)
                {
                    let denied = spec.manifest.capabilities.minus(&spec.granted).describe();
                    warnings.push(format!(
                        "plugin '{}' runs without these ungranted capabilities: {}",
                        spec.manifest.plugin.name,
                        denied.join("; ")
                    ));
                }
                specs.push(spec);
            }
            Err(e) => warnings.push(format!("{e:#}")),
        }
    }
    Ok((specs, warnings))
}

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
        wasm,
        wasm_label: dir.join(&manifest.plugin.component).display().to_string(),
        source: PluginSource::Path(dir.to_path_buf()),
        granted,
        config,
        manifest,
    }
}
