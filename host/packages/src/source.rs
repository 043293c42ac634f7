//! Package sources: a local folder, a `.tar.gz` (local file or URL, optionally pinned with
//! `#sha256=<hex>`), a git repository (optionally `@tag`, `@branch` or `@commit`), an OCI
//! registry (`oci://<registry>/<repository>:<tag>` or `@sha256:<digest>`, see `oci.rs`), or npm
//! (`npm:<package>[@<version>]`, see `npm.rs`). A package is a tack package (`tack.toml`) or a
//! Pi package (`package.json`, see `pi_package.rs`), whose dependencies are installed with it.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};

use super::contents::copy_package;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Path(PathBuf),
    Tarball {
        location: String,
        sha256: Option<String>,
    },
    Git {
        url: String,
        reference: Option<String>,
    },
    Oci(super::oci::OciRef),
    Npm(super::npm::NpmSpec),
}

impl Source {
    /// Parses what the user typed. A relative folder is made absolute against `cwd`, so the
    /// lockfile can re-resolve it later.
    pub fn parse(text: &str, cwd: &Path) -> Result<Source> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("oci://") {
            return Ok(Source::Oci(super::oci::OciRef::parse(rest)?));
        }
        if let Some(rest) = text.strip_prefix("git+") {
            return Ok(git(rest));
        }
        if let Some(rest) = text.strip_prefix("npm:") {
            return Ok(Source::Npm(super::npm::NpmSpec::parse(rest)?));
        }
        let (location, pin) = match text.split_once("#sha256=") {
            Some((loc, hex)) => (loc, Some(hex.to_ascii_lowercase())),
            None => (text, None),
        };
        if location.ends_with(".tar.gz") || location.ends_with(".tgz") {
            if let Some(hex) = &pin {
                if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                    bail!("'#sha256={hex}' is not a SHA-256 hex digest");
                }
            }
            let location = if is_url(location) {
                location.to_string()
            } else {
                absolute(location, cwd)?.display().to_string()
            };
            return Ok(Source::Tarball {
                location,
                sha256: pin,
            });
        }
        if pin.is_some() {
            bail!("#sha256= pins apply to .tar.gz sources only");
        }
        let (base, _) = split_ref(text);
        if base.ends_with(".git") || base.starts_with("ssh://") || base.starts_with("git@") {
            return Ok(git(text));
        }
        if is_url(text) {
            bail!("'{text}' is neither a .tar.gz URL nor a git repository (end git URLs in .git or prefix them with git+)");
        }
        let path = absolute(text, cwd)?;
        if path.join("HEAD").is_file() && path.join("objects").is_dir() {
            return Ok(Source::Git {
                url: path.display().to_string(),
                reference: None,
            });
        }
        if !path.join("tack.toml").is_file() && !path.join("package.json").is_file() {
            bail!(
                "{} is not a package: it has no tack.toml (a tack package) and no package.json \
                 (a Pi package)",
                path.display()
            );
        }
        Ok(Source::Path(path))
    }

    /// The canonical text recorded in the lockfile; `parse` reads it back.
    pub fn to_lock_string(&self) -> String {
        match self {
            Source::Path(p) => p.display().to_string(),
            Source::Tarball {
                location,
                sha256: Some(h),
            } => format!("{location}#sha256={h}"),
            Source::Tarball {
                location,
                sha256: None,
            } => location.clone(),
            Source::Git {
                url,
                reference: Some(r),
            } => format!("git+{url}@{r}"),
            Source::Git {
                url,
                reference: None,
            } => format!("git+{url}"),
            Source::Oci(reference) => reference.to_url(),
            Source::Npm(spec) => format!("npm:{}", spec.to_npm()),
        }
    }

    /// Whether `update` may bring a different version: a folder, an unpinned archive, a branch
    /// or default branch. Commits and pinned archives never change.
    pub fn is_pinned(&self) -> bool {
        match self {
            Source::Path(_) => false,
            Source::Tarball { sha256, .. } => sha256.is_some(),
            Source::Git { reference, .. } => reference
                .as_deref()
                .is_some_and(|r| r.len() == 40 && r.chars().all(|c| c.is_ascii_hexdigit())),
            Source::Oci(reference) => reference.digest.is_some(),
            Source::Npm(spec) => spec.is_exact(),
        }
    }

    /// Brings the package into `work` and returns the folder holding its `tack.toml` and the
    /// resolved git commit, if any.
    pub async fn fetch(&self, work: &Path) -> Result<(PathBuf, Option<String>)> {
        match self {
            Source::Path(p) => {
                let dest = work.join("pkg");
                stage(p, &dest)?;
                Ok((dest, None))
            }
            Source::Tarball { location, sha256 } => {
                let bytes = if is_url(location) {
                    download(location).await?
                } else {
                    read_capped(Path::new(location))?
                };
                if let Some(expected) = sha256 {
                    let actual = hex::encode(Sha256::digest(&bytes));
                    if &actual != expected {
                        bail!("{location} has SHA-256 {actual}, but the source pins {expected}");
                    }
                }
                let dest = work.join("unpacked");
                super::archive::extract(&bytes, &dest)?;
                let root = package_root(&dest)?;
                if !root.join("tack.toml").is_file() {
                    super::npm::install_dependencies(&root)?;
                }
                Ok((root, None))
            }
            Source::Git { url, reference } => {
                let dest = work.join("checkout");
                let (url, reference) = (url.clone(), reference.clone());
                let dest_clone = dest.clone();
                let commit = tokio::task::spawn_blocking(move || {
                    super::git::fetch(&url, reference.as_deref(), &dest_clone)
                })
                .await
                .context("git fetch task failed")??;
                let size = tree_size(&dest)?;
                if size > crate::MAX_DOWNLOAD {
                    bail!(
                        "the checkout of {} is {} MiB, more than the {} MiB a package may be",
                        self.to_lock_string(),
                        size >> 20,
                        crate::MAX_DOWNLOAD >> 20
                    );
                }
                // A checkout is whatever the repository holds; only a copy that has been checked
                // for links and special files is read from.
                let staged = work.join("pkg");
                stage(&package_root(&dest)?, &staged)?;
                Ok((staged, Some(commit)))
            }
            // A registry gives a digest and signatures besides the files: `oci::pull` returns them.
            Source::Oci(reference) => {
                bail!("{} is fetched with packages::oci::pull", reference.to_url())
            }
            // npm gives the tarball's integrity besides the files: `npm::fetch` returns it.
            Source::Npm(spec) => {
                bail!("npm:{} is fetched with packages::npm::fetch", spec.to_npm())
            }
        }
    }
}

