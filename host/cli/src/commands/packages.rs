//! The package subcommands, over the package manager (`tack-packages`): where a package goes
//! (`--local`: the project), the runtime that checks its component, and the user's own
//! `require_signature` setting.

use std::process::ExitCode;

use anyhow::Result;
use tack_packages::{commands, publish, Home, Location};

use crate::cli::{Cli, Command};

/// `tack install`, `remove`, `update`, `list`, `publish`, `keygen` and `login`.
pub async fn run(cli: &Cli) -> Result<ExitCode> {
    let home = Home::locate()?;
    let cwd = std::env::current_dir()?;
    let location = |local: bool| {
        if local {
            Location::project(&home, &cwd)
        } else {
            Location::global(&home)
        }
    };
    let runtime = || {
        tack_runtime::Runtime::new(crate::start::precompiled::runtime_config(&home))
            .map_err(|e| anyhow::anyhow!("cannot start the plugin runtime: {e:#}"))
    };
    let pi_check = crate::start::pi_extension::InstallCheck;
    // Read from the user's config only: a project cannot switch it off.
    let require_signature = |flag: bool| -> Result<bool> {
        let settings = crate::settings::Settings::load(&home.config())?;
        Ok(flag || settings.packages.require_signature.unwrap_or(false))
    };
    match &cli.command {
        Some(Command::Install {
            source,
            local,
            grant,
            require_signature: required,
        }) => {
            let required = require_signature(*required)?;
            commands::install(
                &runtime()?,
                &location(*local),
                source,
                &cwd,
                grant,
                required,
                &pi_check,
            )
            .await
        }
        Some(Command::Remove { name, local }) => commands::remove(&location(*local), name),
        Some(Command::Update {
            name,
            local,
            grant,
            require_signature: required,
        }) => {
            let required = require_signature(*required)?;
            commands::update(
                &runtime()?,
                &location(*local),
                name.as_deref(),
                &cwd,
                grant,
                required,
                &pi_check,
            )
            .await
        }
        Some(Command::Publish {
            first,
            second,
            sign,
            key,
        }) => {
            let (dir, target) = match second {
                Some(target) => (cwd.join(first), target.as_str()),
                None => (cwd.clone(), first.as_str()),
            };
            publish::publish(
                &runtime()?,
                home.root(),
                &dir,
                target,
                *sign,
                key.as_deref(),
            )
            .await
        }
        Some(Command::Keygen { name }) => publish::keygen(home.root(), name),
        Some(Command::Login {
            registry,
            username: Some(username),
            ..
        }) => publish::login(home.root(), registry, username),
        _ => commands::list(&[Location::global(&home), Location::project(&home, &cwd)]),
    }
}
