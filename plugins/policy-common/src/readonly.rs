//! Whether a command line only reads: the allow-list behind plan mode and permission-gate's
//! read-only mode.
//!
//! A line passes when every command it runs (see [`crate::commands`]) is a system program on the
//! list below, used without the options that make it write or run other programs, every wrapper
//! around it is harmless, no redirection writes to a file (other than `/dev/null`), and no
//! assignment changes how programs behave (`GIT_EXTERNAL_DIFF=./x git diff` runs `./x`). Anything
//! unknown fails: a false "not read-only" costs the model a retry, a false "read-only" could
//! cost the user their files.
//!
//! Some programs run what the *project* configures, whatever their arguments: git runs the
//! programs its repository's `config`, hooks and attributes name (`core.fsmonitor`,
//! `diff.external`, `core.pager`, filter and textconv drivers, …) from `status`, `diff`, `log`
//! and most other subcommands; cargo and rustc run the toolchain and `build.rustc` a
//! `rust-toolchain.toml` or `.cargo/config.toml` names; go follows `go.mod`'s toolchain; npm reads
//! `.npmrc`. Those are read-only only in a project the user trusts ([`Trust::Trusted`]), and git
//! never with options that move repository discovery or load configuration (`-C`, `--git-dir`,
//! `--work-tree`, `-c`, `--config-env`, `--exec-path`, …) nor on a line that changes directory
//! first (`cd vendor/x && git status` may enter a bare repository the project ships).

use crate::commands::{self, is_system_program, program_name, Analysis, Command};
use crate::place;
use crate::shell::Word;

/// Whether the user trusts the project the command runs in, and so its configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    Trusted,
    Untrusted,
}

/// Programs whose behaviour the project's own files configure, up to running programs they name.
const PROJECT_CONFIGURED: &[&str] = &[
    "git",
    "cargo",
    "rustc",
    "rustup",
    "rustdoc",
    "rustfmt",
    "cargo-clippy",
    "clippy-driver",
    "go",
    "npm",
];

/// Programs that never write files or run other programs, whatever their arguments.
const ALWAYS: &[&str] = &[
    "cat",
    "head",
    "tail",
    "wc",
    "ls",
    "pwd",
    "echo",
    "printf",
    "true",
    "false",
    "test",
    "[",
    "which",
    "whereis",
    "type",
    "stat",
    "du",
    "df",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "grep",
    "egrep",
    "fgrep",
    "cut",
    "tr",
    "nl",
    "diff",
    "cmp",
    "comm",
    "tac",
    "rev",
    "fold",
    "expand",
    "unexpand",
    "seq",
    "column",
    "od",
    "hexdump",
    "strings",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "uname",
    "whoami",
    "id",
    "groups",
    "printenv",
    "cd",
    "pushd",
    "popd",
    "dirs",
    "ps",
    "pgrep",
    "uptime",
    "nproc",
    "arch",
    "locale",
    "tty",
    "sleep",
    "jq",
    "read",
    // Keywords that open or close a compound command run nothing themselves.
    "for",
    "case",
    "done",
    "fi",
    "esac",
];

/// Wrappers that only change how (not what) the wrapped command runs.
const SAFE_WRAPPERS: &[&str] = &[
    "!", "if", "then", "else", "elif", "while", "until", "do", "time", "nohup", "builtin", "env",
    "nice", "ionice", "timeout", "command", "exec", "stdbuf", "xargs",
];

/// Variables that may be set for a read-only command; others (`PATH`, `LD_PRELOAD`, `GIT_*`,
/// `PAGER`, …) can make a reading program run something else.
const SAFE_VARIABLES: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "GREP_COLOR",
    "GREP_COLORS",
    "RUST_BACKTRACE",
    "RUST_LOG",
];

/// Redirection targets that are not files.
const HARMLESS_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Checks a whole command line; the error says which part is not read-only.
pub fn check_line(line: &str, trust: Trust) -> Result<(), String> {
    let analysis = commands::analyze(line).map_err(|e| format!("cannot parse the command: {e}"))?;
    Judge::new(&analysis, trust).check(&analysis)
}

/// What the classification of one line's commands depends on beyond the command itself.
#[derive(Debug, Clone, Copy)]
pub struct Judge {
    trust: Trust,
    /// The line changes directory somewhere, so git may discover another repository.
    moves: bool,
}

