//! On-disk cache of compiled components.
//!
//! Keyed by the component's SHA-256 and a hash of the engine's compilation settings (which
//! includes the wasmtime version), so a warm start deserializes instead of compiling, and an
//! upgrade or a config change simply misses.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::Engine;

pub struct ComponentCache {
    dir: Option<PathBuf>,
    hits: AtomicU64,
    compiles: AtomicU64,
}

/// Counters, so tests can prove a warm start did not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub compiles: u64,
}

impl ComponentCache {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self {
            dir,
            hits: AtomicU64::new(0),
            compiles: AtomicU64::new(0),
        }
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            compiles: self.compiles.load(Ordering::Relaxed),
        }
    }

    /// Compiles `bytes`, or loads the compiled artifact from the cache.
    pub fn load(&self, engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Component> {
        let Some(dir) = &self.dir else {
            self.compiles.fetch_add(1, Ordering::Relaxed);
            return Component::new(engine, bytes);
        };
        let path = dir.join(format!("{}.cwasm", cache_key(engine, bytes)));
        if path.exists() {
            // SAFETY: the file was written by `Component::serialize` of this same engine
            // configuration (the key covers it), into tack's own cache directory. wasmtime still
            // checks the header and refuses artifacts from another version or config, in which
            // case we fall through and recompile.
            match unsafe { Component::deserialize_file(engine, &path) } {
                Ok(component) => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    return Ok(component);
                }
                Err(error) => {
                    tracing::warn!(path = %path.display(), %error, "discarding unusable cached component");
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        self.compiles.fetch_add(1, Ordering::Relaxed);
        let component = Component::new(engine, bytes)?;
        if let Err(error) = store(&path, &component) {
            // A read-only or full disk must not stop the plugin from loading.
            tracing::warn!(path = %path.display(), %error, "cannot write component cache");
        }
        Ok(component)
    }
}

fn store(path: &Path, component: &Component) -> anyhow::Result<()> {
    let bytes = component
        .serialize()
        .map_err(|e| anyhow::anyhow!("serialize: {e}"))?;
    let dir = path
        .parent()
        .ok_or_else(|| anyhow::anyhow!("cache path has no parent"))?;
    std::fs::create_dir_all(dir)?;
    // Write then rename, so a concurrent tack never reads half an artifact.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, &bytes)?;
    tmp.persist(path)?;
    Ok(())
}

fn cache_key(engine: &Engine, bytes: &[u8]) -> String {
    let content = hex::encode(Sha256::digest(bytes));
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{content}-{:016x}", hasher.finish())
}
