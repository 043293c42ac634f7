//! Directory handles for tree walks, with a fast path inside the sandbox.
//!
//! Every filesystem call from a component is a call into the host, so find and grep over a big
//! tree are bound by how many calls they make, not by matching. Through std, WASI's libc adds
//! calls per entry (an inode lookup for each directory entry, a stream per read, a probe for
//! end of file) and resolves every path from the preopened root. On wasm32-wasip2 this module
//! instead talks to `wasi:filesystem` directly: a directory is listed with the types its entries
//! already carry, files are opened relative to their directory's descriptor, and a file is read
//! in as few calls as its size allows. Elsewhere (native tests) it uses std.
//!
//! Listing goes further: wasmtime's `read-directory` costs a host call and a `statx` per entry,
//! so a directory is listed with `tack:dirs` (one call, the types the directory records), and
//! through `wasi:filesystem` only should the host refuse (a directory too large to list at once).

use std::io;
use std::path::Path;

/// What a directory entry is, without following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub kind: Kind,
}

/// Whether `read_file` filled the buffer or found the file over the size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    Done,
    TooLarge,
}

pub use imp::DirHandle;

#[cfg(not(all(target_os = "wasi", target_env = "p2")))]
mod imp {
    use super::{Entry, Kind, Read};
    use std::fs::File;
    use std::io::{self, Read as _};
    use std::path::{Path, PathBuf};

    /// A directory, by path.
    pub struct DirHandle {
        path: PathBuf,
    }

    impl DirHandle {
        pub fn open(path: &Path) -> io::Result<Self> {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::from(io::ErrorKind::NotADirectory));
            }
            Ok(Self {
                path: path.to_path_buf(),
            })
        }

        pub fn entries(&self) -> io::Result<Vec<Entry>> {
            let mut out = Vec::new();
            for entry in std::fs::read_dir(&self.path)? {
                let entry = entry?;
                // A name that is not UTF-8 cannot be shown or passed back by the model.
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                let kind = match entry.file_type() {
                    Ok(t) if t.is_symlink() => Kind::Symlink,
                    Ok(t) if t.is_dir() => Kind::Dir,
                    Ok(t) if t.is_file() => Kind::File,
                    _ => Kind::Other,
                };
                out.push(Entry { name, kind });
            }
            Ok(out)
        }

        pub fn open_dir(&self, name: &str) -> io::Result<Self> {
            Ok(Self {
                path: self.path.join(name),
            })
        }

        pub fn read_file(&self, name: &str, buf: &mut Vec<u8>, max_len: u64) -> io::Result<Read> {
            buf.clear();
            let mut file = File::open(self.path.join(name))?;
            let len = file.metadata()?.len();
            if len > max_len {
                return Ok(Read::TooLarge);
            }
            buf.reserve(usize::try_from(len).unwrap_or(0));
            file.read_to_end(buf)?;
            Ok(Read::Done)
        }
    }
}

/// `tack:dirs@0.1.0`, a package of its own beside `tack:plugin`.
#[cfg(all(target_os = "wasi", target_env = "p2"))]
#[allow(clippy::all, missing_docs, unsafe_op_in_unsafe_fn)]
mod dirs_bindings {
    wit_bindgen::generate!({
        path: "../../wit/dirs/v0.1.0",
        world: "dirs-client",
    });
}

#[cfg(all(target_os = "wasi", target_env = "p2"))]
mod imp {
    use super::dirs_bindings::tack::dirs::dirs;
    use super::{Entry, Kind, Read};
    use std::cell::OnceCell;
    use std::io;
    use std::path::{Path, PathBuf};
    use wasip2::filesystem::preopens::get_directories;
    use wasip2::filesystem::types::{
        Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags,
    };

    /// A directory, by path (for listing it) and by a descriptor for opening what is in it,
    /// opened on first use: a walk lists every directory but opens files in few of them (find
    /// opens none but ignore files), and an open costs a host call, a path resolution and a
    /// `statx` on the host, and a close when the handle is dropped.
    pub struct DirHandle {
        path: PathBuf,
        /// The preopened directory holding `path`, and `path` relative to it.
        preopen: usize,
        relative: String,
        /// Whether a symbolic link at `path` itself is followed: for the directory a walk starts
        /// from, not for those it meets.
        follow: bool,
        desc: OnceCell<Result<Descriptor, ErrorCode>>,
    }

    thread_local! {
        /// The preopened directories and their guest paths. They are fixed for the life of the
        /// instance; asking for them again would make new handles for every call.
        static PREOPENS: Vec<(Descriptor, String)> = get_directories();
    }

