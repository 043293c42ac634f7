//! `tack import claude` and `tack import codex`: what a Claude Code or Codex set-up holds for the
//! user and for this project, and what each piece is in tack. It changes nothing: tack reads
//! those files where they are (the built-in plugins' `[[paths]]`), the project's only once the
//! project is trusted.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::start::packages::{project_trusted, TrustChoice};
use tack_packages::Home;

/// Whose set-up to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Claude,
    Codex,
}

impl Source {
    /// `claude` or `codex`, unless a file of that name is there (then it is a session to import).
    pub fn from_arg(arg: &Path) -> Option<Source> {
        if arg.exists() {
            return None;
        }
        match arg.to_str()? {
            "claude" | "claude-code" => Some(Source::Claude),
            "codex" => Some(Source::Codex),
            _ => None,
        }
    }
}

/// Where to look.
pub struct Places {
    pub user_home: Option<PathBuf>,
    pub tack_home: PathBuf,
    pub project: PathBuf,
    pub trusted: bool,
}

/// Prints the report. `--trust` / `--no-trust` decide as they do for a run (and `--trust` is
/// remembered); otherwise what the user said before, never asking.
pub fn run(source: Source, trust: Option<bool>) -> Result<ExitCode> {
    let home = Home::locate()?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let project = tack_packages::Location::project(&home, &cwd)
        .project
        .unwrap_or_else(|| cwd.clone());
    let choice = match trust {
        Some(true) => TrustChoice::Trust,
        Some(false) => TrustChoice::NoTrust,
        None => TrustChoice::StoredOnly,
    };
    let gated = crate::start::report::claude_files(&project);
    let trusted = project_trusted(&home, &project, choice, &gated)?;
    let places = Places {
        user_home: std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from),
        tack_home: home.root().to_path_buf(),
        project,
        trusted,
    };
    print!("{}", report(source, &places));
    Ok(ExitCode::SUCCESS)
}

/// The whole report, paths shown as `~/…` in the home folder and relative in the project.
pub fn report(source: Source, places: &Places) -> String {
    let mut out = Report {
        text: String::new(),
        places,
    };
    match source {
        Source::Claude => claude(&mut out),
        Source::Codex => codex(&mut out),
    }
    out.text
}

struct Report<'a> {
    text: String,
    places: &'a Places,
}

impl Report<'_> {
    fn line(&mut self, text: impl AsRef<str>) {
        self.text.push_str(text.as_ref());
        self.text.push('\n');
    }

    fn section(&mut self, title: &str) {
        self.text.push('\n');
        self.line(title);
    }

    fn user(&self, rel: &str) -> Option<PathBuf> {
        self.places.user_home.as_ref().map(|h| h.join(rel))
    }

    /// A path as the user knows it.
    fn show(&self, path: &Path) -> String {
        if let Ok(rel) = path.strip_prefix(&self.places.project) {
            return rel.display().to_string();
        }
        if let Some(home) = &self.places.user_home {
            if let Ok(rel) = path.strip_prefix(home) {
                return format!("~/{}", rel.display());
            }
        }
        path.display().to_string()
    }

    /// `(applies)` or `(applies once you trust the project)` for a project-scoped item.
    fn project_note(&self) -> &'static str {
        if self.places.trusted {
            ""
        } else {
            " [not used until you trust the project]"
        }
    }

    fn header(&mut self, tool: &str) {
        let project = self.places.project.display().to_string();
        self.line(format!("{tool} set-up found for you and for {project}."));
        if self.places.trusted {
            self.line("The project is trusted: its files below are used.");
        } else {
            self.line(
                "The project is not trusted: tack uses your own files below, but of the \
                 project's only permission rules that deny or ask. Run `tack --trust` once you \
                 have read them.",
            );
        }
    }
}

