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
    let tools = match doc.fields.get("tools") {
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
    let model = doc
        .text("model")
        .filter(|m| *m != "inherit")
        .map(str::to_string);
    Ok(AgentDef {
        name,
        description,
        tools,
        model,
        system_prompt: doc.body,
        file: file.to_path_buf(),
        scope: scope.to_string(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    #[test]
    fn reads_claude_code_style_definitions() {
        let text = "---\nname: scout\ndescription: Finds things\ntools: read, grep\nmodel: haiku\n---\nYou are a scout.\n";
        let agent = parse(text, Path::new("/a/scout.md"), "user").expect("parses");
        assert_eq!(agent.name, "scout");
        assert_eq!(
            agent.tools,
            Some(vec!["read".to_string(), "grep".to_string()])
        );
        assert_eq!(agent.model.as_deref(), Some("haiku"));
        assert_eq!(agent.system_prompt, "You are a scout.");
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
