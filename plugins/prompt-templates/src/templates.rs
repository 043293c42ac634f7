//! Finding templates: every `*.md` file directly in a folder; the file name without `.md` is the
//! command. A later folder's template replaces an earlier one of the same name.
//!
//! Claude Code's and Codex's folders have their own layouts ([`Layout`]): Claude Code's commands
//! may sit in subfolders, which show in the description only; Codex's prompts are
//! `/prompts:<name>`.

use std::path::{Path, PathBuf};

/// How a folder's files become commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// tack's and Pi's: `*.md` directly in the folder.
    Tack,
    /// Claude Code's `commands/`: `*.md` in the folder and its subfolders; `frontend/x.md` is
    /// `/x`, described as `(project:frontend)`.
    Claude,
    /// Codex's `prompts/`: `x.md` is `/prompts:x`.
    Codex,
}

/// How deep a Claude Code commands folder is searched, and how many files it may hold, so a
/// huge folder cannot stall start-up.
const CLAUDE_DEPTH: usize = 6;
const MAX_FILES: usize = 500;

/// How much of the body's first line stands in for a missing description, as in Pi.
const DESCRIPTION_FROM_BODY: usize = 60;

#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
    pub body: String,
    pub scope: String,
    pub file: PathBuf,
}

impl Template {
    /// The command's one line: description, argument hint, where it came from.
    pub fn summary(&self) -> String {
        let mut line = self.description.clone();
        if let Some(hint) = &self.argument_hint {
            line = format!("{line} — {hint}");
        }
        format!("{line} ({})", self.scope)
    }
}

/// `/init`, as Claude Code and Codex have it: study the repository and write or improve
/// `AGENTS.md`. Any folder's `init.md` replaces it.
pub fn init() -> Template {
    Template {
        name: "init".into(),
        description: "Study the repository and write or improve its AGENTS.md".into(),
        argument_hint: Some("[what to focus on]".into()),
        body: include_str!("init.md").trim().to_string(),
        scope: "built-in".into(),
        file: PathBuf::new(),
    }
}

/// Templates in `places` (folder, scope, layout), after the built-in `/init`, sorted by name,
/// and a warning naming each file left out.
pub fn load(places: &[(PathBuf, String, Layout)]) -> (Vec<Template>, Vec<String>) {
    let mut templates: Vec<Template> = vec![init()];
    let mut warnings = Vec::new();
    for (dir, scope, layout) in places {
        let depth = if *layout == Layout::Claude {
            CLAUDE_DEPTH
        } else {
            0
        };
        let mut files = Vec::new();
        markdown_files(dir, Path::new(""), depth, &mut files);
        files.sort();
        if files.len() > MAX_FILES {
            warnings.push(format!(
                "{}: more than {MAX_FILES} files; only the first {MAX_FILES} are read",
                dir.display()
            ));
            files.truncate(MAX_FILES);
        }
        for (file, sub) in files {
            let scope = match sub.to_str() {
                Some(sub) if !sub.is_empty() => format!("{scope}:{sub}"),
                _ => scope.clone(),
            };
            match template(&file, &scope, *layout) {
                Ok(t) => {
                    templates.retain(|old| old.name != t.name);
                    templates.push(t);
                }
                Err(why) => warnings.push(format!("{}: {why}; left out", file.display())),
            }
        }
    }
    templates.sort_by(|a, b| a.name.cmp(&b.name));
    (templates, warnings)
}

/// The `*.md` files in `dir` with the subfolder they are in (`frontend/api`), down to `depth`
/// levels of subfolders. Links to folders are not followed, so a loop cannot recur.
fn markdown_files(dir: &Path, sub: &Path, depth: usize, out: &mut Vec<(PathBuf, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && depth > 0 && out.len() <= MAX_FILES {
            let name = entry.file_name();
            markdown_files(&path, &sub.join(name), depth - 1, out);
        } else if path.extension().is_some_and(|e| e == "md") && path.is_file() {
            out.push((path, sub.to_path_buf()));
        }
    }
}

