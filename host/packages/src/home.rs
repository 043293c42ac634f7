//! The tack home: where sessions, grants, secrets, the component cache and installed plugins live.
//! `$TACK_HOME`, else `~/.tack`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    pub fn locate() -> Result<Self> {
        let root = match std::env::var_os("TACK_HOME") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => {
                let home = std::env::var_os("HOME").context("neither TACK_HOME nor HOME is set")?;
                PathBuf::from(home).join(".tack")
            }
        };
        std::fs::create_dir_all(&root)
            .with_context(|| format!("cannot create tack home {}", root.display()))?;
        Ok(Self { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `$TACK_CACHE_DIR` if set (a cache shared between homes, as the test suite uses), else
    /// inside the home.
    pub fn component_cache(&self) -> PathBuf {
        match std::env::var_os("TACK_CACHE_DIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => self.root.join("cache").join("components"),
        }
    }

    pub fn plugin_data(&self) -> PathBuf {
        self.root.join("plugin-data")
    }

    pub fn grants(&self) -> PathBuf {
        self.root.join("grants.toml")
    }

    pub fn auth(&self) -> PathBuf {
        self.root.join("auth.json")
    }

    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
}
