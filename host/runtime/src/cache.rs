//! Where compiled components come from: the artifacts tack's build precompiled for its built-in
//! plugins, else the on-disk cache of compiled components, else the compiler.
//!
//! The disk cache is keyed by the component's SHA-256 and a hash of the engine's compilation
//! settings (which includes the wasmtime version), so a warm start deserializes instead of
//! compiling, and an upgrade or a config change simply misses.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::{Engine, Precompiled as ArtifactKind};

/// A component compiled ahead of time, by tack's own build, for the engine configuration of
/// [`crate::engine_config`], next to the component it was compiled from.
#[derive(Clone, Copy)]
pub struct Precompiled {
    /// The built-in plugin it is.
    pub name: &'static str,
    /// The component (`.wasm`) the artifact was compiled from: a load of these exact bytes may
    /// use the artifact.
    pub wasm: &'static [u8],
    /// What `Engine::precompile_component` made of it.
    pub artifact: &'static [u8],
    /// The SHA-256 of `wasm` in hex, computed by the build: it names the component in keys
    /// without hashing it again at every start.
    pub digest: &'static str,
}

impl std::fmt::Debug for Precompiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Precompiled")
            .field("name", &self.name)
            .field("wasm_bytes", &self.wasm.len())
            .field("artifact_bytes", &self.artifact.len())
            .finish()
    }
}

/// Where a loaded component's machine code came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeOrigin {
    /// An artifact precompiled by tack's build.
    Precompiled,
    /// The on-disk cache.
    Cache,
    /// Compiled in this process.
    Compiled,
    /// The component another plugin of this process was loaded from: the same bytes, held by
    /// both specs (every Pi extension runs the one Pi runtime).
    Shared,
}

/// A component being loaded, or loaded, from bytes some spec still holds.
type SharedSlot = Arc<Mutex<Option<Component>>>;

pub struct ComponentCache {
    dir: Option<PathBuf>,
    precompiled: Vec<Precompiled>,
    hits: AtomicU64,
    compiles: AtomicU64,
    deserialized: AtomicU64,
    refused: AtomicU64,
    /// Components by the bytes they came from, while a spec holds those bytes: compared by
    /// address, so a lookup costs no hash of a many-megabyte component, and the entry goes once
    /// the last holder has let go (the `Weak` keeps the address from being reused meanwhile).
    shared: Mutex<Vec<(Weak<[u8]>, SharedSlot)>>,
}

/// Counters, so tests can prove a warm start did not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    /// Loads served by the on-disk cache.
    pub hits: u64,
    /// Loads that compiled.
    pub compiles: u64,
    /// Loads served by a precompiled artifact.
    pub precompiled: u64,
    /// Precompiled artifacts this engine refused (another wasmtime, configuration or CPU); each
    /// was compiled instead.
    pub precompiled_refused: u64,
}