impl Judge {
    pub fn new(analysis: &Analysis, trust: Trust) -> Judge {
        Judge {
            trust,
            moves: analysis.commands.iter().any(place::changes_directory),
        }
    }

    /// Checks every command of an analysed line, redirections included.
    pub fn check(&self, analysis: &Analysis) -> Result<(), String> {
        if let Some(reason) = analysis.opaque.first() {
            return Err(format!("cannot tell what it runs: {reason}"));
        }
        for command in &analysis.commands {
            self.check_command(command, true)?;
        }
        Ok(())
    }

    /// Checks one command. With `redirections: false`, writing redirections are left to the
    /// caller (permission-gate judges them as file writes).
    pub fn check_command(&self, command: &Command, redirections: bool) -> Result<(), String> {
        let shown = shorten(&commands::text(&command.words));
        if redirections {
            if let Some(redirect) = command
                .redirects
                .iter()
                .find(|r| r.op.writes() && !HARMLESS_TARGETS.contains(&r.target.text.as_str()))
            {
                return Err(format!(
                    "`{shown}` writes to `{}` through a redirection",
                    redirect.target.text
                ));
            }
        }
        for assignment in &command.assignments {
            let name = assignment.text.split('=').next().unwrap_or_default();
            if !SAFE_VARIABLES.contains(&name) && !name.starts_with("LC_") {
                return Err(format!(
                    "`{shown}` sets {name}, which can change what programs run"
                ));
            }
        }
        for (i, wrapper) in command.wrappers.iter().enumerate() {
            let word = &command.stage(i)[0];
            let keyword = !word.quoted && !word.text.contains('/');
            if !SAFE_WRAPPERS.contains(&wrapper.as_str()) || !(keyword || is_system_program(word)) {
                return Err(format!("`{shown}` runs through `{wrapper}`"));
            }
        }
        let leaf = command.leaf();
        let Some(first) = leaf.first() else {
            return Ok(());
        };
        let name = match program_name(first) {
            Some(name) if is_system_program(first) => name,
            _ => {
                return Err(format!(
                    "`{shown}` runs `{}`, which is not a known read-only program",
                    first.text
                ))
            }
        };
        self.project_configured(name, &leaf[1..])
            .and_then(|()| program(name, &leaf[1..], command.runs_commands))
            .map_err(|why| format!("`{shown}` is not read-only: {why}"))
    }

    /// Refuses programs that run what an untrusted project configures, and git wherever it may
    /// discover a repository other than the workspace's.
    fn project_configured(&self, name: &str, args: &[Word]) -> Result<(), String> {
        if !PROJECT_CONFIGURED.contains(&name) {
            return Ok(());
        }
        let texts: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
        if name == "git" && matches!(texts.as_slice(), ["--version"] | ["version"]) {
            return Ok(());
        }
        if self.trust == Trust::Untrusted {
            return Err(format!(
                "{name} runs programs this project's own files name ({}), and the project is \
                 not trusted (start tack with --trust once you have checked it)",
                match name {
                    "git" => "core.fsmonitor, diff.external, core.pager, hooks, filter drivers",
                    "go" => "the toolchain go.mod asks for",
                    "npm" => ".npmrc settings",
                    _ => "rust-toolchain.toml, .cargo/config.toml",
                }
            ));
        }
        if name == "git" && self.moves {
            return Err(
                "the line changes directory before git runs, and git may then find a \
                 repository the project ships (a bare repository in a subdirectory) whose \
                 configuration runs programs; use `git log -- <path>` from the workspace"
                    .into(),
            );
        }
        Ok(())
    }
}

