//! What a run took from the project it was started in, said once at start-up: the context files
//! that went into the system prompt, and the project's own files (`.tack/…`) that were used or,
//! because the project is not trusted, ignored.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

/// The project's files that matter to a run, as found at start-up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProjectFiles {
    /// Used: the project is trusted (or the file only ever makes things stricter).
    pub used: Vec<String>,
    /// Present but ignored, because the project is not trusted.
    pub ignored: Vec<String>,
}

impl ProjectFiles {
    /// Sorts the `.tack/` files of the project at `root` by whether this run uses them.
    pub fn classify(root: &Path, trusted: bool) -> Self {
        let dot = root.join(".tack");
        let present = |name: &str| std::fs::symlink_metadata(dot.join(name)).is_ok();
        let mut files = ProjectFiles::default();
        let mut sort = |label: String, gated: bool| {
            if trusted || !gated {
                files.used.push(label);
            } else {
                files.ignored.push(label);
            }
        };
        if present("config.toml") {
            sort(".tack/config.toml".into(), true);
        }
        if present("tack.lock") || present("packages") {
            let names = tack_packages::lockfile::Lockfile::package_names(&dot.join("tack.lock"));
            let label = if names.is_empty() {
                ".tack/packages".to_string()
            } else {
                format!(".tack/packages ({})", names.join(", "))
            };
            sort(label, true);
        }
        for name in ["SYSTEM.md", "APPEND_SYSTEM.md", "skills", "prompts"] {
            if present(name) {
                sort(format!(".tack/{name}"), true);
            }
        }
        for name in claude_files(root) {
            if name.starts_with(".claude/settings") {
                if trusted {
                    files
                        .used
                        .push(format!("{name} (permission rules and hooks)"));
                } else {
                    files.used.push(format!("{name} (deny and ask rules only)"));
                    files
                        .ignored
                        .push(format!("{name} (allow rules and hooks)"));
                }
            } else if trusted {
                files.used.push(name);
            } else {
                files.ignored.push(name);
            }
        }
        if present("permissions.toml") {
            if trusted {
                files.used.push(".tack/permissions.toml".into());
            } else {
                // permission-gate applies an untrusted project's deny and ask rules, which can
                // only make it stricter, and ignores its allow rules.
                files
                    .used
                    .push(".tack/permissions.toml (deny and ask rules only)".into());
                files
                    .ignored
                    .push(".tack/permissions.toml (allow rules)".into());
            }
        }
        files
    }
}

/// The Claude Code files of the project at `root` that tack reads (commands, agents, skills,
/// settings), as `.claude/…`.
pub fn claude_files(root: &Path) -> Vec<String> {
    let dot = root.join(".claude");
    [
        "commands",
        "agents",
        "skills",
        "settings.json",
        "settings.local.json",
    ]
    .iter()
    .filter(|name| std::fs::symlink_metadata(dot.join(name)).is_ok())
    .map(|name| format!(".claude/{name}"))
    .collect()
}

/// Everything the start-up report says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StartupReport {
    /// The context files in the system prompt, as paths relative to the working directory.
    pub context_files: Vec<String>,
    pub project_files: ProjectFiles,
    /// The files that replaced or extended the system prompt (`SYSTEM.md`, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub system_prompt: Vec<String>,
    /// The plugins loaded and running.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plugins: Vec<String>,
    /// Each plugin's commands (skills and prompt templates among them), by plugin.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<(String, Vec<String>)>,
    /// The command sandbox in words (`workspace-write, network off, at most 512 processes`).
    #[serde(skip)]
    pub sandbox: String,
    /// The protections of the command sandbox this system cannot give, each with what a command
    /// can then do. Said in every mode: commands never run less confined than asked in silence.
    #[serde(skip)]
    pub sandbox_missing: Vec<String>,
}