/// Copies the package at `root` into `dest`: a tack package as its tack.toml says, a Pi package
/// whole but for its dependencies, which npm then installs afresh.
fn stage(root: &Path, dest: &Path) -> Result<()> {
    if root.join("tack.toml").is_file() {
        copy_package(root, dest)?;
        return Ok(());
    }
    super::pi_package::copy_sources(root, dest)?;
    super::npm::install_dependencies(dest)
}

fn git(text: &str) -> Source {
    let (url, reference) = split_ref(text);
    Source::Git {
        url: url.to_string(),
        reference: reference.map(str::to_string),
    }
}

/// `url@ref`, where the `@` is after the last `/` (so `git@host:x` and `user@host` stay intact).
fn split_ref(text: &str) -> (&str, Option<&str>) {
    let slash = text.rfind('/').map(|i| i + 1).unwrap_or(0);
    match text[slash..].rfind('@') {
        Some(at) if at > 0 => (&text[..slash + at], Some(&text[slash + at + 1..])),
        _ => (text, None),
    }
}

fn is_url(text: &str) -> bool {
    text.starts_with("https://") || text.starts_with("http://")
}

fn absolute(text: &str, cwd: &Path) -> Result<PathBuf> {
    let path = cwd.join(text);
    path.canonicalize()
        .with_context(|| format!("{} does not exist", path.display()))
}

