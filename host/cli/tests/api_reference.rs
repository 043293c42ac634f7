//! The API reference in docs/api/ is generated from wit/ (wit-bindgen's markdown generator, one
//! page per world of every WIT package under wit/) and must be current: this test regenerates it
//! in memory and compares. `TACK_BLESS_API_DOCS=1 cargo test -p tack --test api_reference`
//! rewrites the pages.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wit_bindgen_core::wit_parser::Resolve;
use wit_bindgen_core::Files;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// docs/api/<package folder>/<world>.md for every world of every package folder in wit/.
fn generate() -> BTreeMap<PathBuf, String> {
    let mut pages = BTreeMap::new();
    let wit = repo().join("wit");
    for dir in package_dirs(&wit) {
        let folder = dir
            .strip_prefix(&wit)
            .expect("under wit/")
            .to_string_lossy()
            .into_owned();
        let mut resolve = Resolve::default();
        // A version that only adds to its predecessors (tack:plugin@0.2.0) uses them as
        // dependencies: push every earlier version of the package first.
        for earlier in earlier_versions(&dir) {
            resolve.push_dir(&earlier).expect("the earlier WIT parses");
        }
        let (package, _) = resolve.push_dir(&dir).expect("the WIT parses");
        let worlds: Vec<_> = resolve.packages[package].worlds.values().copied().collect();
        let mut all_text = String::new();
        for world in worlds {
            let name = resolve.worlds[world].name.clone();
            let mut files = Files::default();
            wit_bindgen_markdown::Opts::default()
                .build()
                .generate(&mut resolve, world, &mut files)
                .expect("markdown generates");
            for (file, bytes) in files.iter() {
                if file.ends_with(".md") {
                    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8");
                    all_text.push_str(&text);
                    pages.insert(PathBuf::from(&folder).join(format!("{name}.md")), text);
                }
            }
        }
        // An interface no world uses would be missing from every page.
        for interface in resolve.packages[package].interfaces.keys() {
            assert!(
                all_text.contains(interface.as_str()),
                "interface {interface} of wit/{folder} is in no world, so not in docs/api"
            );
        }
    }
    pages
}

/// The other version folders beside `dir` (`plugin/v0.1.0/` for `plugin/v0.2.0/`) that sort
/// before it, oldest first.
fn earlier_versions(dir: &Path) -> Vec<PathBuf> {
    let Some(parent) = dir.parent() else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(parent)
        .expect("package folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.as_path() < dir)
        .collect();
    found.sort();
    found
}

/// Every folder under `wit/` that holds `.wit` files (a package version: `plugin/v0.1.0/`, `agents/v0.1.0/`).
fn package_dirs(wit: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![wit.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut holds_wit = false;
        for entry in std::fs::read_dir(&dir).expect("wit folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "wit") {
                holds_wit = true;
            }
        }
        if holds_wit {
            found.push(dir);
        }
    }
    found.sort();
    found
}

fn on_disk(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut pages = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") && path != root.join("README.md")
            {
                let rel = path
                    .strip_prefix(root)
                    .expect("under docs/api")
                    .to_path_buf();
                pages.insert(rel, std::fs::read_to_string(&path).expect("page"));
            }
        }
    }
    pages
}

#[test]
fn the_api_reference_is_generated_from_the_current_wit() {
    let docs = repo().join("docs/api");
    let generated = generate();
    assert!(!generated.is_empty(), "wit/ has no worlds");
    if std::env::var_os("TACK_BLESS_API_DOCS").is_some() {
        for rel in on_disk(&docs).keys() {
            if !generated.contains_key(rel) {
                std::fs::remove_file(docs.join(rel)).expect("remove a stale page");
            }
        }
        for (rel, text) in &generated {
            let path = docs.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("docs/api");
            std::fs::write(path, text).expect("write a page");
        }
    }
    let current = on_disk(&docs);
    assert_eq!(
        current.keys().collect::<Vec<_>>(),
        generated.keys().collect::<Vec<_>>(),
        "docs/api is out of date: run TACK_BLESS_API_DOCS=1 cargo test -p tack --test api_reference"
    );
    for (rel, text) in &generated {
        assert!(
            &current[rel] == text,
            "docs/api/{} is out of date: run TACK_BLESS_API_DOCS=1 cargo test -p tack --test api_reference",
            rel.display()
        );
    }
}
