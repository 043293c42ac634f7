//! `tack login <provider>` and `tack logout <provider>`: a provider's API key saved into, or
//! removed from, the tack home's `auth.json` (`crate::api_keys`). The key is read from stdin, so
//! it never appears in the shell's history or the process list; at a terminal it is typed
//! without echo.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::cli::Cli;
use crate::models::catalog;
use crate::models::host_credentials::HostCredentials;
use crate::start::{Front, Starting};

pub async fn login(cli: Cli, provider: String) -> Result<ExitCode> {
    let (secret, name, auth) = secret_of(cli, &provider).await?;
    let key = read_key(&format!("API key for {name} ({secret}): "))?;
    if key.is_empty() {
        bail!("no key was given on stdin; nothing was saved");
    }
    crate::api_keys::save(&auth, &secret, &key)?;
    eprintln!("saved {secret} in {}", auth.display());
    if std::env::var(&secret).is_ok_and(|v| !v.is_empty()) {
        eprintln!("note: {secret} is also set in the environment, which is used first");
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn logout(cli: Cli, provider: String) -> Result<ExitCode> {
    let (secret, _, auth) = secret_of(cli, &provider).await?;
    if crate::api_keys::forget(&auth, &secret)? {
        eprintln!("removed {secret} from {}", auth.display());
    } else {
        eprintln!("{} holds no {secret}", auth.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The secret `provider` takes its key from, its name, and the auth.json it goes in.
async fn secret_of(cli: Cli, provider: &str) -> Result<(String, String, std::path::PathBuf)> {
    let loaded = Starting::load(cli, Front::headless()).await?.into_loaded();
    let providers = catalog::build(&loaded.set, &loaded.settings, &loaded.secrets)?;
    let Some(entry) = providers.iter().find(|e| e.id == provider) else {
        if provider.contains(['.', ':']) {
            bail!("a registry login needs -u USER --password-stdin");
        }
        let known: Vec<&str> = providers
            .iter()
            .filter(|e| e.spec.secret.is_some())
            .map(|e| e.id.as_str())
            .collect();
        bail!(
            "unknown provider '{provider}' (with keys: {})",
            known.join(", ")
        );
    };
    match &entry.spec.secret {
        Some(secret) => Ok((secret.clone(), entry.spec.name.clone(), loaded.home.auth())),
        None if entry.host_credentials != HostCredentials::None => bail!(
            "provider '{provider}' uses the credentials tack finds for it (AWS or Google; see \
             the README), not a saved key"
        ),
        None => bail!("provider '{provider}' takes no API key"),
    }
}

/// One line of stdin, trimmed; typed without echo when stdin is a terminal.
fn read_key(prompt: &str) -> Result<String> {
    let stdin = std::io::stdin();
    let at_terminal = stdin.is_terminal();
    let echo = if at_terminal {
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        Echo::off()
    } else {
        None
    };
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    drop(echo);
    if at_terminal {
        eprintln!();
    }
    read.context("cannot read the key from stdin")?;
    Ok(line.trim().to_string())
}

/// The terminal's echo, off while this lives.
struct Echo(libc::termios);

impl Echo {
    fn off() -> Option<Echo> {
        // SAFETY: tcgetattr/tcsetattr on stdin with a termios this function owns.
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut saved) != 0 {
                return None;
            }
            let mut quiet = saved;
            quiet.c_lflag &= !libc::ECHO;
            quiet.c_lflag |= libc::ECHONL;
            if libc::tcsetattr(0, libc::TCSANOW, &quiet) != 0 {
                return None;
            }
            Some(Echo(saved))
        }
    }
}

impl Drop for Echo {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `off`.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.0);
        }
    }
}
