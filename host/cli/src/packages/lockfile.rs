//! `tack.lock`: each installed package's name, version, source, resolved commit and the SHA-256
//! of every file, so tack can refuse a package whose files changed after install.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lockfile {
    #[serde(default, rename = "package")]
    pub packages: Vec<LockedPackage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedPackage {
    pub name: String,
    pub version: String,
    /// As `Source::to_lock_string` writes it.
    pub source: String,
    /// The git commit the source resolved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Path inside the package → SHA-256 hex.
    pub files: BTreeMap<String, String>,
}

impl Lockfile {
    pub fn load(path: &Path) -> Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                toml::from_str(&text).with_context(|| format!("{} is malformed", path.display()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let text = format!(
            "# Written by `tack install`; pins the SHA-256 of every file of every package.\n{}",
            toml::to_string_pretty(self).context("serializing the lockfile")?
        );
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes())?;
        tmp.persist(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&LockedPackage> {
        self.packages.iter().find(|p| p.name == name)
    }

    pub fn upsert(&mut self, package: LockedPackage) {
        match self.packages.iter_mut().find(|p| p.name == package.name) {
            Some(existing) => *existing = package,
            None => self.packages.push(package),
        }
    }

    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.packages.len();
        self.packages.retain(|p| p.name != name);
        self.packages.len() != before
    }
}

/// SHA-256 of every regular file under `dir`, keyed by `/`-separated relative path.
pub fn hash_tree(dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out)?;
    Ok(out)
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let key = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            // A link is recorded (and so caught by verification) but never followed.
            let digest = if kind.is_file() {
                hex::encode(Sha256::digest(
                    std::fs::read(&path)
                        .with_context(|| format!("cannot read {}", path.display()))?,
                ))
            } else {
                "not-a-regular-file".to_string()
            };
            out.insert(key, digest);
        }
    }
    Ok(())
}

/// Why an installed package no longer matches its lock entry, if it doesn't.
pub fn verify(dir: &Path, locked: &LockedPackage) -> Result<(), String> {
    let actual = hash_tree(dir).map_err(|e| format!("{e:#}"))?;
    for (file, expected) in &locked.files {
        match actual.get(file) {
            None => return Err(format!("file {file} is missing")),
            Some(found) if found != expected => {
                return Err(format!(
                    "file {file} changed since install (locked sha256 {expected}, found {found})"
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = actual.keys().find(|f| !locked.files.contains_key(*f)) {
        return Err(format!("file {extra} appeared after install"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_detects_tampering() {
        let dir = tempfile::tempdir().expect("tmp");
        let pkg = dir.path().join("pkg");
        std::fs::create_dir_all(pkg.join("sub")).expect("dirs");
        std::fs::write(pkg.join("tack.toml"), "x").expect("write");
        std::fs::write(pkg.join("sub/a.wasm"), "y").expect("write");
        let locked = LockedPackage {
            name: "p".into(),
            version: "1.0.0".into(),
            source: "/src/p".into(),
            commit: Some("abc".into()),
            files: hash_tree(&pkg).expect("hash"),
        };
        let mut lock = Lockfile::default();
        lock.upsert(locked.clone());
        let path = dir.path().join("tack.lock");
        lock.save(&path).expect("save");
        assert_eq!(Lockfile::load(&path).expect("load"), lock);
        assert!(verify(&pkg, &locked).is_ok());

        std::fs::write(pkg.join("sub/a.wasm"), "tampered").expect("write");
        assert!(verify(&pkg, &locked)
            .expect_err("tampered")
            .contains("sub/a.wasm changed"));
        std::fs::write(pkg.join("sub/a.wasm"), "y").expect("write");
        std::fs::write(pkg.join("extra.wasm"), "z").expect("write");
        assert!(verify(&pkg, &locked)
            .expect_err("extra")
            .contains("appeared"));
    }
}
