//! Pi packages: a folder whose `package.json` names extensions, skills, prompt templates and
//! themes under its `pi` key, or keeps them in the conventional `extensions/`, `skills/`,
//! `prompts/` and `themes/` folders (Pi's `docs/packages.md`). tack installs one as it is, with
//! no tack.toml: each extension runs as a plugin of its own in tack's Pi runtime (`pi-<name>`,
//! holding the grants the user gives it), the package's `skills/` and `prompts/` folders
//! join those of every other package, and the Pi themes in its `themes/` are the terminal UI's
//! to choose from.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use globset::{Glob, GlobSetBuilder};
use serde::Deserialize;

/// A Pi package, read from its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiPackage {
    /// Its npm name (`@acme/pi-tools`).
    pub name: String,
    pub version: String,
    pub description: String,
    /// Each extension: a `.ts`/`.js` file, or a folder with its own `package.json` or `index`.
    pub extensions: Vec<PathBuf>,
    /// Resource entries tack does not load (skills, prompts and themes outside `skills/`,
    /// `prompts/` and `themes/`), to say so at install.
    pub unused: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct PackageJson {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    pi: Option<PiKey>,
}

#[derive(Debug, Default, Deserialize)]
struct PiKey {
    #[serde(default)]
    extensions: Option<Vec<String>>,
    #[serde(default)]
    skills: Option<Vec<String>>,
    #[serde(default)]
    prompts: Option<Vec<String>>,
    #[serde(default)]
    themes: Option<Vec<String>>,
}

impl PiPackage {
    /// The Pi package in `dir`; `None` when `dir` holds a tack.toml (a tack package) or no
    /// `package.json`.
    pub fn read(dir: &Path) -> Result<Option<PiPackage>> {
        if dir.join("tack.toml").is_file() || !dir.join("package.json").is_file() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(dir.join("package.json"))
            .context("cannot read the package's package.json")?;
        let json: PackageJson =
            serde_json::from_str(&text).context("the package's package.json is malformed")?;
        if json.name.is_empty() {
            bail!("the package's package.json has no name");
        }
        let pi = json.pi.unwrap_or_default();
        let mut unused = Vec::new();
        let extensions = match &pi.extensions {
            Some(entries) => resolve(dir, entries)?,
            None => discover(&dir.join("extensions")),
        };
        for (kind, entries, folder) in [
            ("skills", &pi.skills, "skills"),
            ("prompts", &pi.prompts, "prompts"),
            ("themes", &pi.themes, "themes"),
        ] {
            for entry in entries.iter().flatten() {
                let trimmed = entry.trim_start_matches("./").trim_end_matches('/');
                if trimmed != folder {
                    unused.push(format!(
                        "{kind} entry '{entry}' (tack reads a package's {kind} from its \
                         {folder}/ folder only)"
                    ));
                }
            }
        }
        if extensions.is_empty() && !dir.join("skills").is_dir() && !dir.join("prompts").is_dir() {
            bail!(
                "{} is not a Pi package tack can use: its package.json has no `pi` key naming \
                 extensions, and it has no extensions/, skills/ or prompts/ folder",
                json.name
            );
        }
        Ok(Some(PiPackage {
            name: json.name,
            version: if json.version.is_empty() {
                "0.0.0".into()
            } else {
                json.version
            },
            description: json.description,
            extensions,
            unused,
        }))
    }

    /// The name it is installed under: its npm name as a plugin name (`@acme/pi-tools` →
    /// `acme-pi-tools`).
    pub fn install_name(&self) -> String {
        let name: String = self
            .name
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let mut collapsed = String::with_capacity(name.len());
        for c in name.chars() {
            if !(c == '-' && collapsed.ends_with('-')) {
                collapsed.push(c);
            }
        }
        collapsed.trim_matches('-').to_string()
    }
}

/// The plugin name an extension runs as: `pi-` and its file's stem, or its folder's name.
pub fn extension_plugin_name(path: &Path) -> String {
    let stem = if path.is_dir() {
        path.file_name()
    } else {
        path.file_stem()
    };
    let stem: String = stem
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(60)
        .collect();
    format!("pi-{}", stem.trim_matches('-'))
}

/// Copies a whole staged Pi package (its dependencies too) from `from` to `to`, but its version
/// control folder.
pub fn copy_installed(from: &Path, to: &Path) -> Result<()> {
    copy_dir(from, to, &[".git"])
}

/// Copies a Pi package's own files from `from` to `to`: everything but version control and its
/// installed dependencies (npm installs those again). Links and special files are refused.
pub fn copy_sources(from: &Path, to: &Path) -> Result<()> {
    copy_dir(from, to, &["node_modules", ".git"])
}

/// Copies `from` into `to`, leaving out the top-level folders in `skipped`.
fn copy_dir(from: &Path, to: &Path, skipped: &[&str]) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let entry = entry?;
        let name = entry.file_name();
        let kind = entry.file_type()?;
        if skipped.iter().any(|s| name == *s) {
            continue;
        }
        let (source, target) = (entry.path(), to.join(&name));
        if kind.is_dir() {
            copy_dir(&source, &target, &[])?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target)
                .with_context(|| format!("cannot copy {}", source.display()))?;
        } else {
            bail!(
                "{} is {}; packages may not contain links or special files",
                source.display(),
                crate::lockfile::describe_kind(kind)
            );
        }
    }
    Ok(())
}

