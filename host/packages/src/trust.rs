//! Which projects' own plugins (under `.tack/`) the user trusts, remembered per path in the
//! tack home.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TrustStore {
    #[serde(default)]
    pub trusted: Vec<String>,
    #[serde(default)]
    pub distrusted: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    Trusted,
    Distrusted,
    Unknown,
}

impl TrustStore {
    pub fn load(path: &Path) -> Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                toml::from_str(&text).with_context(|| format!("{} is malformed", path.display()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    pub fn get(&self, project: &Path) -> Trust {
        let key = project.display().to_string();
        if self.trusted.contains(&key) {
            Trust::Trusted
        } else if self.distrusted.contains(&key) {
            Trust::Distrusted
        } else {
            Trust::Unknown
        }
    }

    pub fn set(&mut self, project: &Path, trusted: bool) {
        let key = project.display().to_string();
        self.trusted.retain(|p| p != &key);
        self.distrusted.retain(|p| p != &key);
        if trusted {
            self.trusted.push(key);
        } else {
            self.distrusted.push(key);
        }
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, toml::to_string_pretty(self)?)
            .with_context(|| format!("cannot write {}", path.display()))
    }
}
