//! npm sources (`npm:<package>[@<version or tag>]`): a package from the npm registry the user's
//! npm is configured for (`~/.npmrc`, `npm_config_registry`, its auth), fetched with the user's
//! own `npm` so that registries, mirrors and tokens work as they do for every other tool.
//!
//! npm fetches the tarball (`npm pack`), tack checks it against the integrity npm reports and,
//! on a reinstall, against the one the lockfile pinned, and unpacks it itself (no links, nothing
//! outside the folder). The package's own dependencies are installed with npm next to it, never
//! running a package's install scripts (`--ignore-scripts`): those would run on the user's
//! machine outside any sandbox, which is the one thing installing a package must not do.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use serde::Deserialize;
use sha2::{Digest, Sha512};

/// The npm command: `$TACK_NPM`, else `npm` on the PATH.
fn npm() -> PathBuf {
    std::env::var_os("TACK_NPM")
        .filter(|n| !n.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("npm"))
}

/// What follows `npm:`: a package name, optionally `@` a version, range or tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpmSpec {
    pub name: String,
    pub version: Option<String>,
}

impl NpmSpec {
    pub fn parse(text: &str) -> Result<NpmSpec> {
        let text = text.trim();
        // A scoped name starts with `@`; the version follows the next `@`.
        let split_at = match text.strip_prefix('@') {
            Some(rest) => rest.find('@').map(|i| i + 1),
            None => text.find('@'),
        };
        let (name, version) = match split_at {
            Some(i) => (&text[..i], Some(&text[i + 1..])),
            None => (text, None),
        };
        if !valid_name(name) {
            bail!("npm:{text}: '{name}' is not an npm package name");
        }
        // A version, a range or a tag: never a git URL, a file or a tarball URL, which npm
        // would fetch from elsewhere than the registry (and a git one would run its scripts).
        let version = match version {
            Some(v) if !is_registry_range(v) => {
                bail!("npm:{text}: '{v}' is not a version, range or tag of the registry")
            }
            other => other.map(str::to_string),
        };
        Ok(NpmSpec {
            name: name.to_string(),
            version,
        })
    }

    /// `name` or `name@version`, as npm takes it.
    pub fn to_npm(&self) -> String {
        match &self.version {
            Some(v) => format!("{}@{v}", self.name),
            None => self.name.clone(),
        }
    }

    /// An exact version (`1.2.3`, `1.2.3-beta.1`), which never resolves to another.
    pub fn is_exact(&self) -> bool {
        self.version.as_deref().is_some_and(|v| {
            let core = v.split(['-', '+']).next().unwrap_or_default();
            let parts: Vec<&str> = core.split('.').collect();
            parts.len() == 3
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
    }
}

/// A version, range or tag of the registry: `1.2.3`, `^1.2`, `>=1 <2`, `latest`; nothing with
/// `:` or `/` (a git, file, URL or alias spec).
fn is_registry_range(spec: &str) -> bool {
    !spec.trim().is_empty()
        && spec.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    '.' | '^' | '~' | '<' | '>' | '=' | '|' | '*' | '+' | '-' | '_' | ' '
                )
        })
}

/// Every dependency spec a package.json lists (`dependencies`, `optionalDependencies`, and the
/// `overrides` that replace any dependency's), refusing one npm would fetch from elsewhere than
/// the registry: a git repository runs its `prepare` script whatever `--ignore-scripts` says,
/// and a file or URL is not what the lockfile can pin.
fn check_dependency_specs(manifest: &serde_json::Value) -> Result<()> {
    fn walk(place: &str, value: &serde_json::Value) -> Result<()> {
        match value {
            serde_json::Value::String(spec) if !is_registry_range(spec) => bail!(
                "{place} asks npm for '{spec}', which is not a version or range of the \
                 registry (git, file and URL dependencies are refused: they are fetched from \
                 elsewhere, and a git one runs its own scripts)"
            ),
            serde_json::Value::Object(map) => {
                for (name, inner) in map {
                    walk(&format!("{place} {name}"), inner)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    for field in ["dependencies", "optionalDependencies", "overrides"] {
        if let Some(value) = manifest.get(field) {
            walk(&format!("package.json {field}:"), value)?;
        }
    }
    Ok(())
}

/// npm's rules for a name: lower case, URL-safe, at most 214 characters, `@scope/name` or
/// `name`, not starting with `.` or `_`.
fn valid_name(name: &str) -> bool {
    let part_ok = |part: &str| {
        !part.is_empty()
            && !part.starts_with(['.', '_'])
            && part.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '_' | '~')
            })
    };
    if name.len() > 214 {
        return false;
    }
    match name.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, rest)| part_ok(scope) && part_ok(rest)),
        None => part_ok(name),
    }
}

