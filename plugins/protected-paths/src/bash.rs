//! The files a `bash` command line obviously writes: targets of output redirections, and the
//! operands of programs whose job is to change files (`rm`, `mv`, `cp`'s destination, `tee`,
//! `sed -i`, …). Anything subtler (a script, a build tool) is out of reach of a hook and left to
//! the other policies.

use policy_common::commands::{program_name, Analysis};
use policy_common::paths;
use policy_common::shell::Word;

/// A path a command writes, with the directory it is relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub path: String,
    pub base: String,
    /// The command, for the block reason.
    pub command: String,
}

/// Every file the line obviously writes. `workspace` is where the line starts; `cd` moves it.
pub fn write_targets(analysis: &Analysis, workspace: &str) -> Vec<Target> {
    let mut targets = Vec::new();
    let mut cwd = workspace.to_string();
    for command in &analysis.commands {
        // Commands found in `sh -c` scripts and the like start wherever the outer line was.
        let base = if command.nested { workspace } else { &cwd };
        let shown = policy_common::commands::text(&command.words);
        let mut add = |word: &Word| {
            if !word.expands && !word.text.is_empty() {
                targets.push(Target {
                    path: word.text.clone(),
                    base: base.to_string(),
                    command: shown.clone(),
                });
            }
        };
        for redirect in &command.redirects {
            if redirect.op.writes() && !redirect.target.text.starts_with("/dev/") {
                add(&redirect.target);
            }
        }
        let leaf = command.leaf();
        let Some(program) = leaf.first().and_then(program_name) else {
            continue;
        };
        let args = &leaf[1..];
        for word in written_operands(program, args) {
            add(&word);
        }
        if program == "cd" && !command.nested {
            cwd = match args.first() {
                Some(dir) if !dir.expands && dir.text != "-" && !dir.text.starts_with('~') => {
                    paths::absolute(&cwd, &dir.text)
                }
                // `cd`, `cd -` and `cd ~` go where this hook cannot see; paths after them are
                // judged from the workspace, which still catches `.env` and `.git/` by name.
                _ => workspace.to_string(),
            };
        }
    }
    targets
}

/// The operands of `program` that name files it writes.
fn written_operands(program: &str, args: &[Word]) -> Vec<Word> {
    let operands: Vec<Word> = positionals(args).into_iter().cloned().collect();
    match program {
        "rm" | "rmdir" | "unlink" | "shred" | "touch" | "truncate" | "mkdir" | "tee" | "mv" => {
            operands
        }
        // The first operand is the mode or owner.
        "chmod" | "chown" | "chgrp" => {
            if args.iter().any(|w| w.text.starts_with("--reference")) {
                operands
            } else {
                operands.into_iter().skip(1).collect()
            }
        }
        // Only the destination is written.
        "cp" | "install" | "ln" => match target_directory(args) {
            Some(dir) => vec![dir],
            None => operands.last().cloned().into_iter().collect(),
        },
        "sed" | "perl" if in_place(args) => {
            // The first operand is the script unless `-e` gave it.
            let scripted = args
                .iter()
                .any(|w| w.text == "-e" || w.text == "--expression");
            operands.into_iter().skip(usize::from(!scripted)).collect()
        }
        "dd" => args
            .iter()
            .filter_map(|w| {
                w.text.strip_prefix("of=").map(|path| Word {
                    text: path.to_string(),
                    ..w.clone()
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn in_place(args: &[Word]) -> bool {
    args.iter().any(|w| {
        let t = w.text.as_str();
        t.starts_with("--in-place")
            || (t.starts_with('-') && !t.starts_with("--") && t.contains('i'))
    })
}

/// `-t DIR` / `--target-directory=DIR`.
fn target_directory(args: &[Word]) -> Option<Word> {
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        if word.text == "-t" || word.text == "--target-directory" {
            return iter.next().cloned();
        }
        if let Some(dir) = word.text.strip_prefix("--target-directory=") {
            return Some(Word {
                text: dir.to_string(),
                ..word.clone()
            });
        }
    }
    None
}

/// Words that are not options; everything after `--` is an operand.
fn positionals(args: &[Word]) -> Vec<&Word> {
    let mut out = Vec::new();
    let mut options_done = false;
    for word in args {
        if !options_done && word.text == "--" {
            options_done = true;
        } else if options_done || !word.text.starts_with('-') || word.text == "-" {
            out.push(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use policy_common::commands::analyze;

    fn targets(line: &str) -> Vec<String> {
        let analysis = analyze(line).expect("parse");
        write_targets(&analysis, "/ws")
            .into_iter()
            .map(|t| paths::absolute(&t.base, &t.path))
            .collect()
    }

    #[test]
    fn finds_obvious_writes() {
        assert_eq!(targets("echo KEY=1 > .env"), vec!["/ws/.env"]);
        assert_eq!(targets("rm -rf .git/hooks"), vec!["/ws/.git/hooks"]);
        assert_eq!(targets("cp .env.example .env"), vec!["/ws/.env"]);
        assert_eq!(targets("cp -t out a b"), vec!["/ws/out"]);
        assert_eq!(targets("mv a b"), vec!["/ws/a", "/ws/b"]);
        assert_eq!(targets("chmod 600 key"), vec!["/ws/key"]);
        assert_eq!(
            targets("sed -i 's/a/b/' Cargo.lock"),
            vec!["/ws/Cargo.lock"]
        );
        assert_eq!(targets("cd sub && touch x"), vec!["/ws/sub/x"]);
        assert_eq!(targets("sudo tee /etc/hosts < x"), vec!["/etc/hosts"]);
        assert_eq!(targets("dd if=/dev/zero of=disk.img"), vec!["/ws/disk.img"]);
        assert_eq!(targets("bash -c 'rm .env'"), vec!["/ws/.env"]);
    }

    #[test]
    fn ignores_reads_and_unknowns() {
        assert!(targets("cat .env; grep x .git/config 2>/dev/null").is_empty());
        assert!(targets("rm $FILE").is_empty());
        assert!(targets("cargo update").is_empty());
        assert!(targets("sed 's/a/b/' Cargo.lock").is_empty());
    }
}
