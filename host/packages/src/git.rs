//! Fetching a package from a git repository with the git CLI.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

/// Clones `url` into `dest` and checks out `reference` (a tag, branch or commit; the default
/// branch when `None`). Returns the resolved commit.
pub fn fetch(url: &str, reference: Option<&str>, dest: &Path) -> Result<String> {
    run(
        Command::new("git")
            .args(["clone", "--quiet", "--no-hardlinks", "--", url])
            .arg(dest),
        "clone",
    )
    .with_context(|| format!("cannot clone {url}"))?;
    if let Some(reference) = reference {
        if reference.starts_with('-') {
            bail!("'{reference}' is not a valid git reference");
        }
        run(
            Command::new("git")
                .arg("-C")
                .arg(dest)
                .args(["checkout", "--quiet", "--detach", reference]),
            "checkout",
        )
        .with_context(|| format!("{url} has no tag, branch or commit '{reference}'"))?;
    }
    let out = Command::new("git")
        .arg("-C")
        .arg(dest)
        .args(["rev-parse", "HEAD"])
        .output()
        .context("running git rev-parse")?;
    if !out.status.success() {
        bail!("cannot resolve the checked-out commit");
    }
    // The package's own history is not part of the package.
    let _ = std::fs::remove_dir_all(dest.join(".git"));
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .with_context(|| format!("cannot run `git {what}`; is git installed?"))?;
    if !out.status.success() {
        bail!(
            "git {what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}
