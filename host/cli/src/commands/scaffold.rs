//! `tack plugin new --lang <lang> <name>`: a ready-to-build plugin package (tack.toml, sources,
//! the SDK files it needs and a build script) in a new folder.

mod templates;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::cli::Lang;

impl Lang {
    fn label(self) -> &'static str {
        match self {
            Lang::Rust => "Rust",
            Lang::Js => "JavaScript",
            Lang::Python => "Python",
            Lang::C => "C",
            Lang::Zig => "Zig",
        }
    }
}

pub fn run(command: &crate::cli::PluginCommand) -> Result<ExitCode> {
    match command {
        crate::cli::PluginCommand::New { lang, name, dir } => new(*lang, name, dir.as_deref()),
        crate::cli::PluginCommand::CBindgen { wit, out, wit_0_2 } => {
            match wit_0_2 {
                Some(next) => {
                    tack_c_tool::generate_bindings_0_2(wit, next, out).with_context(|| {
                        format!(
                            "generating C bindings for {} with {}",
                            next.display(),
                            wit.display()
                        )
                    })?
                }
                None => tack_c_tool::generate_bindings(wit, out)
                    .with_context(|| format!("generating C bindings for {}", wit.display()))?,
            };
            Ok(ExitCode::SUCCESS)
        }
        crate::cli::PluginCommand::Dev { .. } => {
            anyhow::bail!("`tack plugin dev` runs from main's dispatch")
        }
        crate::cli::PluginCommand::Componentize { core, out } => {
            let module =
                std::fs::read(core).with_context(|| format!("reading {}", core.display()))?;
            let component = tack_c_tool::componentize(&module)
                .with_context(|| format!("componentizing {}", core.display()))?;
            std::fs::write(out, component).with_context(|| format!("writing {}", out.display()))?;
            Ok(ExitCode::SUCCESS)
        }
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
    let crate_name = name.replace('-', "_");
    // The template's example command is named after the plugin: `/my_plugin`.
    let command = crate_name.clone();
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{crate}}", &crate_name)
            .replace("{{command}}", &command)
    };
    let component = format!("{name}.wasm");
    write(
        &dir.join("tack.toml"),
        &format!(
            "[plugin]\nname = \"{name}\"\nversion = \"0.1.0\"\napi = \"0.1\"\ncomponent = \"{component}\"\n\
             description = \"A tack plugin in {}\"\n\n\
             # What the plugin may use beyond log, session and ui; see the tack README.\n[capabilities]\n\n\
             # What `tack install` takes besides this file and the component.\n\
             [package]\ninclude = [\"README.md\"]\n",
            lang.label()
        ),
        false,
    )?;
    for file in templates::files(lang) {
        let contents = if file.template {
            fill(&file.contents)
        } else {
            file.contents
        };
        write(&dir.join(&file.path), &contents, file.executable)?;
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