/// What `npm pack --json` says of the tarball it fetched.
#[derive(Debug, Deserialize)]
struct Packed {
    name: String,
    version: String,
    filename: String,
    integrity: String,
}

/// A package fetched from npm and unpacked.
#[derive(Debug)]
pub struct Fetched {
    /// The package's folder (with its dependencies installed).
    pub dir: PathBuf,
    pub name: String,
    pub version: String,
    /// The tarball's integrity as npm records it (`sha512-<base64>`).
    pub integrity: String,
}

/// Fetches `spec` into `work`, checks the tarball against npm's integrity and `pinned` (the
/// lockfile's, on a reinstall), unpacks it and installs its dependencies.
pub fn fetch(spec: &NpmSpec, pinned: Option<&str>, work: &Path) -> Result<Fetched> {
    let downloads = work.join("npm-pack");
    std::fs::create_dir_all(&downloads)
        .with_context(|| format!("cannot create {}", downloads.display()))?;
    // Run from the empty work folder: a project's own .npmrc is not the user's configuration.
    let out = Command::new(npm())
        .current_dir(&downloads)
        .args(["pack", &spec.to_npm(), "--json", "--ignore-scripts"])
        .arg("--pack-destination")
        .arg(&downloads)
        .output()
        .with_context(|| {
            format!(
                "cannot run npm ({}) to fetch npm:{}; installing from npm needs Node.js's npm",
                npm().display(),
                spec.to_npm()
            )
        })?;
    if !out.status.success() {
        bail!(
            "npm could not fetch npm:{}:\n{}",
            spec.to_npm(),
            last_lines(&String::from_utf8_lossy(&out.stderr), 12)
        );
    }
    let packed: Vec<Packed> = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "npm pack printed no JSON for npm:{}: {}",
            spec.to_npm(),
            last_lines(&String::from_utf8_lossy(&out.stdout), 5)
        )
    })?;
    let [packed] = <[Packed; 1]>::try_from(packed)
        .map_err(|_| anyhow::anyhow!("npm pack fetched more or less than one package"))?;
    if packed.name != spec.name {
        bail!(
            "npm:{} resolved to a package named '{}'",
            spec.to_npm(),
            packed.name
        );
    }
    if packed.filename.contains(['/', '\\']) {
        bail!("npm pack named its tarball '{}'", packed.filename);
    }
    let tarball = downloads.join(&packed.filename);
    let bytes = std::fs::read(&tarball).with_context(|| {
        format!(
            "cannot read the tarball npm fetched ({})",
            tarball.display()
        )
    })?;
    if bytes.len() as u64 > crate::MAX_DOWNLOAD {
        bail!(
            "npm:{} is {} MiB, more than the {} MiB a package may be",
            spec.to_npm(),
            bytes.len() >> 20,
            crate::MAX_DOWNLOAD >> 20
        );
    }
    let integrity = sha512_integrity(&bytes);
    if !matches_integrity(&integrity, &packed.integrity) {
        bail!(
            "the tarball of {}@{} has integrity {integrity}, not the {} npm reported",
            packed.name,
            packed.version,
            packed.integrity
        );
    }
    if let Some(pinned) = pinned {
        if !matches_integrity(&integrity, pinned) {
            bail!(
                "{}@{} is not the tarball the lockfile pinned: it has integrity {integrity}, the \
                 lock {pinned}",
                packed.name,
                packed.version
            );
        }
    }
    let unpacked = work.join("npm-unpacked");
    crate::archive::extract(&bytes, &unpacked)?;
    // npm's tarballs hold the package in one folder, usually `package/`; npm takes whatever
    // the one folder is called.
    let folders: Vec<PathBuf> = std::fs::read_dir(&unpacked)
        .with_context(|| format!("cannot read {}", unpacked.display()))?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    let dir = match folders.as_slice() {
        [only] if only.join("package.json").is_file() => only.clone(),
        _ => bail!(
            "npm:{} does not hold one folder with a package.json",
            spec.to_npm()
        ),
    };
    install_dependencies(&dir)?;
    Ok(Fetched {
        dir,
        name: packed.name,
        version: packed.version,
        integrity,
    })
}

