//! The Landlock ruleset of a command: what it may read, write and run.
//!
//! Landlock rules only ever allow, and a rule on a folder covers everything below it. So
//! "read everything but `~/.ssh`" is a rule on every entry of `/` that does not lead to a hidden
//! path, and, for the one that does, on each of its entries in turn, down to the hidden path's
//! siblings. Entries are read when the command starts: one created later beside a hidden path
//! (a new file in `~`) is not readable by that command.

use std::fs::{File, OpenOptions};
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible as _, PathBeneath, Ruleset,
    RulesetAttr as _, RulesetCreatedAttr as _, Scope, ABI,
};

use super::{SandboxError, SandboxMode, SandboxPolicy};

/// The newest ABI these rules are written for; the crate drops what an older kernel lacks
/// (best effort), and the probe has said at start-up which kernel that is.
const TARGET: ABI = ABI::V6;

/// Devices every shell expects to open for writing.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// The ruleset for `policy` in `workspace`, as the descriptor `landlock_restrict_self` takes.
pub(super) fn ruleset(
    policy: &SandboxPolicy,
    workspace: &Path,
) -> Result<Option<OwnedFd>, SandboxError> {
    let landlock = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    // ioctl on devices stays unrestricted: a terminal's ioctls are how programs size their
    // output, and no rule here opens a device that could be harmed by one.
    let handled = AccessFs::from_all(TARGET) & !AccessFs::IoctlDev;
    let read = AccessFs::from_read(TARGET);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(handled)
        .map_err(landlock)?
        // A command may not signal tack or any process outside its own sandbox.
        .scope(Scope::Signal)
        .map_err(landlock)?;
    if !policy.network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(landlock)?
            .scope(Scope::AbstractUnixSocket)
            .map_err(landlock)?;
    }
    let mut rules: Vec<(File, BitFlags<AccessFs>)> = Vec::new();
    let mut readable = Vec::new();
    readable_roots(Path::new("/"), &policy.hidden, &mut readable);
    rules.extend(readable.into_iter().map(|fd| (fd, read)));
    for device in DEVICES {
        if let Ok(fd) = open_path(Path::new(device), true) {
            rules.push((fd, handled & !AccessFs::Execute));
        }
    }
    let (own, access): (&[&Path], _) = match policy.mode {
        SandboxMode::WorkspaceWrite => (&[workspace, &policy.temp_dir], handled),
        // The workspace is read even when it lies inside a hidden folder.
        _ => (&[workspace], read),
    };
    for dir in own {
        let fd = open_path(dir, true).map_err(|source| SandboxError::Io {
            what: "cannot open",
            path: dir.to_path_buf(),
            source,
        })?;
        rules.push((fd, access));
    }
    if policy.mode == SandboxMode::WorkspaceWrite {
        // The user's own additions; one that does not exist (yet) is simply not writable.
        for dir in &policy.writable {
            if let Ok(fd) = open_path(dir, true) {
                rules.push((fd, handled));
            }
        }
    }
    let mut created = ruleset.create().map_err(landlock)?;
    for (fd, access) in rules {
        // The crate narrows a folder's rights to a file's when the descriptor is a file.
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(landlock)?;
    }
    Ok(created.into())
}

/// Descriptors of the entries under `dir` that hold no hidden path, going down into the ones
/// that lead to one. Links are left out, not followed: what a link leads to is readable through
/// its own rule, and a link to `/` in the home must not make `~/.ssh` readable.
fn readable_roots(dir: &Path, hidden: &[PathBuf], out: &mut Vec<File>) {
    if !hidden.iter().any(|h| h.starts_with(dir)) {
        if let Ok(fd) = open_path(dir, dir == Path::new("/")) {
            out.push(fd);
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if hidden.contains(&path) {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() && hidden.iter().any(|h| h.starts_with(&path)) {
            readable_roots(&path, hidden, out);
        } else if let Ok(fd) = open_path(&path, false) {
            out.push(fd);
        }
    }
}

/// An `O_PATH` descriptor of `path`, which a Landlock rule is attached to.
fn open_path(path: &Path, follow: bool) -> std::io::Result<File> {
    let mut flags = libc::O_PATH;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    OpenOptions::new().read(true).custom_flags(flags).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_leaves_out_hidden_paths_and_links_and_covers_their_siblings() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        let home = root.join("home");
        for sub in [".ssh", ".config/gcloud", ".config/nvim", "src"] {
            std::fs::create_dir_all(home.join(sub)).expect("dir");
        }
        std::fs::write(home.join(".netrc"), "machine x").expect("netrc");
        std::fs::write(home.join("notes"), "n").expect("notes");
        std::os::unix::fs::symlink("/", home.join("everything")).expect("link");
        let hidden = vec![
            home.join(".ssh"),
            home.join(".netrc"),
            home.join(".config/gcloud"),
        ];
        let mut out = Vec::new();
        readable_roots(&root, &hidden, &mut out);
        let mut seen: Vec<PathBuf> = out
            .iter()
            .map(|fd| {
                use std::os::fd::AsRawFd as _;
                std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).expect("fd path")
            })
            .collect();
        seen.sort();
        assert_eq!(
            seen,
            [
                home.join(".config/nvim"),
                home.join("notes"),
                home.join("src"),
            ]
        );
    }
}
