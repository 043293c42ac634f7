//! `tack install | remove | update | list`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tack_runtime::grants::GrantStore;
use tack_runtime::{validate_component, Capabilities, Manifest, Runtime};

use super::contents::{copy_package, Contents};
use super::grants::{decide, GrantFlags};
use super::lockfile::{hash_tree, verify, LockedPackage, Lockfile};
use super::pi_package::PiPackage;
use super::publishers::{Publishers, Verdict};
use super::signing::PublisherKey;
use super::source::Source;
use super::{Location, Scope};

/// How many file names the install summary lists before "and N more".
pub(crate) const SUMMARY_FILES: usize = 8;

/// A package fetched into a temp dir and checked, not yet installed.
struct Fetched {
    _work: tempfile::TempDir,
    dir: std::path::PathBuf,
    manifest: Manifest,
    commit: Option<String>,
    /// The OCI manifest digest, for a registry source.
    digest: Option<String>,
    /// Keys whose signatures over the digest verified.
    signers: Vec<PublisherKey>,
    /// The npm tarball's integrity, for an npm source.
    integrity: Option<String>,
}

/// A Pi package fetched into a temp dir, its dependencies installed, not yet installed.
pub struct PiFetched {
    _work: tempfile::TempDir,
    dir: std::path::PathBuf,
    package: PiPackage,
    commit: Option<String>,
    integrity: Option<String>,
}