/// A local archive, refusing one larger than [`crate::MAX_DOWNLOAD`].
fn read_capped(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(crate::MAX_DOWNLOAD + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > crate::MAX_DOWNLOAD {
        bail!(
            "{} is larger than {} MiB, the most a package archive may be",
            path.display(),
            crate::MAX_DOWNLOAD >> 20
        );
    }
    Ok(bytes)
}

/// Bytes of the files under `dir`, not following links (`.git` included: it was downloaded too).
fn tree_size(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += if meta.is_dir() {
            tree_size(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// Downloads an archive. Plain http is accepted only from this machine; anything else must be
/// https (or pinned, which makes transport integrity irrelevant). More than [`crate::MAX_DOWNLOAD`] bytes
/// is refused, whatever the server announces.
async fn download(url: &str) -> Result<Vec<u8>> {
    let parsed = url::Url::parse(url).with_context(|| format!("'{url}' is not a valid URL"))?;
    let loopback = matches!(parsed.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
    if parsed.scheme() == "http" && !loopback {
        bail!(
            "refusing to download a package over plain http from {}; use https",
            parsed.host_str().unwrap_or("?")
        );
    }
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::limited(5))
        .timeout(std::time::Duration::from_secs(300))
        .build()
        .context("cannot build an HTTP client")?;
    let response = client
        .get(parsed)
        .send()
        .await
        .with_context(|| format!("cannot download {url}"))?;
    if !response.status().is_success() {
        bail!("downloading {url} failed: HTTP {}", response.status());
    }
    let too_big = || {
        anyhow::anyhow!(
            "{url} is larger than {} MiB, the most a package archive may be",
            crate::MAX_DOWNLOAD >> 20
        )
    };
    if response
        .content_length()
        .is_some_and(|n| n > crate::MAX_DOWNLOAD)
    {
        return Err(too_big());
    }
    let mut response = response;
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .with_context(|| format!("download of {url} broke off"))?
    {
        if (bytes.len() + chunk.len()) as u64 > crate::MAX_DOWNLOAD {
            return Err(too_big());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The folder with `tack.toml` (or a Pi package's `package.json`): the root, or its only
/// subfolder (archives usually wrap one).
fn package_root(dir: &Path) -> Result<PathBuf> {
    let is_root = |d: &Path| d.join("tack.toml").is_file() || d.join("package.json").is_file();
    if is_root(dir) {
        return Ok(dir.to_path_buf());
    }
    // The entries' own types: a link to a folder elsewhere is not a subfolder.
    let subdirs: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    match subdirs.as_slice() {
        [only] if is_root(only) => Ok(only.clone()),
        _ => bail!("the package has no tack.toml (or package.json) at its root"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_kind_and_round_trips_through_the_lockfile() {
        let cwd = Path::new("/");
        for text in [
            "https://example.com/p.tar.gz",
            "https://example.com/p.tar.gz#sha256=0000000000000000000000000000000000000000000000000000000000000000",
            "git+https://example.com/p.git@v1.2.0",
            "git+https://example.com/p.git",
            "oci://ghcr.io/someone/p:1.0.0",
            "oci://127.0.0.1:5000/ns/p@sha256:0000000000000000000000000000000000000000000000000000000000000000",
            "npm:@acme/pi-tools@1.2.3",
            "npm:pi-tools",
        ] {
            let source = Source::parse(text, cwd).expect(text);
            assert_eq!(source.to_lock_string(), text);
            assert_eq!(Source::parse(&source.to_lock_string(), cwd).expect("again"), source);
        }
        assert_eq!(
            Source::parse("https://example.com/p.git@abc", cwd).expect("git"),
            Source::Git {
                url: "https://example.com/p.git".into(),
                reference: Some("abc".into())
            }
        );
        assert!(Source::parse("https://example.com/p.tar.gz#sha256=xyz", cwd).is_err());
        assert!(Source::parse("https://example.com/page", cwd).is_err());
        assert!(Source::parse("npm:@acme/pi-tools@1.2.3", cwd).is_ok_and(|s| s.is_pinned()));
        assert!(Source::parse("npm:pi-tools@^1", cwd).is_ok_and(|s| !s.is_pinned()));
        assert!(Source::parse("npm:Not A Name", cwd).is_err());
    }
}