    impl DirHandle {
        /// A handle for `path`, which must lie inside one of the preopened directories. Whether
        /// it is a directory is found out when it is listed or opened.
        pub fn open(path: &Path) -> io::Result<Self> {
            let best = PREOPENS.with(|preopens| {
                let mut best: Option<(usize, usize, String)> = None;
                for (index, (_, guest_path)) in preopens.iter().enumerate() {
                    let Ok(rel) = path.strip_prefix(guest_path) else {
                        continue;
                    };
                    let Some(rel) = rel.to_str() else {
                        continue;
                    };
                    // The longest preopen wins, should one be nested in another.
                    if best
                        .as_ref()
                        .is_none_or(|(_, len, _)| guest_path.len() > *len)
                    {
                        best = Some((index, guest_path.len(), rel.to_string()));
                    }
                }
                best
            });
            let Some((preopen, _, relative)) = best else {
                return Err(io::Error::from(io::ErrorKind::PermissionDenied));
            };
            Ok(Self {
                path: path.to_path_buf(),
                preopen,
                relative,
                follow: true,
                desc: OnceCell::new(),
            })
        }

        fn desc(&self) -> io::Result<&Descriptor> {
            let opened = self.desc.get_or_init(|| {
                let rel = if self.relative.is_empty() {
                    "."
                } else {
                    self.relative.as_str()
                };
                let flags = if self.follow {
                    PathFlags::SYMLINK_FOLLOW
                } else {
                    PathFlags::empty()
                };
                PREOPENS.with(|preopens| match preopens.get(self.preopen) {
                    Some((root, _)) => {
                        root.open_at(flags, rel, OpenFlags::DIRECTORY, DescriptorFlags::READ)
                    }
                    None => Err(ErrorCode::NotPermitted),
                })
            });
            opened.as_ref().map_err(|code| to_io(*code))
        }

        pub fn entries(&self) -> io::Result<Vec<Entry>> {
            if let Some(path) = self.path.to_str() {
                if let Ok(listed) = dirs::entries(path) {
                    return Ok(listed
                        .into_iter()
                        .map(|entry| Entry {
                            name: entry.name,
                            kind: match entry.kind {
                                dirs::Kind::Directory => Kind::Dir,
                                dirs::Kind::File => Kind::File,
                                dirs::Kind::Symlink => Kind::Symlink,
                                dirs::Kind::Other => Kind::Other,
                            },
                        })
                        .collect());
                }
            }
            self.entries_by_stream()
        }

        /// One host call per entry, each looking up the entry's metadata: for what `tack:dirs`
        /// refuses.
        fn entries_by_stream(&self) -> io::Result<Vec<Entry>> {
            let stream = self.desc()?.read_directory().map_err(to_io)?;
            let mut out = Vec::new();
            while let Some(entry) = stream.read_directory_entry().map_err(to_io)? {
                let kind = match entry.type_ {
                    DescriptorType::Directory => Kind::Dir,
                    DescriptorType::RegularFile => Kind::File,
                    DescriptorType::SymbolicLink => Kind::Symlink,
                    _ => Kind::Other,
                };
                out.push(Entry {
                    name: entry.name,
                    kind,
                });
            }
            Ok(out)
        }

        /// The directory `name` in this one; nothing is opened yet.
        pub fn open_dir(&self, name: &str) -> io::Result<Self> {
            let relative = if self.relative.is_empty() {
                name.to_string()
            } else {
                format!("{}/{name}", self.relative)
            };
            Ok(Self {
                path: self.path.join(name),
                preopen: self.preopen,
                relative,
                follow: false,
                desc: OnceCell::new(),
            })
        }

        pub fn read_file(&self, name: &str, buf: &mut Vec<u8>, max_len: u64) -> io::Result<Read> {
            buf.clear();
            let file = self
                .desc()?
                .open_at(
                    PathFlags::empty(),
                    name,
                    OpenFlags::empty(),
                    DescriptorFlags::READ,
                )
                .map_err(to_io)?;
            // Knowing the size up front means the last read need not be followed by one more
            // that only reports the end of the file.
            let size = file.stat().map_err(to_io)?.size;
            if size > max_len {
                return Ok(Read::TooLarge);
            }
            buf.reserve(usize::try_from(size).unwrap_or(0));
            let mut offset = 0u64;
            while offset < size {
                let (chunk, end) = file.read(size - offset, offset).map_err(to_io)?;
                if chunk.is_empty() {
                    break;
                }
                offset += chunk.len() as u64;
                buf.extend_from_slice(&chunk);
                if end {
                    break;
                }
            }
            Ok(Read::Done)
        }
    }

    fn to_io(code: ErrorCode) -> io::Error {
        let kind = match code {
            ErrorCode::NoEntry => io::ErrorKind::NotFound,
            ErrorCode::Access | ErrorCode::NotPermitted => io::ErrorKind::PermissionDenied,
            ErrorCode::IsDirectory => io::ErrorKind::IsADirectory,
            ErrorCode::NotDirectory => io::ErrorKind::NotADirectory,
            ErrorCode::Exist => io::ErrorKind::AlreadyExists,
            ErrorCode::InvalidSeek | ErrorCode::Invalid => io::ErrorKind::InvalidInput,
            _ => io::ErrorKind::Other,
        };
        io::Error::new(kind, format!("{code:?}"))
    }
}

/// Opens the directory at `path` for walking.
pub fn open_dir(path: &Path) -> io::Result<DirHandle> {
    DirHandle::open(path)
}
