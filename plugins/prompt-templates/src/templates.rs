//! Finding templates: every `*.md` file directly in a folder; the file name without `.md` is the
//! command. A later folder's template replaces an earlier one of the same name.

use std::path::{Path, PathBuf};

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

/// Templates in `places` (folder, scope), sorted by name, and a warning naming each file left out.
pub fn load(places: &[(PathBuf, String)]) -> (Vec<Template>, Vec<String>) {
    let mut templates: Vec<Template> = Vec::new();
    let mut warnings = Vec::new();
    for (dir, scope) in places {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
            .collect();
        files.sort();
        for file in files {
            match template(&file, scope) {
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

fn template(file: &Path, scope: &str) -> Result<Template, String> {
    let name = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
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
    let doc = front_matter::parse(&text)?;
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
    Ok(Template {
        argument_hint: doc.text("argument-hint").map(str::to_string),
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
        let (templates, warnings) = load(&[(user, "user".into()), (project, "project".into())]);
        let names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["plain", "review"]);
        assert_eq!(
            templates[0].description,
            "Explain this code in detail please"
        );
        assert_eq!(templates[1].body, "P $@");
        assert_eq!(templates[1].summary(), "Project review (project)");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("bad.md"), "{warnings:?}");
    }
}
