//! Build outputs keyed by a hash of every input, so unchanged examples are never rebuilt.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use crate::{failed, target_dir, BuildError, Lang};

/// Serialises builds inside one process: tests running in parallel must not all compile the same
/// 18 MB component at once on a 2-core machine.
static BUILDING: Mutex<()> = Mutex::new(());

/// Folders and files that are outputs or caches, not inputs.
const SKIP: &[&str] = &["__pycache__", "node_modules", "build", ".git"];

/// The component of plugin `name`, written in `lang`, built from `inputs`: from the cache, or
/// made by `build`, which writes the component to the path it is given.
pub fn cached_as(
    name: &str,
    lang: Lang,
    inputs: &[PathBuf],
    build: impl FnOnce(&Path, &Path) -> Result<(), BuildError>,
) -> Result<PathBuf, BuildError> {
    let key = hash_inputs(lang, inputs)?;
    let dir = target_dir().join("sdk-examples");
    let out = dir.join(format!("{name}-{key}.wasm"));
    let _guard = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    if out.is_file() {
        return Ok(out);
    }
    std::fs::create_dir_all(&dir).map_err(|e| failed(lang, format!("{}: {e}", dir.display())))?;
    let scratch = tempfile::tempdir_in(&dir).map_err(|e| failed(lang, e.to_string()))?;
    let built = scratch.path().join("plugin.wasm");
    build(scratch.path(), &built)?;
    // Rename into place, so a concurrent run never sees half a component.
    std::fs::rename(&built, &out).map_err(|e| failed(lang, format!("{}: {e}", out.display())))?;
    Ok(out)
}

fn hash_inputs(lang: Lang, inputs: &[PathBuf]) -> Result<String, BuildError> {
    let mut hasher = Sha256::new();
    for input in inputs {
        let mut files = Vec::new();
        collect(input, &mut files)
            .map_err(|e| failed(lang, format!("{}: {e}", input.display())))?;
        files.sort();
        for file in files {
            let bytes = std::fs::read(&file)
                .map_err(|e| failed(lang, format!("{}: {e}", file.display())))?;
            hasher.update(
                file.strip_prefix(input)
                    .unwrap_or(&file)
                    .to_string_lossy()
                    .as_bytes(),
            );
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
    }
    Ok(hex::encode(&hasher.finalize()[..8]))
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_file() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if SKIP.contains(&name.as_ref()) || name.ends_with(".wasm") || name.ends_with(".pyc") {
            continue;
        }
        collect(&entry.path(), files)?;
    }
    Ok(())
}
