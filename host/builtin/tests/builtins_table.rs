//! `builtins.toml` and the folders it names agree, so that a built-in is one folder and one line.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[path = "../table.rs"]
mod table;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn guests() -> Vec<table::Guest> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("builtins.toml"))
        .unwrap();
    table::parse(&text).unwrap().guests
}

#[test]
fn every_entry_names_a_crate_and_every_built_in_has_a_manifest() {
    let guests = guests();
    let (mut packages, mut envs) = (BTreeSet::new(), BTreeSet::new());
    for guest in &guests {
        assert!(
            envs.insert(guest.env()),
            "two guests are artifacts::{}",
            guest.env()
        );
        assert!(
            packages.insert(&guest.package),
            "{} is listed twice",
            guest.package
        );
        let folder = root().join(&guest.folder);
        let cargo = std::fs::read_to_string(folder.join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{}: no Cargo.toml: {e}", guest.folder));
        let named = format!("name = \"{}\"", guest.package);
        assert!(
            cargo.contains(&named),
            "{}/Cargo.toml is not {}",
            guest.folder,
            guest.package
        );
        if guest.embedded {
            assert!(
                folder.join("tack.toml").is_file(),
                "{} has no tack.toml",
                guest.folder
            );
        }
    }
}

#[test]
fn every_plugin_folder_with_a_manifest_is_listed() {
    let listed: BTreeSet<PathBuf> = guests().iter().map(|g| PathBuf::from(&g.folder)).collect();
    for entry in std::fs::read_dir(root().join("plugins")).unwrap() {
        let folder = entry.unwrap().path();
        if folder.join("tack.toml").is_file() {
            let relative = Path::new("plugins").join(folder.file_name().unwrap());
            assert!(
                listed.contains(&relative),
                "{} is not in builtins.toml",
                relative.display()
            );
        }
    }
}

#[test]
fn every_built_in_is_embedded_in_the_listed_order() {
    let embedded: Vec<String> = guests()
        .into_iter()
        .filter(|g| g.embedded)
        .map(|g| g.package)
        .collect();
    let names: Vec<&str> = tack_builtin::BUILTINS.iter().map(|b| b.name).collect();
    assert_eq!(names, embedded);
}
