//! `tack plugin new --lang <lang> <name>`: a ready-to-build plugin package (tack.toml, sources,
//! the SDK files it needs and a build script) in a new folder.

mod templates;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    Rust,
    Js,
    Python,
    C,
}

impl Lang {
    fn label(self) -> &'static str {
        match self {
            Lang::Rust => "Rust",
            Lang::Js => "JavaScript",
            Lang::Python => "Python",
            Lang::C => "C",
        }
    }
}

/// The Rust SDK of the source tree this binary was built from; scaffolded Rust plugins depend on
/// it by path until tack-sdk is published.
const SDK_RUST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../sdk/rust");

pub fn run(command: &crate::cli::PluginCommand) -> Result<ExitCode> {
    match command {
        crate::cli::PluginCommand::New { lang, name, dir } => new(*lang, name, dir.as_deref()),
    }
}

fn new(lang: Lang, name: &str, dir: Option<&Path>) -> Result<ExitCode> {
    validate_name(name)?;
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(name));
    if dir.exists() {
        bail!(
            "{} already exists; choose another name or --dir",
            dir.display()
        );
    }
    let sdk_rust = Path::new(SDK_RUST)
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(SDK_RUST));
    let crate_name = name.replace('-', "_");
    // The template's example command is named after the plugin: `/my_plugin`.
    let command = crate_name.clone();
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{crate}}", &crate_name)
            .replace("{{command}}", &command)
            .replace("{{sdk_rust}}", &sdk_rust.display().to_string())
    };
    let component = format!("{name}.wasm");
    write(
        &dir.join("tack.toml"),
        &format!(
            "[plugin]\nname = \"{name}\"\nversion = \"0.1.0\"\napi = \"0.1\"\ncomponent = \"{component}\"\n\
             description = \"A tack plugin in {}\"\n\n\
             # What the plugin may use beyond log, session and ui; see the tack README.\n[capabilities]\n",
            lang.label()
        ),
        false,
    )?;
    for (path, contents, executable) in templates::files(lang) {
        write(&dir.join(path), &fill(contents), executable)?;
    }
    println!(
        "Created {} ({} plugin). Next:\n  {}/build.sh\n  tack install {}",
        dir.display(),
        lang.label(),
        dir.display(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Plugin names become file, crate and command names: keep them to a portable alphabet.
fn validate_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !ok {
        bail!("invalid plugin name {name:?}: use lowercase letters, digits and '-', starting with a letter");
    }
    Ok(())
}

fn write(path: &Path, contents: &str, executable: bool) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))?;
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("making {} executable", path.display()))?;
    }
    Ok(())
}
