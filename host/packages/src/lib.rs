//! Plugin packages: installing from a folder, a `.tar.gz` (file or URL), a git repository or an
//! OCI registry (where `tack publish` puts them, signed by their authors);
//! the lockfile that pins every file's SHA-256; the user's grants; and project trust.
//!
//! Global packages live in `<tack home>/packages/<name>` with `<tack home>/tack.lock`; project
//! packages in `<project>/.tack/packages/<name>` with `<project>/.tack/tack.lock`. Grants for
//! both are kept in the tack home, never in the project: a repository must not be able to ship
//! its own grants.

pub mod archive;
pub mod commands;
pub mod contents;
pub mod git;
pub mod grants;
pub mod home;
pub mod lockfile;
pub mod npm;
pub mod oci;
pub mod pi_install;
pub mod pi_package;
pub mod publish;
pub mod publishers;
pub mod registry_auth;
pub mod signing;
pub mod source;
pub mod trust;

use std::path::{Path, PathBuf};

pub use home::Home;

/// Largest archive downloaded or read, and largest git checkout accepted.
pub(crate) const MAX_DOWNLOAD: u64 = 256 << 20;

/// The flags of tack's own command line that it hands to its built-in plugins: a package may not
/// take the paths given with them.
pub const BUILTIN_PLUGIN_FLAGS: [&str; 6] = [
    "permissions",
    "plan",
    "skill",
    "no-skills",
    "subagents",
    "agent",
];

/// Where a package is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Project,
}

/// The folders and files of one scope.
#[derive(Debug, Clone)]
pub struct Location {
    pub scope: Scope,
    pub packages: PathBuf,
    pub lockfile: PathBuf,
    pub grants: PathBuf,
    /// The project root, for project scope.
    pub project: Option<PathBuf>,
    /// Where plugins' data directories live (`tack_runtime::plugin::data_dir_name`).
    pub data_root: PathBuf,
    /// The tack home: registry logins, publisher pins and trusted keys, for either scope.
    pub home: PathBuf,
}

impl Location {
    pub fn global(home: &Home) -> Self {
        Location {
            scope: Scope::Global,
            packages: home.root().join("packages"),
            lockfile: home.root().join("tack.lock"),
            grants: home.grants(),
            project: None,
            data_root: home.plugin_data(),
            home: home.root().to_path_buf(),
        }
    }

    pub fn project(home: &Home, cwd: &Path) -> Self {
        let root =
            tack_core::system_prompt::find_repo_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
        let dot = root.join(".tack");
        Location {
            scope: Scope::Project,
            packages: dot.join("packages"),
            lockfile: dot.join("tack.lock"),
            grants: home
                .root()
                .join("projects")
                .join(tack_core::session::encode_cwd(&root))
                .join("grants.toml"),
            project: Some(root),
            data_root: home.plugin_data(),
            home: home.root().to_path_buf(),
        }
    }

    /// The project grants file of earlier versions, whose folder name `/a-b` and `/a/b` shared,
    /// when it exists and the current one does not. Never used, since it cannot be told whose it
    /// is; start-up points at it.
    pub fn legacy_grants(&self, home: &Home) -> Option<PathBuf> {
        let root = self.project.as_ref()?;
        let legacy = home
            .root()
            .join("projects")
            .join(tack_core::session::legacy_encode_cwd(root))
            .join("grants.toml");
        (legacy.is_file() && !self.grants.exists()).then_some(legacy)
    }

    pub fn package_dir(&self, name: &str) -> PathBuf {
        self.packages.join(name)
    }

    /// The data directory the runtime gives the package installed here as `name`.
    pub fn data_dir(&self, name: &str) -> PathBuf {
        let source = tack_runtime::PluginSource::Path(self.package_dir(name));
        self.data_root
            .join(tack_runtime::plugin::data_dir_name(name, &source))
    }
}
