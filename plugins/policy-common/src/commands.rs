//! The commands a command line runs, as a policy must see them.
//!
//! A parsed line ([`crate::shell`]) lists simple commands as typed. Policies care about what runs:
//! `sudo rm -rf x` runs `rm -rf x`, `sh -c "rm -rf x"` and `find . -exec rm {} +` run `rm` too.
//! [`analyze`] peels wrapper programs into stages (`sudo rm -rf x` has the stages `sudo rm -rf x`
//! and `rm -rf x`) and parses scripts handed to `sh -c`, `eval` and `find -exec` into commands of
//! their own. A wrapper is peeled only when all its options are known, so an unusual invocation
//! stays whole (and a policy that does not know it refuses or asks).

use crate::shell::{self, ParseError, Redirect, Word};

/// How deep `sh -c` scripts may nest inside one another before analysis gives up.
const MAX_NESTING: usize = 4;

/// Shells whose `-c` script is parsed as part of the line.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh"];

/// Directories whose programs are the system's own; a program named by another path could be
/// anything, whatever its file name says.
const SYSTEM_DIRS: &[&str] = &[
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
];

/// One simple command and the stages wrappers peel it into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The words as typed (after leading assignments), wrappers included.
    pub words: Vec<Word>,
    /// `NAME=value` words, from the line and from `env` wrappers.
    pub assignments: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Where each stage starts in `words`: 0, then after each peeled wrapper and its options.
    pub stage_starts: Vec<usize>,
    /// The wrappers peeled, one per stage after the first (`sudo`, `env`, `xargs`, `do`, …).
    pub wrappers: Vec<String>,
    /// The last stage hands a script to a shell (`sh -c`, `eval`) or runs commands for each file
    /// (`find -exec`); those commands are listed in the analysis on their own.
    pub runs_commands: bool,
    /// Found inside a script given as a string (`sh -c`, `eval`, `find -exec`).
    pub nested: bool,
}

impl Command {
    /// The words of stage `i` (0 is the command as typed).
    pub fn stage(&self, i: usize) -> &[Word] {
        let start = self.stage_starts.get(i).copied().unwrap_or(0);
        &self.words[start.min(self.words.len())..]
    }

    pub fn stage_count(&self) -> usize {
        self.stage_starts.len()
    }

    /// The command that finally runs once wrappers are peeled.
    pub fn leaf(&self) -> &[Word] {
        self.stage(self.stage_count().saturating_sub(1))
    }

    /// The program of the last stage, as [`program_name`] reads it.
    pub fn program(&self) -> Option<&str> {
        self.leaf().first().and_then(program_name)
    }
}

/// A whole command line, flattened.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Analysis {
    /// Every command: top-level ones in order, then those found in substitutions and scripts.
    pub commands: Vec<Command>,
    /// Indexes into `commands` of each pipeline of two or more commands.
    pub pipelines: Vec<Vec<usize>>,
    /// Parts that could not be analysed fully, each explained (see [`shell::Script::opaque`]).
    pub opaque: Vec<String>,
}

/// Parses and flattens a command line.
pub fn analyze(line: &str) -> Result<Analysis, ParseError> {
    let mut analysis = Analysis::default();
    add_script(&mut analysis, line, 0, false)?;
    Ok(analysis)
}

fn add_script(
    analysis: &mut Analysis,
    line: &str,
    depth: usize,
    nested: bool,
) -> Result<(), ParseError> {
    if depth > MAX_NESTING {
        return Err(ParseError(format!(
            "shell scripts nest more than {MAX_NESTING} levels deep"
        )));
    }
    let script = shell::parse(line)?;
    analysis.opaque.extend(script.opaque);
    // Scripts found inside commands are added after the whole line, so indexes stay in order.
    let mut inner_scripts = Vec::new();
    let mut inner_commands = Vec::new();
    for pipeline in script.pipelines {
        let mut members = Vec::new();
        for simple in pipeline.commands {
            let command = build(simple.words, simple.assignments, simple.redirects, nested);
            let leaf = command.leaf();
            if let Some(script) = shell_script(leaf) {
                if script.expands {
                    analysis.opaque.push(format!(
                        "`{}` runs a script known only at run time",
                        text(leaf)
                    ));
                }
                inner_scripts.push(script.text);
            }
            inner_commands.extend(find_exec_commands(leaf));
            members.push(analysis.commands.len());
            analysis.commands.push(command);
        }
        if members.len() > 1 {
            analysis.pipelines.push(members);
        }
    }
    for words in inner_commands {
        analysis
            .commands
            .push(build(words, Vec::new(), Vec::new(), true));
    }
    for script in inner_scripts {
        add_script(analysis, &script, depth + 1, true)?;
    }
    Ok(())
}

