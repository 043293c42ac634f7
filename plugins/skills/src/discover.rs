//! Finding skills: folders with a `SKILL.md` whose front matter names and describes the skill,
//! as the Agent Skills specification (agentskills.io) and Pi lay them out.
//!
//! In each folder given: a folder holding `SKILL.md` is one skill (nothing below it is looked
//! at); otherwise `.md` files directly in it are skills too, and its subfolders are searched for
//! `SKILL.md` (not hidden ones, not `node_modules`). A file given directly is one skill.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The spec's limits.
const MAX_NAME_LENGTH: usize = 64;
const MAX_DESCRIPTION_LENGTH: usize = 1024;
/// How deep folders are searched, and how many skills are taken, so a huge tree cannot stall
/// start-up.
const MAX_DEPTH: usize = 8;
const MAX_SKILLS: usize = 1000;

#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The skill's `SKILL.md` (or other `.md` file).
    pub file: PathBuf,
    /// The folder its references are relative to.
    pub dir: PathBuf,
    /// Where it was found: `package`, `user`, `project` or `flag`.
    pub scope: String,
    /// `disable-model-invocation: true`: only `/skill:<name>` uses it; the model is not told.
    pub hidden: bool,
    /// Every front-matter field, the ones above included.
    pub fields: Map<String, Value>,
}

/// Skills found in `places` (path, scope), in order; a later skill replaces an earlier one of
/// the same name. Returns them sorted by name, and one warning per file left out or in doubt,
/// naming the file.
pub fn load(places: &[(PathBuf, String)]) -> (Vec<Skill>, Vec<String>) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut warnings = Vec::new();
    for (path, scope) in places {
        let mut files = Vec::new();
        if path.is_file() {
            files.push(path.clone());
        } else {
            collect(path, true, 0, &mut files);
        }
        for file in files {
            if skills.len() >= MAX_SKILLS {
                warnings.push(format!(
                    "more than {MAX_SKILLS} skills; {} and the rest are left out",
                    file.display()
                ));
                break;
            }
            match skill(&file, scope) {
                Ok((skill, doubts)) => {
                    warnings.extend(
                        doubts
                            .into_iter()
                            .map(|d| format!("{}: {d}", file.display())),
                    );
                    skills.retain(|s| s.name != skill.name);
                    skills.push(skill);
                }
                Err(why) => warnings.push(format!("{}: {why}; skill left out", file.display())),
            }
        }
    }
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    (skills, warnings)
}

fn collect(dir: &Path, root: bool, depth: usize, files: &mut Vec<PathBuf>) {
    let skill_file = dir.join("SKILL.md");
    if skill_file.is_file() {
        files.push(skill_file);
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            collect(&path, false, depth + 1, files);
        } else if root && name.ends_with(".md") && path.is_file() {
            files.push(path);
        }
    }
}

/// One skill file: the skill, and warnings that did not keep it out.
fn skill(file: &Path, scope: &str) -> Result<(Skill, Vec<String>), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read it ({e})"))?;
    let doc = front_matter::parse(&text)?;
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let parent = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let description = doc
        .text("description")
        .ok_or("the front matter has no description (required)")?;
    if description.chars().count() > MAX_DESCRIPTION_LENGTH {
        return Err(format!(
            "the description is longer than {MAX_DESCRIPTION_LENGTH} characters"
        ));
    }
    let name = doc.text("name").map_or(parent.clone(), str::to_string);
    name_problem(&name)?;
    let mut doubts = Vec::new();
    if file.file_name().is_some_and(|n| n == "SKILL.md") && name != parent {
        doubts.push(format!(
            "the name '{name}' does not match its folder '{parent}'"
        ));
    }
    Ok((
        Skill {
            name,
            description: description.to_string(),
            file: file.to_path_buf(),
            dir,
            scope: scope.to_string(),
            hidden: doc.fields.get("disable-model-invocation") == Some(&Value::Bool(true)),
            fields: doc.fields,
        },
        doubts,
    ))
}

/// What is wrong with a skill name: 1-64 of `a-z`, `0-9` and single inner hyphens.
fn name_problem(name: &str) -> Result<(), String> {
    if name.is_empty() || name.chars().count() > MAX_NAME_LENGTH {
        return Err(format!(
            "the name '{name}' must be 1-{MAX_NAME_LENGTH} characters"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(format!(
            "the name '{name}' may only hold lowercase letters, digits and hyphens"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Err(format!(
            "the name '{name}' must not start or end with a hyphen or hold two in a row"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn later_places_win_and_bad_files_warn_without_stopping_the_rest() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let user = tmp.path().join("user");
        let project = tmp.path().join("project");
        write(
            &user.join("pdf/SKILL.md"),
            "---\nname: pdf\ndescription: User PDF.\n---\nuser body",
        );
        write(
            &user.join("git/SKILL.md"),
            "---\nname: git\ndescription: Git help.\nlicense: MIT\n---\ngit body",
        );
        write(&user.join("broken/SKILL.md"), "---\nname: [oops\n---\n");
        write(&user.join("nodesc/SKILL.md"), "---\nname: nodesc\n---\n");
        write(
            &user.join("group/deep/SKILL.md"),
            "---\ndescription: Deep.\n---\n",
        );
        write(
            &user.join(".hidden/SKILL.md"),
            "---\ndescription: no\n---\n",
        );
        write(
            &project.join("pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Project PDF.\n---\nproject body",
        );
        let (skills, warnings) = load(&[
            (user.clone(), "user".into()),
            (project.clone(), "project".into()),
        ]);
        let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["deep", "git", "pdf"]);
        let pdf = skills.iter().find(|s| s.name == "pdf").expect("pdf");
        assert_eq!(pdf.description, "Project PDF.");
        assert_eq!(pdf.scope, "project");
        assert_eq!(skills[1].fields["license"], "MIT", "extra fields are kept");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings
            .iter()
            .any(|w| w.contains("broken/SKILL.md") && w.contains("YAML")));
        assert!(warnings
            .iter()
            .any(|w| w.contains("nodesc/SKILL.md") && w.contains("description")));
    }

    #[test]
    fn names_follow_the_spec() {
        assert!(name_problem("pdf-tools2").is_ok());
        for bad in [
            "",
            "PDF",
            "pdf_tools",
            "-pdf",
            "pdf-",
            "pdf--x",
            &"a".repeat(65),
        ] {
            assert!(name_problem(bad).is_err(), "{bad}");
        }
    }
}