fn template(file: &Path, scope: &str, layout: Layout) -> Result<Template, String> {
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let name = match layout {
        Layout::Codex => format!("prompts:{stem}"),
        Layout::Tack | Layout::Claude => stem.to_string(),
    };
    let name_ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    if !name_ok {
        return Err(format!(
            "'{name}' cannot be a command name (1-64 letters, digits, '-', '_', '.' or ':')"
        ));
    }
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read it ({e})"))?;
    let doc = match layout {
        Layout::Tack => front_matter::parse(&text)?,
        // Claude Code's own examples write `argument-hint: [pr-number] [priority]`, which is
        // not YAML; Claude Code takes it, so a command written for it must load here too.
        Layout::Claude | Layout::Codex => front_matter::parse_lenient(&text),
    };
    let description = match doc.text("description") {
        Some(d) => d.to_string(),
        None => {
            let first = doc
                .body
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            let mut short: String = first.chars().take(DESCRIPTION_FROM_BODY).collect();
            if first.chars().count() > DESCRIPTION_FROM_BODY {
                short.push_str("...");
            }
            short
        }
    };
    let argument_hint = match doc.fields.get("argument-hint") {
        // `argument-hint: [file]` is a YAML list; Claude Code shows it as written.
        Some(serde_json::Value::Array(items)) => Some(
            items
                .iter()
                .map(|item| match item {
                    serde_json::Value::String(text) => format!("[{text}]"),
                    other => format!("[{other}]"),
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => doc.text("argument-hint").map(str::to_string),
    };
    Ok(Template {
        argument_hint,
        name,
        description,
        body: doc.body,
        scope: scope.to_string(),
        file: file.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_folders_win_and_descriptions_fall_back_to_the_first_line() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let user = tmp.path().join("user");
        let project = tmp.path().join("project");
        std::fs::create_dir_all(&user).expect("mkdir");
        std::fs::create_dir_all(&project).expect("mkdir");
        std::fs::write(
            user.join("review.md"),
            "---\ndescription: Review code\nargument-hint: <file>\n---\nReview $1\n",
        )
        .expect("write");
        std::fs::write(
            user.join("plain.md"),
            "Explain this code in detail please\n",
        )
        .expect("write");
        std::fs::write(user.join("bad.md"), "---\ndescription: [x\n---\n").expect("write");
        std::fs::write(user.join("notes.txt"), "not a template").expect("write");
        std::fs::write(
            project.join("review.md"),
            "---\ndescription: Project review\n---\nP $@",
        )
        .expect("write");
        let (templates, warnings) = load(&[
            (user, "user".into(), Layout::Tack),
            (project, "project".into(), Layout::Tack),
        ]);
        let names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["init", "plain", "review"]);
        assert_eq!(
            templates[1].description,
            "Explain this code in detail please"
        );
        assert_eq!(templates[2].body, "P $@");
        assert_eq!(templates[2].summary(), "Project review (project)");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("bad.md"), "{warnings:?}");
    }

    #[test]
    fn claude_code_commands_and_codex_prompts() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let claude = tmp.path().join("commands");
        let codex = tmp.path().join("prompts");
        std::fs::create_dir_all(claude.join("frontend")).expect("mkdir");
        std::fs::create_dir_all(&codex).expect("mkdir");
        std::fs::write(
            claude.join("frontend/component.md"),
            "---\nallowed-tools: Bash(git add:*), Bash(git status:*)\nargument-hint: [name] [kind]\ndescription: Make a component\nmodel: claude-sonnet-4-5\n---\nMake $1 of kind $2",
        )
        .expect("write");
        std::fs::write(
            claude.join("fix.md"),
            "---\nargument-hint: [issue]\n---\nFix issue #$ARGUMENTS",
        )
        .expect("write");
        std::fs::write(codex.join("draft.md"), "Draft $1").expect("write");
        let (templates, warnings) = load(&[
            (claude, "project".into(), Layout::Claude),
            (codex, "user".into(), Layout::Codex),
        ]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["component", "fix", "init", "prompts:draft"]);
        assert_eq!(
            templates[0].summary(),
            "Make a component — [name] [kind] (project:frontend)"
        );
        assert_eq!(
            templates[1].summary(),
            "Fix issue #$ARGUMENTS — [issue] (project)"
        );
        assert_eq!(templates[3].body, "Draft $1");
    }
}
