//! Loading installed packages at startup: global ones, then the project's own once the user
//! trusts the project. Every file is checked against the lockfile first; a package whose files
//! changed is refused with a message, and the rest load.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use tack_runtime::grants::GrantStore;
use tack_runtime::PluginSpec;

use tack_packages::lockfile::{verified_files, Lockfile};
use tack_packages::pi_package::PiPackage;
use tack_packages::trust::{Trust, TrustStore};
use tack_packages::{Home, Location};

use crate::settings::Settings;

/// `--trust` / `--no-trust`, or what the user said before, else ask (on a terminal) / refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustChoice {
    Trust,
    NoTrust,
    AskIfInteractive,
    /// What the user said before, never asking: JSON and RPC modes own stdin and stdout.
    StoredOnly,
}

/// Whether this run may use the project's own files (settings, packages) at `root`: decided once,
/// before anything of the project is read. `asks_for` says what the project brings (shown when
/// asking); a project with nothing to trust is not asked about.
pub fn project_trusted(
    home: &Home,
    root: &Path,
    choice: TrustChoice,
    asks_for: &[String],
) -> Result<bool> {
    let trust_path = home.root().join("trust.toml");
    let mut store = TrustStore::load(&trust_path)?;
    Ok(match (choice, store.get(root)) {
        (TrustChoice::NoTrust, _) => false,
        (TrustChoice::Trust, known) => {
            if known != Trust::Trusted && !asks_for.is_empty() {
                store.set(root, true);
                store.save(&trust_path)?;
            }
            true
        }
        (_, Trust::Trusted) => true,
        (_, Trust::Distrusted) => false,
        (TrustChoice::StoredOnly, Trust::Unknown) => false,
        (TrustChoice::AskIfInteractive, Trust::Unknown) => {
            if !asks_for.is_empty()
                && std::io::stdin().is_terminal()
                && std::io::stderr().is_terminal()
            {
                eprint!(
                    "This project ({}) has its own {}. Trust it and use them? [y/N] ",
                    root.display(),
                    asks_for.join(" and ")
                );
                std::io::stderr().flush()?;
                let mut answer = String::new();
                std::io::stdin().lock().read_line(&mut answer)?;
                let yes = matches!(answer.trim(), "y" | "Y" | "yes");
                store.set(root, yes);
                store.save(&trust_path)?;
                yes
            } else {
                false
            }
        }
    })
}

/// What the installed packages bring: their plugins, what is wrong with some, and the folders
/// of the Pi packages among them (whose `skills/` and `prompts/` join every package's).
#[derive(Default)]
pub struct Installed {
    pub specs: Vec<PluginSpec>,
    pub warnings: Vec<String>,
    pub pi_packages: Vec<PathBuf>,
}

pub fn installed(home: &Home, settings: &Settings, cwd: &Path, trusted: bool) -> Result<Installed> {
    let mut found = Installed::default();
    let cache = home.component_cache();
    let global = Location::global(home);
    load_scope(&global, settings, &cache, &mut found)?;

    let project = Location::project(home, cwd);
    let lock = Lockfile::load(&project.lockfile)?;
    if lock.packages.is_empty() {
        return Ok(found);
    }
    let root = project.project.clone().unwrap_or_else(|| cwd.to_path_buf());
    let names: Vec<&str> = lock.packages.iter().map(|p| p.name.as_str()).collect();
    if !trusted {
        found.warnings.push(format!(
            "project plugins in {} not loaded ({}): the project is not trusted; pass --trust to load them",
            root.display(),
            names.join(", ")
        ));
        return Ok(found);
    }
    if let Some(legacy) = project.legacy_grants(home) {
        found.warnings.push(format!(
            "grants for this project's plugins were kept in {}, a folder another project's path \
             can share; they are not used. Grant again with `tack install -l` (or copy the file to \
             {} if it is this project's)",
            legacy.display(),
            project.grants.display()
        ));
    }
    let before = found.specs.len();
    load_scope(&project, settings, &cache, &mut found)?;
    // A project package may replace a global one of the same name only when the user says so.
    let project_specs = found.specs.split_off(before);
    for spec in project_specs {
        let name = spec.manifest.plugin.name.clone();
        match found.specs.iter().position(|s| s.manifest.plugin.name == name) {
            Some(i) if settings.project_overrides.contains(&name) => found.specs[i] = spec,
            Some(_) => found.warnings.push(format!(
                "project package '{name}' not loaded: a global package has the same name (add it to `project_overrides` in config.toml to prefer the project's)"
            )),
            None => found.specs.push(spec),
        }
    }
    Ok(found)
}

fn load_scope(
    location: &Location,
    settings: &Settings,
    cache: &Path,
    found: &mut Installed,
) -> Result<()> {
    let lock = Lockfile::load(&location.lockfile)?;
    let grants = GrantStore::load(&location.grants)?;
    for locked in &lock.packages {
        let dir = location.package_dir(&locked.name);
        let files = match verified_files(&dir, locked) {
            Ok(files) => files,
            Err(why) => {
                found.warnings.push(format!(
                    "package '{}' refused: {why}; reinstall it or run `tack update {}`",
                    locked.name, locked.name
                ));
                continue;
            }
        };
        match PiPackage::read(&dir) {
            Ok(Some(package)) => {
                // Each extension in tack's Pi runtime, as `tack -e` runs it, with the grants its
                // user gave it in this scope.
                match super::pi_extension::load_all(
                    &package.extensions,
                    Some(&dir),
                    cache,
                    &grants,
                    settings,
                ) {
                    Ok(loaded) => {
                        for (spec, warning) in loaded {
                            found.warnings.extend(warning);
                            found.specs.push(spec);
                        }
                        found.pi_packages.push(dir);
                    }
                    Err(e) => found
                        .warnings
                        .push(format!("package '{}' refused: {e:#}", locked.name)),
                }
                continue;
            }
            Ok(None) => {}
            Err(e) => {
                found
                    .warnings
                    .push(format!("package '{}' refused: {e:#}", locked.name));
                continue;
            }
        }
        match super::package_spec::package_from_files(&dir, &files, &grants, settings) {
            Ok(spec) => found.specs.push(spec),
            Err(e) => found
                .warnings
                .push(format!("package '{}' refused: {e:#}", locked.name)),
        }
    }
    Ok(())
}