/// Installs the runtime dependencies of the package in `dir` next to it (`node_modules`), when
/// it has any: no install scripts, no links (`.bin`), no peers, no lockfile written.
pub fn install_dependencies(dir: &Path) -> Result<()> {
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("package.json")).context("cannot read package.json")?,
    )
    .context("package.json is not JSON")?;
    check_dependency_specs(&manifest)?;
    // npm reads a project's own .npmrc from the folder it installs in: one the package ships
    // could point npm's `git` (or anything else) at a program of the package's.
    for config in [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"] {
        let path = dir.join(config);
        if std::fs::symlink_metadata(&path).is_ok() {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove the package's own {config}"))?;
        }
    }
    let has_dependencies = manifest
        .get("dependencies")
        .and_then(serde_json::Value::as_object)
        .is_some_and(|deps| !deps.is_empty());
    if !has_dependencies {
        return Ok(());
    }
    let out = Command::new(npm())
        .current_dir(dir)
        .args([
            "install",
            // A git dependency deeper down fails rather than runs its `prepare` script.
            "--git=false",
            "--omit=dev",
            // Pi's core packages are the peers of every Pi package, and tack's Pi runtime
            // provides them: npm must not fetch (or even resolve) them.
            "--legacy-peer-deps",
            "--ignore-scripts",
            "--no-bin-links",
            "--no-package-lock",
            "--no-save",
            "--no-audit",
            "--no-fund",
        ])
        .output()
        .with_context(|| format!("cannot run npm ({})", npm().display()))?;
    if !out.status.success() {
        bail!(
            "npm could not install the package's dependencies:\n{}",
            last_lines(&String::from_utf8_lossy(&out.stderr), 12)
        );
    }
    Ok(())
}

/// `sha512-<base64>` of `bytes`, as npm writes integrity.
pub fn sha512_integrity(bytes: &[u8]) -> String {
    format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes))
    )
}

/// Whether `expected` (a Subresource Integrity string: space-separated `algo-base64` hashes)
/// holds our sha512 `actual`. A string with no sha512 matches nothing: sha1 is not enough.
fn matches_integrity(actual: &str, expected: &str) -> bool {
    expected
        .split_whitespace()
        .map(|hash| hash.split('?').next().unwrap_or_default())
        .any(|hash| hash == actual)
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_with_scopes_versions_and_tags() {
        let spec = |t: &str| NpmSpec::parse(t).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            spec("@acme/pi-tools@1.2.3"),
            NpmSpec {
                name: "@acme/pi-tools".into(),
                version: Some("1.2.3".into())
            }
        );
        assert_eq!(spec("pi-tools").version, None);
        assert_eq!(spec("@acme/pi-tools").name, "@acme/pi-tools");
        assert_eq!(spec("pi-tools@latest").version.as_deref(), Some("latest"));
        assert!(spec("pi-tools@1.2.3").is_exact());
        assert!(spec("pi-tools@1.2.3-rc.1").is_exact());
        assert!(!spec("pi-tools@^1.2.3").is_exact());
        assert!(!spec("pi-tools@latest").is_exact());
        assert_eq!(spec("a@>=1 <2").version.as_deref(), Some(">=1 <2"));
        for bad in [
            "",
            "Pi-Tools",
            "@acme",
            "../x",
            "a@",
            "_x",
            "a@git+https://evil.example/x.git",
            "a@file:../x",
            "a@github:evil/x",
            "a@https://evil.example/x.tgz",
        ] {
            assert!(NpmSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dependencies_from_elsewhere_than_the_registry_are_refused() {
        let ok = serde_json::json!({ "dependencies": { "a": "^1.2.0", "b": "latest" },
                                     "overrides": { "c": { "d": "1.0.0" } } });
        assert!(check_dependency_specs(&ok).is_ok());
        for bad in [
            serde_json::json!({ "dependencies": { "a": "git+https://evil.example/a.git" } }),
            serde_json::json!({ "optionalDependencies": { "a": "file:../../x" } }),
            serde_json::json!({ "overrides": { "a": { "b": "github:evil/b" } } }),
            serde_json::json!({ "dependencies": { "a": "evil/a" } }),
        ] {
            assert!(check_dependency_specs(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn integrity_is_sha512_and_nothing_weaker() {
        let ours = sha512_integrity(b"tarball");
        assert!(matches_integrity(&ours, &ours));
        assert!(matches_integrity(&ours, &format!("sha1-abc {ours}")));
        assert!(!matches_integrity(&ours, "sha1-abc"));
        assert!(!matches_integrity(&ours, &sha512_integrity(b"other")));
    }
}