fn program(name: &str, args: &[Word], runs_commands: bool) -> Result<(), String> {
    let texts: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    if ALWAYS.contains(&name) {
        return Ok(());
    }
    // `<any program> --version` only prints.
    if texts == ["--version"] {
        return Ok(());
    }
    match name {
        // The scripts they run are judged as commands of their own.
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "mksh" | "eval" if runs_commands => Ok(()),
        "find" => refuse_any(
            &texts,
            &["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
        ),
        "fd" | "fdfind" => refuse_options(&texts, &["--exec", "--exec-batch"], "xX"),
        "rg" => refuse_options(&texts, &["--pre", "--hostname-bin"], ""),
        "ag" => refuse_options(&texts, &["--pager"], ""),
        "sort" => refuse_options(&texts, &["--output", "--compress-program"], "o"),
        // `-R` writes a `00Tree.html` into every directory.
        "tree" => refuse_options(&texts, &[], "oR"),
        "file" => refuse_options(&texts, &["--compile"], "C"),
        "date" => refuse_options(&texts, &["--set"], "s"),
        // A second operand is an output file.
        "uniq" | "xxd" => {
            if positionals(&texts) > 1 {
                Err("a second file operand is written to".into())
            } else {
                Ok(())
            }
        }
        "sed" => sed(&texts),
        "env" | "xargs" | "hostname" if texts.is_empty() => Ok(()),
        "command" if matches!(texts.first(), Some(&"-v" | &"-V")) => Ok(()),
        "git" => git(&texts),
        // `--config` can name the compiler cargo runs; `-Z` unlocks more of the same.
        "cargo" => refuse_options(&texts, &["--config"], "Z").and_then(|()| {
            subcommand(
                &texts,
                &[
                    "tree",
                    "metadata",
                    "version",
                    "-V",
                    "--version",
                    "locate-project",
                    "pkgid",
                ],
            )
        }),
        "npm" => subcommand(
            &texts,
            &[
                "ls",
                "list",
                "ll",
                "la",
                "view",
                "info",
                "show",
                "outdated",
                "why",
                "explain",
                "-v",
                "--version",
            ],
        ),
        "pip" | "pip3" => refuse_options(&texts, &["--log", "--cache-dir"], "")
            .and_then(|()| subcommand(&texts, &["list", "show", "freeze", "check", "--version"])),
        "go" => {
            // Build flags that run programs or rewrite go.mod.
            if let Some(bad) = texts.iter().find(|t| {
                [
                    "-toolexec",
                    "--toolexec",
                    "-exec",
                    "--exec",
                    "-overlay",
                    "-modfile",
                ]
                .iter()
                .any(|o| **t == *o || t.starts_with(&format!("{o}=")))
                    || t.starts_with("-mod=mod")
            }) {
                return Err(format!("`{bad}` runs programs or changes go.mod"));
            }
            match texts.first() {
                Some(&"env") if !texts.iter().any(|t| *t == "-w" || *t == "-u") => Ok(()),
                _ => subcommand(&texts, &["version", "list", "doc"]),
            }
        }
        _ => Err(format!("`{name}` is not on the read-only list")),
    }
}

fn refuse_any(args: &[&str], refused: &[&str]) -> Result<(), String> {
    match args.iter().find(|a| {
        refused
            .iter()
            .any(|r| a == &r || a.starts_with(&format!("{r}=")))
    }) {
        Some(found) => Err(format!("`{found}` writes files or runs programs")),
        None => Ok(()),
    }
}

/// Refuses the long options in `long` (also abbreviated, and with `=value`: GNU getopt and git
/// accept any unambiguous prefix of a long option, so `--out=f` is `--output=f`) and any short
/// option cluster holding one of the letters in `short` (`-uo f` is `-u -o f`).
fn refuse_options(args: &[&str], long: &[&str], short: &str) -> Result<(), String> {
    for arg in args {
        if *arg == "--" {
            break;
        }
        if long.iter().any(|name| abbreviates(arg, name)) {
            return Err(format!("`{arg}` writes files or runs programs"));
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            if let Some(letter) = cluster.chars().find(|c| short.contains(*c)) {
                return Err(format!(
                    "`-{letter}` (in `{arg}`) writes files or runs programs"
                ));
            }
        }
    }
    Ok(())
}

/// Whether `arg` is the long option `name` (`--output`), given in full or abbreviated, with or
/// without an attached value.
fn abbreviates(arg: &str, name: &str) -> bool {
    let Some(given) = arg.strip_prefix("--") else {
        return false;
    };
    let given = given.split('=').next().unwrap_or(given);
    !given.is_empty() && name.trim_start_matches("--").starts_with(given)
}

fn positionals(args: &[&str]) -> usize {
    args.iter()
        .filter(|a| !a.starts_with('-') || **a == "-")
        .count()
}

fn subcommand(args: &[&str], allowed: &[&str]) -> Result<(), String> {
    match args.first() {
        Some(sub) if allowed.contains(sub) => Ok(()),
        Some(sub) => Err(format!("subcommand `{sub}` is not on the read-only list")),
        None => Err("no read-only subcommand given".into()),
    }
}

/// `sed -n` with scripts that only print line ranges (`1,50p`, `5p;$p`): anything richer may
/// hold a `w` (write) or `e` (execute) command.
fn sed(args: &[&str]) -> Result<(), String> {
    let mut quiet = false;
    let mut scripts = Vec::new();
    let mut files = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match *arg {
            "-n" | "--quiet" | "--silent" => quiet = true,
            "-e" | "--expression" => {
                scripts.push(args.get(i + 1).copied().unwrap_or_default());
                i += 1;
            }
            a if a.starts_with('-') && a != "-" => {
                return Err(format!(
                    "option `{a}` is not allowed (only `sed -n 'N,Mp'`)"
                ))
            }
            a => files.push(a),
        }
        i += 1;
    }
    if scripts.is_empty() && !files.is_empty() {
        scripts.push(files.remove(0));
    }
    let prints_only = |s: &&str| {
        !s.is_empty()
            && s.ends_with('p')
            && s.chars().all(|c| c.is_ascii_digit() || ",$;p".contains(c))
    };
    if quiet && !scripts.is_empty() && scripts.iter().all(prints_only) {
        Ok(())
    } else {
        Err(
            "only `sed -n` with line-range print scripts (`sed -n '10,20p' file`) is read-only"
                .into(),
        )
    }
}

