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
    /// Replaces tack's own instructions and tool list (`--system-prompt`, `SYSTEM.md`).
    pub custom: Option<&'a str>,
    /// Appended at the end, in order (`APPEND_SYSTEM.md`, `--append-system-prompt`).
    pub append: &'a [String],
}

/// Today in the local time zone.
pub fn today() -> NaiveDate {
    chrono::Local::now().date_naive()
}

pub fn build_system_prompt(inputs: &PromptInputs<'_>) -> String {
    let mut out = match inputs.custom {
        Some(custom) => format!("{}\n", custom.trim_end()),
        None => default_instructions(inputs.tools),
    };
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
    for append in inputs.append {
        let _ = write!(out, "\n{}\n", append.trim_end());
    }
    out
}

/// tack's own instructions and the list of active tools.
fn default_instructions(tools: &[ToolSpec]) -> String {
    let mut out = String::from(
        "You are tack, a coding agent working in the user's terminal. You help with software \
         engineering tasks: reading and changing code, running commands, and explaining what you \
         find. Use the tools to inspect before you change things, keep changes focused on the \
         request, and say briefly what you did.\n",
    );
    if tools.is_empty() {
        out.push_str("\nNo tools are available in this session.\n");
    } else {
        out.push_str("\nAvailable tools:\n");
        for tool in tools {
            let line = tool
                .prompt_snippet
                .as_deref()
                .or_else(|| tool.description.lines().next())
                .unwrap_or("");
            let _ = writeln!(out, "- {}: {}", tool.name, line.trim());
        }
    }
    out
}

/// The most of one context file that goes into the prompt; the rest is cut off, with a warning.
pub const CONTEXT_FILE_MAX_BYTES: usize = 64 * 1024;

/// The context files found, and what was wrong with the ones left out or cut short.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextDiscovery {
    pub files: Vec<ContextFile>,
    /// One line per file skipped or truncated, naming the file and why.
    pub warnings: Vec<String>,
}

/// Context files from the tack home, then from the repository root (the nearest ancestor of
/// `cwd` holding `.git`; without one, only `cwd`) down to `cwd`, in that order. When `cwd` lies
/// in the user's home folder (`user_home`), every folder from the home folder down to the
/// repository root (or to `cwd`, outside a repository) comes first, as in Pi: `~/work/AGENTS.md`
/// holds for every project below it.
///
/// A repository decides what these files are, and their text goes to the provider and to every
/// plugin: so a file is read only if it is a regular file whose real path (symlinks followed) lies
/// inside the repository (or, for the home's file, the tack home), and only its first
/// [`CONTEXT_FILE_MAX_BYTES`]. `AGENTS.md -> /proc/self/environ` or `-> ~/.ssh/id_rsa` is skipped
/// with a warning, never read.
pub fn discover_context_files(
    tack_home: &Path,
    cwd: &Path,
    user_home: Option<&Path>,
) -> ContextDiscovery {
    let mut dirs = vec![(tack_home.to_owned(), tack_home.to_owned())];
    let repo = find_repo_root(cwd);
    // The user's own folders above the repository (or the working directory): a file there may
    // lead anywhere in the home folder, never out of it.
    if let Some(home) = user_home.filter(|home| cwd.starts_with(home)) {
        let below = repo.as_deref().unwrap_or(cwd);
        let mut above: Vec<PathBuf> = below
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(home))
            .map(Path::to_owned)
            .collect();
        above.reverse();
        dirs.extend(above.into_iter().map(|dir| (dir, home.to_owned())));
    }
    match repo {
        Some(root) => {
            let mut chain: Vec<PathBuf> = cwd
                .ancestors()
                .take_while(|dir| *dir != root)
                .map(Path::to_owned)
                .collect();
            chain.push(root.clone());
            chain.reverse();
            dirs.extend(chain.into_iter().map(|dir| (dir, root.clone())));
        }
        None => dirs.push((cwd.to_owned(), cwd.to_owned())),
    }

    let mut seen = HashSet::new();
    let mut found = ContextDiscovery::default();
    for (dir, root) in dirs {
        // The first name present in a directory is its context file, whatever it turns out to
        // be: a refused AGENTS.md does not make way for a CLAUDE.md beside it.
        let Some(path) = CONTEXT_FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|path| std::fs::symlink_metadata(path).is_ok())
        else {
            continue;
        };
        let real = match admit(&path, &root) {
            Ok(real) => real,
            Err(why) => {
                found
                    .warnings
                    .push(format!("skipped context file {}: {why}", path.display()));
                continue;
            }
        };
        // A home inside the repository, or CLAUDE.md linked to AGENTS.md, must not repeat.
        if !seen.insert(real.clone()) {
            continue;
        }
        match read_capped(&real) {
            Ok((bytes, truncated)) => {
                if truncated {
                    found.warnings.push(format!(
                        "context file {} is larger than {} KiB; only its first {} KiB are used",
                        path.display(),
                        CONTEXT_FILE_MAX_BYTES / 1024,
                        CONTEXT_FILE_MAX_BYTES / 1024
                    ));
                }
                found.files.push(ContextFile {
                    content: String::from_utf8_lossy(&bytes).into_owned(),
                    path,
                });
            }
            Err(why) => found
                .warnings
                .push(format!("skipped context file {}: {why}", path.display())),
        }
    }
    found
}

