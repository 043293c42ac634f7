//! Content-addressed blobs: `<dir>/ab/cdef…`, named by the SHA-256 of their bytes, written once
//! (to a temporary name, then renamed, so a crash never leaves half a blob under a real name)
//! and shared by every checkpoint that holds the same content.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::{Error, Result};

pub struct Objects {
    dir: PathBuf,
}

impl Objects {
    pub fn new(dir: PathBuf) -> Self {
        Objects { dir }
    }

    pub fn path(&self, hash: &str) -> PathBuf {
        let (head, tail) = hash.split_at(hash.len().min(2));
        self.dir.join(head).join(tail)
    }

    /// Stores `bytes` under `hash` unless already there; returns the bytes written.
    pub fn put(&self, hash: &str, bytes: &[u8]) -> Result<u64> {
        let path = self.path(hash);
        if path.is_file() {
            return Ok(0);
        }
        write_atomic(&path, bytes)?;
        Ok(bytes.len() as u64)
    }

    /// The blob `hash`, checked against its name.
    pub fn get(&self, hash: &str, store: &Path) -> Result<Vec<u8>> {
        let path = self.path(hash);
        let bytes = fs::read(&path).map_err(|e| Error::Corrupt {
            store: store.to_path_buf(),
            detail: format!("cannot read object {}: {e}", path.display()),
        })?;
        if hex::encode(Sha256::digest(&bytes)) != hash {
            return Err(Error::Corrupt {
                store: store.to_path_buf(),
                detail: format!("object {} does not match its hash", path.display()),
            });
        }
        Ok(bytes)
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(Error::io("create", dir))?;
    let mut tmp = tempfile_in(dir)?;
    tmp.1.write_all(bytes).map_err(Error::io("write", &tmp.0))?;
    drop(tmp.1);
    fs::rename(&tmp.0, path).map_err(|e| {
        let _ = fs::remove_file(&tmp.0);
        Error::io("write", path)(e)
    })
}

/// A new file with a name nobody else uses in `dir`.
fn tempfile_in(dir: &Path) -> Result<(PathBuf, fs::File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".tmp-{}-{n}", std::process::id()));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("create", path)(e)),
        }
    }
}
