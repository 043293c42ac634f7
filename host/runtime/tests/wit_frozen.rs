//! A released WIT version is frozen: every `vX.Y.Z.sha256` (in `sha256sum` format) must match its
//! folder `vX.Y.Z/` beside it file for file, so a plugin built against that version always meets
//! the same contract. Every package has the same layout, `wit/<package>/vX.Y.Z/` (plugin, agents,
//! dirs, provider), and one test checks them all. A change to an API goes into a new version
//! folder (wit/README.md says how).

#![allow(clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn wit_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wit")
}

/// `name -> sha256` of every file in `dir`.
fn hashes_on_disk(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .map(|path| {
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let name = path
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (name, hex::encode(Sha256::digest(&bytes)))
        })
        .collect()
}

/// `name -> sha256` as recorded in a `sha256sum` listing.
fn recorded_hashes(listing: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(listing)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", listing.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (hash, name) = line
                .split_once("  ")
                .unwrap_or_else(|| panic!("{}: not a sha256sum line: {line}", listing.display()));
            (name.to_string(), hash.to_string())
        })
        .collect()
}

/// A released version: its package, its version and the folder and hash listing that hold it.
struct Released {
    package: String,
    version: String,
    dir: PathBuf,
    listing: PathBuf,
}

/// The released versions of the package whose folders are in `root`: every `vX.Y.Z.sha256`.
fn released_in(root: &Path, package: &str) -> Vec<Released> {
    let mut versions: Vec<Released> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?;
            let version = name.strip_prefix('v')?.strip_suffix(".sha256")?.to_string();
            Some(Released {
                package: package.to_string(),
                dir: root.join(format!("v{version}")),
                version,
                listing: path,
            })
        })
        .collect();
    versions.sort_by(|a, b| a.version.cmp(&b.version));
    versions
}

/// Every released version of every package: each package is a folder of `wit/` named for it.
fn released() -> Vec<Released> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(wit_root()).expect("wit/ is readable") {
        let path = entry.expect("a directory entry").path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if path.is_dir() {
            all.extend(released_in(&path, name));
        }
    }
    all
}

/// Nothing but package folders (and the README) at the top of `wit/`: a version folder there
/// would be a second layout.
#[test]
fn every_package_has_a_folder_of_its_own() {
    for entry in std::fs::read_dir(wit_root()).expect("wit/ is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        assert!(
            name == "README.md" || (path.is_dir() && !name.starts_with('v')),
            "wit/{name}: the top of wit/ holds one folder per package (wit/<package>/vX.Y.Z/)"
        );
    }
}

#[test]
fn released_wit_versions_are_unchanged() {
    let versions = released();
    for (package, version) in [
        ("plugin", "0.1.0"),
        ("agents", "0.1.0"),
        ("dirs", "0.1.0"),
        ("provider", "0.1.0"),
    ] {
        assert!(
            versions
                .iter()
                .any(|r| r.package == package && r.version == version),
            "tack:{package}@{version} is released and its hashes must stay recorded"
        );
    }
    for released in versions {
        let recorded = recorded_hashes(&released.listing);
        let on_disk = hashes_on_disk(&released.dir);
        let mut changes = Vec::new();
        for (name, hash) in &recorded {
            match on_disk.get(name) {
                None => changes.push(format!("{name} was removed")),
                Some(now) if now != hash => changes.push(format!("{name} was edited")),
                Some(_) => {}
            }
        }
        for name in on_disk.keys().filter(|n| !recorded.contains_key(*n)) {
            changes.push(format!("{name} was added"));
        }
        let next = next_minor(&released.version);
        assert!(
            changes.is_empty(),
            "{} changed ({}).\ntack:{}@{} is released: add v{next} beside it instead of \
             editing it (wit/README.md, \"Versioning\", lists the steps).",
            released.dir.display(),
            changes.join(", "),
            released.package,
            released.version
        );
    }
}

#[test]
fn every_file_of_a_version_declares_that_version() {
    for released in released() {
        let package = format!("package tack:{}@{};", released.package, released.version);
        for name in hashes_on_disk(&released.dir)
            .keys()
            .filter(|n| n.ends_with(".wit"))
        {
            let text = std::fs::read_to_string(released.dir.join(name)).expect("readable");
            assert!(
                text.lines().any(|line| line == package),
                "{}/{name} does not declare `{package}`",
                released.dir.display()
            );
        }
    }
}

fn next_minor(version: &str) -> String {
    let mut parts = version.split('.');
    let major = parts.next().unwrap_or("0");
    let minor: u64 = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    format!("{major}.{}.0", minor + 1)
}
