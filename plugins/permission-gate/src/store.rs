//! Reading rule files, and appending the allow rules "Always allow for this project" creates.
//!
//! Files are checked on every call, so edits take effect at once and every instance of the plugin
//! sees the same rules; a file is parsed again only when its size or modification time changed,
//! which keeps a tool call's cost to one `stat` per file. Appending as text keeps the user's
//! comments and layout.

use std::io::Write;
use std::time::SystemTime;

use crate::rules::{self, MatchKind, Rule, RuleSpec, Source};

/// What a rule file gave: rules, or the reason it could not be used.
#[derive(Clone)]
pub enum Loaded {
    Missing,
    Rules(Vec<Rule>),
    Broken(String),
}

/// What a rule file is written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// permission-gate's `[[rules]]`.
    Toml,
    /// A Claude Code `settings.json`; `~/` patterns resolve in `home` (see [`crate::claude`]).
    Claude { home: Option<String> },
}

/// One rule file and what it gave when last parsed.
pub struct RuleFile {
    pub path: String,
    source: Source,
    format: Format,
    parsed: Option<(Stamp, Loaded)>,
    /// Entries of a Claude Code file that have no tack counterpart, as last parsed.
    pub skipped: Vec<String>,
}

/// What identifies a version of a file without reading it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl RuleFile {
    pub fn new(path: String, source: Source) -> Self {
        Self::with_format(path, source, Format::Toml)
    }

    pub fn with_format(path: String, source: Source, format: Format) -> Self {
        Self {
            path,
            source,
            format,
            parsed: None,
            skipped: Vec::new(),
        }
    }

    /// The file's rules as they are now on disk.
    pub fn current(&mut self, workspace: &str) -> Loaded {
        let stamp = match std::fs::metadata(&self.path) {
            Ok(meta) => Stamp {
                len: meta.len(),
                modified: meta.modified().ok(),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.parsed = None;
                return Loaded::Missing;
            }
            Err(e) => return Loaded::Broken(format!("cannot read {}: {e}", self.path)),
        };
        match &self.parsed {
            // Without a modification time there is no telling an edit that kept the size.
            Some((seen, loaded)) if *seen == stamp && stamp.modified.is_some() => loaded.clone(),
            _ => {
                let (loaded, skipped) =
                    load(&self.path, self.source.clone(), &self.format, workspace);
                self.skipped = skipped;
                self.parsed = Some((stamp, loaded.clone()));
                loaded
            }
        }
    }
}

/// The file's rules, and the entries of a Claude Code file left out.
fn load(path: &str, source: Source, format: &Format, workspace: &str) -> (Loaded, Vec<String>) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Loaded::Missing, Vec::new()),
        Err(e) => {
            return (
                Loaded::Broken(format!("cannot read {path}: {e}")),
                Vec::new(),
            )
        }
    };
    let parsed = match format {
        Format::Toml => rules::parse(&text, &source, workspace).map(|rules| (rules, Vec::new())),
        Format::Claude { home } => {
            crate::claude::convert(&text, home.as_deref()).and_then(|converted| {
                let rules = converted
                    .specs
                    .into_iter()
                    .map(|spec| Rule::new(spec, source.clone(), workspace))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((rules, converted.skipped))
            })
        }
    };
    match parsed {
        Ok((rules, skipped)) => (Loaded::Rules(rules), skipped),
        Err(e) => (Loaded::Broken(format!("{path}: {e}")), Vec::new()),
    }
}

/// Appends `specs` to the rule file at `path`, creating it (and its directory) when needed.
pub fn append(path: &str, specs: &[RuleSpec]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {path}: {e}");
    let file_path = std::path::Path::new(path);
    let is_new = !file_path.exists();
    if let Some(dir) = file_path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let mut text = String::new();
    if is_new {
        text.push_str(
            "# permission-gate rules for this project: {tool, pattern, action = allow|ask|deny}.\n\
             # The most specific matching rule decides; see /permissions.\n",
        );
    }
    for spec in specs {
        text.push_str(&render(spec));
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file_path)
        .map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)
}

/// One rule as a TOML `[[rules]]` table.
fn render(spec: &RuleSpec) -> String {
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut out = format!(
        "\n[[rules]]\ntool = {}\npattern = {}\naction = {}\n",
        quote(&spec.tool),
        quote(&spec.pattern),
        quote(spec.action.as_str())
    );
    if let Some(kind) = spec.kind {
        let name = match kind {
            MatchKind::Exact => "exact",
            MatchKind::Prefix => "prefix",
            MatchKind::Glob => "glob",
        };
        out.push_str(&format!("match = {}\n", quote(name)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Action;

    #[test]
    fn rendered_rules_parse_back() {
        let specs = vec![
            RuleSpec {
                tool: "bash".into(),
                pattern: "echo \"hi\" 'there' \\ x".into(),
                action: Action::Allow,
                kind: Some(MatchKind::Exact),
            },
            RuleSpec {
                tool: "write".into(),
                pattern: "src/\\[x\\].rs".into(),
                action: Action::Allow,
                kind: None,
            },
        ];
        let text: String = specs.iter().map(render).collect();
        let parsed = rules::parse(&text, &Source::Default, "/ws").expect("parses");
        let back: Vec<RuleSpec> = parsed.into_iter().map(|r| r.spec).collect();
        assert_eq!(back, specs);
    }
}
