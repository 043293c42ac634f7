//! The directory walk shared by find and grep: what a developer would consider "the project".
//!
//! Honours `.gitignore`, `.ignore` and `.git/info/exclude` whether or not the tree is a git
//! repository (as ripgrep does with `--no-require-git`), including the ignore files of the
//! directories between the workspace root and the search root. Dotfiles are included, `.git` is
//! never entered, and symlinks are reported but not followed. Entries come depth-first in name
//! order, so results are stable.
//!
//! This is a small walker of its own rather than the `ignore` crate's: it decides which ignore
//! files to read from the directory listing it already has, and reads and opens relative to
//! directory handles, which keeps the number of host calls per entry minimal (see `fsys`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use globset::{GlobBuilder, GlobMatcher};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::fsys::{self, DirHandle, Kind};

/// One entry met by [`walk`].
pub struct Visit<'a> {
    pub path: &'a Path,
    pub name: &'a str,
    pub kind: Kind,
    /// The directory holding the entry, for reading it cheaply.
    pub dir: &'a DirHandle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// For a directory: go on, but do not enter it.
    Skip,
    Stop,
}

/// The ignore rules of one directory.
#[derive(Default, Clone)]
struct Level {
    /// The directory, which the rules' paths are relative to.
    dir: Option<String>,
    dot_ignore: Option<Rc<Gitignore>>,
    git_ignore: Option<Rc<Gitignore>>,
    git_exclude: Option<Rc<Gitignore>>,
}

impl Level {
    fn is_empty(&self) -> bool {
        self.dot_ignore.is_none() && self.git_ignore.is_none() && self.git_exclude.is_none()
    }

    /// `path` (spelled `text`) relative to this level's directory, as the rules match it. The
    /// matcher would strip the directory itself, but off-Unix (the plugin runs on WASI) it does
    /// so component by component, several times per entry and level: most of a walk's own time
    /// went there. Should the spellings differ, the whole path goes, and the matcher strips it.
    fn relative<'p>(&self, path: &'p Path, text: Option<&'p str>) -> &'p Path {
        text.zip(self.dir.as_deref())
            .and_then(|(text, dir)| text.strip_prefix(dir)?.strip_prefix('/'))
            .filter(|rest| !rest.is_empty())
            .map_or(path, Path::new)
    }
}

/// The ignore rules in force: one level per directory from the workspace root down to the
/// directory being walked (empty levels are not kept).
#[derive(Default)]
struct Rules {
    levels: Vec<Level>,
}

impl Rules {
    /// Whether `path` is ignored. As in ripgrep, `.ignore` rules outrank `.gitignore` rules,
    /// which outrank `.git/info/exclude`; within each kind the deepest directory's file decides.
    /// `text` is `path` as text, where it is.
    fn is_ignored(&self, path: &Path, text: Option<&str>, is_dir: bool) -> bool {
        let kinds: [fn(&Level) -> Option<&Gitignore>; 3] = [
            |l| l.dot_ignore.as_deref(),
            |l| l.git_ignore.as_deref(),
            |l| l.git_exclude.as_deref(),
        ];
        for kind in kinds {
            for level in self.levels.iter().rev() {
                if let Some(rules) = kind(level) {
                    match rules.matched(level.relative(path, text), is_dir) {
                        Match::Ignore(_) => return true,
                        Match::Whitelist(_) => return false,
                        Match::None => {}
                    }
                }
            }
        }
        false
    }
}

/// Builds a matcher from an ignore file's text; `None` when it has no usable rule.
fn parse_rules(dir: &Path, text: &[u8]) -> Option<Rc<Gitignore>> {
    PARSED.with(|parsed| {
        let mut parsed = parsed.borrow_mut();
        // The key is the file's whole text, so a changed file is parsed again.
        let key = (dir.to_path_buf(), text.to_vec());
        if let Some(rules) = parsed.get(&key) {
            return rules.clone();
        }
        let mut builder = GitignoreBuilder::new(dir);
        for line in String::from_utf8_lossy(text).lines() {
            // A malformed line is skipped, as git does; the rest of the file still applies.
            let _ = builder.add_line(None, line.trim_end_matches('\r'));
        }
        let rules = builder.build().ok().filter(|g| !g.is_empty()).map(Rc::new);
        if text.len() <= MAX_PARSED_TEXT {
            if parsed.len() >= MAX_PARSED {
                parsed.clear();
            }
            parsed.insert(key, rules.clone());
        }
        rules
    })
}

