//! `tack login <provider>` and `tack logout <provider>`: a provider's API key saved into, or
//! removed from, the tack home's `auth.json` (`crate::api_keys`); for a subscription
//! (`openai-codex`), a sign-in in the browser (`crate::subscription`). The key is read from stdin, so
//! it never appears in the shell's history or the process list; at a terminal it is typed
//! without echo.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::cli::Cli;
use crate::start::{Front, Starting};

pub async fn login(cli: Cli, provider: String) -> Result<ExitCode> {
    if crate::subscription::is_subscription(&provider) {
        return subscription_login(cli).await;
    }
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
    if crate::subscription::is_subscription(&provider) {
        let auth = Starting::load(cli, Front::headless())
            .await?
            .into_loaded()
            .home
            .auth();
        if crate::api_keys::forget(&auth, &provider)? {
            eprintln!(
                "signed out: removed the {provider} login from {}",
                auth.display()
            );
        } else {
            eprintln!("{} holds no {provider} login", auth.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (secret, _, auth) = secret_of(cli, &provider).await?;
    if crate::api_keys::forget(&auth, &secret)? {
        eprintln!("removed {secret} from {}", auth.display());
    } else {
        eprintln!("{} holds no {secret}", auth.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `tack login openai-codex`: signs in to ChatGPT in a browser and keeps the login.
async fn subscription_login(cli: Cli) -> Result<ExitCode> {
    use crate::subscription::{ChatGpt, PendingLogin};
    let loaded = Starting::load(cli, Front::headless()).await?.into_loaded();
    let auth = loaded.home.auth();
    let pending = PendingLogin::start(ChatGpt::from_env()?).await?;
    eprintln!("Sign in to ChatGPT in your browser:\n\n  {}\n", pending.url);
    let at_terminal = std::io::stdin().is_terminal();
    if at_terminal {
        crate::subscription::open_browser(&pending.url);
        eprintln!(
            "Waiting for the browser. If it runs on another machine, paste the address it ends \
             up on here and press Enter."
        );
    } else {
        eprintln!("Waiting for the browser (or the address it ends up on, on stdin).");
    }
    // A thread of its own: a read of stdin cannot be cancelled, and must not hold up the exit.
    let (line_tx, line_rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = std::io::stdin().lock().read_line(&mut line);
        if matches!(read, Ok(n) if n > 0) && !line.trim().is_empty() {
            let _ = line_tx.send(line);
        }
    });
    // Nothing on stdin leaves the browser to answer.
    let pasted = async move {
        match line_rx.await {
            Ok(line) => Some(line),
            Err(_) => std::future::pending().await,
        }
    };
    pending.finish(pasted, loaded.runtime.http(), &auth).await?;
    eprintln!(
        "Signed in to ChatGPT; the login is kept in {}. Use it with --provider {}.",
        auth.display(),
        crate::subscription::CHATGPT
    );
    Ok(ExitCode::SUCCESS)
}

/// The secret `provider` takes its key from, its name, and the auth.json it goes in.
async fn secret_of(cli: Cli, provider: &str) -> Result<(String, String, std::path::PathBuf)> {
    let loaded = Starting::load(cli, Front::headless()).await?.into_loaded();
    let providers = loaded.catalog()?;
    if provider.contains(['.', ':']) && !providers.iter().any(|e| e.id == provider) {
        bail!("a registry login needs -u USER --password-stdin");
    }
    let (secret, name) = crate::api_keys::secret_for(&providers, provider)?;
    Ok((secret, name, loaded.home.auth()))
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

/// The terminal's echo, off while this lives; Ctrl+C meanwhile turns it back on before tack
/// exits, so the shell is not left typing blind.
struct Echo(libc::termios);

/// The settings to restore from the interrupt handler.
static SAVED: std::sync::OnceLock<libc::termios> = std::sync::OnceLock::new();

extern "C" fn restore_and_exit(_signal: libc::c_int) {
    // SAFETY: tcsetattr and _exit are async-signal-safe; SAVED was set before the handler was.
    unsafe {
        if let Some(saved) = SAVED.get() {
            libc::tcsetattr(0, libc::TCSANOW, saved);
        }
        libc::_exit(130);
    }
}

impl Echo {
    fn off() -> Option<Echo> {
        // SAFETY: tcgetattr/tcsetattr on stdin with a termios this function owns, and a signal
        // handler that only calls async-signal-safe functions.
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut saved) != 0 {
                return None;
            }
            let _ = SAVED.set(saved);
            let handler: extern "C" fn(libc::c_int) = restore_and_exit;
            libc::signal(libc::SIGINT, handler as libc::sighandler_t);
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
