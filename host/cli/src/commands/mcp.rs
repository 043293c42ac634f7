//! `tack mcp`: the MCP servers tack starts, kept in the files Claude Code reads (`~/.tack/mcp.json`
//! for the user, `.mcp.json` for a project), so one file serves both tools.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use tack_packages::Home;

use crate::cli::{McpCommand, McpScope, McpTransport};
use crate::mcp::{self, McpFile, Scope, ServerEntry};

pub fn run(command: &McpCommand) -> Result<ExitCode> {
    let home = Home::locate()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let project = project_root(&cwd);
    match command {
        McpCommand::List => list(&home, &project),
        McpCommand::Get { name } => get(&home, &project, name),
        McpCommand::Add {
            scope,
            transport,
            env,
            header,
            name,
            command,
        } => {
            let entry = entry_of(*transport, name, env, header, command)?;
            add(&home, &project, *scope, name, entry)
        }
        McpCommand::Remove { name, scope } => remove(&home, &project, name, *scope),
        McpCommand::Import { from } => import(&home, from.as_deref()),
        McpCommand::Login { name } => bail!("tack mcp login {name} runs on its own"),
        McpCommand::Logout { name } => logout(&home, name),
    }
}

/// The entry named `name` a run here would use: a trusted project's before the user's. An
/// untrusted project's entry is never used: its URL (with `${VAR}`s expanded) is not reached.
fn find_used(home: &Home, project: &Path, name: &str) -> Result<(ServerEntry, Scope)> {
    let trusted = tack_packages::trust::TrustStore::load(&home.root().join("trust.toml"))?
        .get(project)
        == tack_packages::trust::Trust::Trusted;
    let project_file = mcp::project_file(project);
    if let Some(entry) = mcp::read(&project_file)?.servers.get(name) {
        if trusted {
            return Ok((entry.clone(), Scope::Project));
        }
        if !mcp::read(&mcp::user_file(home.root()))?
            .servers
            .contains_key(name)
        {
            bail!(
                "MCP server '{name}' is {}'s, and that project is not trusted; trust it first \
                 (run tack --trust there)",
                project_file.display()
            );
        }
    }
    match mcp::read(&mcp::user_file(home.root()))?.servers.get(name) {
        Some(entry) => Ok((entry.clone(), Scope::User)),
        None => bail!("no MCP server named '{name}' (see `tack mcp list`)"),
    }
}

/// `tack mcp login <name>`: OAuth in the browser for a server reached over HTTP; the tokens
/// stay with tack (`mcp::oauth`).
pub async fn login(name: &str) -> Result<ExitCode> {
    let home = Home::locate()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let (entry, scope) = find_used(&home, &project_root(&cwd), name)?;
    let mcp::McpServer::Http(server) =
        mcp::resolve(name, &entry, scope, &env_lookup).map_err(anyhow::Error::msg)?
    else {
        bail!(
            "MCP server '{name}' is a program tack starts; only servers reached over HTTP log in"
        );
    };
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .context("cannot build an HTTP client")?;
    let tokens = mcp::oauth::login(&client, &server.url, &mut |address| {
        println!("To log in to MCP server '{name}', open this address in a browser:\n  {address}");
        if open_browser(address) {
            println!("(A browser was asked to open it.)");
        }
        println!("Waiting for the browser to come back…");
    })
    .await
    .with_context(|| format!("logging in to MCP server '{name}' ({})", server.url))?;
    let path = mcp::oauth::store_path(home.root());
    let mut store = mcp::oauth::read_store(&path)?;
    store.insert(name.to_string(), tokens);
    mcp::oauth::write_store(&path, &store)?;
    println!(
        "Logged in to MCP server '{name}'. tack keeps the tokens in {} and sends them to {} \
         alone; the MCP plugin never sees them.",
        path.display(),
        server.url
    );
    Ok(ExitCode::SUCCESS)
}

/// Opens `address` with `$BROWSER`, else the desktop's opener; whether one started.
fn open_browser(address: &str) -> bool {
    let opener = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            }
        });
    let mut words = opener.split_whitespace();
    let Some(program) = words.next() else {
        return false;
    };
    std::process::Command::new(program)
        .args(words)
        .arg(address)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok()
}

fn logout(home: &Home, name: &str) -> Result<ExitCode> {
    let path = mcp::oauth::store_path(home.root());
    let mut store = mcp::oauth::read_store(&path)?;
    if store.remove(name).is_none() {
        bail!("tack holds no login for MCP server '{name}'");
    }
    mcp::oauth::write_store(&path, &store)?;
    println!("Forgot the login of MCP server '{name}'.");
    Ok(ExitCode::SUCCESS)
}

fn project_root(cwd: &Path) -> PathBuf {
    tack_core::system_prompt::find_repo_root(cwd).unwrap_or_else(|| cwd.to_path_buf())
}

fn file_of(home: &Home, project: &Path, scope: McpScope) -> PathBuf {
    match scope {
        McpScope::User => mcp::user_file(home.root()),
        McpScope::Project => mcp::project_file(project),
    }
}

fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// One line for a server: what runs or where it is, with the variables and headers it sets by
/// name only (their values are often tokens).
fn describe(name: &str, entry: &ServerEntry, scope: Scope) -> String {
    let what = match mcp::resolve(name, entry, scope, &env_lookup) {
        Ok(server) => server.summary(),
        Err(why) => format!("not used: {why}"),
    };
    format!("{name} ({}): {what}", scope.as_str())
}

/// The file entry `tack mcp add` writes: a program and its arguments (`--transport stdio`), or
/// a URL and headers (`--transport http`), as `claude mcp add` takes them.
fn entry_of(
    transport: McpTransport,
    name: &str,
    env: &[String],
    headers: &[String],
    command: &[String],
) -> Result<ServerEntry> {
    let mut entry = ServerEntry::default();
    match transport {
        McpTransport::Stdio => {
            if !headers.is_empty() {
                bail!("--header is for a server reached over http (--transport http)");
            }
            let Some((program, args)) = command.split_first() else {
                bail!(
                    "give the server's command after `--`: tack mcp add {name} -- <command> [args…]"
                );
            };
            entry.command = Some(program.clone());
            entry.args = args.to_vec();
            for pair in env {
                let Some((key, value)) = pair.split_once('=') else {
                    bail!("--env {pair}: write it as KEY=VALUE");
                };
                entry.env.insert(key.to_string(), value.to_string());
            }
        }
        McpTransport::Http | McpTransport::Sse => {
            if !env.is_empty() {
                bail!(
                    "--env is for a server tack starts; a server reached over http takes --header"
                );
            }
            // Headers may follow the URL too, as `claude mcp add` allows; the trailing words
            // are the URL's.
            let Some((url, rest)) = command.split_first() else {
                bail!("give the server's URL: tack mcp add --transport http {name} <url>");
            };
            let mut headers = headers.to_vec();
            let mut words = rest.iter();
            while let Some(word) = words.next() {
                match word.as_str() {
                    "-H" | "--header" => match words.next() {
                        Some(value) => headers.push(value.clone()),
                        None => bail!("{word} needs a value: 'Name: value'"),
                    },
                    other => match other.strip_prefix("--header=") {
                        Some(value) => headers.push(value.to_string()),
                        None => bail!(
                            "`{other}` after the URL: an http server takes only its URL and \
                             --header 'Name: value'"
                        ),
                    },
                }
            }
            entry.kind = Some(
                if transport == McpTransport::Sse {
                    "sse"
                } else {
                    "http"
                }
                .into(),
            );
            entry.url = Some(url.clone());
            for line in &headers {
                let Some((key, value)) = line.split_once(':') else {
                    bail!("--header {line}: write it as 'Name: value'");
                };
                entry
                    .headers
                    .insert(key.trim().to_string(), value.trim().to_string());
            }
        }
    }
    Ok(entry)
}