fn build(
    words: Vec<Word>,
    assignments: Vec<Word>,
    redirects: Vec<Redirect>,
    nested: bool,
) -> Command {
    let mut command = Command {
        words,
        assignments,
        redirects,
        stage_starts: vec![0],
        wrappers: Vec::new(),
        runs_commands: false,
        nested,
    };
    let mut start = 0;
    while let Some(first) = command.words.get(start) {
        let Some(name) = program_name(first).map(str::to_string) else {
            break;
        };
        let Some(peeled) = peel(&name, first, &command.words[start + 1..]) else {
            break;
        };
        let next = start + 1 + peeled.skip;
        if next >= command.words.len() {
            break;
        }
        command.assignments.extend(peeled.assignments);
        command.wrappers.push(name);
        command.stage_starts.push(next);
        start = next;
    }
    let runs_commands = {
        let leaf = command.leaf();
        shell_script(leaf).is_some() || !find_exec_commands(leaf).is_empty()
    };
    command.runs_commands = runs_commands;
    command
}

/// The words joined by spaces, as a policy shows and matches a command.
pub fn text(words: &[Word]) -> String {
    let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    texts.join(" ")
}

/// The program a word names: its file name for a bare name or an absolute path, `None` for a
/// relative path (`./x` runs whatever the workspace holds) or a word known only at run time.
pub fn program_name(word: &Word) -> Option<&str> {
    if word.expands || word.text.is_empty() {
        return None;
    }
    let text = word.text.as_str();
    if !text.contains('/') {
        return Some(text);
    }
    if text.starts_with('/') {
        return text.rsplit('/').next().filter(|name| !name.is_empty());
    }
    None
}

/// Whether a word names a program the system provides: a bare name (found on `PATH`) or one in
/// the system's binary directories.
pub fn is_system_program(word: &Word) -> bool {
    if word.expands || word.text.is_empty() {
        return false;
    }
    let text = word.text.as_str();
    !text.contains('/')
        || SYSTEM_DIRS.iter().any(|dir| {
            text.strip_prefix(dir)
                .is_some_and(|rest| !rest.contains('/'))
        })
}

struct Peeled {
    /// Option words between the wrapper and the command it runs.
    skip: usize,
    assignments: Vec<Word>,
}

/// Options a wrapper accepts. An option outside these stops peeling.
struct Options {
    short_flags: &'static str,
    short_with_arg: &'static str,
    /// Letters whose argument may only be attached (`-i{}`), or absent.
    short_optional_arg: &'static str,
    long_flags: &'static [&'static str],
    long_with_arg: &'static [&'static str],
    /// `-10` style numeric options (nice).
    numeric: bool,
}

const NO_OPTIONS: Options = Options {
    short_flags: "",
    short_with_arg: "",
    short_optional_arg: "",
    long_flags: &[],
    long_with_arg: &[],
    numeric: false,
};

const KEYWORDS: &[&str] = &["!", "if", "then", "else", "elif", "while", "until", "do"];

