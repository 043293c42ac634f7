//! `tack.lock`: each installed package's name, version, source, resolved commit and the SHA-256
//! of every file, so tack can refuse a package whose files changed after install.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
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
    /// The OCI manifest digest the source resolved to (`sha256:<hex>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The npm tarball's integrity (`sha512-<base64>`), for an npm source: a reinstall must
    /// get the same tarball.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
    /// Fingerprint of the key that signed it, if signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_by: Option<String>,
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

    /// The names of the packages a lockfile pins; none when it is missing or unreadable (for
    /// messages about a project, which must not fail over a broken lockfile).
    pub fn package_names(path: &Path) -> Vec<String> {
        Self::load(path)
            .map(|lock| lock.packages.into_iter().map(|p| p.name).collect())
            .unwrap_or_default()
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

/// SHA-256 of every file under `dir`, keyed by `/`-separated relative path. A package holds only
/// regular files and folders: a link or a special file (FIFO, device, socket) is an error naming it.
pub fn hash_tree(dir: &Path) -> Result<BTreeMap<String, String>> {
    Ok(read_tree(dir)?
        .into_iter()
        .map(|(key, bytes)| (key, hex::encode(Sha256::digest(&bytes))))
        .collect())
}

/// Every file under `dir` and its bytes, read once: what is checked is what is used.
pub fn read_tree(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out)?;
    Ok(out)
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        let path = entry.path();
        // The entry's own type: a link is reported as a link, never followed.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(root, &path, out)?;
            continue;
        }
        if !kind.is_file() {
            bail!(
                "{} is {}; packages may hold only regular files and folders",
                path.display(),
                describe_kind(kind)
            );
        }
        let rel = path.strip_prefix(root).unwrap_or(&path);
        let key = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        out.insert(key, read_regular(&path)?);
    }
    Ok(())
}

/// The bytes of the regular file at `path`, refusing a link or special file swapped in since the
/// folder was listed.
fn read_regular(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        bail!(
            "{} is {}; packages may hold only regular files and folders",
            path.display(),
            describe_kind(kind)
        );
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes)
}

/// What a file that is neither a regular file nor a folder is, in words.
pub fn describe_kind(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device file";
        }
    }
    if kind.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

/// Why an installed package no longer matches its lock entry, if it doesn't.
pub fn verify(dir: &Path, locked: &LockedPackage) -> Result<(), String> {
    verified_files(dir, locked).map(|_| ())
}

/// The files of an installed package, read once and checked against its lock entry: the loader
/// uses these bytes, so a file swapped after the check is never loaded.
pub fn verified_files(
    dir: &Path,
    locked: &LockedPackage,
) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let files = read_tree(dir).map_err(|e| format!("{e:#}"))?;
    for (file, expected) in &locked.files {
        let Some(bytes) = files.get(file) else {
            return Err(format!("file {file} is missing"));
        };
        let found = hex::encode(Sha256::digest(bytes));
        if &found != expected {
            return Err(format!(
                "file {file} changed since install (locked sha256 {expected}, found {found})"
            ));
        }
    }
    if let Some(extra) = files.keys().find(|f| !locked.files.contains_key(*f)) {
        return Err(format!("file {extra} appeared after install"));
    }
    Ok(files)
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
            digest: None,
            integrity: Some("sha512-abc".into()),
            signed_by: None,
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

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_are_refused_by_name() {
        let dir = tempfile::tempdir().expect("tmp");
        let pkg = dir.path().join("pkg");
        std::fs::create_dir_all(&pkg).expect("dirs");
        std::fs::write(pkg.join("tack.toml"), "x").expect("write");
        std::os::unix::fs::symlink("/etc/passwd", pkg.join("data.txt")).expect("link");
        let err = format!("{:#}", hash_tree(&pkg).expect_err("link"));
        assert!(
            err.contains("data.txt") && err.contains("symbolic link"),
            "{err}"
        );

        std::fs::remove_file(pkg.join("data.txt")).expect("rm");
        let fifo = std::ffi::CString::new(pkg.join("pipe").to_str().expect("utf8")).expect("c");
        // SAFETY: mkfifo(3) with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let err = format!("{:#}", hash_tree(&pkg).expect_err("fifo"));
        assert!(err.contains("pipe") && err.contains("FIFO"), "{err}");
    }
}
