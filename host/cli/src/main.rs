//! The `tack` binary.

mod app;
mod catalog;
mod cli;
mod home;
mod list;
mod plugins;
mod run;
mod services;
mod settings;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_env("TACK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
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
        None => run::run(cli).await,
    }
}
