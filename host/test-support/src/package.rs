//! Plugin package folders: a component and the `tack.toml` that names it.

use std::path::{Path, PathBuf};

/// A package to write: `wasm` (a built component's path) under the plugin name `name`.
pub struct Package<'a> {
    name: &'a str,
    wasm: &'a str,
    version: &'a str,
    component: &'a str,
    description: Option<&'a str>,
    capabilities: &'a str,
}

impl<'a> Package<'a> {
    /// Version 0.0.1, the component stored as `plugin.wasm`, no capabilities.
    pub fn new(name: &'a str, wasm: &'a str) -> Self {
        Package {
            name,
            wasm,
            version: "0.0.1",
            component: "plugin.wasm",
            description: None,
            capabilities: "",
        }
    }

    pub fn version(mut self, version: &'a str) -> Self {
        self.version = version;
        self
    }

    /// The file name the component is stored under.
    pub fn component(mut self, file: &'a str) -> Self {
        self.component = file;
        self
    }

    pub fn description(mut self, description: &'a str) -> Self {
        self.description = Some(description);
        self
    }

    /// The manifest's `[capabilities]` section, as TOML lines.
    pub fn capabilities(mut self, toml: &'a str) -> Self {
        self.capabilities = toml;
        self
    }

    /// Writes the package into `dir` (created if missing) and returns `dir`.
    pub fn write_to(&self, dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir).expect("package dir");
        std::fs::copy(self.wasm, dir.join(self.component)).expect("copy component");
        let Package {
            name,
            version,
            component,
            ..
        } = self;
        let description = self
            .description
            .map(|d| format!("description = \"{d}\"\n"))
            .unwrap_or_default();
        std::fs::write(
            dir.join("tack.toml"),
            format!(
                "[plugin]\nname = \"{name}\"\nversion = \"{version}\"\napi = \"0.1\"\n\
                 component = \"{component}\"\n{description}\n[capabilities]\n{}\n",
                self.capabilities
            ),
        )
        .expect("manifest");
        dir.to_path_buf()
    }
}
