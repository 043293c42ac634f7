//! The user's grants: which declared capabilities each plugin may actually use. Stored as
//! `grants.toml` in the tack home, beside the lockfile.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::manifest::Capabilities;

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct GrantStore {
    #[serde(default)]
    pub plugins: BTreeMap<String, Capabilities>,
    #[serde(skip)]
    path: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    #[error("cannot read grants file {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("grants file {path} is malformed: {message}")]
    Parse { path: String, message: String },
    #[error("cannot write grants file {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl GrantStore {
    /// Loads the grants file, or an empty store if there is none yet.
    pub fn load(path: &Path) -> Result<Self, GrantError> {
        let mut store = match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str::<GrantStore>(&text).map_err(|e| GrantError::Parse {
                path: path.display().to_string(),
                message: e.message().to_string(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => GrantStore::default(),
            Err(source) => {
                return Err(GrantError::Read {
                    path: path.display().to_string(),
                    source,
                })
            }
        };
        store.path = Some(path.to_path_buf());
        Ok(store)
    }

    pub fn get(&self, plugin: &str) -> Option<&Capabilities> {
        self.plugins.get(plugin)
    }

    pub fn set(&mut self, plugin: &str, granted: Capabilities) {
        self.plugins.insert(plugin.to_string(), granted);
    }

    pub fn remove(&mut self, plugin: &str) {
        self.plugins.remove(plugin);
    }

    pub fn save(&self) -> Result<(), GrantError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let write_err = |source| GrantError::Write {
            path: path.display().to_string(),
            source,
        };
        let text = toml::to_string_pretty(self).map_err(|e| GrantError::Parse {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write_err)?;
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(write_err)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(write_err)?;
        tmp.persist(path).map_err(|e| write_err(e.error))?;
        Ok(())
    }
}
