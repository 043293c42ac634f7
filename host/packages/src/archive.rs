//! Extracting a `.tar.gz` package without letting it write outside the target folder: entries with
//! `..`, absolute paths, links of any kind and device files are refused, and the whole archive is
//! rejected rather than partly extracted.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

/// Largest total size extracted, against decompression bombs.
const MAX_UNPACKED: u64 = 512 << 20;

/// Most entries (files and folders) an archive may hold.
const MAX_ENTRIES: usize = 10_000;

pub fn extract(bytes: &[u8], dest: &Path) -> Result<()> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let mut planned: Vec<(PathBuf, Vec<u8>, bool)> = Vec::new();
    let mut total = 0u64;
    for entry in archive
        .entries()
        .context("the archive is not a valid .tar.gz")?
    {
        let mut entry = entry.context("the archive is corrupt")?;
        if planned.len() >= MAX_ENTRIES {
            bail!("the archive holds more than {MAX_ENTRIES} files and folders");
        }
        let path = entry
            .path()
            .context("an entry has an unreadable path")?
            .into_owned();
        let display = path.display().to_string();
        let safe =
            safe_relative(&path).with_context(|| format!("refusing archive entry '{display}'"))?;
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            planned.push((safe, Vec::new(), true));
            continue;
        }
        if !kind.is_file() {
            bail!("refusing archive entry '{display}': links and special files are not allowed in packages");
        }
        total += entry.size();
        if total > MAX_UNPACKED {
            bail!(
                "the archive unpacks to more than {} MiB",
                MAX_UNPACKED >> 20
            );
        }
        let mut data = Vec::new();
        entry
            .read_to_end(&mut data)
            .with_context(|| format!("reading '{display}' from the archive"))?;
        planned.push((safe, data, false));
    }
    for (path, data, is_dir) in planned {
        let target = dest.join(&path);
        if is_dir {
            std::fs::create_dir_all(&target)?;
        } else {
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&target, data)
                .with_context(|| format!("writing {}", target.display()))?;
        }
    }
    Ok(())
}

fn safe_relative(path: &Path) -> Result<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => bail!("it contains '..'"),
            Component::RootDir | Component::Prefix(_) => bail!("it is an absolute path"),
        }
    }
    if out.as_os_str().is_empty() {
        bail!("it has an empty path");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tarball(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        build(&mut builder);
        let raw = builder.into_inner().expect("tar");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &raw).expect("gz");
        gz.finish().expect("gz")
    }

    fn file(builder: &mut tar::Builder<Vec<u8>>, path: &str, data: &[u8]) {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        // set_path refuses `..`; write the raw name so the test can build hostile archives.
        let name = header.as_old_mut().name.as_mut();
        name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_cksum();
        builder.append(&header, data).expect("append");
    }

    #[test]
    fn extracts_plain_files() {
        let dir = tempfile::tempdir().expect("tmp");
        let bytes = tarball(|b| file(b, "pkg/tack.toml", b"x"));
        extract(&bytes, dir.path()).expect("extract");
        assert_eq!(
            std::fs::read(dir.path().join("pkg/tack.toml")).expect("read"),
            b"x"
        );
    }

    #[test]
    fn refuses_escapes_and_links_without_writing_anything() {
        for (path, why) in [
            ("../evil", ".."),
            ("/etc/evil", "absolute"),
            ("a/../../evil", ".."),
        ] {
            let dir = tempfile::tempdir().expect("tmp");
            let bytes = tarball(|b| {
                file(b, "ok.txt", b"fine");
                file(b, path, b"bad");
            });
            let err = format!(
                "{:#}",
                extract(&bytes, &dir.path().join("x")).expect_err("refused")
            );
            assert!(err.contains(why), "{path}: {err}");
            assert!(
                !dir.path().join("x/ok.txt").exists(),
                "nothing is extracted from a refused archive"
            );
        }
        let dir = tempfile::tempdir().expect("tmp");
        let bytes = tarball(|b| {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(tar::EntryType::Symlink);
            header.set_size(0);
            b.append_link(&mut header, "link", "/etc/passwd")
                .expect("link");
        });
        let err = format!("{:#}", extract(&bytes, dir.path()).expect_err("refused"));
        assert!(err.contains("links"), "{err}");
    }
}