/// git's read-only subcommands. Only global options that neither move repository discovery
/// (`-C`, `--git-dir`, `--work-tree`, `--bare`, `--namespace`) nor load configuration (`-c`,
/// `--config-env`, `--exec-path`, `--attr-source`) nor start a pager (`-p`) are accepted; see
/// [`Judge`] for the trust the subcommands need.
fn git(args: &[&str]) -> Result<(), String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match *arg {
            "--no-pager"
            | "-P"
            | "--no-optional-locks"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-replace-objects" => i += 1,
            "--version" => return Ok(()),
            a if a.starts_with('-') => {
                return Err(format!(
                    "git option `{a}` is not allowed: it moves where git looks for its \
                     repository or configuration, or runs a program"
                ))
            }
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else {
        return Err("git without a subcommand prints its help through a pager".into());
    };
    let rest = &args[(i + 1).min(args.len())..];
    if let Some(bad) = rest.iter().find(|a| {
        [
            "--output",
            "--output-directory",
            "--open-files-in-pager",
            "--exec",
            "--upload-pack",
            "--receive-pack",
            "--paginate",
        ]
        .iter()
        .any(|name| abbreviates(a, name))
            || (*sub == "grep" && a.starts_with("-O"))
    }) {
        return Err(format!("`git {sub} {bad}` writes files or runs programs"));
    }
    match *sub {
        "status" | "log" | "diff" | "show" | "blame" | "annotate" | "shortlog" | "ls-files"
        | "ls-tree" | "rev-parse" | "rev-list" | "describe" | "cat-file" | "grep" | "name-rev"
        | "merge-base" | "for-each-ref" | "show-ref" | "show-branch" | "whatchanged"
        | "count-objects" | "var" | "version" | "check-ignore" | "check-attr" | "diff-tree"
        | "diff-files" | "diff-index" | "cherry" | "range-diff" => Ok(()),
        "branch" => git_listing(
            sub,
            rest,
            &[
                "-a",
                "--all",
                "-r",
                "--remotes",
                "-v",
                "-vv",
                "--verbose",
                "-l",
                "--list",
                "--show-current",
                "-i",
                "--ignore-case",
                "--no-color",
                "--no-column",
                "--no-abbrev",
                "-q",
                "--quiet",
            ],
        ),
        "tag" => git_listing(
            sub,
            rest,
            &[
                "-l",
                "--list",
                "-i",
                "--ignore-case",
                "--no-color",
                "--no-column",
            ],
        ),
        "remote" => match rest.first() {
            None | Some(&"-v") | Some(&"--verbose") | Some(&"show") | Some(&"get-url") => Ok(()),
            Some(other) => Err(format!("`git remote {other}` changes remotes")),
        },
        "stash" | "notes" => match rest.first() {
            Some(&"list") | Some(&"show") => Ok(()),
            _ => Err(format!(
                "only `git {sub} list` and `git {sub} show` are read-only"
            )),
        },
        "worktree" => match rest.first() {
            Some(&"list") => Ok(()),
            _ => Err("only `git worktree list` is read-only".into()),
        },
        "submodule" => match rest.first() {
            None | Some(&"status") => Ok(()),
            _ => Err("only `git submodule status` is read-only".into()),
        },
        "reflog" => match rest.first() {
            None | Some(&"show") => Ok(()),
            Some(a) if a.starts_with('-') => Ok(()),
            Some(other) => Err(format!("`git reflog {other}` changes the reflog")),
        },
        "config" => {
            let reading = rest.iter().any(|a| {
                matches!(
                    *a,
                    "--get" | "--get-all" | "--get-regexp" | "--get-urlmatch" | "--list" | "-l"
                )
            }) || matches!(rest.first(), Some(&"get") | Some(&"list"));
            if reading {
                Ok(())
            } else {
                Err("only reading git config (`--get`, `--list`) is read-only".into())
            }
        }
        other => Err(format!("`git {other}` is not on the read-only list")),
    }
}

