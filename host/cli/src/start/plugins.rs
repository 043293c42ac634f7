//! Finding the plugins to load: the built-in ones shipped in the binary, installed packages
//! (global, then trusted project ones), then plugin packages named with `--plugin`, each paired with the user's grants and configuration.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tack_packages::Home;
use tack_runtime::grants::GrantStore;
use tack_runtime::{Manifest, PluginSource, PluginSpec};

use super::package_spec::package;
use crate::settings::Settings;

/// `only_extra` (`--no-plugins`): neither built-in nor installed plugins, only `extra`.
pub fn collect(
    home: &Home,
    settings: &Settings,
    extra: &[PathBuf],
    cwd: &Path,
    project_trusted: bool,
    only_extra: bool,
) -> Result<(Vec<PluginSpec>, Vec<String>, Vec<PathBuf>)> {
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
            wasm: if crate::start::precompiled::has(builtin.name) {
                Default::default()
            } else {
                builtin.wasm.into()
            },
            wasm_label: format!("builtin:{}", builtin.name),
            source: PluginSource::Builtin,
            granted,
            config,
            manifest,
        });
    }
    let mut pi_packages = Vec::new();
    if !only_extra {
        let installed = crate::start::packages::installed(home, settings, cwd, project_trusted)?;
        specs.extend(installed.specs);
        warnings.extend(installed.warnings);
        pi_packages = installed.pi_packages;
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
    Ok((specs, warnings, pi_packages))
}
