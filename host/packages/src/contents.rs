//! What a package is: the files `tack install` takes from a folder. `tack.toml`, the component it
//! names, and either the files `[package] include` names or, without `include`, the folder minus
//! the build and tool folders of plugin toolchains (a Python plugin's `.venv` holds links, a
//! JavaScript plugin's `node_modules` ~400 MB, neither is needed at run time).

use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};
use globset::{Glob, GlobSet, GlobSetBuilder};
use tack_runtime::Manifest;

/// Folders never taken unless `include` names them by path: version control, dependencies and
/// build outputs of the SDK toolchains, and Python and Zig caches.
const SKIPPED: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    ".mypy_cache",
    ".pytest_cache",
    "zig-cache",
    ".zig-cache",
    "zig-out",
];

/// The files of a package, relative to its folder, with their sizes.
#[derive(Debug, Default)]
pub struct Contents {
    pub files: Vec<(PathBuf, u64)>,
}

impl Contents {
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|(_, size)| size).sum()
    }

    /// "3 files, 1.2 MiB: tack.toml, x.wasm, README.md", listing at most `shown` names.
    pub fn summary(&self, shown: usize) -> String {
        let mut names: Vec<String> = self
            .files
            .iter()
            .take(shown)
            .map(|(path, _)| slash_path(path))
            .collect();
        if self.files.len() > shown {
            names.push(format!("and {} more", self.files.len() - shown));
        }
        format!(
            "{} file{}, {}: {}",
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" },
            tack_core::text::human_size(self.total_size()),
            names.join(", ")
        )
    }
}

/// The manifest of the package in `dir`.
pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join("tack.toml");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("the package has no readable tack.toml ({})", path.display()))?;
    Manifest::parse(&text).map_err(|e| anyhow::anyhow!("the package's tack.toml is invalid: {e}"))
}

/// The package in `dir`: its tack.toml decides what belongs to it.
pub fn select(dir: &Path) -> Result<Contents> {
    let manifest = read_manifest(dir)?;
    let mut picked: Vec<PathBuf> = vec![PathBuf::from("tack.toml")];
    let component = relative(&manifest.plugin.component, "component")?;
    if dir.join(&component).is_file() {
        picked.push(component);
    }
    match &manifest.package.include {
        None => walk(dir, Path::new(""), Folders::SkipTools, &mut |rel| {
            picked.push(rel.to_path_buf())
        })?,
        Some(patterns) => include(dir, patterns, &mut picked)?,
    }
    let mut seen = std::collections::HashSet::new();
    picked.retain(|path| seen.insert(path.clone()));
    let mut files = Vec::with_capacity(picked.len());
    for rel in picked {
        let path = dir.join(&rel);
        let meta = std::fs::symlink_metadata(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if !meta.file_type().is_file() {
            bail!(
                "{} is {}; packages may not contain links or special files",
                path.display(),
                super::lockfile::describe_kind(meta.file_type())
            );
        }
        files.push((rel, meta.len()));
    }
    Ok(Contents { files })
}

/// Copies the package in `from` to `to` (created), returning what it copied.
pub fn copy_package(from: &Path, to: &Path) -> Result<Contents> {
    let contents = select(from)?;
    for (rel, _) in &contents.files {
        let target = to.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::copy(from.join(rel), &target)
            .with_context(|| format!("cannot copy {}", from.join(rel).display()))?;
    }
    Ok(contents)
}

/// `include` entries: a plain path (file or folder, even inside a skipped folder) is taken as
/// named; a glob (`prompts/*.md`, `assets/**`) is matched against the files outside skipped
/// folders. An entry that matches nothing is an error: it is a typo or a missing build step.
fn include(dir: &Path, patterns: &[String], picked: &mut Vec<PathBuf>) -> Result<()> {
    let mut globs = GlobSetBuilder::new();
    let mut glob_texts = Vec::new();
    for pattern in patterns {
        let rel = relative(pattern, "[package] include entry")?;
        if pattern.contains(['*', '?', '[', '{']) {
            let glob = Glob::new(&slash_path(&rel))
                .with_context(|| format!("[package] include entry '{pattern}' is not a glob"))?;
            globs.add(glob);
            glob_texts.push(pattern.as_str());
            continue;
        }
        let path = dir.join(&rel);
        let meta = std::fs::symlink_metadata(&path).with_context(|| {
            format!("[package] include names '{pattern}', which does not exist")
        })?;
        if meta.is_dir() {
            walk(&path, &rel, Folders::All, &mut |child| {
                picked.push(child.to_path_buf())
            })?;
        } else {
            picked.push(rel);
        }
    }
    if glob_texts.is_empty() {
        return Ok(());
    }
    let set: GlobSet = globs.build().context("cannot build the include globs")?;
    let mut matched = vec![false; glob_texts.len()];
    walk(dir, Path::new(""), Folders::SkipTools, &mut |rel| {
        let hits = set.matches(slash_path(rel));
        for &i in &hits {
            matched[i] = true;
        }
        if !hits.is_empty() {
            picked.push(rel.to_path_buf());
        }
    })?;
    if let Some(i) = matched.iter().position(|m| !m) {
        bail!(
            "[package] include entry '{}' matches no file",
            glob_texts[i]
        );
    }
    Ok(())
}

/// Which folders [`walk`] goes into.
#[derive(Clone, Copy, PartialEq)]
enum Folders {
    /// All but the [`SKIPPED`] ones and Python virtual environments, which are not even looked
    /// into (a `.venv` holds links by design).
    SkipTools,
    /// Every one (a folder `include` names by path).
    All,
}

/// Every entry under `dir` but folders, in name order, as paths relative to the package (`rel`
/// is `dir`'s). Links and special files are reported too, so the caller refuses them by name.
fn walk(dir: &Path, rel: &Path, folders: Folders, each: &mut dyn FnMut(&Path)) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("cannot read {}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let child = rel.join(&name);
        if !entry.file_type()?.is_dir() {
            each(&child);
            continue;
        }
        let skipped = folders == Folders::SkipTools
            && (SKIPPED.iter().any(|s| name == *s) || entry.path().join("pyvenv.cfg").is_file());
        if !skipped {
            walk(&entry.path(), &child, folders, each)?;
        }
    }
    Ok(())
}

