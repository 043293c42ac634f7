//! Where the paths on a command line really point, judged the way the shell and the kernel will
//! read them rather than as typed.
//!
//! A path typed as `notes.txt` is not necessarily `<workspace>/notes.txt`: `~`, `$HOME` and any
//! other expansion are known only at run time; `cd`, `pushd`, `popd`, `source` or a command whose
//! name is itself an expansion move the directory later commands start in (and the parser
//! flattens subshells and loops, so the order on the line says little about the order they run
//! in); and a symlink inside the workspace (`setup.cfg -> .git/config`) sends a write somewhere
//! else. [`Places`] answers, for one line, where a word may lead:
//!
//! - every directory the line could be working in is computed from the literal directory
//!   changes, applied in order but each one optionally (so `(cd a); cd b` and `cd a; cd b` are
//!   both covered); anything it cannot follow (`cd ~`, `cd $X`, `cd -`, `popd`, `source`, a
//!   loop or function around a directory change, `CDPATH`) makes the working directory unknown;
//! - a path is resolved against every one of those directories, following symlinks inside the
//!   workspace component by component (the policies may read the workspace);
//! - a glob in the last component is expanded against the directory, so `*.cfg` covers a
//!   `setup.cfg` link too;
//! - whatever cannot be known is [`Place::Unknown`], which callers treat as outside the
//!   workspace: a wrong "unknown" costs the user a question, a wrong "inside" their files.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};

use crate::commands::{program_name, Analysis, Command};
use crate::paths;
use crate::shell::Word;

/// How many directory changes a line may make before the working directory counts as unknown
/// (each one doubles the directories considered).
const MAX_DIRECTORY_CHANGES: usize = 8;

/// The most symlinks followed for one path, as Linux bounds a chain.
const MAX_LINKS: usize = 40;

/// Programs that change the directory the rest of the line runs in.
const DIRECTORY_CHANGERS: &[&str] = &["cd", "pushd", "popd", "source", "."];

/// Words that make commands run more than once, in an order the line does not show.
const REPEATERS: &[&str] = &["for", "while", "until", "select", "function"];

/// Where a word on the line may lead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Every absolute, normalized, symlink-resolved path it may name (one for each working
    /// directory the line may be in, and each file a glob may match).
    Known(Vec<String>),
    /// It cannot be known before the line runs; the reason names what hides it.
    Unknown(String),
}

impl Place {
    /// Whether every path it may name lies inside `root` (never, when unknown).
    pub fn inside(&self, root: &str) -> bool {
        match self {
            Place::Known(paths) => paths.iter().all(|p| paths::relative(root, p).is_some()),
            Place::Unknown(_) => false,
        }
    }

    /// The paths it may name; empty when unknown.
    pub fn paths(&self) -> &[String] {
        match self {
            Place::Known(paths) => paths,
            Place::Unknown(_) => &[],
        }
    }
}

/// The working directories of one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    workspace: String,
    /// Every directory a command of the line may start in, the workspace first.
    dirs: Vec<String>,
    /// Why the working directory cannot be known, when it cannot.
    unknown: Option<String>,
}

impl Places {
    /// The working directories of `analysis` (parsed from `line`) when it starts in `workspace`.
    pub fn new(line: &str, analysis: &Analysis, workspace: &str) -> Places {
        let workspace = paths::absolute("/", workspace);
        let mut places = Places {
            dirs: vec![workspace.clone()],
            workspace,
            unknown: None,
        };
        let mut changes: Vec<String> = Vec::new();
        for command in &analysis.commands {
            match directory_change(command) {
                None => {}
                Some(Ok(dir)) => changes.push(dir),
                Some(Err(why)) => {
                    places.unknown.get_or_insert(why);
                }
            }
        }
        if changes.is_empty() {
            return places;
        }
        if line.contains("CDPATH") {
            places.unknown.get_or_insert_with(|| {
                "it sets `CDPATH`, which changes where `cd` goes".to_string()
            });
        }
        let repeats = line.contains("()")
            || analysis.commands.iter().any(|c| {
                c.words
                    .iter()
                    .any(|w| !w.quoted && REPEATERS.contains(&w.text.as_str()))
            });
        if repeats {
            places.unknown.get_or_insert_with(|| {
                "it changes directory inside a loop or function, which may run it any number \
                 of times"
                    .to_string()
            });
        }
        if changes.len() > MAX_DIRECTORY_CHANGES {
            places.unknown.get_or_insert_with(|| {
                format!(
                    "it changes directory more than {MAX_DIRECTORY_CHANGES} times, too many to follow"
                )
            });
        }
        if places.unknown.is_some() {
            return places;
        }
        for change in &changes {
            let moved: Vec<String> = places
                .dirs
                .iter()
                .map(|from| resolve(&places.workspace, &join(from, change)))
                .collect();
            for dir in moved {
                if !places.dirs.contains(&dir) {
                    places.dirs.push(dir);
                }
            }
        }
        places
    }

