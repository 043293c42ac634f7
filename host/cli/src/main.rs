//! The `tack` binary.

mod app;
mod catalog;
mod cli;
mod commands;
mod export;
mod export_html;
mod file_args;
mod home;
mod inbox;
mod list;
mod migrate;
mod model_cycle;
mod model_pattern;
mod model_switch;
mod packages;
mod plugin_dev;
mod plugin_paths;
mod plugins;
mod precompiled;
mod prompt_commands;
mod router;
mod rpc;
mod run;
mod scaffold;
mod services;
mod session_change;
mod session_driver;
mod session_stats;
mod sessions;
mod settings;
mod shell;
mod startup;
mod sync;
mod system_files;
mod tui;
mod user_bash;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    if cli.command.is_none() {
        let raw: Vec<String> = std::env::args().collect();
        if let Some(subcommand) = shell::mistyped_subcommand(&cli.prompt, &raw) {
            eprintln!("tack: {}", shell::did_you_mean(&cli.prompt[0], &subcommand));
            return ExitCode::from(2);
        }
    }
    let filter = tracing_subscriber::EnvFilter::try_from_env("TACK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        // Colour codes only for a terminal: a log file or a pipe gets plain text.
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("tack: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tack: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn dispatch(cli: cli::Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Some(cli::Command::Plugins) => list::plugins(&cli).await,
        Some(cli::Command::Models) => list::models(&cli).await,
        Some(cli::Command::Install { .. })
        | Some(cli::Command::Remove { .. })
        | Some(cli::Command::Update { .. })
        | Some(cli::Command::Publish { .. })
        | Some(cli::Command::Keygen { .. })
        | Some(cli::Command::Login { .. })
        | Some(cli::Command::List) => package_command(&cli).await,
        Some(cli::Command::Sessions { all }) => sessions::list(all, cli.session_dir.as_deref()),
        Some(cli::Command::Import { ref file }) => match migrate::Source::from_arg(file) {
            Some(source) => migrate::run(source, (cli.trust || cli.no_trust).then_some(cli.trust)),
            None => sessions::import(file),
        },
        Some(cli::Command::Export {
            ref session,
            ref output,
        }) => export::run(session, output.as_deref(), cli.session_dir.as_deref()),
        Some(cli::Command::Plugin {
            command: cli::PluginCommand::Dev { ref dir, ref args },
        }) => plugin_dev::run(dir, args).await,
        Some(cli::Command::Plugin { ref command }) => scaffold::run(command),
        Some(cli::Command::Completions { shell }) => shell::completions(shell),
        Some(cli::Command::Man) => shell::man_page(),
        None if cli.mode == cli::Mode::Rpc => rpc::serve(cli).await,
        None => run::run(cli).await,
    }
}

async fn package_command(cli: &cli::Cli) -> anyhow::Result<ExitCode> {
    use packages::{commands, Location};
    let home = home::Home::locate()?;
    let cwd = std::env::current_dir()?;
    let location = |local: bool| {
        if local {
            Location::project(&home, &cwd)
        } else {
            Location::global(&home)
        }
    };
    let runtime = || {
        tack_runtime::Runtime::new(precompiled::runtime_config(&home))
            .map_err(|e| anyhow::anyhow!("cannot start the plugin runtime: {e:#}"))
    };
    // Read from the user's config only: a project cannot switch it off.
    let require_signature = |flag: bool| -> anyhow::Result<bool> {
        let settings = settings::Settings::load(&home.config())?;
        Ok(flag || settings.packages.require_signature.unwrap_or(false))
    };
    match &cli.command {
        Some(cli::Command::Install {
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
            )
            .await
        }
        Some(cli::Command::Remove { name, local }) => commands::remove(&location(*local), name),
        Some(cli::Command::Update {
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
            )
            .await
        }
        Some(cli::Command::Publish {
            first,
            second,
            sign,
            key,
        }) => {
            let (dir, target) = match second {
                Some(target) => (cwd.join(first), target.as_str()),
                None => (cwd.clone(), first.as_str()),
            };
            packages::publish::publish(
                &runtime()?,
                home.root(),
                &dir,
                target,
                *sign,
                key.as_deref(),
            )
            .await
        }
        Some(cli::Command::Keygen { name }) => packages::publish::keygen(home.root(), name),
        Some(cli::Command::Login {
            registry, username, ..
        }) => packages::publish::login(home.root(), registry, username),
        _ => commands::list(&[Location::global(&home), Location::project(&home, &cwd)]),
    }
}