/// `git branch` and `git tag` list unless given names to create, or options that change refs.
fn git_listing(sub: &str, args: &[&str], flags: &[&str]) -> Result<(), String> {
    const VALUE_FLAGS: &[&str] = &[
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "--sort",
        "--format",
    ];
    let list_mode = args.iter().any(|a| *a == "-l" || *a == "--list");
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let name = arg.split('=').next().unwrap_or(arg);
        if flags.contains(arg)
            || ["--color", "--column", "--abbrev"].contains(&name)
            || (sub == "tag" && arg.starts_with("-n"))
        {
            i += 1;
        } else if VALUE_FLAGS.contains(&name) {
            let has_value = arg.contains('=');
            let next_is_value = args.get(i + 1).is_some_and(|n| !n.starts_with('-'));
            i += if !has_value && next_is_value { 2 } else { 1 };
        } else if !arg.starts_with('-') && list_mode {
            i += 1;
        } else {
            return Err(format!(
                "`git {sub} {arg}` creates, changes or deletes a {sub}"
            ));
        }
    }
    Ok(())
}

fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let cut: String = text.chars().take(MAX - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_commands_pass() {
        for line in [
            "ls -la",
            "cat src/main.rs | head -50",
            "grep -rn 'fn main' src && wc -l src/*.rs",
            "git status",
            "git --no-pager log --oneline -5",
            "git diff HEAD~1 -- src",
            "git branch -a",
            "git branch --list 'feat/*'",
            "git tag -l",
            "git show HEAD:Cargo.toml",
            "find . -name '*.rs' -type f",
            "find . -name '*.rs' -exec grep -l todo {} +",
            "rg -n TODO 2>/dev/null",
            "cd src && ls",
            "sed -n '1,50p' README.md",
            "for f in *.md; do wc -l \"$f\"; done",
            "LC_ALL=C sort -u names.txt",
            "find . -type f | xargs grep -l foo",
            "echo $(ls) | wc -w",
            "bash -c 'ls && pwd'",
            "cargo tree",
            "node --version",
            "/usr/bin/git status",
            "command -v rg",
            "cat <<'EOF'\nhello\nEOF",
        ] {
            assert_eq!(check_line(line, Trust::Trusted), Ok(()), "{line}");
        }
    }

    #[test]
    fn writing_commands_fail() {
        for line in [
            "rm -rf target",
            "echo hi > notes.txt",
            "ls >> out.log",
            "ls; rm x",
            "ls && touch x",
            "cat x | tee y",
            "cat x | sh",
            "mv a b",
            "git commit -m x",
            "git push",
            "git branch new-feature",
            "git branch -D old",
            "git tag v1",
            "git -c core.pager=evil log",
            "git diff --output=patch.diff",
            "git stash",
            "find . -delete",
            "find . -exec rm {} \\;",
            "sed -i s/a/b/ file",
            "sed -n '1w out' file",
            "sort -o out in",
            "uniq in out",
            "GIT_EXTERNAL_DIFF=./x git diff",
            "PATH=. ls",
            "sudo ls",
            "./script.sh",
            "/tmp/evil/ls",
            "$CMD",
            "echo $(rm -rf x)",
            "bash -c 'rm x'",
            "bash script.sh",
            "sh -c \"$X\"",
            "rg --pre ./x pattern",
            "npm install",
            "cargo build",
            "python3 -c 'import os'",
            "awk '{print > \"f\"}' x",
            "env -S 'rm x'",
            "xargs rm",
            "cat <<EOF\n$(rm x)\nEOF",
            "echo 'unterminated",
        ] {
            assert!(
                check_line(line, Trust::Trusted).is_err(),
                "{line} should not be read-only"
            );
        }
    }

    #[test]
    fn git_stays_in_the_workspace_repository() {
        for line in [
            "git -C sub diff HEAD~1 -- src",
            "git -C vendor/evil status",
            "git --git-dir=vendor/evil log",
            "git --git-dir vendor/evil log",
            "git --work-tree=.. status",
            "git -c core.pager=evil log",
            "git -ccore.fsmonitor=x status",
            "git --config-env=core.pager=X log",
            "git --exec-path=./bin status",
            "git --bare log",
            "git --namespace=x log",
            "git --attr-source=HEAD diff",
            "git -p log",
            "git --paginate log",
            "git --help",
            "git help log",
            "git",
            "cd vendor/evil && git status",
            "pushd vendor/evil; git log",
            "git log --outp=/tmp/x",
            "git diff --output=patch.diff",
            "git format-patch -o out HEAD~1",
            "git grep -Ovim foo",
            "git grep --open-files-in-pager=vim foo",
            "git grep --open foo",
            "git ls-remote --upload-pack=./x origin",
            "git ls-remote origin",
            "GIT_DIR=vendor/evil git status",
            "env GIT_CONFIG_GLOBAL=x git status",
        ] {
            assert!(
                check_line(line, Trust::Trusted).is_err(),
                "{line} should not be read-only"
            );
        }
    }

    #[test]
    fn untrusted_projects_configure_no_read_only_programs() {
        for line in [
            "git status",
            "git log --oneline",
            "git diff",
            "ls && git show HEAD",
            "cargo tree",
            "cargo --version",
            "rustc --version",
            "go version",
            "npm ls",
        ] {
            assert!(check_line(line, Trust::Trusted).is_ok(), "{line}");
            let err = check_line(line, Trust::Untrusted).expect_err(line);
            assert!(err.contains("not trusted"), "{line}: {err}");
        }
        for line in [
            "git --version",
            "git version",
            "ls -la",
            "rg -n x",
            "node --version",
        ] {
            assert_eq!(check_line(line, Trust::Untrusted), Ok(()), "{line}");
        }
    }

    #[test]
    fn options_that_run_programs_or_write_fail_even_abbreviated() {
        for line in [
            "sort --compress-program=sh x",
            "sort --compress=sh x",
            "sort --out=/tmp/x in",
            "sort -uo out in",
            "tree -R -H . ",
            "tree -ao out",
            "ag --pager='sh -c x' foo",
            "ag --pag=x foo",
            "rg --hostname-bin=./x foo",
            "rg --pre=./x foo",
            "fd -Hx rm",
            "fd --exec-batch rm",
            "file -C -m x",
            "file --comp x",
            "date -us 2020-01-01",
            "date --set=2020-01-01",
            "cargo --config build.rustc=./evil tree",
            "cargo -Zunstable-options tree",
            "pip list --log /tmp/x",
            "go list -toolexec ./x ./...",
            "go list -mod=mod ./...",
            "env -S 'git status'",
            "find . -fprint /tmp/x",
        ] {
            assert!(
                check_line(line, Trust::Trusted).is_err(),
                "{line} should not be read-only"
            );
        }
        for line in [
            "sort -u -k2 names",
            "tree -L 2 src",
            "date +%s",
            "rg --pre-glob '*.gz' foo",
        ] {
            assert_eq!(check_line(line, Trust::Trusted), Ok(()), "{line}");
        }
    }

    #[test]
    fn reasons_name_the_culprit() {
        let err = check_line("ls && rm -rf target", Trust::Trusted).expect_err("rm");
        assert!(err.contains("rm -rf target"), "{err}");
        let err = check_line("echo x > .env", Trust::Trusted).expect_err("redirect");
        assert!(err.contains(".env"), "{err}");
    }
}