    /// The directories a command of the line may start in; empty when unknown.
    pub fn working_dirs(&self) -> &[String] {
        if self.unknown.is_some() {
            &[]
        } else {
            &self.dirs
        }
    }

    /// Why the working directory is unknown, if it is.
    pub fn unknown(&self) -> Option<&str> {
        self.unknown.as_deref()
    }

    /// Whether every command of the line surely starts inside the workspace.
    pub fn stays_inside(&self) -> bool {
        self.unknown.is_none()
            && self
                .dirs
                .iter()
                .all(|d| paths::relative(&self.workspace, d).is_some())
    }

    /// Where `word`, used as a path by a command of the line, may lead.
    pub fn place(&self, word: &Word) -> Place {
        let text = word.text.trim();
        if word.expands {
            return Place::Unknown(format!("`{}` is known only at run time", word.text));
        }
        if text.starts_with('~') {
            return Place::Unknown(format!(
                "`{}` is in a home directory, outside the workspace",
                word.text
            ));
        }
        if text.is_empty() {
            return Place::Known(Vec::new());
        }
        let bases: Vec<String> = if text.starts_with('/') {
            vec!["/".to_string()]
        } else if let Some(why) = &self.unknown {
            return Place::Unknown(format!(
                "`{}` is relative and {why}, so the directory it is relative to is unknown",
                word.text
            ));
        } else {
            self.dirs.clone()
        };
        let mut out = Vec::new();
        for base in &bases {
            let joined = join(base, text);
            let found = if word.globs {
                match expand_glob(&self.workspace, &joined) {
                    Ok(found) => found,
                    Err(why) => return Place::Unknown(format!("`{}` {why}", word.text)),
                }
            } else {
                vec![resolve(&self.workspace, &joined)]
            };
            for path in found {
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
        Place::Known(out)
    }
}

/// Whether `command` may change the directory later commands of its line start in.
pub fn changes_directory(command: &Command) -> bool {
    directory_change(command).is_some()
}

/// What a command does to the working directory: `None` when nothing, the directory it changes
/// to (as typed), or why that cannot be known.
fn directory_change(command: &Command) -> Option<Result<String, String>> {
    let shown = crate::commands::text(&command.words);
    // A program named by an expansion (`$c ~`) could be `cd`.
    for stage in 0..command.stage_count() {
        if let Some(first) = command.stage(stage).first() {
            if first.expands {
                return Some(Err(format!(
                    "`{shown}` runs a command known only at run time, which may change directory"
                )));
            }
        }
    }
    if chdir_wrapper(command) {
        return Some(Err(format!(
            "`{shown}` runs a command in another directory"
        )));
    }
    let leaf = command.leaf();
    let name = leaf.first().and_then(program_name)?;
    if !DIRECTORY_CHANGERS.contains(&name) {
        return None;
    }
    let unknown = |what: &str| Some(Err(format!("`{shown}` {what}")));
    if matches!(name, "popd" | "source" | ".") {
        return unknown("changes to a directory known only at run time");
    }
    let mut args = leaf[1..].iter().peekable();
    while let Some(word) = args.peek() {
        match word.text.as_str() {
            "-L" | "-P" | "-e" | "-@" | "-n" if !word.expands => {
                args.next();
            }
            "--" => {
                args.next();
                break;
            }
            _ => break,
        }
    }
    let Some(dir) = args.next() else {
        return unknown("changes to the home directory");
    };
    if args.next().is_some() {
        return unknown("has more than one operand");
    }
    let text = dir.text.as_str();
    if dir.expands || dir.globs || text.starts_with('~') {
        return unknown("changes to a directory known only at run time");
    }
    if text == "-" || text.starts_with('+') || (name == "pushd" && text.starts_with('-')) {
        return unknown("changes to a directory from the directory stack");
    }
    if text.is_empty() {
        return None;
    }
    Some(Ok(text.to_string()))
}

/// `env -C dir`, `env --chdir`, `sudo -D dir`, `sudo --chdir`: the wrapped command starts
/// elsewhere.
fn chdir_wrapper(command: &Command) -> bool {
    command.wrappers.iter().enumerate().any(|(i, wrapper)| {
        let stage = command.stage(i);
        let end = command
            .stage_starts
            .get(i + 1)
            .map(|next| next - command.stage_starts[i])
            .unwrap_or(stage.len());
        let options = &stage[1.min(stage.len())..end.min(stage.len())];
        let (short, long) = match wrapper.as_str() {
            "env" => ('C', "--chdir"),
            "sudo" => ('D', "--chdir"),
            _ => return false,
        };
        options.iter().any(|w| {
            let t = w.text.as_str();
            t.starts_with(long) || (t.starts_with('-') && !t.starts_with("--") && t.contains(short))
        })
    })
}

/// `path` joined to `base` without normalizing (`..` must be resolved after symlinks).
fn join(base: &str, path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", base.trim_end_matches('/'))
    }
}

/// `path` (absolute) with `.` and `..` resolved and every symlink below `workspace` followed,
/// as the kernel would open it. Links outside the workspace are not read (the policies cannot
/// see there, and a path there is outside anyway). A link that cannot be read (the sandbox
/// refuses absolute targets) or a chain too long could lead anywhere: the answer is then `/`,
/// which lies outside any workspace.
pub fn resolve(workspace: &str, path: &str) -> String {
    let root = Path::new(workspace);
    let mut queue: VecDeque<PathBuf> = Path::new(path)
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(PathBuf::from(n)),
            Component::ParentDir => Some(PathBuf::from("..")),
            _ => None,
        })
        .collect();
    let mut out = PathBuf::from("/");
    let mut links = 0;
    while let Some(part) = queue.pop_front() {
        if part.as_os_str() == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&part);
        let below_root = next.starts_with(root) && next != root;
        let is_link = below_root
            && std::fs::symlink_metadata(&next).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            out = next;
            continue;
        }
        links += 1;
        let Ok(target) = std::fs::read_link(&next) else {
            return "/".to_string();
        };
        if links > MAX_LINKS {
            return "/".to_string();
        }
        if target.is_absolute() {
            out = PathBuf::from("/");
        }
        for component in target.components().rev() {
            match component {
                Component::Normal(n) => queue.push_front(PathBuf::from(n)),
                Component::ParentDir => queue.push_front(PathBuf::from("..")),
                _ => {}
            }
        }
    }
    out.to_string_lossy().into_owned()
}