impl StartupReport {
    /// The report as lines for a terminal (without the `tack: ` prefix).
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.context_files.is_empty() {
            lines.push(format!("context: {}", self.context_files.join(", ")));
        }
        if !self.system_prompt.is_empty() {
            lines.push(format!("system prompt: {}", self.system_prompt.join(", ")));
        }
        if !self.project_files.used.is_empty() {
            lines.push(format!(
                "project files used: {}",
                self.project_files.used.join(", ")
            ));
        }
        if !self.project_files.ignored.is_empty() {
            lines.push(format!(
                "project files ignored (the project is not trusted; pass --trust to use them): {}",
                self.project_files.ignored.join(", ")
            ));
        }
        if !self.sandbox_missing.is_empty() {
            lines.push(format!(
                "command sandbox: {}",
                self.sandbox_missing.join("; ")
            ));
        }
        lines
    }

    /// The running plugins and the commands of each (a skill's `/skill:<name>`, a template's
    /// `/<name>`).
    pub fn add_plugins(&mut self, set: &tack_runtime::PluginSet) {
        for plugin in set.plugins() {
            if plugin.disabled_reason().is_some() {
                continue;
            }
            self.plugins.push(plugin.name().to_string());
            let commands: Vec<String> = set
                .commands()
                .into_iter()
                .filter(|(owner, _)| owner.name() == plugin.name())
                .map(|(_, spec)| format!("/{}", spec.name))
                .collect();
            if !commands.is_empty() {
                self.commands.push((plugin.name().to_string(), commands));
            }
        }
    }

    /// The full report (`--verbose`, the terminal UI): [`StartupReport::lines`], then the
    /// plugins and each plugin's commands.
    pub fn verbose_lines(&self) -> Vec<String> {
        let mut lines = self.lines();
        if !self.sandbox.is_empty() {
            lines.push(format!("commands run in: {}", self.sandbox));
        }
        if !self.plugins.is_empty() {
            lines.push(format!("plugins: {}", self.plugins.join(", ")));
        }
        for (plugin, commands) in &self.commands {
            lines.push(format!("{plugin}: {}", commands.join(" ")));
        }
        lines
    }
}

/// A context file as the start-up report names it: relative to `cwd` when it is in the project
/// at `root` (`AGENTS.md`, `../AGENTS.md`), else in full (the tack home's).
pub fn shown(path: &Path, cwd: &Path, root: &Path) -> String {
    if path.starts_with(root) {
        relative_to(path, cwd)
    } else {
        path.display().to_string()
    }
}

/// `path` as seen from `cwd`: `AGENTS.md`, `../AGENTS.md`, or absolute when they share nothing
/// but the root.
pub fn relative_to(path: &Path, cwd: &Path) -> String {
    let common = cwd
        .ancestors()
        .find(|dir| path.starts_with(dir))
        .filter(|dir| dir.components().any(|c| matches!(c, Component::Normal(_))));
    let Some(common) = common else {
        return path.display().to_string();
    };
    let ups = cwd
        .strip_prefix(common)
        .map(|rest| rest.components().count())
        .unwrap_or(0);
    let mut out = PathBuf::new();
    for _ in 0..ups {
        out.push("..");
    }
    if let Ok(rest) = path.strip_prefix(common) {
        out.push(rest);
    }
    out.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_from_the_working_directory() {
        let cwd = Path::new("/home/u/repo/sub");
        assert_eq!(
            relative_to(Path::new("/home/u/repo/sub/AGENTS.md"), cwd),
            "AGENTS.md"
        );
        assert_eq!(
            relative_to(Path::new("/home/u/repo/AGENTS.md"), cwd),
            "../AGENTS.md"
        );
        assert_eq!(
            relative_to(Path::new("/etc/tack/AGENTS.md"), cwd),
            "/etc/tack/AGENTS.md"
        );
    }

    #[test]
    fn an_untrusted_project_keeps_only_what_makes_things_stricter() {
        let dir = tempfile::tempdir().expect("tempdir");
        let dot = dir.path().join(".tack");
        std::fs::create_dir_all(&dot).expect("mkdir");
        std::fs::write(dot.join("config.toml"), "").expect("write");
        std::fs::write(dot.join("permissions.toml"), "").expect("write");
        let untrusted = ProjectFiles::classify(dir.path(), false);
        assert_eq!(
            untrusted.used,
            [".tack/permissions.toml (deny and ask rules only)"]
        );
        assert_eq!(
            untrusted.ignored,
            [".tack/config.toml", ".tack/permissions.toml (allow rules)"]
        );
        let trusted = ProjectFiles::classify(dir.path(), true);
        assert_eq!(
            trusted.used,
            [".tack/config.toml", ".tack/permissions.toml"]
        );
        assert!(trusted.ignored.is_empty());
    }
}