/// The real path of the context file `path` if it may be read: a regular file inside `root`.
fn admit(path: &Path, root: &Path) -> Result<PathBuf, String> {
    let real = path
        .canonicalize()
        .map_err(|e| format!("cannot resolve it ({e})"))?;
    let root = root
        .canonicalize()
        .map_err(|e| format!("cannot resolve {} ({e})", root.display()))?;
    if !real.starts_with(&root) {
        return Err(format!(
            "it leads to {}, outside {}",
            real.display(),
            root.display()
        ));
    }
    let meta = std::fs::symlink_metadata(&real).map_err(|e| e.to_string())?;
    if !meta.file_type().is_file() {
        return Err(format!("{} is not a regular file", real.display()));
    }
    Ok(real)
}

/// Up to [`CONTEXT_FILE_MAX_BYTES`] of the regular file at `real`, and whether there was more.
/// The file is checked again once open: it may have been swapped since [`admit`] looked.
fn read_capped(real: &Path) -> Result<(Vec<u8>, bool), String> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Neither follow a link swapped in nor wait on a FIFO swapped in.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options
        .open(real)
        .map_err(|e| format!("cannot open it ({e})"))?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.file_type().is_file() {
        return Err(format!("{} is not a regular file", real.display()));
    }
    let mut bytes = Vec::new();
    let limit = CONTEXT_FILE_MAX_BYTES as u64 + 1;
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it ({e})"))?;
    let truncated = bytes.len() > CONTEXT_FILE_MAX_BYTES;
    if truncated {
        bytes.truncate(CONTEXT_FILE_MAX_BYTES);
        // Cut at a character boundary, so the kept text ends cleanly.
        while std::str::from_utf8(&bytes).is_err_and(|e| e.error_len().is_none()) {
            bytes.pop();
        }
    }
    Ok((bytes, truncated))
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
            custom: None,
            append: &["Be terse.".to_string()],
        });
        assert!(prompt.contains("- read: Read a file\n"));
        assert!(prompt.contains("- bash: bash does things.\n"));
        assert!(prompt.contains("Current date: 2026-11-30\n"));
        assert!(prompt.contains("Current working directory: /repo/sub\n"));
        assert!(prompt.contains("## /repo/AGENTS.md\n\nUse cargo.\n"));
        assert!(prompt.trim_end().ends_with("Be terse."));
    }

    #[test]
    fn a_custom_prompt_replaces_the_instructions_and_keeps_the_rest() {
        let tools = [tool("read", Some("Read a file"))];
        let files = [ContextFile {
            path: PathBuf::from("/repo/AGENTS.md"),
            content: "Use cargo.\n".into(),
        }];
        let prompt = build_system_prompt(&PromptInputs {
            tools: &tools,
            cwd: Path::new("/repo"),
            date: NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
            context_files: &files,
            custom: Some("You review Rust code."),
            append: &["One.".to_string(), "Two.".to_string()],
        });
        assert!(prompt.starts_with("You review Rust code.\n"), "{prompt}");
        assert!(!prompt.contains("You are tack"), "{prompt}");
        assert!(prompt.contains("Current working directory: /repo\n"));
        assert!(prompt.contains("Use cargo."));
        assert!(prompt.trim_end().ends_with("One.\n\nTwo."), "{prompt}");
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

        let files = discover_context_files(&home, &cwd, None).files;
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, ["home", "root claude", "a agents", "b"]);
        assert_eq!(files[1].path, repo.join("CLAUDE.md"));
    }

    #[test]
    fn every_folder_from_the_users_home_down_is_read_in_a_repository_or_not() {
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("user");
        let repo = user.join("work").join("repo");
        let plain = user.join("notes").join("x");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::create_dir_all(&plain).unwrap();
        fs::write(tmp.path().join("AGENTS.md"), "above home").unwrap();
        fs::write(user.join("AGENTS.md"), "home").unwrap();
        fs::write(user.join("work").join("CLAUDE.md"), "work").unwrap();
        fs::write(repo.join("AGENTS.md"), "repo").unwrap();
        fs::write(user.join("notes").join("AGENTS.md"), "notes").unwrap();
        fs::write(plain.join("AGENTS.md"), "x").unwrap();
        let tack_home = tmp.path().join("tack");
        let read = |cwd: &Path| -> Vec<String> {
            discover_context_files(&tack_home, cwd, Some(&user))
                .files
                .into_iter()
                .map(|f| f.content)
                .collect()
        };
        assert_eq!(read(&repo), ["home", "work", "repo"]);
        assert_eq!(read(&plain), ["home", "notes", "x"]);
        let outside = tmp.path().join("elsewhere");
        fs::create_dir_all(&outside).unwrap();
        assert!(!read(&outside).contains(&"above home".to_string()));
    }

    #[test]
    fn without_a_repository_only_cwd_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("x");
        fs::create_dir_all(&cwd).unwrap();
        fs::write(tmp.path().join("AGENTS.md"), "parent").unwrap();
        fs::write(cwd.join("AGENTS.md"), "cwd").unwrap();
        let files = discover_context_files(&tmp.path().join("no-home"), &cwd, None).files;
        let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        // /tmp may itself sit in a repository on some machines; the cwd file is last either way.
        assert_eq!(contents.last(), Some(&"cwd"));
        if find_repo_root(&cwd).is_none() {
            assert_eq!(contents, ["cwd"]);
        }
    }

    #[cfg(unix)]
    #[test]
    fn context_files_leading_out_of_the_repository_or_not_regular_are_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = tmp.path().join("repo");
        let cwd = repo.join("a");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(cwd.join("b")).unwrap();
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::write(tmp.path().join("secret.txt"), "sk-canary").unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", repo.join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink("../../secret.txt", cwd.join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink("../README.md", cwd.join("b/CLAUDE.md")).unwrap();
        fs::write(cwd.join("README.md"), "inside, through a link").unwrap();

        let found = discover_context_files(&home, &cwd.join("b"), None);
        let contents: Vec<&str> = found.files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, ["inside, through a link"]);
        assert_eq!(found.warnings.len(), 2, "{:?}", found.warnings);
        assert!(found.warnings[0].contains(&repo.join("AGENTS.md").display().to_string()));
        assert!(
            found.warnings[1].contains("outside"),
            "{:?}",
            found.warnings
        );
    }

    #[test]
    fn a_large_context_file_is_cut_at_the_cap_with_a_warning() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("repo");
        fs::create_dir_all(cwd.join(".git")).unwrap();
        let big = "é".repeat(CONTEXT_FILE_MAX_BYTES);
        fs::write(cwd.join("AGENTS.md"), &big).unwrap();
        let found = discover_context_files(&tmp.path().join("no-home"), &cwd, None);
        assert_eq!(found.files.len(), 1);
        assert!(found.files[0].content.len() <= CONTEXT_FILE_MAX_BYTES);
        assert!(found.files[0].content.len() > CONTEXT_FILE_MAX_BYTES - 4);
        assert!(!found.files[0].content.contains('\u{fffd}'));
        assert!(found.warnings[0].contains("AGENTS.md") && found.warnings[0].contains("64 KiB"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_not_a_context_file() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("repo");
        fs::create_dir_all(cwd.join(".git")).unwrap();
        let fifo = cwd.join("AGENTS.md");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) with a valid NUL-terminated path; touches no other memory.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let found = discover_context_files(&tmp.path().join("no-home"), &cwd, None);
        assert!(found.files.is_empty());
        assert!(
            found.warnings[0].contains("not a regular file"),
            "{:?}",
            found.warnings
        );
    }
}