/// The `pi.extensions` entries: paths (a file, or a folder of extensions) and globs, each
/// relative to the package; `!pattern` leaves out what an earlier entry took.
fn resolve(dir: &Path, entries: &[String]) -> Result<Vec<PathBuf>> {
    let mut taken: Vec<PathBuf> = Vec::new();
    let mut excluded = GlobSetBuilder::new();
    for entry in entries {
        if let Some(pattern) = entry.strip_prefix('!') {
            excluded.add(glob(pattern)?);
            continue;
        }
        let relative = inside(entry)?;
        if entry.contains(['*', '?', '[', '{']) {
            let matcher = glob(entry)?.compile_matcher();
            let mut files = Vec::new();
            walk_files(dir, Path::new(""), &mut files)?;
            taken.extend(
                files
                    .into_iter()
                    .filter(|rel| matcher.is_match(rel))
                    .filter(|rel| rel.extension().is_some_and(|e| e == "ts" || e == "js"))
                    .map(|rel| dir.join(rel)),
            );
            continue;
        }
        let path = dir.join(&relative);
        if path.is_file() || (path.is_dir() && is_extension_folder(&path)) {
            taken.push(path);
        } else if path.is_dir() {
            taken.extend(discover(&path));
        } else {
            bail!("the package's pi.extensions names '{entry}', which it does not hold");
        }
    }
    let excluded = excluded.build().context("pi.extensions exclusions")?;
    let mut seen = std::collections::HashSet::new();
    Ok(taken
        .into_iter()
        .filter(|path| {
            let rel = path.strip_prefix(dir).unwrap_or(path);
            !excluded.is_match(rel)
        })
        .filter(|path| seen.insert(path.clone()))
        .collect())
}

fn glob(pattern: &str) -> Result<Glob> {
    inside(pattern)?;
    Glob::new(pattern.trim_start_matches("./"))
        .with_context(|| format!("'{pattern}' in pi.extensions is not a glob"))
}

/// An entry must stay inside the package.
fn inside(entry: &str) -> Result<PathBuf> {
    let path = Path::new(entry);
    if path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        bail!("pi.extensions entry '{entry}' is outside the package");
    }
    Ok(path.to_path_buf())
}

fn is_extension_folder(path: &Path) -> bool {
    ["package.json", "index.ts", "index.js"]
        .iter()
        .any(|f| path.join(f).is_file())
}

/// The extensions in a folder, as Pi finds them: each `.ts`/`.js` file, and each folder with a
/// `package.json` or an `index.ts`/`index.js`, in name order.
pub fn discover(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|path| {
            if path.is_dir() {
                is_extension_folder(path)
            } else {
                path.extension()
                    .is_some_and(|ext| ext == "ts" || ext == "js")
            }
        })
        .collect();
    found.sort();
    found
}

fn walk_files(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let dir = root.join(rel);
    for entry in
        std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?
    {
        let entry = entry?;
        let name = entry.file_name();
        if name == "node_modules" {
            continue;
        }
        let child = rel.join(&name);
        if entry.file_type()?.is_dir() {
            walk_files(root, &child, out)?;
        } else {
            out.push(child);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(dir)).expect("dirs");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn the_pi_key_names_extensions_with_globs_and_exclusions() {
        let dir = tempfile::tempdir().expect("tmp");
        let d = dir.path();
        write(
            d,
            "package.json",
            r#"{"name":"@acme/pi-tools","version":"1.0.0","pi":{
                "extensions":["./extensions","tools/*.ts","!extensions/legacy.ts"],
                "skills":["./skills"],"prompts":["docs/prompts"],
                "themes":["themes","extra/mine.json"]}}"#,
        );
        write(d, "extensions/a.ts", "");
        write(d, "extensions/legacy.ts", "");
        write(d, "extensions/b/index.ts", "");
        write(d, "extensions/notes.md", "");
        write(d, "tools/c.ts", "");
        let pkg = PiPackage::read(d).expect("reads").expect("a Pi package");
        let names: Vec<String> = pkg
            .extensions
            .iter()
            .map(|p| p.strip_prefix(d).unwrap_or(p).display().to_string())
            .collect();
        assert_eq!(names, ["extensions/a.ts", "extensions/b", "tools/c.ts"]);
        assert_eq!(pkg.install_name(), "acme-pi-tools");
        assert_eq!(pkg.unused.len(), 2, "{:?}", pkg.unused);
    }

    #[test]
    fn conventional_folders_without_a_pi_key_and_what_is_no_pi_package() {
        let dir = tempfile::tempdir().expect("tmp");
        let d = dir.path();
        write(
            d,
            "package.json",
            r#"{"name":"pi-hello","version":"0.1.0"}"#,
        );
        write(d, "extensions/hello.js", "");
        let pkg = PiPackage::read(d).expect("reads").expect("a Pi package");
        assert_eq!(pkg.extensions, [d.join("extensions/hello.js")]);
        std::fs::remove_dir_all(d.join("extensions")).expect("rm");
        assert!(PiPackage::read(d).is_err());
        write(d, "tack.toml", "");
        assert!(PiPackage::read(d).expect("reads").is_none());
        let escape = tempfile::tempdir().expect("tmp");
        write(
            escape.path(),
            "package.json",
            r#"{"name":"x","pi":{"extensions":["../outside.ts"]}}"#,
        );
        assert!(PiPackage::read(escape.path()).is_err());
    }
}
