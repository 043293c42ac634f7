//! `tack:dirs/dirs`: a whole directory listed in one call, with the entry types the directory
//! records. wasmtime-wasi's `read-directory` costs a host call and a `statx` per entry, which
//! made a walk of a 50k-file tree mostly syscalls (see `wit/dirs/v0.1.0/dirs.wit`).
//!
//! It needs no grant: the path is resolved beneath a granted directory exactly as `files` does
//! (cap-primitives, so `..` and symlinks cannot lead out), and what comes back (names and types)
//! is what `wasi:filesystem` already shows the plugin about the same directory.

use std::io;
use std::path::Path;

use crate::bindings::dirs_v0_1_0::tack::dirs::dirs::{self, Entry, Kind};
use crate::state::PluginState;

/// Entries in one listing, at most: the listing is held in host memory before the guest gets it.
/// A larger directory is refused, and the guest lists it through `wasi:filesystem` instead.
pub const MAX_ENTRIES: usize = 1 << 18;

impl dirs::Host for PluginState {
    async fn entries(&mut self, path: String) -> wasmtime::Result<Result<Vec<Entry>, String>> {
        // Inline rather than on a blocking thread, as the plugin's WASI filesystem calls run
        // (`ALLOW_BLOCKING_CURRENT_THREAD`): the guest holds this thread while it runs anyway.
        Ok(self.beneath(&path, false).and_then(|(dir, relative)| {
            list_beneath(&dir, &relative).map_err(|e| format!("{path}: {e}"))
        }))
    }
}

/// Lists the directory at `relative` beneath `start`, never leaving `start`.
pub(crate) fn list_beneath(start: &std::fs::File, relative: &Path) -> io::Result<Vec<Entry>> {
    let relative = if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    };
    let mut out = Vec::new();
    for entry in cap_primitives::fs::read_dir(start, relative)? {
        let entry = entry?;
        // A name that is not UTF-8 cannot cross as a WIT string; the guest's own walk skips
        // such names too.
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let mut file_type = entry.file_type()?;
        // Some filesystems do not record types in directories; only then is it looked up.
        if file_type == cap_primitives::fs::FileType::unknown() {
            file_type = entry.metadata()?.file_type();
        }
        let kind = if file_type.is_dir() {
            Kind::Directory
        } else if file_type.is_file() {
            Kind::File
        } else if file_type.is_symlink() {
            Kind::Symlink
        } else {
            Kind::Other
        };
        if out.len() == MAX_ENTRIES {
            return Err(io::Error::other(format!(
                "more than {MAX_ENTRIES} entries to list at once"
            )));
        }
        out.push(Entry { name, kind });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(start: &std::fs::File, relative: &str) -> io::Result<Vec<(String, Kind)>> {
        let mut entries: Vec<(String, Kind)> = list_beneath(start, Path::new(relative))?
            .into_iter()
            .map(|e| (e.name, e.kind))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(entries)
    }

    #[test]
    fn lists_names_and_types_without_leaving_the_start() {
        let outer = tempfile::tempdir().expect("tempdir");
        let root = outer.path().join("root");
        std::fs::create_dir_all(root.join("sub/deeper")).expect("mkdir");
        std::fs::write(root.join("sub/a.txt"), "a").expect("write");
        std::fs::create_dir(outer.path().join("outside")).expect("mkdir");
        std::fs::write(outer.path().join("outside/secret"), "s").expect("write");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outer.path().join("outside"), root.join("sub/out"))
                .expect("symlink");
            std::os::unix::fs::symlink("deeper", root.join("sub/in")).expect("symlink");
        }
        let start = std::fs::File::open(&root).expect("open root");

        let mut want = vec![
            ("a.txt".to_string(), Kind::File),
            ("deeper".to_string(), Kind::Directory),
        ];
        #[cfg(unix)]
        {
            want.push(("in".to_string(), Kind::Symlink));
            want.push(("out".to_string(), Kind::Symlink));
        }
        want.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(names(&start, "sub").expect("list"), want);
        assert_eq!(
            names(&start, "").expect("list root"),
            vec![("sub".to_string(), Kind::Directory)]
        );
        // A link inside the tree is followed; one that leads out, or `..`, is refused.
        #[cfg(unix)]
        {
            assert!(names(&start, "sub/in").expect("inside link").is_empty());
            assert!(names(&start, "sub/out").is_err(), "escaping link");
            assert!(
                names(&start, "sub/out/..").is_err(),
                "through an escaping link"
            );
        }
        assert!(names(&start, "..").is_err(), "parent");
        assert!(
            names(&start, "sub/../../outside").is_err(),
            "parent after a step"
        );
        assert!(names(&start, "sub/a.txt").is_err(), "a file");
        assert!(names(&start, "missing").is_err(), "missing");
    }
}
