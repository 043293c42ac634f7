//! The files a command line obviously writes: targets of output redirections, and the operands
//! of programs whose job is to change files (`rm`, `mv`, `cp`'s destination, `tee`, `sed -i`,
//! `ln`, …). Anything subtler (a script, a build tool) is out of reach of a hook and left to the
//! rest of each policy. Where a target really lands is [`crate::place`]'s business.

use crate::commands::{program_name, text, Analysis};
use crate::shell::Word;

/// A word a command writes through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteTarget {
    pub word: Word,
    /// The command as typed, for messages.
    pub command: String,
}

/// Every file the line obviously writes, in the order of its commands. Redirections to
/// `/dev/…` are left out.
pub fn write_targets(analysis: &Analysis) -> Vec<WriteTarget> {
    let mut targets = Vec::new();
    for command in &analysis.commands {
        let shown = text(&command.words);
        let mut add = |word: &Word| {
            if !word.text.is_empty() {
                targets.push(WriteTarget {
                    word: word.clone(),
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
        for word in written_operands(program, &leaf[1..]) {
            add(&word);
        }
    }
    targets
}

/// The operands of `program` that name files it writes.
pub fn written_operands(program: &str, args: &[Word]) -> Vec<Word> {
    let operands: Vec<Word> = positionals(args).into_iter().cloned().collect();
    match program {
        "rm" | "rmdir" | "unlink" | "shred" | "touch" | "truncate" | "mkdir" | "tee" | "mv" => {
            operands
        }
        // A link is a write of its name, and of its target too: once `x -> .git/config` exists,
        // every later write to `x` lands there.
        "ln" | "link" => {
            let mut all = operands;
            all.extend(target_directory(args));
            all
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
        "cp" | "install" => match target_directory(args) {
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
    use crate::commands::analyze;

    fn targets(line: &str) -> Vec<String> {
        write_targets(&analyze(line).expect("parse"))
            .into_iter()
            .map(|t| t.word.text)
            .collect()
    }

    #[test]
    fn finds_obvious_writes() {
        assert_eq!(targets("echo KEY=1 > .env"), vec![".env"]);
        assert_eq!(targets("rm -rf .git/hooks"), vec![".git/hooks"]);
        assert_eq!(targets("cp .env.example .env"), vec![".env"]);
        assert_eq!(targets("cp -t out a b"), vec!["out"]);
        assert_eq!(targets("mv a b"), vec!["a", "b"]);
        assert_eq!(targets("chmod 600 key"), vec!["key"]);
        assert_eq!(targets("sed -i 's/a/b/' Cargo.lock"), vec!["Cargo.lock"]);
        assert_eq!(targets("sudo tee /etc/hosts < x"), vec!["/etc/hosts"]);
        assert_eq!(targets("dd if=/dev/zero of=disk.img"), vec!["disk.img"]);
        assert_eq!(targets("bash -c 'rm .env'"), vec![".env"]);
        assert_eq!(
            targets("ln -s .git/config setup.cfg"),
            vec![".git/config", "setup.cfg"]
        );
        assert_eq!(targets("echo > $HOME/x"), vec!["$HOME/x"]);
    }

    #[test]
    fn ignores_reads() {
        assert!(targets("cat .env; grep x .git/config 2>/dev/null").is_empty());
        assert!(targets("cargo update").is_empty());
        assert!(targets("sed 's/a/b/' Cargo.lock").is_empty());
    }
}
