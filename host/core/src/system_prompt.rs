//! The system prompt: a short base naming the active tools, the date and the working directory,
//! followed by the project's context files (AGENTS.md, or CLAUDE.md where there is none).

use std::collections::HashSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::agent::ToolSpec;

/// File names looked for in each directory, the first found wins.
pub const CONTEXT_FILE_NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// A context file and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    pub path: PathBuf,
    pub content: String,
}

/// What goes into the system prompt.
#[derive(Debug, Clone, Copy)]
pub struct PromptInputs<'a> {
    /// The active tools.
    pub tools: &'a [ToolSpec],
    pub cwd: &'a Path,
    pub date: NaiveDate,
    pub context_files: &'a [ContextFile],
    /// Appended at the end (`--append-system-prompt`).
    pub append: Option<&'a str>,
}

/// Today in the local time zone.
pub fn today() -> NaiveDate {
    chrono::Local::now().date_naive()
}

pub fn build_system_prompt(inputs: &PromptInputs<'_>) -> String {
    let mut out = String::from(
        "You are tack, a coding agent working in the user's terminal. You help with software \
         engineering tasks: reading and changing code, running commands, and explaining what you \
         find. Use the tools to inspect before you change things, keep changes focused on the \
         request, and say briefly what you did.\n",
    );
    if inputs.tools.is_empty() {
        out.push_str("\nNo tools are available in this session.\n");
    } else {
        out.push_str("\nAvailable tools:\n");
        for tool in inputs.tools {
            let line = tool
                .prompt_snippet
                .as_deref()
                .or_else(|| tool.description.lines().next())
                .unwrap_or("");
            let _ = writeln!(out, "- {}: {}", tool.name, line.trim());
        }
    }
    let _ = write!(
        out,
        "\nCurrent date: {}\nCurrent working directory: {}\n",
        inputs.date.format("%Y-%m-%d"),
        inputs.cwd.display()
    );
    if !inputs.context_files.is_empty() {
        out.push_str("\n# Project context\n\nInstructions from context files, general first, most specific last:\n");
        for file in inputs.context_files {
            let _ = write!(
                out,
                "\n## {}\n\n{}\n",
                file.path.display(),
                file.content.trim_end()
            );
        }
    }
    if let Some(append) = inputs.append {
        let _ = write!(out, "\n{}\n", append.trim_end());
    }
    out
}

/// Context files from the tack home, then from the repository root (the nearest ancestor of
/// `cwd` holding `.git`; without one, only `cwd`) down to `cwd`, in that order.
pub fn discover_context_files(tack_home: &Path, cwd: &Path) -> Vec<ContextFile> {
    let mut dirs = vec![tack_home.to_owned()];
    match find_repo_root(cwd) {
        Some(root) => {
            let mut chain: Vec<PathBuf> = cwd
                .ancestors()
                .take_while(|dir| *dir != root)
                .map(Path::to_owned)
                .collect();
            chain.push(root);
            chain.reverse();
            dirs.extend(chain);
        }
        None => dirs.push(cwd.to_owned()),
    }

    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for dir in dirs {
        let Some(path) = CONTEXT_FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|path| path.is_file())
        else {
            continue;
        };
        // A home inside the repository, or CLAUDE.md linked to AGENTS.md, must not repeat.
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if !seen.insert(key) {
            continue;
        }
        match std::fs::read(&path) {
            Ok(bytes) => files.push(ContextFile {
                content: String::from_utf8_lossy(&bytes).into_owned(),
                path,
            }),
            Err(e) => tracing::warn!("cannot read {}: {e}", path.display()),
        }
    }
    files
}

/// The nearest ancestor of `cwd` (itself included) that holds `.git` (a directory, or a file in
/// worktrees and submodules).
pub fn find_repo_root(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::ExecutionMode;
    use serde_json::json;
    use std::fs;

    fn tool(name: &str, snippet: Option<&str>) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            label: name.into(),
            description: format!("{name} does things.\nMore detail."),
            parameters: json!({"type": "object"}),
            mode: ExecutionMode::Parallel,
            prompt_snippet: snippet.map(str::to_owned),
        }
    }

    #[test]
    fn prompt_lists_tools_date_cwd_and_context() {
        let tools = [tool("read", Some("Read a file")), tool("bash", None)];
        let files = [ContextFile {
            path: PathBuf::from("/repo/AGENTS.md"),
            content: "Use cargo.\n".into(),
        }];
        let prompt = build_system_prompt(&PromptInputs {
            tools: &tools,
            cwd: Path::new("/repo/sub"),
            date: NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
            context_files: &files,
            append: Some("Be terse."),
        });
        assert!(prompt.contains("- read: Read a file\n"));
        assert!(prompt.contains("- bash: bash does things.\n"));
        assert!(prompt.contains("Current date: 2026-11-30\n"));
        assert!(prompt.contains("Current working directory: /repo/sub\n"));
        assert!(prompt.contains("## /repo/AGENTS.md\n\nUse cargo.\n"));
        assert!(prompt.trim_end().ends_with("Be terse."));
    }

    #[test]
    fn context_files_from_home_then_root_down_to_cwd() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = tmp.path().join("repo");
        let cwd = repo.join("a").join("b");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&cwd).unwrap();
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::write(home.join("AGENTS.md"), "home").unwrap();
        fs::write(tmp.path().join("AGENTS.md"), "above the repo").unwrap();
        fs::write(repo.join("CLAUDE.md"), "root claude").unwrap();
        fs::write(repo.join("a").join("AGENTS.md"), "a agents").unwrap();
        fs::write(repo.join("a").join("CLAUDE.md"), "a claude").unwrap();
        fs::write(cwd.join("AGENTS.md"), "b").unwrap();

        let files = discover_context_files(&home, &cwd);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, ["home", "root claude", "a agents", "b"]);
        assert_eq!(files[1].path, repo.join("CLAUDE.md"));
    }

    #[test]
    fn without_a_repository_only_cwd_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("x");
        fs::create_dir_all(&cwd).unwrap();
        fs::write(tmp.path().join("AGENTS.md"), "parent").unwrap();
        fs::write(cwd.join("AGENTS.md"), "cwd").unwrap();
        let files = discover_context_files(&tmp.path().join("no-home"), &cwd);
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        // /tmp may itself sit in a repository on some machines; the cwd file is last either way.
        assert_eq!(contents.last(), Some(&"cwd"));
        if find_repo_root(&cwd).is_none() {
            assert_eq!(contents, ["cwd"]);
        }
    }
}