fn peel(name: &str, first: &Word, args: &[Word]) -> Option<Peeled> {
    let plain = |skip| {
        Some(Peeled {
            skip,
            assignments: Vec::new(),
        })
    };
    // Keywords are keywords only when typed bare.
    if KEYWORDS.contains(&name) && !first.quoted && first.text == name {
        return plain(0);
    }
    match name {
        "time" if !first.quoted => options(
            args,
            &Options {
                short_flags: "p",
                ..NO_OPTIONS
            },
        )
        .and_then(plain),
        "nohup" | "builtin" => plain(0),
        "sudo" => options(
            args,
            &Options {
                short_flags: "AbEHiKknPSs",
                short_with_arg: "CDghpRrtTUu",
                long_flags: &[
                    "--askpass",
                    "--background",
                    "--preserve-env",
                    "--set-home",
                    "--login",
                    "--non-interactive",
                    "--preserve-groups",
                    "--stdin",
                    "--shell",
                    "--reset-timestamp",
                    "--remove-timestamp",
                ],
                long_with_arg: &[
                    "--close-from",
                    "--chdir",
                    "--group",
                    "--host",
                    "--prompt",
                    "--chroot",
                    "--role",
                    "--type",
                    "--command-timeout",
                    "--other-user",
                    "--user",
                ],
                ..NO_OPTIONS
            },
        )
        .and_then(plain),
        "doas" => options(
            args,
            &Options {
                short_flags: "ns",
                short_with_arg: "u",
                ..NO_OPTIONS
            },
        )
        .and_then(plain),
        "env" => {
            let skip = options(
                args,
                &Options {
                    short_flags: "i0v",
                    short_with_arg: "uC",
                    long_flags: &["--ignore-environment", "--null", "--debug"],
                    long_with_arg: &["--unset", "--chdir"],
                    ..NO_OPTIONS
                },
            )?;
            let assignments: Vec<Word> = args[skip..]
                .iter()
                .take_while(|w| w.is_assignment())
                .cloned()
                .collect();
            Some(Peeled {
                skip: skip + assignments.len(),
                assignments,
            })
        }
        "nice" => options(
            args,
            &Options {
                short_with_arg: "n",
                long_with_arg: &["--adjustment"],
                numeric: true,
                ..NO_OPTIONS
            },
        )
        .and_then(plain),
        "ionice" => options(
            args,
            &Options {
                short_flags: "t",
                short_with_arg: "cn",
                long_flags: &["--ignore"],
                long_with_arg: &["--class", "--classdata"],
                ..NO_OPTIONS
            },
        )
        .and_then(plain),
        "timeout" => {
            let skip = options(
                args,
                &Options {
                    short_flags: "v",
                    short_with_arg: "sk",
                    long_flags: &["--preserve-status", "--foreground", "--verbose"],
                    long_with_arg: &["--signal", "--kill-after"],
                    ..NO_OPTIONS
                },
            )?;
            // Then the duration.
            args.get(skip)?;
            plain(skip + 1)
        }
        "command" => {
            let skip = options(
                args,
                &Options {
                    short_flags: "p",
                    ..NO_OPTIONS
                },
            )?;
            plain(skip)
        }
        "exec" => options(
            args,
            &Options {
                short_flags: "cl",
                short_with_arg: "a",
                ..NO_OPTIONS
            },
        )
        .and_then(plain),
        "stdbuf" => options(
            args,
            &Options {
                short_with_arg: "ioe",
                long_with_arg: &["--input", "--output", "--error"],
                ..NO_OPTIONS
            },
        )
        .and_then(plain),
        "xargs" => options(
            args,
            &Options {
                short_flags: "0prtx",
                short_with_arg: "adEILnPs",
                short_optional_arg: "eil",
                long_flags: &[
                    "--null",
                    "--no-run-if-empty",
                    "--verbose",
                    "--interactive",
                    "--exit",
                    "--open-tty",
                ],
                long_with_arg: &[
                    "--arg-file",
                    "--delimiter",
                    "--eof",
                    "--replace",
                    "--max-lines",
                    "--max-args",
                    "--max-procs",
                    "--max-chars",
                    "--process-slot-var",
                ],
                ..NO_OPTIONS
            },
        )
        .and_then(plain),
        _ => None,
    }
}

/// How many leading words of `args` are options `spec` knows (a final `--` included); `None` when
/// one is unknown.
fn options(args: &[Word], spec: &Options) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if word.expands {
            return None;
        }
        if text == "--" {
            return Some(i + 1);
        }
        if let Some(long) = text.strip_prefix("--") {
            let name = format!("--{}", long.split('=').next().unwrap_or(long));
            if spec.long_flags.contains(&name.as_str()) {
                i += 1;
            } else if spec.long_with_arg.contains(&name.as_str()) {
                i += if long.contains('=') { 1 } else { 2 };
            } else {
                return None;
            }
            continue;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return Some(i);
        };
        if spec.numeric && cluster.chars().all(|c| c.is_ascii_digit()) {
            i += 1;
            continue;
        }
        let mut consumed = 1;
        for (at, letter) in cluster.char_indices() {
            if spec.short_flags.contains(letter) {
                continue;
            }
            if spec.short_optional_arg.contains(letter) {
                break;
            }
            if spec.short_with_arg.contains(letter) {
                if at + letter.len_utf8() == cluster.len() {
                    consumed = 2;
                }
                break;
            }
            return None;
        }
        i += consumed;
    }
    Some(i.min(args.len()))
}

/// The script a shell or `eval` is asked to run, as one word.
fn shell_script(leaf: &[Word]) -> Option<Word> {
    let name = program_name(leaf.first()?)?;
    if name == "eval" {
        let args = &leaf[1..];
        if args.is_empty() {
            return None;
        }
        return Some(Word {
            text: text(args),
            expands: args.iter().any(|w| w.expands),
            ..Word::default()
        });
    }
    if !SHELLS.contains(&name) {
        return None;
    }
    let mut i = 1;
    while let Some(word) = leaf.get(i) {
        let text = word.text.as_str();
        if text.starts_with("--") {
            i += 1;
            continue;
        }
        match text.strip_prefix('-').or_else(|| text.strip_prefix('+')) {
            Some(cluster) if cluster.contains('c') => return leaf.get(i + 1).cloned(),
            // `-o option` takes the option's name as the next word.
            Some(cluster) if cluster.ends_with('o') => i += 2,
            Some(_) => i += 1,
            // A script file: what it does is not on the line.
            None => return None,
        }
    }
    None
}