/// The files a path with a glob in its last component may name: each matching entry (resolved)
/// and the path as typed, which the shell keeps when nothing matches.
fn expand_glob(workspace: &str, path: &str) -> Result<Vec<String>, String> {
    let (dir, pattern) = path.rsplit_once('/').unwrap_or(("", path));
    if dir.contains(['*', '?', '[']) {
        return Err("has a glob in a directory name, which this policy does not expand".into());
    }
    // `.*` matches `..` in some shells.
    if pattern.starts_with('.') && pattern[1..].contains(['*', '?', '[']) {
        return Err("may match `..`".into());
    }
    let dir = resolve(workspace, if dir.is_empty() { "/" } else { dir });
    let mut found = vec![resolve(workspace, &format!("{dir}/{pattern}"))];
    if paths::relative(workspace, &dir).is_none() {
        // Outside the workspace: the files there cannot be listed, and it is outside anyway.
        return Ok(found);
    }
    let matcher = crate::glob::Glob::new(pattern, true)
        .map_err(|e| format!("is not a glob this policy understands ({e})"))?;
    let entries =
        std::fs::read_dir(&dir).map_err(|_| "names a directory this policy cannot list")?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if matcher.is_match(&name) {
            let path = resolve(workspace, &format!("{dir}/{name}"));
            if !found.contains(&path) {
                found.push(path);
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::analyze;

    fn places(line: &str, ws: &str) -> Places {
        Places::new(line, &analyze(line).expect("parse"), ws)
    }

    #[test]
    fn no_directory_change_keeps_the_workspace() {
        let p = places("echo hi > notes.txt", "/ws");
        assert_eq!(p.working_dirs(), ["/ws".to_string()]);
        assert!(p.stays_inside());
        assert_eq!(
            p.place(&Word::literal("notes.txt")),
            Place::Known(vec!["/ws/notes.txt".into()])
        );
    }

    #[test]
    fn literal_changes_are_followed_each_optionally() {
        let p = places("cd sub && (cd deeper); make > log", "/ws");
        assert_eq!(
            p.working_dirs(),
            ["/ws", "/ws/sub", "/ws/deeper", "/ws/sub/deeper"].map(String::from)
        );
        assert!(p.place(&Word::literal("log")).inside("/ws"));
        let up = places("cd sub; cd ..; echo x > y", "/ws");
        assert!(!up.stays_inside(), "`cd ..` from the workspace leaves it");
        assert!(!up.place(&Word::literal("y")).inside("/ws"));
    }

    #[test]
    fn unknown_changes_make_relative_paths_unknown() {
        for line in [
            "cd ~ && echo x >> .bashrc",
            "cd && echo x >> .bashrc",
            "cd $HOME; touch x",
            "cd - ; touch x",
            "pushd /tmp; popd; touch x",
            "source env.sh; touch x",
            ". ./env.sh; touch x",
            "c=cd; $c /tmp; touch x",
            "env -C /tmp touch x",
            "sudo -D /tmp touch x",
            "for d in a b; do cd $d; done; touch x",
            "for d in a b; do cd sub; done; touch x",
            "f() { cd sub; }; f; f; touch x",
            "CDPATH=/ cd etc; touch x",
        ] {
            let p = places(line, "/ws");
            assert!(p.unknown().is_some(), "{line}");
            assert!(!p.place(&Word::literal("x")).inside("/ws"), "{line}");
            assert!(!p.stays_inside(), "{line}");
        }
    }

    #[test]
    fn home_and_expansions_are_unknown() {
        let p = places("true", "/ws");
        for word in ["~/.bashrc", "~", "~root/x"] {
            assert!(matches!(p.place(&Word::literal(word)), Place::Unknown(_)));
        }
        let analysis = analyze("echo > $HOME/x; echo > ${HOME}/y; echo > $(pwd)/z").expect("p");
        for command in &analysis.commands {
            for r in &command.redirects {
                assert!(matches!(p.place(&r.target), Place::Unknown(_)), "{r:?}");
            }
        }
    }

    #[test]
    fn symlinks_inside_the_workspace_are_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".git")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("outside")).expect("mkdir");
        std::os::unix::fs::symlink(".git/config", ws.join("setup.cfg")).expect("link");
        std::os::unix::fs::symlink("../outside", ws.join("link")).expect("link");
        std::os::unix::fs::symlink(".git", ws.join("cfgdir")).expect("link");
        let root = ws.to_string_lossy().into_owned();
        let p = places("true", &root);
        let real = |rel: &str| format!("{root}/{rel}");
        assert_eq!(
            p.place(&Word::literal("setup.cfg")),
            Place::Known(vec![real(".git/config")])
        );
        assert_eq!(
            p.place(&Word::literal("cfgdir/config")),
            Place::Known(vec![real(".git/config")])
        );
        let out = p.place(&Word::literal("link/x"));
        assert!(!out.inside(&root), "{out:?}");
        assert_eq!(
            out.paths(),
            [format!("{}/outside/x", dir.path().to_string_lossy())]
        );
        // `..` after a link climbs from where the link leads.
        let climbed = p.place(&Word::literal("cfgdir/../setup.cfg"));
        assert_eq!(climbed, Place::Known(vec![real(".git/config")]));
        let globbed = p.place(&Word {
            text: "*.cfg".into(),
            globs: true,
            ..Word::default()
        });
        assert!(
            globbed.paths().contains(&real(".git/config")),
            "{globbed:?}"
        );
        let cd = places("cd cfgdir && echo x > config", &root);
        assert!(cd
            .place(&Word::literal("config"))
            .paths()
            .contains(&real(".git/config")));
    }
}