/// A path from tack.toml, which must stay inside the package folder.
fn relative(text: &str, what: &str) -> Result<PathBuf> {
    let path = Path::new(text);
    let inside = !text.is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        bail!("{what} '{text}' must be a path inside the package folder");
    }
    Ok(path.components().collect())
}

fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn names(contents: &Contents) -> Vec<String> {
        let mut names: Vec<String> = contents.files.iter().map(|(p, _)| slash_path(p)).collect();
        names.sort();
        names
    }

    const MANIFEST: &str =
        "[plugin]\nname = \"p\"\nversion = \"0.1.0\"\napi = \"0.1\"\ncomponent = \"p.wasm\"\n";

    #[test]
    fn without_include_the_tool_folders_are_left_out() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        write(root, "tack.toml", MANIFEST);
        write(root, "p.wasm", "wasm");
        write(root, "README.md", "hi");
        write(root, "skills/a/SKILL.md", "skill");
        write(root, "node_modules/x/index.js", "x");
        write(root, "target/release/p.wasm", "old");
        write(root, ".venv/pyvenv.cfg", "");
        write(root, "env/pyvenv.cfg", "");
        write(root, "src/__pycache__/app.pyc", "");
        std::os::unix::fs::symlink("lib", root.join(".venv/lib64")).expect("link");
        let contents = select(root).expect("select");
        assert_eq!(
            names(&contents),
            ["README.md", "p.wasm", "skills/a/SKILL.md", "tack.toml"]
        );
        assert_eq!(contents.total_size(), (MANIFEST.len() + 4 + 2 + 5) as u64);
    }

    #[test]
    fn include_takes_only_what_it_names_and_refuses_typos_and_escapes() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        let manifest = format!(
            "{MANIFEST}[package]\ninclude = [\"README.md\", \"prompts/*.md\", \"target/assets\"]\n"
        );
        write(root, "tack.toml", &manifest);
        write(root, "p.wasm", "wasm");
        write(root, "README.md", "hi");
        write(root, "NOTES.md", "not shipped");
        write(root, "prompts/a.md", "a");
        write(root, "prompts/b.txt", "b");
        write(root, "target/assets/logo.svg", "<svg/>");
        write(root, "src/lib.rs", "");
        let contents = select(root).expect("select");
        assert_eq!(
            names(&contents),
            [
                "README.md",
                "p.wasm",
                "prompts/a.md",
                "tack.toml",
                "target/assets/logo.svg"
            ]
        );

        write(
            root,
            "tack.toml",
            &format!("{MANIFEST}[package]\ninclude = [\"docs/*.md\"]\n"),
        );
        let err = select(root).expect_err("no match").to_string();
        assert!(err.contains("'docs/*.md' matches no file"), "{err}");
        write(
            root,
            "tack.toml",
            &format!("{MANIFEST}[package]\ninclude = [\"../secret\"]\n"),
        );
        let err = select(root).expect_err("escape").to_string();
        assert!(err.contains("inside the package folder"), "{err}");
    }

    #[test]
    fn a_link_outside_the_skipped_folders_is_refused_by_name() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        write(root, "tack.toml", MANIFEST);
        write(root, "p.wasm", "wasm");
        std::os::unix::fs::symlink("/etc/passwd", root.join("passwd")).expect("link");
        let err = select(root).expect_err("link").to_string();
        assert!(err.contains("passwd") && err.contains("links"), "{err}");
    }
}
