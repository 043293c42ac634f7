//! Deciding which requested capabilities to grant: `--grant` flags, else a question per
//! capability on a terminal, else refused.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{bail, Result};
use tack_runtime::{Capabilities, FsGrant};

/// What `--grant` said: `all`, a kind (`fs`, `exec`, `process`, `http`, `secrets`, `rewrite`), or
/// one item (`exec=git status *`, `process=npx -y some-mcp-server`, `http=https://api.example.com`,
/// `secrets=NAME`, `fs=$WORKSPACE`, `rewrite=bash`).
pub struct GrantFlags(Vec<(String, Option<String>)>);

impl GrantFlags {
    pub fn parse(flags: &[String]) -> Result<Self> {
        let mut out = Vec::new();
        for flag in flags {
            let (kind, value) = match flag.split_once('=') {
                Some((k, v)) => (k.trim().to_string(), Some(v.to_string())),
                None => (flag.trim().to_string(), None),
            };
            if !matches!(
                kind.as_str(),
                "all"
                    | "fs"
                    | "exec"
                    | "process"
                    | "http"
                    | "secrets"
                    | "env"
                    | "rewrite"
                    | "agents"
                    | "escalation"
                    | "components"
                    | "provider_payload"
                    | "replace_tools"
                    | "bus"
            ) {
                bail!("--grant {flag}: expected all, fs, exec, process, http, secrets, env, rewrite, agents, escalation, components, provider_payload, replace_tools or bus (optionally KIND=VALUE)");
            }
            out.push((kind, value));
        }
        Ok(Self(out))
    }

    fn covers(&self, kind: &str, value: &str) -> bool {
        self.0
            .iter()
            .any(|(k, v)| k == "all" || (k == kind && v.as_deref().is_none_or(|v| v == value)))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The capabilities the flags name one by one, for a package that declares none (a Pi
    /// package: what its extensions may reach is only what the user names). `all` or a kind
    /// without a value names nothing that could be granted, so it is refused, except the grants
    /// that are a yes or no (`agents`, `components`).
    pub fn named(&self) -> Result<Capabilities> {
        let mut caps = Capabilities::default();
        for (kind, value) in &self.0 {
            match (kind.as_str(), value.as_deref()) {
                ("agents", None) => caps.agents = true,
                ("components", None) => caps.components = true,
                ("fs", Some(path)) => caps.fs.push(FsGrant {
                    path: path.to_string(),
                    access: tack_runtime::Access::ReadWrite,
                }),
                ("exec", Some(v)) => caps.exec.push(v.to_string()),
                ("process", Some(v)) => caps.process.push(v.to_string()),
                ("http", Some(v)) => caps.http.push(v.to_string()),
                ("secrets", Some(v)) => caps.secrets.push(v.to_string()),
                ("env", Some(v)) => caps.env.push(v.to_string()),
                ("replace_tools", Some(v)) => caps.replace_tools.push(v.to_string()),
                ("bus", Some(v)) => caps.bus.push(v.to_string()),
                (kind, _) => {
                    bail!(
                    "--grant {kind}{}: a Pi package declares no capabilities, so each grant names \
                     what it gives (fs=PATH, exec=PATTERN, process=PATTERN, http=ORIGIN, \
                     secrets=NAME, env=NAME, replace_tools=TOOL, bus=CHANNEL, agents, components)",
                    value.as_deref().map(|v| format!("={v}")).unwrap_or_default()
                )
                }
            }
        }
        Ok(caps)
    }
}

/// Goes through `requested` item by item. Returns what was granted.
pub fn decide(package: &str, requested: &Capabilities, flags: &GrantFlags) -> Result<Capabilities> {
    let interactive =
        flags.is_empty() && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let mut granted = Capabilities::default();
    let ask = |kind: &str, value: &str, words: &str| -> Result<bool> {
        if flags.covers(kind, value) {
            eprintln!("  ✓ {words}");
            return Ok(true);
        }
        if !interactive {
            eprintln!("  ✗ {words} (not granted; pass --grant {kind}={value} to grant it)");
            return Ok(false);
        }
        eprint!("  Allow '{package}' to {words}? [y/N] ");
        std::io::stderr().flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
    };
    for fs in &requested.fs {
        let words = Capabilities {
            fs: vec![fs.clone()],
            ..Default::default()
        }
        .describe()
        .join("");
        if ask("fs", &fs.path, &words)? {
            granted.fs.push(FsGrant {
                path: fs.path.clone(),
                access: fs.access,
            });
        }
    }
    for pattern in &requested.exec {
        let words = Capabilities {
            exec: vec![pattern.clone()],
            ..Default::default()
        }
        .describe()
        .join("");
        if ask("exec", pattern, &words)? {
            granted.exec.push(pattern.clone());
        }
    }
    for pattern in &requested.process {
        let words = Capabilities {
            process: vec![pattern.clone()],
            ..Default::default()
        }
        .describe()
        .join("");
        if ask("process", pattern, &words)? {
            granted.process.push(pattern.clone());
        }
    }
    for url in &requested.http {
        if ask("http", url, &format!("send HTTP requests to {url}"))? {
            granted.http.push(url.clone());
        }
    }
    for secret in &requested.secrets {
        let words = tack_runtime::manifest::describe_secret(secret, &requested.http);
        if ask("secrets", secret, &words)? {
            granted.secrets.push(secret.clone());
        }
    }
    for var in &requested.env {
        let words = Capabilities {
            env: vec![var.clone()],
            ..Default::default()
        }
        .describe()
        .join("");
        if ask("env", var, &words)? {
            granted.env.push(var.clone());
        }
    }
    for tool in &requested.rewrite {
        let words = Capabilities {
            rewrite: vec![tool.clone()],
            ..Default::default()
        }
        .describe()
        .join("");
        if ask("rewrite", tool, &words)? {
            granted.rewrite.push(tool.clone());
        }
    }
    if requested.agents {
        let words = Capabilities {
            agents: true,
            ..Default::default()
        }
        .describe()
        .join("");
        granted.agents = ask("agents", "true", &words)?;
    }
    if requested.escalation {
        let words = Capabilities {
            escalation: true,
            ..Default::default()
        }
        .describe()
        .join("");
        granted.escalation = ask("escalation", "true", &words)?;
    }
    if requested.components {
        let words = Capabilities {
            components: true,
            ..Default::default()
        }
        .describe()
        .join("");
        granted.components = ask("components", "true", &words)?;
    }
    for tool in &requested.replace_tools {
        let words = Capabilities {
            replace_tools: vec![tool.clone()],
            ..Default::default()
        }
        .describe()
        .join("");
        if ask("replace_tools", tool, &words)? {
            granted.replace_tools.push(tool.clone());
        }
    }
    for channel in &requested.bus {
        let words = Capabilities {
            bus: vec![channel.clone()],
            ..Default::default()
        }
        .describe()
        .join("");
        if ask("bus", channel, &words)? {
            granted.bus.push(channel.clone());
        }
    }
    if let Some(access) = requested.provider_payload {
        let words = Capabilities {
            provider_payload: Some(access),
            ..Default::default()
        }
        .describe()
        .join("");
        if ask("provider_payload", access.as_str(), &words)? {
            granted.provider_payload = Some(access);
        }
    }
    Ok(granted)
}