/// The commands `find -exec`, `-execdir`, `-ok` and `-okdir` run, each up to its `;` or `+`.
fn find_exec_commands(leaf: &[Word]) -> Vec<Vec<Word>> {
    let Some("find") = leaf.first().and_then(program_name) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut i = 1;
    while i < leaf.len() {
        if matches!(
            leaf[i].text.as_str(),
            "-exec" | "-execdir" | "-ok" | "-okdir"
        ) {
            let start = i + 1;
            let mut end = start;
            while end < leaf.len() && !matches!(leaf[end].text.as_str(), ";" | "+") {
                end += 1;
            }
            if end > start {
                found.push(leaf[start..end].to_vec());
            }
            i = end;
        }
        i += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stages(command: &Command) -> Vec<String> {
        (0..command.stage_count())
            .map(|i| text(command.stage(i)))
            .collect()
    }

    #[test]
    fn wrappers_are_peeled_into_stages() {
        let analysis =
            analyze("sudo -u root env -- FOO=1 nice -n 5 timeout -s KILL 10 rm -rf /tmp/x")
                .expect("parse");
        let cmd = &analysis.commands[0];
        assert_eq!(
            stages(cmd),
            vec![
                "sudo -u root env -- FOO=1 nice -n 5 timeout -s KILL 10 rm -rf /tmp/x",
                "env -- FOO=1 nice -n 5 timeout -s KILL 10 rm -rf /tmp/x",
                "nice -n 5 timeout -s KILL 10 rm -rf /tmp/x",
                "timeout -s KILL 10 rm -rf /tmp/x",
                "rm -rf /tmp/x",
            ]
        );
        assert_eq!(cmd.wrappers, vec!["sudo", "env", "nice", "timeout"]);
        assert_eq!(cmd.assignments.len(), 1);
        assert_eq!(cmd.program(), Some("rm"));
    }

    #[test]
    fn unknown_wrapper_options_stop_peeling() {
        let analysis = analyze("sudo --weird rm x; env").expect("parse");
        assert_eq!(analysis.commands[0].stage_count(), 1);
        assert_eq!(analysis.commands[1].stage_count(), 1);
        assert_eq!(analysis.commands[1].program(), Some("env"));
    }

    #[test]
    fn keywords_and_xargs() {
        let analysis =
            analyze("for f in *.rs; do wc -l \"$f\"; done; find . | xargs -0 -n1 grep -l x")
                .expect("parse");
        let programs: Vec<Option<&str>> = analysis.commands.iter().map(Command::program).collect();
        assert_eq!(
            programs,
            vec![
                Some("for"),
                Some("wc"),
                Some("done"),
                Some("find"),
                Some("grep")
            ]
        );
        assert_eq!(analysis.pipelines, vec![vec![3, 4]]);
    }

    #[test]
    fn shell_scripts_and_find_exec_are_parsed() {
        let analysis = analyze(
            "bash -lc 'cd x && rm -rf y' ; find . -name '*.o' -exec rm {} \\; ; eval echo hi",
        )
        .expect("parse");
        let leaves: Vec<String> = analysis.commands.iter().map(|c| text(c.leaf())).collect();
        assert_eq!(
            leaves,
            vec![
                "bash -lc cd x && rm -rf y",
                "find . -name *.o -exec rm {} ;",
                "eval echo hi",
                "rm {}",
                "cd x",
                "rm -rf y",
                "echo hi",
            ]
        );
        assert!(analysis.commands[0].runs_commands);
        assert!(analysis.commands[1].runs_commands);
        assert!(analysis.commands[3].nested);
        let dynamic = analyze("sh -c \"$SCRIPT\"").expect("parse");
        assert_eq!(dynamic.opaque.len(), 1);
    }

    #[test]
    fn program_names() {
        assert_eq!(program_name(&Word::literal("/bin/rm")), Some("rm"));
        assert_eq!(program_name(&Word::literal("./rm")), None);
        assert!(is_system_program(&Word::literal("/usr/bin/ls")));
        assert!(!is_system_program(&Word::literal("/home/x/ls")));
        assert!(!is_system_program(&Word::literal("bin/ls")));
    }
}
