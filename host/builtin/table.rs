//! `builtins.toml`, the one list of tack's guest components, as the build script and the tests
//! read it. Included by both (`#[path]`), so that they cannot read it differently.

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub guests: Vec<Guest>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guest {
    pub package: String,
    pub folder: String,
    pub embedded: bool,
    env: Option<String>,
}

impl Guest {
    /// The component's file stem, as cargo names a `cdylib`.
    pub fn stem(&self) -> String {
        self.package.replace('-', "_")
    }

    /// The name of its path in `tack_builtin::artifacts`.
    pub fn env(&self) -> String {
        self.env
            .clone()
            .unwrap_or_else(|| self.stem().to_uppercase())
    }
}

pub fn parse(text: &str) -> Result<Table, String> {
    toml::from_str(text).map_err(|e| format!("builtins.toml: {e}"))
}