/// Parsed ignore files by (directory, text).
type Parsed = HashMap<(PathBuf, Vec<u8>), Option<Rc<Gitignore>>>;

/// Ignore files kept parsed, at most, and the largest kept.
const MAX_PARSED: usize = 64;
const MAX_PARSED_TEXT: usize = 16 << 10;

thread_local! {
    /// Parsed ignore files by directory and text. Every piece of a walk that runs as a task reads
    /// the ignore files above it again (they may have changed since), and compiling their rules
    /// into matchers costs more than walking a small piece; the text decides whether a parse can
    /// be reused, so a file edited between calls is parsed afresh.
    static PARSED: RefCell<Parsed> = RefCell::new(HashMap::new());
}

/// Reads the ignore files of a directory that its listing says exist.
fn load_level(dir: &DirHandle, path: &Path, names: &[fsys::Entry]) -> Level {
    let has = |name: &str, kind: Kind| names.iter().any(|e| e.name == name && e.kind == kind);
    let mut buf = Vec::new();
    let mut read = |d: &DirHandle, name: &str| -> Option<Rc<Gitignore>> {
        match d.read_file(name, &mut buf, 1 << 20) {
            Ok(fsys::Read::Done) => parse_rules(path, &buf),
            _ => None,
        }
    };
    let mut level = Level::default();
    if has(".ignore", Kind::File) {
        level.dot_ignore = read(dir, ".ignore");
    }
    if has(".gitignore", Kind::File) {
        level.git_ignore = read(dir, ".gitignore");
    }
    if has(".git", Kind::Dir) {
        if let Ok(info) = dir.open_dir(".git").and_then(|git| git.open_dir("info")) {
            level.git_exclude = read(&info, "exclude");
        }
    }
    if !level.is_empty() {
        level.dir = path.to_str().map(str::to_string);
    }
    level
}

/// Reads the ignore files of a directory whose listing the walk does not have, by trying to
/// open each: three failed opens cost less than listing a large directory.
fn probe_level(dir: &DirHandle, path: &Path) -> Level {
    let mut buf = Vec::new();
    let mut read = |d: &DirHandle, name: &str| -> Option<Rc<Gitignore>> {
        match d.read_file(name, &mut buf, 1 << 20) {
            Ok(fsys::Read::Done) => parse_rules(path, &buf),
            _ => None,
        }
    };
    Level {
        dir: path.to_str().map(str::to_string),
        dot_ignore: read(dir, ".ignore"),
        git_ignore: read(dir, ".gitignore"),
        git_exclude: dir
            .open_dir(".git")
            .and_then(|git| git.open_dir("info"))
            .ok()
            .and_then(|info| read(&info, "exclude")),
    }
}

/// The ignore rules of directories above the roots of walks, read once for all the walks of one
/// piece of work: the pieces of a split tree mostly share their ancestors, and reading an
/// ancestor's ignore files costs several host calls.
#[derive(Default)]
pub struct Ancestors {
    levels: HashMap<PathBuf, Level>,
}

impl Ancestors {
    fn level(&mut self, dir: &Path) -> Level {
        if let Some(level) = self.levels.get(dir) {
            return level.clone();
        }
        let level = fsys::open_dir(dir)
            .map(|handle| probe_level(&handle, dir))
            .unwrap_or_default();
        self.levels.insert(dir.to_path_buf(), level.clone());
        level
    }
}

/// Calls `visit` for every entry under `root` (a directory) that the ignore rules let through,
/// until it returns [`Flow::Stop`]. `workspace` bounds how far up ignore files are read.
pub fn walk(
    workspace: &Path,
    root: &Path,
    visit: &mut dyn FnMut(&Visit) -> Flow,
) -> io::Result<()> {
    walk_below(workspace, root, &mut Ancestors::default(), visit)
}

