//! The built-in plugins as build.rs precompiled them, each paired with the component it was
//! compiled from, for the runtime to deserialize instead of compiling.

use tack_runtime::cache::Precompiled;

include!(concat!(env!("OUT_DIR"), "/precompiled.rs"));

/// The runtime configuration of this tack: its component cache in `home`, and the built-ins'
/// precompiled artifacts.
pub fn runtime_config(home: &tack_packages::Home) -> tack_runtime::RuntimeConfig {
    tack_runtime::RuntimeConfig {
        cache_dir: Some(home.component_cache()),
        precompiled: artifacts(),
        ..tack_runtime::RuntimeConfig::default()
    }
}

/// Whether the runtime holds `name` precompiled, so its spec need not carry the component.
pub fn has(name: &str) -> bool {
    PRECOMPILED.iter().any(|(n, _, _)| *n == name)
}

fn artifacts() -> Vec<Precompiled> {
    PRECOMPILED
        .iter()
        .filter_map(|(name, digest, artifact)| {
            tack_builtin::builtin(name).map(|builtin| Precompiled {
                name: builtin.name,
                wasm: builtin.wasm,
                artifact,
                digest,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_builtin_has_a_precompiled_artifact() {
        let artifacts = super::artifacts();
        for builtin in tack_builtin::BUILTINS {
            assert!(
                // By content: a `const` table's slices need not share one address.
                artifacts
                    .iter()
                    .any(|a| a.name == builtin.name && a.wasm == builtin.wasm),
                "{} has no precompiled artifact",
                builtin.name
            );
        }
    }
}
