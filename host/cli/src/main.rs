//! The `tack` binary.

mod api_keys;
mod checkpoints;
mod cli;
mod commands;
mod mcp;
mod models;
mod modes;
mod oauth_loopback;
mod private_file;
mod sessions;
mod settings;
mod start;
mod subscription;
mod sync;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    if cli.command.is_none() {
        let raw: Vec<String> = std::env::args().collect();
        if let Some(subcommand) = commands::shell::mistyped_subcommand(&cli.prompt, &raw) {
            eprintln!(
                "tack: {}",
                commands::shell::did_you_mean(&cli.prompt[0], &subcommand)
            );
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
    let ended = runtime.block_on(dispatch(cli));
    // A blocking read still waiting (an RPC client's stdin that a plugin's `shutdown` did not
    // close) would hold the exit for ever; everything that matters was awaited above.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match ended {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tack: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn dispatch(cli: cli::Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Some(cli::Command::Plugins) => commands::list::plugins(cli).await,
        Some(cli::Command::Models { ref search }) => {
            let search = search.clone();
            commands::list::models(cli, search).await
        }
        Some(cli::Command::Login {
            ref registry,
            username: None,
            ..
        }) => {
            let provider = registry.clone();
            commands::keys::login(cli, provider).await
        }
        Some(cli::Command::Logout { ref provider }) => {
            let provider = provider.clone();
            commands::keys::logout(cli, provider).await
        }
        Some(cli::Command::Install { .. })
        | Some(cli::Command::Remove { .. })
        | Some(cli::Command::Update { .. })
        | Some(cli::Command::Publish { .. })
        | Some(cli::Command::Keygen { .. })
        | Some(cli::Command::Login { .. })
        | Some(cli::Command::List) => commands::packages::run(&cli).await,
        Some(cli::Command::Sessions { all }) => sessions::list(all, cli.session_dir.as_deref()),
        Some(cli::Command::Import { ref file }) => {
            match commands::migrate::Source::from_arg(file) {
                Some(source) => {
                    commands::migrate::run(source, (cli.trust || cli.no_trust).then_some(cli.trust))
                }
                None => sessions::import(file),
            }
        }
        Some(cli::Command::Export {
            ref session,
            ref output,
        }) => sessions::export::run(session, output.as_deref(), cli.session_dir.as_deref()),
        Some(cli::Command::Plugin {
            command: cli::PluginCommand::Dev { ref dir, ref args },
        }) => commands::plugin_dev::run(dir, args).await,
        Some(cli::Command::Plugin { ref command }) => commands::scaffold::run(command),
        Some(cli::Command::Mcp {
            command: cli::McpCommand::Login { ref name },
        }) => commands::mcp::login(name).await,
        Some(cli::Command::Mcp { ref command }) => commands::mcp::run(command),
        Some(cli::Command::Completions { shell }) => commands::shell::completions(shell),
        Some(cli::Command::Man) => commands::shell::man_page(),
        None if cli.mode == cli::Mode::Rpc => modes::rpc::serve(cli).await,
        None => modes::print::run(cli).await,
    }
}
