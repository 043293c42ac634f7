//! Agent definitions: Markdown files with front matter, the format Claude Code and Pi's
//! subagent example use, one agent a file:
//!
//! ```text
//! ---
//! name: scout
//! description: Finds where things are in the code base; read-only.
//! tools: read, grep, find, ls
//! model: claude-haiku-4-5
//! ---
//! You are a scout. Answer with file paths and line numbers, nothing else.
//! ```
//!
//! `name` defaults to the file's stem; `description` is required (the model picks an agent by
//! it); `tools` is a comma-separated string or a list (missing: the parent's tools); `model` is
//! `provider/id` of any configured provider, or an id of the parent's provider (missing or
//! `inherit`: the parent's). The body is the agent's system prompt.
//!
//! Claude Code's tool names (`Read, Grep, Glob, Bash`) are taken as tack's (`read, grep, find,
//! bash`); one tack has no counterpart for (`WebSearch`, an MCP tool) is left out with a warning
//! rather than failing every task. Claude Code's model aliases (`sonnet`, `opus`, `haiku`) name
//! no model of a tack provider, so they mean the parent's model, also with a warning.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The most definitions read, so a huge folder cannot stall start-up.
const MAX_AGENTS: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub struct AgentDef {
    pub name: String,
    pub description: String,
    pub tools: Option<Vec<String>>,
    pub model: Option<String>,
    pub system_prompt: String,
    pub file: PathBuf,
    /// `user`, `project` or `flag`.
    pub scope: String,
    /// What the definition asked for that tack does not have (Claude Code tools, model aliases).
    pub dropped: Vec<String>,
}

/// Claude Code's tool names and tack's for the same tool.
const CLAUDE_TOOLS: &[(&str, &str)] = &[
    ("Read", "read"),
    ("Write", "write"),
    ("Edit", "edit"),
    ("MultiEdit", "edit"),
    ("Bash", "bash"),
    ("Grep", "grep"),
    ("Glob", "find"),
    ("LS", "ls"),
    ("TodoWrite", "todo"),
    ("Task", "task"),
];

/// Claude Code's model aliases: no tack provider has a model by these names.
const CLAUDE_MODEL_ALIASES: &[&str] = &["sonnet", "opus", "haiku", "opusplan"];

/// A tool name as tack knows it: Claude Code's names translated (a permission suffix such as
/// `Bash(git:*)` dropped), `None` for a Claude Code tool tack lacks. Other names pass as written.
fn tack_tool(name: &str) -> Option<String> {
    let bare = name.split_once('(').map_or(name, |(bare, _)| bare).trim();
    if let Some((_, tack)) = CLAUDE_TOOLS.iter().find(|(claude, _)| *claude == bare) {
        return Some((*tack).to_string());
    }
    let claude_style =
        bare.starts_with("mcp__") || bare.starts_with(|c: char| c.is_ascii_uppercase());
    (!claude_style).then(|| bare.to_string())
}

/// The definitions in `places` (folder or file, scope), later ones replacing earlier ones of
/// the same name, sorted by name; and one warning per file left out, naming it.
pub fn load(places: &[(PathBuf, String)]) -> (Vec<AgentDef>, Vec<String>) {
    let mut agents: Vec<AgentDef> = Vec::new();
    let mut warnings = Vec::new();
    for (path, scope) in places {
        for file in markdown_files(path) {
            if agents.len() >= MAX_AGENTS {
                warnings.push(format!(
                    "more than {MAX_AGENTS} agents; {} and the rest are left out",
                    file.display()
                ));
                break;
            }
            match read(&file, scope) {
                Ok(agent) => {
                    if !agent.dropped.is_empty() {
                        warnings.push(format!(
                            "{}: tack has no {}; left out of agent '{}'",
                            file.display(),
                            agent.dropped.join(", "),
                            agent.name
                        ));
                    }
                    agents.retain(|a| a.name != agent.name);
                    agents.push(agent);
                }
                Err(why) => warnings.push(format!("{}: {why}; agent left out", file.display())),
            }
        }
    }
    agents.sort_by(|a, b| a.name.cmp(&b.name));
    (agents, warnings)
}

fn markdown_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .collect();
    files.sort();
    files
}

fn read(file: &Path, scope: &str) -> Result<AgentDef, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read it: {e}"))?;
    parse(&text, file, scope)
}