fn list(home: &Home, project: &Path) -> Result<ExitCode> {
    let user = mcp::read(&mcp::user_file(home.root()))?;
    let project_path = mcp::project_file(project);
    let shared = mcp::read(&project_path)?;
    if user.servers.is_empty() && shared.servers.is_empty() {
        println!("No MCP servers. Add one with `tack mcp add <name> -- <command> [args…]`.");
        return Ok(ExitCode::SUCCESS);
    }
    for (name, entry) in &user.servers {
        let shadowed = shared.servers.contains_key(name);
        let line = describe(name, entry, Scope::User);
        if shadowed {
            println!("{line} [replaced by the project's in a trusted project]");
        } else {
            println!("{line}");
        }
    }
    for (name, entry) in &shared.servers {
        println!(
            "{} [{}; used only once the project is trusted]",
            describe(name, entry, Scope::Project),
            project_path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn get(home: &Home, project: &Path, name: &str) -> Result<ExitCode> {
    for (path, scope) in [
        (mcp::project_file(project), Scope::Project),
        (mcp::user_file(home.root()), Scope::User),
    ] {
        let file = mcp::read(&path)?;
        if let Some(entry) = file.servers.get(name) {
            println!("{}", describe(name, entry, scope));
            println!("  file: {}", path.display());
            if let Some(url) = &entry.url {
                println!("  url: {url}");
            }
            return Ok(ExitCode::SUCCESS);
        }
    }
    bail!("no MCP server named '{name}' (see `tack mcp list`)")
}

fn add(
    home: &Home,
    project: &Path,
    scope: McpScope,
    name: &str,
    entry: ServerEntry,
) -> Result<ExitCode> {
    let file_scope = match scope {
        McpScope::User => Scope::User,
        McpScope::Project => Scope::Project,
    };
    // Checked as tack will read it, so a server that could not run is never written.
    let server = mcp::resolve(name, &entry, file_scope, &env_lookup).map_err(anyhow::Error::msg)?;
    let path = file_of(home, project, scope);
    let mut file = mcp::read(&path)?;
    let replaced = file.servers.insert(name.to_string(), entry).is_some();
    mcp::write(&path, &file)?;
    println!(
        "{} MCP server '{name}' in {}: {}.",
        if replaced { "Replaced" } else { "Added" },
        path.display(),
        server.summary()
    );
    match server {
        mcp::McpServer::Stdio(_) => println!(
            "It runs in the command sandbox; its tools are named {name}_<tool> and are asked \
             about like any tool."
        ),
        mcp::McpServer::Http(http) => {
            if let Some(secret) = &http.secret {
                println!(
                    "tack keeps {}'s value and attaches it to requests to {} alone; the MCP \
                     plugin never sees it.",
                    secret.header, http.url
                );
            }
            println!("Its tools are named {name}_<tool> and are asked about like any tool.");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn remove(home: &Home, project: &Path, name: &str, scope: Option<McpScope>) -> Result<ExitCode> {
    let scopes = match scope {
        Some(scope) => vec![scope],
        None => vec![McpScope::User, McpScope::Project],
    };
    for scope in scopes {
        let path = file_of(home, project, scope);
        let mut file = mcp::read(&path)?;
        if file.servers.remove(name).is_some() {
            mcp::write(&path, &file)?;
            println!("Removed MCP server '{name}' from {}.", path.display());
            return Ok(ExitCode::SUCCESS);
        }
    }
    bail!("no MCP server named '{name}' (see `tack mcp list`)")
}

/// Codex's `[mcp_servers.<name>]` tables: `command`, `args`, `env`, and `url` for a server it
/// reaches over HTTP.
fn import(home: &Home, from: Option<&Path>) -> Result<ExitCode> {
    let path = match from {
        Some(path) => path.to_path_buf(),
        None => codex_config()?,
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("{} is not valid TOML", path.display()))?;
    let Some(servers) = table.get("mcp_servers").and_then(toml::Value::as_table) else {
        println!(
            "{} has no [mcp_servers]; nothing to import.",
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    };
    let target = mcp::user_file(home.root());
    let mut file: McpFile = mcp::read(&target)?;
    let (mut added, mut kept, mut skipped) = (0, 0, 0);
    for (name, value) in servers {
        if file.servers.contains_key(name) {
            println!(
                "kept {name}: {} already has a server of that name",
                target.display()
            );
            kept += 1;
            continue;
        }
        let entry = match codex_entry(value) {
            Ok(entry) => entry,
            Err(why) => {
                println!("skipped {name}: {why}");
                skipped += 1;
                continue;
            }
        };
        println!("imported {}", describe(name, &entry, Scope::User));
        file.servers.insert(name.clone(), entry);
        added += 1;
    }
    if added > 0 {
        mcp::write(&target, &file)?;
    }
    println!(
        "{added} imported into {}, {kept} kept, {skipped} skipped.",
        target.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn codex_config() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("CODEX_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("config.toml"));
    }
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        bail!("HOME is not set; name Codex's config with --from");
    };
    Ok(PathBuf::from(home).join(".codex").join("config.toml"))
}

fn codex_entry(value: &toml::Value) -> Result<ServerEntry, String> {
    let table = value.as_table().ok_or("not a table")?;
    let text = |key: &str| -> Result<Option<String>, String> {
        match table.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` is not a string")),
        }
    };
    let mut entry = ServerEntry {
        command: text("command")?,
        url: text("url")?,
        ..ServerEntry::default()
    };
    if entry.url.is_some() && entry.command.is_none() {
        entry.kind = Some("http".into());
    }
    if let Some(args) = table.get("args") {
        let args = args.as_array().ok_or("`args` is not a list")?;
        for arg in args {
            entry
                .args
                .push(arg.as_str().ok_or("`args` holds a non-string")?.to_string());
        }
    }
    if let Some(env) = table.get("env") {
        let env = env.as_table().ok_or("`env` is not a table")?;
        for (key, value) in env {
            let value = value
                .as_str()
                .ok_or(format!("`env.{key}` is not a string"))?;
            entry.env.insert(key.clone(), value.to_string());
        }
    }
    if entry.command.is_none() && entry.url.is_none() {
        return Err("it has neither `command` nor `url`".into());
    }
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codex_table_becomes_an_entry() {
        let value: toml::Value = toml::from_str(
            r#"
command = "npx"
args = ["-y", "server"]
env = { API = "x" }
"#,
        )
        .expect("toml");
        let entry = codex_entry(&value).expect("entry");
        assert_eq!(entry.command.as_deref(), Some("npx"));
        assert_eq!(entry.args, ["-y", "server"]);
        assert_eq!(entry.env.get("API").map(String::as_str), Some("x"));
        let remote: toml::Value = toml::from_str(r#"url = "https://x/mcp""#).expect("toml");
        assert_eq!(
            codex_entry(&remote).expect("entry").kind.as_deref(),
            Some("http")
        );
        let empty: toml::Value = toml::from_str("enabled = true").expect("toml");
        assert!(codex_entry(&empty).is_err());
    }
}
