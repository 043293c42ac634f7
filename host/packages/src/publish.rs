//! `tack publish`, `tack keygen` and `tack login`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tack_runtime::{validate_component, Runtime};

use super::oci::{self, OciRef, Publication};
use super::signing::{self, AuthorKey};
use super::source::Source;

/// Pushes the package in `dir` to `target` (`oci://…:<tag>`): exactly the files `tack install`
/// would take from the folder, so what is published is what a folder install would install.
pub async fn publish(
    runtime: &Arc<Runtime>,
    home: &Path,
    dir: &Path,
    target: &str,
    sign: bool,
    key: Option<&Path>,
) -> Result<ExitCode> {
    let Some(rest) = target.strip_prefix("oci://") else {
        bail!("'{target}' is not a registry reference; publish to oci://<registry>/<namespace>/<name>:<version>");
    };
    let reference = OciRef::parse(rest)?;
    let signer = if sign {
        let path = key
            .map(Path::to_path_buf)
            .unwrap_or_else(|| signing::key_paths(home, "default").0);
        if !path.exists() && key.is_none() {
            bail!(
                "--sign needs a key: {} does not exist (run `tack keygen`, or give --key)",
                path.display()
            );
        }
        Some(AuthorKey::read(&path)?)
    } else {
        if key.is_some() {
            bail!("--key is for --sign");
        }
        None
    };

    let source_dir = dir
        .canonicalize()
        .with_context(|| format!("{} does not exist", dir.display()))?;
    if !source_dir.join("tack.toml").is_file() {
        bail!(
            "{} is not a plugin package (no tack.toml)",
            source_dir.display()
        );
    }
    let work = tempfile::tempdir().context("cannot create a temp dir")?;
    let (staged, _) = Source::Path(source_dir).fetch(work.path()).await?;
    let manifest = super::contents::read_manifest(&staged)?;
    let plugin = &manifest.plugin;
    let component = std::fs::read(staged.join(&plugin.component)).with_context(|| {
        format!(
            "the package lacks its component {} (build it first)",
            plugin.component
        )
    })?;
    // What would not install is not published.
    validate_component(runtime, &plugin.name, &plugin.component, component.clone()).await?;
    let files = oci::files_archive(&staged, &plugin.component)?;
    if let Some(tag) = &reference.tag {
        if tag != &plugin.version {
            eprintln!(
                "note: publishing {} {} under tag '{tag}'",
                plugin.name, plugin.version
            );
        }
    }
    let digest = oci::push(
        home,
        &reference,
        Publication {
            name: &plugin.name,
            version: &plugin.version,
            description: &plugin.description,
            component,
            files,
            signer: signer.as_ref(),
        },
    )
    .await?;
    println!(
        "published {} {} to {}",
        plugin.name,
        plugin.version,
        reference.to_url()
    );
    println!("  manifest {digest}");
    if let Some(signer) = &signer {
        println!("  signed by {}", signer.public().fingerprint());
    }
    println!(
        "  install: tack install {}  (or, pinned: oci://{}@{digest})",
        reference.to_url(),
        reference.repository_path()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn keygen(home: &Path, name: &str) -> Result<ExitCode> {
    let (private, public, key) = signing::keygen(home, name)?;
    println!("created {} (private, mode 0600)", private.display());
    println!("created {} (public: share it)", public.display());
    println!("  fingerprint {}", key.fingerprint());
    println!(
        "  sign with: tack publish --sign <dir> oci://<registry>/<namespace>/<name>:<version>"
    );
    Ok(ExitCode::SUCCESS)
}

/// `tack login <registry> --username <u> --password-stdin`: the password comes from stdin only,
/// never the command line (where other users' `ps` would see it).
pub fn login(home: &Path, registry: &str, username: &str) -> Result<ExitCode> {
    let mut password = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut password)
        .context("cannot read the password from stdin")?;
    let password = password.trim_end_matches(['\r', '\n']);
    let path: PathBuf = super::registry_auth::login(home, registry, username, password)?;
    println!(
        "saved the login for {registry} in {} (mode 0600)",
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
