//! Installing a Pi package (`tack install npm:<package>`, a folder or a git repository with a
//! `package.json` and no tack.toml): every extension is bundled first, so a package with one
//! that cannot run in tack is refused whole, with the reasons, never half-installed. Then the
//! package is placed with its dependencies, and the lockfile records every file's hash and, from
//! npm, the tarball's integrity.
//!
//! A Pi extension declares nothing: its code is read to say what it reaches for (files,
//! commands), and what it may reach is what the user names with `--grant` (or later in
//! grants.toml, under `[plugins.pi-<name>]`), as for `tack -e`.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use tack_runtime::grants::GrantStore;
use tack_runtime::Capabilities;

use super::commands::{claim_name, scope_name, PiExtensions, PiFetched};
use super::grants::GrantFlags;
use super::lockfile::{hash_tree, LockedPackage, Lockfile};
use super::pi_package::copy_installed;
use super::source::Source;
use super::Location;

pub fn install(
    location: &Location,
    staged: PiFetched,
    source: &Source,
    flags: &GrantFlags,
    pi: &dyn PiExtensions,
) -> Result<ExitCode> {
    let package = staged.package();
    let name = package.install_name();
    claim_name(location, &name, source)?;
    eprintln!(
        "Installing Pi package {} {} as {name} ({}) from {}",
        package.name,
        package.version,
        scope_name(location.scope),
        source.to_lock_string()
    );
    if let Some(integrity) = staged.integrity() {
        eprintln!("  tarball {integrity}");
    }
    if !package.description.is_empty() {
        eprintln!("  {}", package.description);
    }
    let checked = pi.check(staged.dir(), &package.extensions)?;
    refuse_clashes(location, &name, &checked)?;
    let granted = flags.named()?;
    let mut grants = GrantStore::load(&location.grants)?;
    refuse_held_grants(&grants, &checked, &[])?;
    describe(&checked, &granted, flags.is_empty());
    for line in &package.unused {
        eprintln!("  not used by tack: {line}");
    }
    for (extension, _) in &checked {
        grants.set(extension, granted.clone());
    }
    let version = package.version.clone();
    place(location, &staged, source, &name)?;
    grants.save()?;
    let names: Vec<&str> = checked.iter().map(|(n, _)| n.as_str()).collect();
    println!(
        "installed {name} {version} (Pi package{}{})",
        if names.is_empty() { "" } else { ": " },
        names.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

/// `tack update` of a Pi package: the new files replace the old when they differ; each
/// extension keeps its grants (one that is new gets what `--grant` names, else nothing).
pub fn update(
    location: &Location,
    staged: PiFetched,
    source: &Source,
    locked: &LockedPackage,
    flags: &GrantFlags,
    pi: &dyn PiExtensions,
) -> Result<()> {
    let package = staged.package();
    if package.install_name() != locked.name {
        bail!(
            "{} is now the Pi package {}; remove it and install the new one instead",
            locked.name,
            package.name
        );
    }
    if hash_tree(staged.dir())? == locked.files && staged.integrity() == locked.integrity.as_deref()
    {
        println!("{} {}: up to date", locked.name, locked.version);
        return Ok(());
    }
    let checked = pi.check(staged.dir(), &package.extensions)?;
    refuse_clashes(location, &locked.name, &checked)?;
    // An extension the package had keeps its grants; a new one gets what `--grant` names and
    // nothing else, even if grants.toml holds some under its name (another plugin's, once).
    let had: Vec<String> = super::pi_package::PiPackage::read(&location.package_dir(&locked.name))
        .ok()
        .flatten()
        .map(|old| {
            old.extensions
                .iter()
                .map(|e| super::pi_package::extension_plugin_name(e))
                .collect()
        })
        .unwrap_or_default();
    let granted = flags.named()?;
    let mut grants = GrantStore::load(&location.grants)?;
    refuse_held_grants(&grants, &checked, &had)?;
    for (extension, _) in &checked {
        if !had.contains(extension) || grants.get(extension).is_none() {
            grants.set(extension, granted.clone());
        }
    }
    let version = package.version.clone();
    place(location, &staged, source, &locked.name)?;
    grants.save()?;
    println!("updated {} {} -> {version}", locked.name, locked.version);
    Ok(())
}

/// Puts the staged package in place and records it in the lockfile.
fn place(location: &Location, staged: &PiFetched, source: &Source, name: &str) -> Result<()> {
    let dest = location.package_dir(name);
    if dest.exists() {
        std::fs::remove_dir_all(&dest)
            .with_context(|| format!("cannot replace {}", dest.display()))?;
    }
    copy_installed(staged.dir(), &dest)?;
    let mut lock = Lockfile::load(&location.lockfile)?;
    lock.upsert(LockedPackage {
        name: name.to_string(),
        version: staged.package().version.clone(),
        source: source.to_lock_string(),
        commit: staged.commit().map(str::to_string),
        digest: None,
        integrity: staged.integrity().map(str::to_string),
        signed_by: None,
        files: hash_tree(&dest)?,
    });
    lock.save(&location.lockfile)
}

/// Refuses a package whose extension takes the name of a plugin tack already has: its grants
/// would be that plugin's.
fn refuse_clashes(
    location: &Location,
    package: &str,
    checked: &[(String, Vec<String>)],
) -> Result<()> {
    let taken = taken_names(location, package)?;
    if let Some((clash, _)) = checked.iter().find(|(n, _)| taken.contains(n)) {
        bail!(
            "its extension {clash} has the name of a plugin tack already has; remove that one first"
        );
    }
    Ok(())
}

/// Refuses an extension (other than one the package `had`) under whose name grants.toml
/// already holds grants: `tack remove` takes a package's grants with it, so they are someone
/// else's, most likely the user's for a `-e` extension of that name. Installing over them
/// would hand them to this package's code, or overwrite them.
fn refuse_held_grants(
    grants: &GrantStore,
    checked: &[(String, Vec<String>)],
    had: &[String],
) -> Result<()> {
    if let Some((held, _)) = checked
        .iter()
        .find(|(name, _)| !had.contains(name) && grants.get(name).is_some())
    {
        bail!(
            "grants.toml already holds grants for {held} (a `-e` extension of that name, \
             perhaps); this package's extension would take them. Remove [plugins.{held}] from \
             grants.toml first, or rename the other extension"
        );
    }
    Ok(())
}

/// The plugin names already taken besides this package's own: built-ins and other packages.
fn taken_names(location: &Location, package: &str) -> Result<Vec<String>> {
    let mut taken: Vec<String> = tack_builtin::BUILTINS
        .iter()
        .map(|b| b.name.to_string())
        .collect();
    for locked in Lockfile::load(&location.lockfile)?.packages {
        if locked.name == package {
            continue;
        }
        if let Ok(Some(other)) =
            super::pi_package::PiPackage::read(&location.package_dir(&locked.name))
        {
            taken.extend(
                other
                    .extensions
                    .iter()
                    .map(|e| super::pi_package::extension_plugin_name(e)),
            );
        }
        taken.push(locked.name);
    }
    Ok(taken)
}

/// What each extension's code reaches for, and what it is granted.
fn describe(checked: &[(String, Vec<String>)], granted: &Capabilities, no_flags: bool) {
    let gives = granted.describe();
    for (extension, needs) in checked {
        eprintln!("  extension {extension}");
        for need in needs {
            eprintln!("    its code uses {need}");
        }
        if !gives.is_empty() {
            eprintln!("    granted: {}", gives.join("; "));
        } else if !needs.is_empty() && no_flags {
            eprintln!(
                "    granted nothing: name what it may reach with --grant (fs=PATH, \
                 exec=PATTERN, …) or under [plugins.{extension}] in grants.toml"
            );
        }
    }
}