impl PiFetched {
    pub fn package(&self) -> &PiPackage {
        &self.package
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn integrity(&self) -> Option<&str> {
        self.integrity.as_deref()
    }

    pub fn commit(&self) -> Option<&str> {
        self.commit.as_deref()
    }
}

/// What a source brought.
enum Staged {
    Tack(Box<Fetched>),
    Pi(Box<PiFetched>),
}

/// Checks a Pi package's extensions before they are installed: tack's Pi runtime lives with the
/// binary, not in this crate.
pub trait PiExtensions {
    /// Bundles each extension (a file or folder) as tack would run it, refusing the package with
    /// the reasons when one cannot run in tack; for each, its plugin name and what its code uses
    /// that needs a grant.
    /// `root` is the package's folder, outside which its code may read nothing.
    fn check(
        &self,
        root: &Path,
        extensions: &[std::path::PathBuf],
    ) -> Result<Vec<(String, Vec<String>)>>;
}

/// `source`'s package, fetched into a temp dir; a tack package checked (its component compiled
/// into the cache), a Pi package as it is. `pinned`: the npm integrity the lockfile holds.
async fn stage(
    runtime: &Arc<Runtime>,
    home: &Path,
    source: &Source,
    pinned: Option<&str>,
) -> Result<Staged> {
    let work = tempfile::tempdir().context("cannot create a temp dir")?;
    let (dir, commit, digest, signers, integrity) = match source {
        Source::Oci(reference) => {
            let pulled = super::oci::pull(home, reference, work.path()).await?;
            (pulled.dir, None, Some(pulled.digest), pulled.signers, None)
        }
        Source::Npm(spec) => {
            let (spec, pinned, at) = (
                spec.clone(),
                pinned.map(str::to_string),
                work.path().to_path_buf(),
            );
            let fetched = tokio::task::spawn_blocking(move || {
                super::npm::fetch(&spec, pinned.as_deref(), &at)
            })
            .await
            .context("the npm fetch task failed")??;
            (fetched.dir, None, None, Vec::new(), Some(fetched.integrity))
        }
        _ => {
            let (dir, commit) = source.fetch(work.path()).await?;
            (dir, commit, None, Vec::new(), None)
        }
    };
    if let Some(package) = PiPackage::read(&dir)? {
        return Ok(Staged::Pi(Box::new(PiFetched {
            _work: work,
            dir,
            package,
            commit,
            integrity,
        })));
    }
    let manifest = super::contents::read_manifest(&dir)?;
    let component = dir.join(&manifest.plugin.component);
    let wasm = std::fs::read(&component).with_context(|| {
        format!(
            "the package lacks its component {}",
            manifest.plugin.component
        )
    })?;
    // Also compiles it into the cache, so the first run after install starts warm.
    validate_component(
        runtime,
        &manifest.plugin.name,
        &manifest.plugin.component,
        wasm,
    )
    .await?;
    Ok(Staged::Tack(Box::new(Fetched {
        _work: work,
        dir,
        manifest,
        commit,
        digest,
        signers,
        integrity,
    })))
}

fn place(
    location: &Location,
    fetched: &Fetched,
    source: &Source,
    verdict: &Verdict,
    lock: &mut Lockfile,
) -> Result<Contents> {
    let name = &fetched.manifest.plugin.name;
    let dest = location.package_dir(name);
    if dest.exists() {
        std::fs::remove_dir_all(&dest)
            .with_context(|| format!("cannot replace {}", dest.display()))?;
    }
    let contents = copy_package(&fetched.dir, &dest)?;
    lock.upsert(LockedPackage {
        name: name.clone(),
        version: fetched.manifest.plugin.version.clone(),
        source: source.to_lock_string(),
        commit: fetched.commit.clone(),
        digest: fetched.digest.clone(),
        integrity: fetched.integrity.clone(),
        signed_by: verdict.key_to_pin().map(PublisherKey::fingerprint),
        files: hash_tree(&dest)?,
    });
    lock.save(&location.lockfile)?;
    // Pinned once the package is in place: a refused or failed install pins nothing.
    if let Some(key) = verdict.key_to_pin() {
        let mut publishers = Publishers::load(&location.home)?;
        publishers.pin(&fetched.manifest.plugin.name, key);
        publishers.save()?;
    }
    Ok(contents)
}

/// Whose signature the package carries, and whether that is enough (see `publishers.rs`).
fn check_signature(
    location: &Location,
    fetched: &Fetched,
    require_signature: bool,
) -> Result<Verdict> {
    Publishers::load(&location.home)?.check(
        &fetched.manifest.plugin.name,
        &fetched.signers,
        require_signature,
    )
}

fn show_capabilities(manifest: &Manifest) {
    let wants = manifest.capabilities.describe();
    let reads = flag_reads(manifest);
    if wants.is_empty() && reads.is_empty() {
        eprintln!("It asks for no capabilities.");
        return;
    }
    for line in &reads {
        eprintln!("  {line}");
    }
    if !wants.is_empty() {
        eprintln!("It asks to:");
    }
}

/// What a package reads through `[[paths]]` flags, which needs no grant because the user names
/// each path on the command line; a built-in's flag is never the package's.
fn flag_reads(manifest: &Manifest) -> Vec<String> {
    manifest
        .paths
        .iter()
        .filter_map(|set| set.flag.as_deref())
        .map(|flag| {
            if crate::BUILTIN_PLUGIN_FLAGS.contains(&flag) {
                format!(
                    "It asks for the paths you pass with --{flag}, which belong to tack's \
                     built-in plugins: it will not get them."
                )
            } else {
                format!(
                    "It reads the files and folders you pass with --flag {flag}=<path> (a file: \
                     that file alone)."
                )
            }
        })
        .collect()
}

/// Names are owned: a built-in's name is never a package's, and a name installed from one
/// source is not taken over by a package from another (that is `tack remove`, then install).
pub(crate) fn claim_name(location: &Location, name: &str, source: &Source) -> Result<()> {
    if tack_builtin::builtin(name).is_some() {
        bail!("the package is named '{name}', which is the name of a built-in plugin; package names of built-ins are reserved");
    }
    let lock = Lockfile::load(&location.lockfile)?;
    if let Some(existing) = lock.packages.iter().find(|p| p.name == name) {
        let wanted = source.to_lock_string();
        if existing.source != wanted {
            bail!(
                "a package named '{name}' is already installed from {}; this one comes from {wanted}. Run `tack remove {name}` first to replace it",
                existing.source
            );
        }
    }
    Ok(())
}

pub async fn install(
    runtime: &Arc<Runtime>,
    location: &Location,
    source_text: &str,
    cwd: &Path,
    flags: &[String],
    require_signature: bool,
    pi: &dyn PiExtensions,
) -> Result<ExitCode> {
    let flags = GrantFlags::parse(flags)?;
    let source = Source::parse(source_text, cwd)?;
    // Installing the same exact npm version again must bring the same tarball.
    let pinned = match &source {
        Source::Npm(spec) if spec.is_exact() => Lockfile::load(&location.lockfile)?
            .packages
            .iter()
            .find(|p| p.source == source.to_lock_string())
            .and_then(|p| p.integrity.clone()),
        _ => None,
    };
    let fetched = match stage(runtime, &location.home, &source, pinned.as_deref()).await? {
        Staged::Tack(fetched) => *fetched,
        Staged::Pi(staged) => {
            if require_signature {
                bail!(
                    "{} is a Pi package, which carries no signature tack can check; install it \
                     without --require-signature",
                    source.to_lock_string()
                );
            }
            return super::pi_install::install(location, *staged, &source, &flags, pi);
        }
    };
    let m = &fetched.manifest.plugin;
    claim_name(location, &m.name, &source)?;
    refuse_moved_tag(location, &m.name, &source, &fetched)?;
    let verdict = check_signature(location, &fetched, require_signature)?;
    eprintln!(
        "Installing {} {} ({}) from {}",
        m.name,
        m.version,
        scope_name(location.scope),
        source.to_lock_string()
    );
    if let Some(digest) = &fetched.digest {
        eprintln!("  manifest {digest}");
        eprintln!("  {}", verdict.describe(&m.name));
    } else if verdict != Verdict::Unsigned {
        eprintln!("  {}", verdict.describe(&m.name));
    }
    if !m.description.is_empty() {
        eprintln!("  {}", m.description);
    }
    show_capabilities(&fetched.manifest);
    let granted = decide(&m.name, &fetched.manifest.capabilities, &flags)?;
    let mut grants = GrantStore::load(&location.grants)?;
    grants.set(&m.name, granted.clone());
    let mut lock = Lockfile::load(&location.lockfile)?;
    let contents = place(location, &fetched, &source, &verdict, &mut lock)?;
    grants.save()?;
    eprintln!("Took {}", contents.summary(SUMMARY_FILES));
    let denied = fetched.manifest.capabilities.minus(&granted);
    println!(
        "installed {} {}{}",
        m.name,
        m.version,
        if denied.is_empty() {
            String::new()
        } else {
            format!(" (denied: {})", denied.describe().join("; "))
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// Installing a tag again that now names another manifest is an update, which `tack update`
/// shows before taking; a plain install never swaps it in silently.
fn refuse_moved_tag(
    location: &Location,
    name: &str,
    source: &Source,
    fetched: &Fetched,
) -> Result<()> {
    let lock = Lockfile::load(&location.lockfile)?;
    let Some(existing) = lock.get(name) else {
        return Ok(());
    };
    if let (Source::Oci(reference), Some(old), Some(new)) =
        (source, &existing.digest, &fetched.digest)
    {
        if old != new {
            bail!(
                "{} now points to manifest {new}, not the {old} installed ({name} {}). Run `tack update {name}` to see what changed and take it",
                reference.to_url(),
                existing.version
            );
        }
    }
    Ok(())
}

pub fn remove(location: &Location, name: &str) -> Result<ExitCode> {
    let mut lock = Lockfile::load(&location.lockfile)?;
    if !lock.remove(name) {
        bail!(
            "no {} package named '{name}' is installed",
            scope_name(location.scope)
        );
    }
    // A Pi package's extensions hold grants of their own.
    let mut extension_names = Vec::new();
    if let Ok(Some(package)) = PiPackage::read(&location.package_dir(name)) {
        extension_names = package
            .extensions
            .iter()
            .map(|e| super::pi_package::extension_plugin_name(e))
            .collect();
    }
    // The data directory goes too, before the package folder its name is derived from: a later
    // package of the same name starts empty.
    let data = location.data_dir(name);
    if data.exists() {
        std::fs::remove_dir_all(&data)
            .with_context(|| format!("cannot delete {}", data.display()))?;
    }
    let dir = location.package_dir(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .with_context(|| format!("cannot delete {}", dir.display()))?;
    }
    lock.save(&location.lockfile)?;
    let mut grants = GrantStore::load(&location.grants)?;
    grants.remove(name);
    for extension in &extension_names {
        grants.remove(extension);
    }
    grants.save()?;
    println!("removed {name}");
    Ok(ExitCode::SUCCESS)
}

pub async fn update(
    runtime: &Arc<Runtime>,
    location: &Location,
    name: Option<&str>,
    cwd: &Path,
    flags: &[String],
    require_signature: bool,
    pi: &dyn PiExtensions,
) -> Result<ExitCode> {
    let flags = GrantFlags::parse(flags)?;
    let mut lock = Lockfile::load(&location.lockfile)?;
    let targets: Vec<LockedPackage> = match name {
        Some(n) => vec![lock.get(n).cloned().with_context(|| {
            format!(
                "no {} package named '{n}' is installed",
                scope_name(location.scope)
            )
        })?],
        None => lock.packages.clone(),
    };
    let mut grants = GrantStore::load(&location.grants)?;
    for locked in targets {
        let source = Source::parse(&locked.source, cwd)?;
        if source.is_pinned() {
            println!(
                "{}: pinned to {}, nothing to update",
                locked.name, locked.source
            );
            continue;
        }
        let fetched = match stage(runtime, &location.home, &source, None)
            .await
            .with_context(|| format!("updating {}", locked.name))?
        {
            Staged::Tack(fetched) => *fetched,
            Staged::Pi(staged) => {
                super::pi_install::update(location, *staged, &source, &locked, &flags, pi)?;
                // It saved the lockfile and grants itself: what this loop holds is stale.
                lock = Lockfile::load(&location.lockfile)?;
                grants = GrantStore::load(&location.grants)?;
                continue;
            }
        };
        if fetched.manifest.plugin.name != locked.name {
            bail!(
                "{} now calls itself '{}'; remove it and install the new package instead",
                locked.name,
                fetched.manifest.plugin.name
            );
        }
        let same_files = hash_tree(&fetched.dir)? == locked.files;
        if same_files && fetched.commit == locked.commit && fetched.digest == locked.digest {
            println!("{} {}: up to date", locked.name, locked.version);
            continue;
        }
        let verdict = check_signature(location, &fetched, require_signature)
            .with_context(|| format!("updating {}", locked.name))?;
        let old_manifest =
            std::fs::read_to_string(location.package_dir(&locked.name).join("tack.toml"))
                .ok()
                .and_then(|t| Manifest::parse(&t).ok());
        let old_declared = old_manifest.map(|m| m.capabilities).unwrap_or_default();
        let old_granted = grants.get(&locked.name).cloned().unwrap_or_default();
        let new_declared = &fetched.manifest.capabilities;
        show_changes(&locked, &fetched, &old_declared, &verdict);
        let added = new_declared.minus(&old_declared);
        let mut granted = new_declared.intersect(&old_granted);
        if !added.is_empty() {
            eprintln!(
                "{} {} asks for more than {} did:",
                locked.name, fetched.manifest.plugin.version, locked.version
            );
            let extra = decide(&locked.name, &added, &flags)?;
            merge(&mut granted, extra);
        }
        grants.set(&locked.name, granted);
        let contents = place(location, &fetched, &source, &verdict, &mut lock)?;
        grants.save()?;
        eprintln!("Took {}", contents.summary(SUMMARY_FILES));
        println!(
            "updated {} {} -> {}",
            locked.name, locked.version, fetched.manifest.plugin.version
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What an update brings, before it is taken: the manifest the tag moved to, the version, the
/// capabilities asked for that were not and those no longer asked for, and the signature.
fn show_changes(
    locked: &LockedPackage,
    fetched: &Fetched,
    old_declared: &Capabilities,
    verdict: &Verdict,
) {
    let name = &locked.name;
    if let (Some(old), Some(new)) = (&locked.digest, &fetched.digest) {
        if old != new {
            println!("{name}: {} moved from {old} to {new}", locked.source);
        }
    }
    let version = &fetched.manifest.plugin.version;
    if version == &locked.version {
        println!("{name}: version {version} (unchanged), different files");
    } else {
        println!("{name}: version {} -> {version}", locked.version);
    }
    let new_declared = &fetched.manifest.capabilities;
    for line in new_declared.minus(old_declared).describe() {
        println!("{name}: + asks to {line}");
    }
    for line in old_declared.minus(new_declared).describe() {
        println!("{name}: - no longer asks to {line}");
    }
    if fetched.digest.is_some() || *verdict != Verdict::Unsigned {
        println!("{name}: {}", verdict.describe(name));
    }
}

fn merge(into: &mut Capabilities, more: Capabilities) {
    into.fs.extend(more.fs);
    into.exec.extend(more.exec);
    into.http.extend(more.http);
    into.secrets.extend(more.secrets);
    into.env.extend(more.env);
}

pub fn list(locations: &[Location]) -> Result<ExitCode> {
    let mut any = false;
    for location in locations {
        let lock = Lockfile::load(&location.lockfile)?;
        let grants = GrantStore::load(&location.grants)?;
        for locked in &lock.packages {
            any = true;
            let dir = location.package_dir(&locked.name);
            let status = match verify(&dir, locked) {
                Ok(()) => "ok".to_string(),
                Err(why) => format!("REFUSED: {why}"),
            };
            let commit = locked
                .commit
                .as_deref()
                .map(|c| format!(" @ {}", &c[..c.len().min(12)]))
                .or(locked
                    .digest
                    .as_deref()
                    .map(|d| format!(" @ {}", &d[..d.len().min(19)])))
                .unwrap_or_default();
            let signed = locked
                .signed_by
                .as_deref()
                .map(|k| format!(" signed by {k}"))
                .unwrap_or_default();
            println!(
                "{} {} ({}) from {}{commit}{signed} [{status}]",
                locked.name,
                locked.version,
                scope_name(location.scope),
                locked.source
            );
            let declared = std::fs::read_to_string(dir.join("tack.toml"))
                .ok()
                .and_then(|t| Manifest::parse(&t).ok())
                .map(|m| m.capabilities)
                .unwrap_or_default();
            let granted =
                declared.intersect(grants.get(&locked.name).unwrap_or(&Capabilities::default()));
            for line in granted.describe() {
                println!("  may {line}");
            }
            for line in declared.minus(&granted).describe() {
                println!("  denied: {line}");
            }
        }
    }
    if !any {
        println!("no packages installed (tack install <path | .tar.gz | git URL>)");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Global => "global",
        Scope::Project => "project",
    }
}
