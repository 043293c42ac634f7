//! One checkpoint's list of files, and its text form: a line per file, `<sha256> <size> <mode>
//! <path>` (mode `x` for executable, `-` otherwise), then `skip <size> <path>` for files left
//! out. Paths are relative, `/`-separated and checked on reading, so a damaged or hand-made tree
//! cannot name a file outside the workspace.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::scan::{SkipReason, Skipped};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub hash: String,
    pub size: u64,
    pub executable: bool,
}

/// The files of the workspace at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    pub files: BTreeMap<String, FileRecord>,
    /// Files the snapshot did not record, and why.
    pub skipped: Vec<Skipped>,
}

impl Tree {
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(self.files.len() * 100);
        // Pushed piece by piece: the formatting machinery per line cost more than the hash of
        // the whole text.
        let mut digits = [0u8; 20];
        for (path, f) in &self.files {
            out.push_str(&f.hash);
            out.push(' ');
            out.push_str(decimal(f.size, &mut digits));
            out.push_str(if f.executable { " x " } else { " - " });
            out.push_str(path);
            out.push('\n');
        }
        for s in &self.skipped {
            out.push_str(&format!("skip {} {} {}\n", s.size, s.reason.word(), s.path));
        }
        out
    }

    /// The tree's id: the hash of its text.
    pub fn id_of(text: &str) -> String {
        hex::encode(Sha256::digest(text.as_bytes()))
    }

    /// Reads a tree's text; the error says which line is wrong.
    pub fn parse(text: &str) -> Result<Tree, String> {
        let mut tree = Tree::default();
        for (n, line) in text.lines().enumerate() {
            let bad = |what: &str| format!("line {}: {what}", n + 1);
            if let Some(rest) = line.strip_prefix("skip ") {
                let mut parts = rest.splitn(3, ' ');
                let (Some(size), Some(reason), Some(path)) =
                    (parts.next(), parts.next(), parts.next())
                else {
                    return Err(bad("too few fields"));
                };
                tree.skipped.push(Skipped {
                    // Only shown, never restored: any name is fine.
                    path: path.to_owned(),
                    size: size.parse().map_err(|_| bad("bad size"))?,
                    reason: SkipReason::from_word(reason).ok_or_else(|| bad("bad reason"))?,
                });
                continue;
            }
            let mut parts = line.splitn(4, ' ');
            let (Some(hash), Some(size), Some(mode), Some(path)) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(bad("too few fields"));
            };
            if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad("bad hash"));
            }
            let executable = match mode {
                "x" => true,
                "-" => false,
                _ => return Err(bad("bad mode")),
            };
            tree.files.insert(
                checked_path(path).map_err(|e| bad(&e))?,
                FileRecord {
                    hash: hash.to_owned(),
                    size: size.parse().map_err(|_| bad("bad size"))?,
                    executable,
                },
            );
        }
        Ok(tree)
    }
}

/// `n` in decimal, written into `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[at..]).unwrap_or("0")
}

/// A relative path that stays inside the folder it is relative to.
pub fn checked_path(path: &str) -> Result<String, String> {
    let ok = !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path.contains('\0')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    if ok {
        Ok(path.to_owned())
    } else {
        Err(format!("path {path:?} leaves the workspace"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn text_round_trips_and_bad_paths_are_refused() {
        let mut tree = Tree::default();
        tree.files.insert(
            "src/a b.rs".into(),
            FileRecord {
                hash: "ab".repeat(32),
                size: 12,
                executable: true,
            },
        );
        tree.skipped.push(Skipped {
            path: "big.bin".into(),
            size: 99,
            reason: SkipReason::TooLarge,
        });
        let text = tree.to_text();
        assert_eq!(
            text,
            format!(
                "{} 12 x src/a b.rs\nskip 99 large big.bin\n",
                "ab".repeat(32)
            )
        );
        assert_eq!(Tree::parse(&text).unwrap(), tree);
        for bad in ["../x", "/etc/passwd", "a//b", "a/./b", ""] {
            let line = format!("{} 1 - {bad}\n", "ab".repeat(32));
            assert!(Tree::parse(&line).is_err(), "{bad:?} accepted");
        }
        assert!(Tree::parse("zz 1 - a\n").unwrap_err().contains("line 1"));
        for n in [0, 7, 10, 4096, u64::MAX] {
            assert_eq!(decimal(n, &mut [0; 20]), n.to_string());
        }
    }
}