impl ComponentCache {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self::with_precompiled(dir, Vec::new())
    }

    pub fn with_precompiled(dir: Option<PathBuf>, precompiled: Vec<Precompiled>) -> Self {
        Self {
            dir,
            precompiled,
            hits: AtomicU64::new(0),
            compiles: AtomicU64::new(0),
            deserialized: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            shared: Mutex::new(Vec::new()),
        }
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            compiles: self.compiles.load(Ordering::Relaxed),
            precompiled: self.deserialized.load(Ordering::Relaxed),
            precompiled_refused: self.refused.load(Ordering::Relaxed),
        }
    }

    /// The precompiled built-in a spec names: by name when the spec carries no component (see
    /// [`crate::PluginSpec::wasm`]), else by its bytes.
    pub fn precompiled_for(&self, builtin_name: Option<&str>, bytes: &[u8]) -> Option<Precompiled> {
        let found = match builtin_name {
            Some(name) if bytes.is_empty() => self.precompiled.iter().find(|p| p.name == name),
            _ => self.precompiled.iter().find(|p| p.wasm == bytes),
        };
        found.copied()
    }

    /// The directory compiled components are kept in, if any.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// [`load_traced`](Self::load_traced), once for every spec holding these same bytes: ten
    /// Pi extensions are ten instances of one compiled component, with one mapping of its code
    /// and of its memory image, rather than ten.
    pub fn load_shared(
        &self,
        engine: &Engine,
        bytes: &Arc<[u8]>,
    ) -> wasmtime::Result<(Component, CodeOrigin)> {
        let slot = {
            let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
            shared.retain(|(held, _)| held.strong_count() > 0);
            let found = shared
                .iter()
                .find(|(held, _)| std::ptr::eq(held.as_ptr(), Arc::as_ptr(bytes)));
            match found {
                Some((_, slot)) => slot.clone(),
                None => {
                    let slot = SharedSlot::default();
                    shared.push((Arc::downgrade(bytes), slot.clone()));
                    slot
                }
            }
        };
        // Held while loading: a second spec of the same bytes waits for the first's component
        // instead of compiling it again.
        let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(component) = slot.as_ref() {
            return Ok((component.clone(), CodeOrigin::Shared));
        }
        let (component, origin) = self.load_traced(engine, bytes)?;
        *slot = Some(component.clone());
        Ok((component, origin))
    }

    /// Lets go of the components whose bytes no spec holds any more, and so of those bytes: a
    /// `Weak` keeps a many-megabyte allocation until it is dropped.
    pub fn release_unheld(&self) {
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        shared.retain(|(held, _)| held.strong_count() > 0);
    }

    /// Compiles `bytes`, or loads the compiled artifact from the cache.
    pub fn load(&self, engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Component> {
        self.load_traced(engine, bytes)
            .map(|(component, _)| component)
    }

    /// [`ComponentCache::load`], saying where the code came from.
    pub fn load_traced(
        &self,
        engine: &Engine,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, CodeOrigin)> {
        if let Some(entry) = self.precompiled_for(None, bytes) {
            return self.load_precompiled(engine, &entry);
        }
        let Some(dir) = &self.dir else {
            self.compiles.fetch_add(1, Ordering::Relaxed);
            return Ok((Component::new(engine, bytes)?, CodeOrigin::Compiled));
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
                    return Ok((component, CodeOrigin::Cache));
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
        Ok((component, CodeOrigin::Compiled))
    }

    /// A built-in from the artifact tack's build precompiled. With a cache directory the
    /// artifact is first copied there, once, and mapped from the file: the pages of code a run
    /// never executes then stay on disk instead of in memory, as for any cached component. An
    /// artifact this engine refuses (another wasmtime, configuration or CPU) is not an error:
    /// the component is compiled instead, and that goes into the cache.
    pub fn load_precompiled(
        &self,
        engine: &Engine,
        entry: &Precompiled,
    ) -> wasmtime::Result<(Component, CodeOrigin)> {
        let Some(dir) = &self.dir else {
            return match self.deserialize_embedded(engine, entry) {
                Some(component) => Ok((component, CodeOrigin::Precompiled)),
                None => {
                    self.compiles.fetch_add(1, Ordering::Relaxed);
                    Ok((Component::new(engine, entry.wasm)?, CodeOrigin::Compiled))
                }
            };
        };
        let path = dir.join(format!("{}.cwasm", key(engine, entry.digest)));
        // Copied from the binary into the cache on first use, without a look first: wasmtime's
        // header check below refuses it if this engine cannot run it, and it is removed again.
        let mut fresh = false;
        if !path.exists() {
            if Engine::detect_precompiled(entry.artifact) != Some(ArtifactKind::Component) {
                self.refused.fetch_add(1, Ordering::Relaxed);
            } else if let Err(error) = write_atomically(&path, entry.artifact) {
                // A read-only or full disk: use the artifact from memory.
                tracing::warn!(path = %path.display(), %error, "cannot write component cache");
                if let Some(component) = self.deserialize_embedded(engine, entry) {
                    return Ok((component, CodeOrigin::Precompiled));
                }
            } else {
                fresh = true;
                release_embedded(entry.artifact);
            }
        }
        if path.exists() {
            // SAFETY: tack's own cache directory, holding what `Component::serialize` of this
            // engine configuration wrote (the key covers it), or the artifact tack's build
            // precompiled and embedded (see `deserialize_embedded`). wasmtime still checks the
            // header and refuses a mismatch, and then we compile.
            match unsafe { Component::deserialize_file(engine, &path) } {
                Ok(component) if fresh => {
                    self.deserialized.fetch_add(1, Ordering::Relaxed);
                    return Ok((component, CodeOrigin::Precompiled));
                }
                Ok(component) => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    return Ok((component, CodeOrigin::Cache));
                }
                Err(error) => {
                    if fresh {
                        self.refused.fetch_add(1, Ordering::Relaxed);
                        tracing::debug!(plugin = entry.name, %error, "precompiled artifact refused by this engine; compiling instead");
                    } else {
                        tracing::warn!(path = %path.display(), %error, "discarding unusable cached component");
                    }
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        self.compiles.fetch_add(1, Ordering::Relaxed);
        let component = Component::new(engine, entry.wasm)?;
        if let Err(error) = store(&path, &component) {
            tracing::warn!(path = %path.display(), %error, "cannot write component cache");
        }
        Ok((component, CodeOrigin::Compiled))
    }

    /// The build's artifact, deserialized from the binary, when this engine accepts it.
    fn deserialize_embedded(&self, engine: &Engine, entry: &Precompiled) -> Option<Component> {
        if Engine::detect_precompiled(entry.artifact) != Some(ArtifactKind::Component) {
            self.refused.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(
                plugin = entry.name,
                "precompiled artifact is not a component; compiling instead"
            );
            return None;
        }
        // SAFETY: `Precompiled` artifacts are produced by `Engine::precompile_component` in
        // tack's own build script and embedded in this binary (see `host/cli/build.rs`); they
        // never come from a user, a plugin or the disk. wasmtime checks the header against this
        // engine (version, settings, CPU features) and refuses a mismatch, and then we compile.
        match unsafe { Component::deserialize(engine, entry.artifact) } {
            Ok(component) => {
                self.deserialized.fetch_add(1, Ordering::Relaxed);
                Some(component)
            }
            Err(error) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(plugin = entry.name, %error, "precompiled artifact refused by this engine; compiling instead");
                None
            }
        }
    }
}

/// Lets go of the pages of an artifact embedded in the binary once it has been copied to the
/// cache, which this run maps it from. Copying reads every byte, and the binary's pages stay
/// resident after that: on a fresh home, where every built-in is copied, the artifacts (over
/// 20 MB) were most of the first run's peak memory.
fn release_embedded(bytes: &'static [u8]) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
        if page == 0 {
            return;
        }
        let start = bytes.as_ptr() as usize;
        let first = start.next_multiple_of(page);
        let last = (start + bytes.len()) / page * page;
        if last > first {
            // SAFETY: only whole pages inside `bytes` are named, so nothing else shares them.
            // `bytes` is read-only data of the executable, mapped privately from its file and
            // never written, so dropping these pages loses nothing: a later read maps the same
            // bytes from the file again. The result is ignored: a refused hint only keeps
            // pages resident, as before.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_DONTNEED,
                );
            }
        }
    }
}

fn store(path: &Path, component: &Component) -> anyhow::Result<()> {
    let bytes = component
        .serialize()
        .map_err(|e| anyhow::anyhow!("serialize: {e}"))?;
    write_atomically(path, &bytes)
}

/// Writes then renames, so a concurrent tack never reads half a file.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| anyhow::anyhow!("cache path has no parent"))?;
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path)?;
    Ok(())
}

fn cache_key(engine: &Engine, bytes: &[u8]) -> String {
    key(engine, &hex::encode(Sha256::digest(bytes)))
}

/// A component's cache key from its SHA-256 in hex.
fn key(engine: &Engine, digest: &str) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{digest}-{:016x}", hasher.finish())
}
