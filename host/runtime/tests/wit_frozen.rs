//! A released WIT version is frozen: every `wit/vX.Y.Z.sha256` (in `sha256sum` format) must match
//! its folder `wit/vX.Y.Z/` file for file, so a plugin built against that version always meets the
//! same contract. A change to the API goes into a new version folder (wit/README.md says how).

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

/// The released versions: every `vX.Y.Z.sha256` beside the folders.
fn released() -> Vec<(String, PathBuf)> {
    let mut versions: Vec<(String, PathBuf)> = std::fs::read_dir(wit_root())
        .expect("wit/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?;
            let version = name.strip_prefix('v')?.strip_suffix(".sha256")?.to_string();
            Some((version, path))
        })
        .collect();
    versions.sort();
    versions
}

#[test]
fn released_wit_versions_are_unchanged() {
    let versions = released();
    assert!(
        versions.iter().any(|(v, _)| v == "0.1.0"),
        "wit/v0.1.0.sha256 is missing: 0.1.0 is released and its hashes must stay recorded"
    );
    for (version, listing) in versions {
        let dir = wit_root().join(format!("v{version}"));
        let recorded = recorded_hashes(&listing);
        let on_disk = hashes_on_disk(&dir);
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
        let next = next_minor(&version);
        assert!(
            changes.is_empty(),
            "wit/v{version}/ changed ({}).\n{version} is released: add wit/v{next} instead of \
             editing it (wit/README.md, \"Versioning\", lists the steps).",
            changes.join(", ")
        );
    }
}

#[test]
fn every_file_of_a_version_declares_that_version() {
    for (version, _) in released() {
        let dir = wit_root().join(format!("v{version}"));
        let package = format!("package tack:plugin@{version};");
        for name in hashes_on_disk(&dir).keys().filter(|n| n.ends_with(".wit")) {
            let text = std::fs::read_to_string(dir.join(name)).expect("readable");
            assert!(
                text.lines().any(|line| line == package),
                "wit/v{version}/{name} does not declare `{package}`"
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