pub fn parse(text: &str, file: &Path, scope: &str) -> Result<AgentDef, String> {
    let doc = front_matter::parse(text)?;
    let name = doc
        .text("name")
        .map(str::to_string)
        .or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .ok_or("it has no name")?;
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "name '{name}' may hold only letters, digits, '-' and '_'"
        ));
    }
    let description = doc
        .text("description")
        .ok_or("its front matter has no description")?
        .to_string();
    let listed = match doc.fields.get("tools") {
        None | Some(Value::Null) => None,
        Some(Value::String(list)) => Some(
            list.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(|s| s.trim().to_string())
                        .ok_or("`tools` lists something that is not a tool name")
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err("`tools` must be a comma-separated string or a list".into()),
    };
    let mut dropped = Vec::new();
    let tools = listed.map(|names: Vec<String>| {
        let mut tools: Vec<String> = Vec::new();
        for name in names {
            match tack_tool(&name) {
                Some(tool) if !tools.contains(&tool) => tools.push(tool),
                Some(_) => {}
                None => dropped.push(format!("tool {name}")),
            }
        }
        tools
    });
    let model = match doc.text("model") {
        None | Some("inherit") => None,
        Some(alias) if CLAUDE_MODEL_ALIASES.contains(&alias) => {
            dropped.push(format!(
                "model alias '{alias}' (the parent's model is used)"
            ));
            None
        }
        Some(model) => Some(model.to_string()),
    };
    Ok(AgentDef {
        name,
        description,
        tools,
        model,
        system_prompt: doc.body,
        file: file.to_path_buf(),
        scope: scope.to_string(),
        dropped,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    #[test]
    fn reads_claude_code_style_definitions() {
        let text = "---\nname: scout\ndescription: Finds things\ntools: read, grep\nmodel: claude-haiku-4-5\n---\nYou are a scout.\n";
        let agent = parse(text, Path::new("/a/scout.md"), "user").expect("parses");
        assert_eq!(agent.name, "scout");
        assert_eq!(
            agent.tools,
            Some(vec!["read".to_string(), "grep".to_string()])
        );
        assert_eq!(agent.model.as_deref(), Some("claude-haiku-4-5"));
        assert_eq!(agent.system_prompt, "You are a scout.");
    }

    #[test]
    fn claude_code_tool_names_and_model_aliases_are_translated() {
        let text = "---\nname: reviewer\ndescription: Reviews\ntools: Read, Grep, Glob, Bash(git diff:*), MultiEdit, Edit, WebSearch, mcp__gh__pr\nmodel: sonnet\n---\nReview.";
        let agent = parse(text, Path::new("/a/reviewer.md"), "project").expect("parses");
        assert_eq!(
            agent.tools,
            Some(
                ["read", "grep", "find", "bash", "edit"]
                    .map(String::from)
                    .to_vec()
            )
        );
        assert_eq!(agent.model, None);
        assert_eq!(agent.dropped.len(), 3, "{:?}", agent.dropped);
        assert!(
            agent.dropped[0].contains("WebSearch"),
            "{:?}",
            agent.dropped
        );
    }

    #[test]
    fn list_tools_name_defaults_and_inherit() {
        let text = "---\ndescription: Plans\ntools: [read, ls]\nmodel: inherit\n---\nPlan.";
        let agent = parse(text, Path::new("/a/planner.md"), "project").expect("parses");
        assert_eq!(agent.name, "planner");
        assert_eq!(
            agent.tools,
            Some(vec!["read".to_string(), "ls".to_string()])
        );
        assert_eq!(agent.model, None);
    }

    #[test]
    fn refuses_missing_description_and_bad_names() {
        let err = parse("---\nname: x\n---\nbody", Path::new("/a/x.md"), "user")
            .expect_err("no description");
        assert!(err.contains("description"), "{err}");
        let err = parse(
            "---\nname: a b\ndescription: d\n---\n",
            Path::new("/a/x.md"),
            "user",
        )
        .expect_err("bad name");
        assert!(err.contains("a b"), "{err}");
    }

    #[test]
    fn later_folders_win_and_files_are_sorted() {
        let user = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            user.path().join("scout.md"),
            "---\ndescription: user scout\n---\nU",
        )
        .expect("write");
        std::fs::write(
            user.path().join("broken.md"),
            "---\nname: broken\n---\nno description",
        )
        .expect("write");
        std::fs::write(
            project.path().join("scout.md"),
            "---\ndescription: project scout\n---\nP",
        )
        .expect("write");
        let (agents, warnings) = load(&[
            (user.path().to_path_buf(), "user".into()),
            (project.path().to_path_buf(), "project".into()),
        ]);
        assert_eq!(agents.len(), 1);
        assert_eq!(agents[0].description, "project scout");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("broken.md"), "{warnings:?}");
    }
}