/// [`walk`], with the ignore rules above `root` taken from (or added to) `ancestors`.
fn walk_below(
    workspace: &Path,
    root: &Path,
    ancestors: &mut Ancestors,
    visit: &mut dyn FnMut(&Visit) -> Flow,
) -> io::Result<()> {
    let mut rules = Rules::default();
    // Ignore files of the directories above the search root, outermost first.
    if let Ok(below) = root.strip_prefix(workspace) {
        let mut dir = workspace.to_path_buf();
        let mut above = vec![dir.clone()];
        for component in below.components() {
            dir.push(component);
            above.push(dir.clone());
        }
        above.pop();
        for ancestor in above {
            let level = ancestors.level(&ancestor);
            if !level.is_empty() {
                rules.levels.push(level);
            }
        }
    }
    let handle = fsys::open_dir(root)?;
    // The root's listing fails the walk; a directory below that cannot be listed is skipped.
    let entries = handle.entries()?;
    let mut walker = Walker { rules, visit };
    walker.listed(&handle, root.to_path_buf(), entries);
    Ok(())
}

struct Walker<'v> {
    rules: Rules,
    visit: &'v mut dyn FnMut(&Visit) -> Flow,
}

impl Walker<'_> {
    /// Walks one directory; unreadable directories are skipped, as ripgrep does.
    fn dir(&mut self, handle: &DirHandle, path: PathBuf) -> Flow {
        match handle.entries() {
            Ok(entries) => self.listed(handle, path, entries),
            Err(_) => Flow::Continue,
        }
    }

    fn listed(&mut self, handle: &DirHandle, path: PathBuf, mut entries: Vec<fsys::Entry>) -> Flow {
        entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let level = load_level(handle, &path, &entries);
        let pushed = !level.is_empty();
        if pushed {
            self.rules.levels.push(level);
        }
        let flow = self.entries(handle, &path, &entries);
        if pushed {
            self.rules.levels.pop();
        }
        flow
    }

    fn entries(&mut self, handle: &DirHandle, path: &Path, entries: &[fsys::Entry]) -> Flow {
        let entries = entries.iter().filter(|entry| entry.name != ".git");
        // An entry's path is its directory's with the name put after it, and cut back after:
        // as text, so cutting back does not parse the path again (`PathBuf::pop` does, slowly
        // off-Unix) and the ignore rules need not check that it is UTF-8. Walked paths are text
        // (the workspace root is, and listings leave out names that are not), but a path that
        // is not still walks.
        let Some(dir) = path.to_str() else {
            for entry in entries {
                let child = path.join(&entry.name);
                if self.entry(handle, &child, None, entry) == Flow::Stop {
                    return Flow::Stop;
                }
            }
            return Flow::Continue;
        };
        let mut child = String::with_capacity(dir.len() + 64);
        child.push_str(dir);
        if !dir.ends_with('/') {
            child.push('/');
        }
        let base = child.len();
        for entry in entries {
            child.truncate(base);
            child.push_str(&entry.name);
            if self.entry(handle, Path::new(&child), Some(&child), entry) == Flow::Stop {
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// Visits one entry, at `child` (spelled `text`), and walks it if it is a directory.
    fn entry(
        &mut self,
        handle: &DirHandle,
        child: &Path,
        text: Option<&str>,
        entry: &fsys::Entry,
    ) -> Flow {
        let is_dir = entry.kind == Kind::Dir;
        if self.rules.is_ignored(child, text, is_dir) {
            return Flow::Continue;
        }
        let flow = (self.visit)(&Visit {
            path: child,
            name: &entry.name,
            kind: entry.kind,
            dir: handle,
        });
        if is_dir && flow == Flow::Continue {
            if let Ok(sub) = handle.open_dir(&entry.name) {
                return self.dir(&sub, child.to_path_buf());
            }
        }
        flow
    }
}

/// A piece of a walk that can run on its own: together, in order, the pieces visit the same
/// entries in the same order as one [`walk`] of the root.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Piece {
    /// Entries of one directory, already let through by the ignore rules: files, links, and
    /// directories (whose contents are further pieces).
    Entries {
        dir: PathBuf,
        entries: Vec<(String, Kind)>,
    },
    /// The contents of a directory (listed in an earlier [`Piece::Entries`]): walk it with
    /// [`walk`], which reads the ignore files above it.
    Tree(PathBuf),
}

impl Piece {
    /// The directory the piece lies in (or is).
    pub fn dir(&self) -> &Path {
        match self {
            Piece::Entries { dir, .. } | Piece::Tree(dir) => dir,
        }
    }

    /// Visits the piece's entries as one [`walk`] of the whole tree would have, until `visit`
    /// returns [`Flow::Stop`]. `workspace` bounds how far up ignore files are read.
    pub fn walk(&self, workspace: &Path, visit: &mut dyn FnMut(&Visit) -> Flow) -> io::Result<()> {
        self.walk_below(workspace, &mut Ancestors::default(), visit)
    }

    /// [`Piece::walk`], sharing the ignore rules above the piece with the other pieces walked
    /// with the same `ancestors`.
    pub fn walk_below(
        &self,
        workspace: &Path,
        ancestors: &mut Ancestors,
        visit: &mut dyn FnMut(&Visit) -> Flow,
    ) -> io::Result<()> {
        match self {
            Piece::Entries { dir, entries } => {
                let handle = fsys::open_dir(dir)?;
                let mut path = dir.clone();
                for (name, kind) in entries {
                    path.push(name);
                    let flow = visit(&Visit {
                        path: &path,
                        name,
                        kind: *kind,
                        dir: &handle,
                    });
                    path.pop();
                    if flow == Flow::Stop {
                        break;
                    }
                }
                Ok(())
            }
            Piece::Tree(dir) => walk_below(workspace, dir, ancestors, visit),
        }
    }
}

/// Entries of one directory in one piece, at most.
const MAX_PIECE_ENTRIES: usize = 256;

/// Cuts the walk of `root` into at least `want` pieces where the tree allows, going at most
/// three levels down: each level is one more (cheap, top-of-tree) walk.
pub fn split(workspace: &Path, root: &Path, want: usize) -> io::Result<Vec<Piece>> {
    let mut pieces = Vec::new();
    for depth in 1..=3 {
        pieces = split_at(workspace, root, depth)?;
        let trees = pieces
            .iter()
            .filter(|p| matches!(p, Piece::Tree(_)))
            .count();
        if trees == 0 || pieces.len() >= want {
            break;
        }
    }
    Ok(pieces)
}

/// The pieces of a walk whose directories `depth` levels below `root` are whole subtrees.
fn split_at(workspace: &Path, root: &Path, depth: usize) -> io::Result<Vec<Piece>> {
    let mut pieces: Vec<Piece> = Vec::new();
    walk(workspace, root, &mut |entry| {
        let level = entry
            .path
            .strip_prefix(root)
            .map_or(0, |rel| rel.components().count());
        let dir = entry.path.parent().unwrap_or(root);
        match pieces.last_mut() {
            // A long run of one directory's entries is cut too, so a flat directory of
            // thousands of files still spreads over the workers.
            Some(Piece::Entries { dir: last, entries })
                if last == dir && entries.len() < MAX_PIECE_ENTRIES =>
            {
                entries.push((entry.name.to_string(), entry.kind));
            }
            _ => pieces.push(Piece::Entries {
                dir: dir.to_path_buf(),
                entries: vec![(entry.name.to_string(), entry.kind)],
            }),
        }
        if entry.kind == Kind::Dir && level >= depth {
            pieces.push(Piece::Tree(entry.path.to_path_buf()));
            Flow::Skip
        } else {
            Flow::Continue
        }
    })?;
    Ok(pieces)
}

/// A glob as find and grep accept it: a pattern without `/` matches file names at any depth
/// (`*.rs`); one with `/` matches the path relative to the search root (`src/**/*.rs`), where `*`
/// stays within one directory and `**` crosses them. All-lowercase patterns ignore case.
#[derive(Debug)]
pub struct PathGlob {
    matcher: GlobMatcher,
    whole_path: bool,
    /// The same test without the regex, for the common name patterns.
    literal: Option<Literal>,
}

/// A name pattern that is a literal, or `*` and a literal (`Cargo.toml`, `*.rs`): the bulk of
/// find's patterns, matched per entry over whole trees. globset compiles globs into byte regexes
/// with ASCII-only case folding (`(?-u)`), so comparing bytes, ignoring ASCII case when the glob
/// does, gives the regex's answer exactly.
#[derive(Debug)]
struct Literal {
    text: String,
    /// `*text` rather than `text`.
    suffix: bool,
    ignore_case: bool,
}

impl Literal {
    fn new(pattern: &str, ignore_case: bool) -> Option<Self> {
        let (suffix, text) = match pattern.strip_prefix('*') {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        let special = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '/');
        // Non-ASCII literals are left to the regex, whose handling of them is its own business.
        if !text.is_ascii() || text.chars().any(special) {
            return None;
        }
        Some(Self {
            text: text.to_string(),
            suffix,
            ignore_case,
        })
    }

    fn is_match(&self, name: &[u8]) -> bool {
        let want = self.text.as_bytes();
        let got = if self.suffix {
            match name.len().checked_sub(want.len()) {
                Some(start) => &name[start..],
                None => return false,
            }
        } else {
            name
        };
        if self.ignore_case {
            got.eq_ignore_ascii_case(want)
        } else {
            got == want
        }
    }
}

impl PathGlob {
    pub fn new(pattern: &str) -> Result<Self, String> {
        let pattern = pattern.trim();
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        if pattern.is_empty() {
            return Err("The glob pattern is empty.".to_string());
        }
        let smart_case = !pattern.chars().any(char::is_uppercase);
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .case_insensitive(smart_case)
            .build()
            .map_err(|e| format!("Invalid glob pattern '{pattern}': {}", e.kind()))?;
        let whole_path = pattern.contains('/');
        Ok(Self {
            matcher: glob.compile_matcher(),
            whole_path,
            literal: (!whole_path)
                .then(|| Literal::new(pattern, smart_case))
                .flatten(),
        })
    }

    /// Whether the entry at `relative` (to the search root) matches.
    pub fn is_match(&self, relative: &Path) -> bool {
        if self.whole_path {
            self.matcher.is_match(relative)
        } else {
            relative
                .file_name()
                .is_some_and(|name| self.is_name_match(name))
        }
    }

    /// Whether a walk's entry matches: `path` is `root` joined with the entry's relative path,
    /// and `name` its last component. Name patterns look only at `name`, so the path is not
    /// taken apart for every entry of a tree.
    pub fn is_entry_match(&self, root: &Path, path: &Path, name: &str) -> bool {
        if self.whole_path {
            self.is_match(path.strip_prefix(root).unwrap_or(path))
        } else {
            self.is_name_match(name.as_ref())
        }
    }

    fn is_name_match(&self, name: &std::ffi::OsStr) -> bool {
        match (&self.literal, name.to_str()) {
            (Some(literal), Some(name)) => literal.is_match(name.as_bytes()),
            _ => self.matcher.is_match(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempWorkspace;

    fn walked(t: &TempWorkspace, root: &str) -> Vec<String> {
        let mut seen = Vec::new();
        walk(&t.root, &t.path(root), &mut |v| {
            let rel = v.path.strip_prefix(&t.root).expect("inside");
            let mut shown = rel.to_string_lossy().into_owned();
            if v.kind == Kind::Dir {
                shown.push('/');
            }
            seen.push(shown);
            Flow::Continue
        })
        .expect("walk");
        seen
    }

    #[test]
    fn ignore_files_at_every_level() {
        let t = TempWorkspace::new();
        t.file(".gitignore", "*.log\nbuild/\n");
        t.file("a.log", "");
        t.file("keep.txt", "");
        t.file("build/out.txt", "");
        t.file("sub/.gitignore", "!important.log\nlocal/\n");
        t.file("sub/important.log", "");
        t.file("sub/other.log", "");
        t.file("sub/local/x", "");
        t.file("sub/deeper/.ignore", "*.txt\n");
        t.file("sub/deeper/a.txt", "");
        t.file("sub/deeper/b.rs", "");
        t.file(".git/info/exclude", "secret*\n");
        t.file(".git/HEAD", "");
        t.file("secret.key", "");
        assert_eq!(
            walked(&t, "."),
            vec![
                ".gitignore",
                "keep.txt",
                "sub/",
                "sub/.gitignore",
                "sub/deeper/",
                "sub/deeper/.ignore",
                "sub/deeper/b.rs",
                "sub/important.log",
            ]
        );
    }

    #[test]
    fn rules_get_paths_relative_to_their_directory_or_whole() {
        let level = Level {
            dir: Some("/w/sub".to_string()),
            ..Level::default()
        };
        let rel = |p: &str| level.relative(Path::new(p), Some(p)).to_path_buf();
        assert_eq!(rel("/w/sub/a/b.rs"), Path::new("a/b.rs"));
        assert_eq!(rel("/w/sub/b.rs"), Path::new("b.rs"));
        // Not below the directory as spelled: the matcher gets the whole path to strip.
        assert_eq!(rel("/w/subway/b.rs"), Path::new("/w/subway/b.rs"));
        assert_eq!(rel("/w/sub"), Path::new("/w/sub"));
        assert_eq!(rel("/w/./sub/b.rs"), Path::new("/w/./sub/b.rs"));
    }

    #[test]
    fn parent_rules_apply_below_the_search_root() {
        let t = TempWorkspace::new();
        t.file(".gitignore", "*.tmp\n");
        t.file("src/a.rs", "");
        t.file("src/b.tmp", "");
        assert_eq!(walked(&t, "src"), vec!["src/a.rs"]);
    }

    #[test]
    fn pieces_cover_the_walk_in_order() {
        let t = TempWorkspace::new();
        t.file(".gitignore", "skip/\n*.log\n");
        t.file("a.txt", "");
        t.file("b/one.rs", "");
        t.file("b/c/two.rs", "");
        t.file("b/c/d/three.rs", "");
        t.file("b/x.log", "");
        t.file("e/four.rs", "");
        t.file("skip/no.rs", "");
        t.file("z.txt", "");
        let files_of = |pieces: &[Piece]| -> Vec<String> {
            let mut out = Vec::new();
            for piece in pieces {
                piece
                    .walk(&t.root, &mut |v| {
                        let rel = v.path.strip_prefix(&t.root).expect("inside");
                        let mut shown = rel.display().to_string();
                        if v.kind == Kind::Dir {
                            shown.push('/');
                        }
                        out.push(shown);
                        Flow::Continue
                    })
                    .expect("walk");
            }
            out
        };
        let whole = walked(&t, ".");
        for want in [1, 2, 3, 8] {
            let pieces = split(&t.root, &t.root, want).expect("split");
            assert_eq!(files_of(&pieces), whole, "want {want}: {pieces:?}");
        }
        // Asked for many pieces, the split goes down to the third level.
        let deep = split(&t.root, &t.root, 8).expect("split");
        assert!(
            deep.contains(&Piece::Tree(t.root.join("b/c/d"))),
            "{deep:?}"
        );
        for n in 0..600 {
            t.file(&format!("flat/f{n:03}.txt"), "");
        }
        let flat = split(&t.root, &t.path("flat"), 1).expect("split");
        assert_eq!(flat.len(), 3, "256 + 256 + 88 entries");
        assert_eq!(files_of(&flat).len(), 600);
        let shallow = split(&t.root, &t.root, 1).expect("split");
        assert!(
            shallow.contains(&Piece::Tree(t.root.join("b"))),
            "{shallow:?}"
        );
    }

    #[test]
    fn stop_ends_the_walk() {
        let t = TempWorkspace::new();
        for i in 0..5 {
            t.file(&format!("f{i}"), "");
        }
        let mut n = 0;
        walk(&t.root, &t.root, &mut |_| {
            n += 1;
            if n == 2 {
                Flow::Stop
            } else {
                Flow::Continue
            }
        })
        .expect("walk");
        assert_eq!(n, 2);
    }

    fn m(pattern: &str, path: &str) -> bool {
        PathGlob::new(pattern)
            .expect("valid")
            .is_match(Path::new(path))
    }

    #[test]
    fn name_patterns_match_at_any_depth() {
        assert!(m("*.rs", "main.rs"));
        assert!(m("*.rs", "src/deep/lib.rs"));
        assert!(!m("*.rs", "src/lib.rsx"));
        assert!(m("*.{ts,tsx}", "web/app.tsx"));
    }

    #[test]
    fn path_patterns_are_anchored() {
        assert!(m("src/*.rs", "src/lib.rs"));
        assert!(!m("src/*.rs", "src/a/lib.rs"));
        assert!(m("src/**/*.rs", "src/a/b/lib.rs"));
        assert!(m("**/*.rs", "lib.rs"));
        assert!(m("./src/*.rs", "src/lib.rs"));
    }

    #[test]
    fn smart_case() {
        assert!(m("readme*", "README.md"));
        assert!(!m("README*", "readme.md"));
    }

    #[test]
    fn literal_name_patterns_match_as_the_regex_does() {
        let patterns = [
            "*.rs",
            "*.RS",
            "*.Rs",
            "Cargo.toml",
            "cargo.toml",
            "*",
            "*a",
            "a",
            "*.tar.gz",
            "*test",
            ".*",
            "*é",
            "*.{rs,ts}",
            "*.r?",
            "[ab].rs",
        ];
        let names = [
            "main.rs",
            "MAIN.RS",
            "lib.Rs",
            ".rs",
            "rs",
            "a.rsx",
            "Cargo.toml",
            "CARGO.TOML",
            "cargo.toml",
            "",
            "a",
            "A",
            "x.tar.gz",
            "X.TAR.GZ",
            "mytest",
            "my\ntest",
            ".hidden",
            "café",
            "CAFÉ",
            "b.rs",
            "a.rſ",
            "a.\u{212a}",
            "naïve.rs",
            "line\n.rs",
        ];
        for pattern in patterns {
            let glob = PathGlob::new(pattern).expect("valid");
            for name in names {
                let by_regex = glob.matcher.is_match(name);
                assert_eq!(
                    glob.is_entry_match(Path::new("/r"), &Path::new("/r").join(name), name),
                    by_regex,
                    "pattern {pattern:?}, name {name:?}"
                );
                if !name.is_empty() {
                    assert_eq!(
                        glob.is_match(Path::new(name)),
                        by_regex,
                        "{pattern:?} {name:?}"
                    );
                }
            }
        }
        assert!(PathGlob::new("*.rs").expect("valid").literal.is_some());
        assert!(PathGlob::new("Cargo.toml")
            .expect("valid")
            .literal
            .is_some());
        assert!(PathGlob::new("*.{rs,ts}").expect("valid").literal.is_none());
        assert!(PathGlob::new("src/*.rs").expect("valid").literal.is_none());
    }

    #[test]
    fn an_edited_ignore_file_is_read_again() {
        let t = TempWorkspace::new();
        t.file(".gitignore", "*.log\n");
        t.file("a.log", "");
        t.file("b.txt", "");
        assert_eq!(walked(&t, "."), vec![".gitignore", "b.txt"]);
        t.file(".gitignore", "*.txt\n");
        assert_eq!(walked(&t, "."), vec![".gitignore", "a.log"]);
        // And below the search root, where the file is read by the probe for ancestors.
        t.file("sub/c.txt", "");
        t.file("sub/d.log", "");
        assert_eq!(walked(&t, "sub"), vec!["sub/d.log"]);
        t.file(".gitignore", "*.log\n");
        assert_eq!(walked(&t, "sub"), vec!["sub/c.txt"]);
    }

    #[test]
    fn invalid_glob_is_explained() {
        let err = PathGlob::new("a[").expect_err("invalid");
        assert!(err.contains("Invalid glob pattern 'a['"), "{err}");
    }
}