fn claude(out: &mut Report<'_>) {
    out.header("Claude Code");
    let project = out.places.project.clone();
    let note = out.project_note();

    out.section("Context files (read into the system prompt in every folder from ~ down; AGENTS.md wins over CLAUDE.md in one folder):");
    let mut any = false;
    for name in ["AGENTS.md", "CLAUDE.md"] {
        let path = project.join(name);
        if path.is_file() {
            any = true;
            out.line(format!("  {} -> context", out.show(&path)));
        }
    }
    if let Some(memory) = out.user(".claude/CLAUDE.md").filter(|p| p.is_file()) {
        any = true;
        let target = out.places.tack_home.join("AGENTS.md");
        out.line(format!(
            "  {} -> not read by tack; copy it to {} to keep it for every project",
            out.show(&memory),
            target.display()
        ));
    }
    if !any {
        out.line("  none");
    }

    out.section("Commands (-> prompt templates: /name, $ARGUMENTS and $1… filled in):");
    let mut commands = Vec::new();
    if let Some(dir) = out.user(".claude/commands") {
        commands.extend(
            markdown_files(&dir, 6)
                .into_iter()
                .map(|f| (f, dir.clone(), "user", "")),
        );
    }
    let dir = project.join(".claude/commands");
    commands.extend(
        markdown_files(&dir, 6)
            .into_iter()
            .map(|f| (f, dir.clone(), "project", note)),
    );
    if commands.is_empty() {
        out.line("  none");
    }
    for (file, dir, scope, note) in commands {
        let name = stem(&file);
        let sub = file
            .parent()
            .and_then(|p| p.strip_prefix(&dir).ok())
            .map(|p| p.display().to_string())
            .filter(|p| !p.is_empty());
        let scope = match sub {
            Some(sub) => format!("{scope}:{sub}"),
            None => scope.to_string(),
        };
        out.line(format!("  {} -> /{name} ({scope}){note}", out.show(&file)));
    }

    out.section("Agents (-> sub-agents the task tool can start; Claude Code tool names are mapped, model aliases mean the session's model):");
    let mut agents = Vec::new();
    if let Some(dir) = out.user(".claude/agents") {
        agents.extend(markdown_files(&dir, 0).into_iter().map(|f| (f, "")));
    }
    agents.extend(
        markdown_files(&project.join(".claude/agents"), 0)
            .into_iter()
            .map(|f| (f, note)),
    );
    if agents.is_empty() {
        out.line("  none");
    }
    for (file, note) in agents {
        let fields = front_matter(&file);
        let name = field(&fields, "name").unwrap_or_else(|| stem(&file));
        let mut line = format!("  {} -> agent '{name}'", out.show(&file));
        if let Some(tools) = field(&fields, "tools") {
            line.push_str(&format!("; tools {}", agent_tools(&tools)));
        }
        if let Some(model) = field(&fields, "model") {
            line.push_str(&format!("; model {model}"));
        }
        out.line(format!("{line}{note}"));
    }

    out.section("Skills (-> skills, listed for the model and as /skill:<name>):");
    let mut skills = Vec::new();
    if let Some(dir) = out.user(".claude/skills") {
        skills.extend(skill_dirs(&dir).into_iter().map(|d| (d, "")));
    }
    skills.extend(
        skill_dirs(&project.join(".claude/skills"))
            .into_iter()
            .map(|d| (d, note)),
    );
    if skills.is_empty() {
        out.line("  none");
    }
    for (dir, note) in skills {
        out.line(format!(
            "  {} -> skill '{}'{note}",
            out.show(&dir),
            stem(&dir)
        ));
    }

    let mut settings = Vec::new();
    if let Some(file) = out.user(".claude/settings.json") {
        settings.push((file, true));
    }
    settings.push((project.join(".claude/settings.json"), false));
    settings.push((project.join(".claude/settings.local.json"), false));
    let settings: Vec<(PathBuf, bool, Value)> = settings
        .into_iter()
        .filter_map(|(file, user)| {
            let text = std::fs::read_to_string(&file).ok()?;
            let value = serde_json::from_str(&text).unwrap_or(Value::Null);
            Some((file, user, value))
        })
        .collect();

    out.section("Permission rules (settings.json -> permission-gate rules):");
    let mut any = false;
    for (file, user, value) in &settings {
        if value.is_null() {
            any = true;
            out.line(format!("  {}: not valid JSON; not used", out.show(file)));
            continue;
        }
        for key in ["allow", "ask", "deny"] {
            let entries = value["permissions"][key]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for entry in entries.iter().filter_map(Value::as_str) {
                any = true;
                let scope_note = match (user, key) {
                    (true, _) | (false, "ask" | "deny") => "",
                    (false, _) => note,
                };
                out.line(format!(
                    "  {} {key} {entry} -> {}{}",
                    out.show(file),
                    permission(entry),
                    if permission_used(entry) {
                        scope_note
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    if !any {
        out.line("  none");
    }

    out.section("Hooks (settings.json -> the hooks plugin, which runs them as you with Claude Code's JSON on stdin):");
    let mut any = false;
    for (file, user, value) in &settings {
        let Some(events) = value["hooks"].as_object() else {
            continue;
        };
        for (event, groups) in events {
            let supported = matches!(
                event.as_str(),
                "PreToolUse"
                    | "PostToolUse"
                    | "UserPromptSubmit"
                    | "Stop"
                    | "SessionStart"
                    | "SessionEnd"
            );
            for group in groups.as_array().into_iter().flatten() {
                let matcher = group["matcher"]
                    .as_str()
                    .filter(|m| !m.is_empty() && *m != "*")
                    .map(|m| format!(" [{m}]"))
                    .unwrap_or_default();
                for hook in group["hooks"].as_array().into_iter().flatten() {
                    let command = hook["command"].as_str().unwrap_or("(no command)");
                    any = true;
                    let status = if !supported {
                        " -> not run: tack has no such event".to_string()
                    } else if *user {
                        String::new()
                    } else {
                        note.to_string()
                    };
                    out.line(format!(
                        "  {}: {event}{matcher}: {command}{status}",
                        out.show(file)
                    ));
                }
            }
        }
    }
    if !any {
        out.line("  none");
    }

    let mcp = project.join(".mcp.json");
    let others: Vec<String> = settings
        .iter()
        .flat_map(|(file, _, value)| {
            value
                .as_object()
                .into_iter()
                .flat_map(|o| o.keys())
                .filter(|k| !matches!(k.as_str(), "permissions" | "hooks" | "$schema"))
                .map(|k| format!("{} {k}", out.show(file)))
                .collect::<Vec<_>>()
        })
        .chain(
            mcp.is_file()
                .then(|| format!("{} (MCP servers)", out.show(&mcp))),
        )
        .collect();
    if !others.is_empty() {
        out.section("Not used by tack:");
        for other in others {
            out.line(format!("  {other}"));
        }
    }
}

fn codex(out: &mut Report<'_>) {
    out.header("Codex");
    let project = out.places.project.clone();

    out.section("Context files (read into the system prompt in every folder from ~ down):");
    let mut any = false;
    let path = project.join("AGENTS.md");
    if path.is_file() {
        any = true;
        out.line(format!("  {} -> context", out.show(&path)));
    }
    if let Some(global) = out.user(".codex/AGENTS.md").filter(|p| p.is_file()) {
        any = true;
        let target = out.places.tack_home.join("AGENTS.md");
        out.line(format!(
            "  {} -> not read by tack; copy it to {} to keep it for every project",
            out.show(&global),
            target.display()
        ));
    }
    if !any {
        out.line("  none");
    }

    out.section(
        "Custom prompts (-> prompt templates: /prompts:<name>, $ARGUMENTS and $1… filled in):",
    );
    let prompts = out
        .user(".codex/prompts")
        .map(|dir| markdown_files(&dir, 0))
        .unwrap_or_default();
    if prompts.is_empty() {
        out.line("  none");
    }
    for file in prompts {
        out.line(format!("  {} -> /prompts:{}", out.show(&file), stem(&file)));
    }

    if let Some(config) = out.user(".codex/config.toml").filter(|p| p.is_file()) {
        out.section("Not used by tack:");
        out.line(format!(
            "  {} (models, providers and MCP servers: set them in {})",
            out.show(&config),
            out.places.tack_home.join("config.toml").display()
        ));
    }
}

/// What a Claude Code permission rule is in tack.
fn permission(entry: &str) -> String {
    let (tool, spec) = match entry.split_once('(') {
        Some((tool, rest)) => (tool.trim(), rest.strip_suffix(')').map(str::trim)),
        None => (entry.trim(), None),
    };
    let spec = spec.filter(|s| !s.is_empty() && *s != "*");
    let paths = |tools: &str| match spec {
        Some(path) => format!("{tools} of `{path}`"),
        None => format!("{tools} of any path"),
    };
    match tool {
        "Bash" => match spec {
            None => "every bash command".into(),
            Some(s) => match s.strip_suffix(":*") {
                Some(prefix) => format!("bash commands starting `{}`", prefix.trim()),
                None if s.contains('*') => format!("bash commands matching `{s}`"),
                None => format!("the bash command `{s}`"),
            },
        },
        "Read" => paths("read, ls, find, grep"),
        "Edit" => paths("edit, write"),
        "Write" => paths("write"),
        "MultiEdit" => paths("edit"),
        "Glob" => paths("find"),
        "Grep" => paths("grep"),
        "LS" => paths("ls"),
        "Task" if spec.is_none() => "the task tool".into(),
        other => format!("not used: tack has no tool like {other}"),
    }
}

fn permission_used(entry: &str) -> bool {
    !permission(entry).starts_with("not used")
}

/// Claude Code tool names as tack's.
fn agent_tools(list: &str) -> String {
    list.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            let bare = t.split_once('(').map_or(t, |(b, _)| b).trim();
            let tack = match bare {
                "Read" => "read",
                "Write" => "write",
                "Edit" | "MultiEdit" => "edit",
                "Bash" => "bash",
                "Grep" => "grep",
                "Glob" => "find",
                "LS" => "ls",
                "TodoWrite" => "todo",
                "Task" => "task",
                other
                    if other.starts_with(|c: char| c.is_ascii_uppercase())
                        || other.starts_with("mcp__") =>
                {
                    return format!("{other} (none in tack)");
                }
                other => other,
            };
            tack.to_string()
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `*.md` files in `dir` and, down to `depth` levels, its subfolders; sorted.
fn markdown_files(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && depth > 0 {
            files.extend(markdown_files(&path, depth - 1));
        } else if path.extension().is_some_and(|e| e == "md") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Folders in `dir` holding a `SKILL.md`; sorted.
fn skill_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("SKILL.md").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The `key: value` lines of a Markdown file's front matter (enough to name an agent).
fn front_matter(file: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let Some(rest) = text.strip_prefix("---") else {
        return Vec::new();
    };
    rest.lines()
        .skip(1)
        .take_while(|l| !l.starts_with("---"))
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

fn field(fields: &[(String, String)], key: &str) -> Option<String> {
    fields
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.trim_matches(['"', '\'']).to_string())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_are_migrations_unless_a_file_has_that_name() {
        assert_eq!(Source::from_arg(Path::new("claude-nonexistent-xyz")), None);
        let tmp = tempfile::tempdir().expect("tempdir");
        let here = std::env::current_dir().expect("cwd");
        if !here.join("claude").exists() {
            assert_eq!(Source::from_arg(Path::new("claude")), Some(Source::Claude));
        }
        let file = tmp.path().join("codex");
        std::fs::write(&file, "{}").expect("write");
        assert_eq!(Source::from_arg(&file), None);
    }

    #[test]
    fn permission_rules_say_what_they_are_in_tack() {
        assert_eq!(
            permission("Bash(npm run test:*)"),
            "bash commands starting `npm run test`"
        );
        assert_eq!(permission("Bash"), "every bash command");
        assert_eq!(
            permission("Read(./secrets/**)"),
            "read, ls, find, grep of `./secrets/**`"
        );
        assert!(!permission_used("WebFetch(domain:example.com)"));
        assert_eq!(
            agent_tools("Read, Grep, Glob, WebSearch"),
            "read, grep, find, WebSearch (none in tack)"
        );
    }
}
