//! Permission rules: `{tool, pattern, action}` read from TOML, and how a pattern matches.
//!
//! For `bash`, a pattern is a command prefix (`git push`: the program, then its leading
//! arguments; options such as `-f` or `--force` may appear anywhere) or, when it holds `*`, `?`,
//! `[` or `{`, a glob over the whole command text (`curl * | sh`). `match = "exact"` makes it the
//! exact command text. For the path tools (read, write, edit, ls, find, grep) a pattern is a glob
//! over the path: relative to the workspace, absolute, or starting with `$WORKSPACE`; a leading
//! `!` matches the paths the rest does not. For `web_fetch` a pattern is a glob over the URL's
//! host (`docs.rs`, `*.github.com`; Claude Code's `domain:docs.rs` reads the same). Other tools
//! take the pattern `*`.
//!
//! Specificity is the length of the pattern's literal prefix (a negated pattern has none): when
//! several rules match, the most specific decides, then a user rule beats a shipped one, then an
//! exact rule beats a prefix beats a glob, then deny beats ask beats allow.

use std::cmp::Ordering;

use policy_common::commands::program_name;
use policy_common::glob::Glob;
use policy_common::shell::Word;
use serde::{Deserialize, Serialize};

/// Tools whose subject is a path argument.
pub const PATH_TOOLS: &[&str] = &["read", "write", "edit", "ls", "find", "grep"];

/// Tools whose subject is the host of a `url` argument.
pub const DOMAIN_TOOLS: &[&str] = &["web_fetch"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    // Declared from least to most restrictive: the derived order is restrictiveness.
    Allow,
    Ask,
    Deny,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Ask => "ask",
            Action::Deny => "deny",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    Glob,
    Prefix,
    Exact,
}

/// A rule as written in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    pub tool: String,
    pub pattern: String,
    pub action: Action,
    /// How a bash pattern matches; by default a glob when it has glob characters, else a prefix.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub kind: Option<MatchKind>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    #[serde(default)]
    rules: Vec<RuleSpec>,
}

/// Where a rule comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    Global(String),
    /// The user's answers of "Always allow" in a project they have not trusted.
    Approved(String),
    Project(String),
}

impl Source {
    pub fn describe(&self) -> String {
        match self {
            Source::Default => "shipped with permission-gate".into(),
            Source::Global(path) => format!("global rules, {path}"),
            Source::Approved(path) => format!("your approvals for this project, {path}"),
            Source::Project(path) => format!("project rules, {path}"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub spec: RuleSpec,
    pub source: Source,
    kind: MatchKind,
    specificity: usize,
    matcher: Matcher,
}

#[derive(Debug, Clone)]
enum Matcher {
    /// Program and leading words of a command, options anywhere.
    Prefix(Vec<String>),
    /// The command (or pipeline) text, words separated by single spaces.
    Exact(String),
    /// A glob over the command or pipeline text.
    CommandGlob(Glob),
    /// A glob over the absolute path.
    Path { glob: Glob, negated: bool },
    /// A glob over a URL's host, in lower case.
    Domain(Glob),
    /// Every call of the tool.
    Any,
}

impl Rule {
    /// Compiles a rule; `workspace` resolves relative and `$WORKSPACE` path patterns.
    pub fn new(spec: RuleSpec, source: Source, workspace: &str) -> Result<Rule, String> {
        // `mcp:<server>:<tool>` and `mcp:<server>` name the mcp plugin's tools as tack names
        // them (`<server>_<tool>`, `<server>_*`).
        let spec = match spec.tool.strip_prefix("mcp:") {
            Some(rest) => RuleSpec {
                tool: crate::claude::mcp_tool(&rest.replacen(':', "__", 1)),
                ..spec
            },
            None => spec,
        };
        let pattern = spec.pattern.trim();
        let bad = |why: String| {
            format!(
                "rule {{tool = {:?}, pattern = {:?}}}: {why}",
                spec.tool, spec.pattern
            )
        };
        let (kind, specificity, matcher) = if spec.tool == "bash" {
            if pattern.is_empty() {
                return Err(bad("the pattern is empty".into()));
            }
            let kind = spec.kind.unwrap_or(if has_glob_chars(pattern) {
                MatchKind::Glob
            } else {
                MatchKind::Prefix
            });
            let matcher = match kind {
                MatchKind::Prefix => {
                    Matcher::Prefix(pattern.split_whitespace().map(str::to_string).collect())
                }
                MatchKind::Exact => Matcher::Exact(normalize_spaces(pattern)),
                MatchKind::Glob => Matcher::CommandGlob(glob(pattern, false).map_err(bad)?),
            };
            let specificity = match kind {
                MatchKind::Glob => literal_prefix(pattern),
                _ => normalize_spaces(pattern).chars().count(),
            };
            (kind, specificity, matcher)
        } else if PATH_TOOLS.contains(&spec.tool.as_str()) {
            let (negated, rest) = match pattern.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, pattern),
            };
            if rest.is_empty() {
                return Err(bad("the pattern is empty".into()));
            }
            let expanded = expand_path_pattern(rest, workspace);
            let matcher = Matcher::Path {
                glob: glob(&expanded, true).map_err(bad)?,
                negated,
            };
            let specificity = if negated {
                0
            } else {
                literal_prefix(&expanded)
            };
            (MatchKind::Glob, specificity, matcher)
        } else if DOMAIN_TOOLS.contains(&spec.tool.as_str()) && !matches!(pattern, "" | "*" | "**")
        {
            let domain = pattern
                .strip_prefix("domain:")
                .unwrap_or(pattern)
                .trim()
                .to_ascii_lowercase();
            if domain.is_empty() || domain.contains(['/', ':']) {
                return Err(bad(
                    "the pattern is a host (`docs.rs`, `*.github.com`), not a URL".into(),
                ));
            }
            // `api.github.com` beats `*.github.com`: the more of the host a pattern spells out,
            // the more specific it is.
            let specificity = domain
                .chars()
                .filter(|c| !matches!(c, '*' | '?' | '[' | ']' | '{' | '}'))
                .count();
            let matcher = Matcher::Domain(glob(&domain, false).map_err(bad)?);
            (MatchKind::Glob, specificity, matcher)
        } else if matches!(pattern, "" | "*" | "**") {
            // A rule for one tool is more specific than one for every tool of an MCP server.
            let specificity = usize::from(!spec.tool.ends_with('*'));
            (MatchKind::Glob, specificity, Matcher::Any)
        } else {
            return Err(bad(format!(
                "tool `{}` has no subject to match; use the pattern \"*\"",
                spec.tool
            )));
        };
        Ok(Rule {
            spec,
            source,
            kind,
            specificity,
            matcher,
        })
    }

    pub fn is_user(&self) -> bool {
        self.source != Source::Default
    }

    /// `{tool = "bash", pattern = "git push", action = "deny"} (project rules, …)`.
    pub fn describe(&self) -> String {
        let kind = match self.spec.kind {
            Some(MatchKind::Exact) => ", match = \"exact\"",
            Some(MatchKind::Prefix) => ", match = \"prefix\"",
            Some(MatchKind::Glob) if self.spec.tool == "bash" => ", match = \"glob\"",
            _ => "",
        };
        format!(
            "{{tool = {:?}, pattern = {:?}, action = {:?}{kind}}} ({})",
            self.spec.tool,
            self.spec.pattern,
            self.spec.action.as_str(),
            self.source.describe()
        )
    }

    /// Whether this bash rule matches one stage of a command.
    pub fn matches_command(&self, words: &[Word]) -> bool {
        match &self.matcher {
            Matcher::Prefix(pattern) => {
                // Allow rules must match from the first argument on; restrictive rules also catch
                // the pattern's words further along (`git -C dir push --force`).
                prefix_matches(pattern, words, self.spec.action == Action::Allow)
            }
            Matcher::Exact(text) => *text == command_text(words),
            Matcher::CommandGlob(glob) => glob.is_match(&command_text(words)),
            Matcher::Path { .. } | Matcher::Domain(_) | Matcher::Any => false,
        }
    }

    /// Whether this bash rule matches a pipeline's text (only globs and exact rules do: a prefix
    /// is about one command).
    pub fn matches_pipeline(&self, text: &str) -> bool {
        match &self.matcher {
            Matcher::Exact(exact) => exact == text,
            Matcher::CommandGlob(glob) => glob.is_match(text),
            _ => false,
        }
    }

    /// Whether this path rule matches an absolute, normalized path.
    pub fn matches_path(&self, absolute: &str) -> bool {
        match &self.matcher {
            Matcher::Path { glob, negated } => glob.is_match(absolute) != *negated,
            _ => false,
        }
    }

    /// Whether this web rule matches `host` (lower case), or is about every host.
    pub fn matches_domain(&self, host: &str) -> bool {
        match &self.matcher {
            Matcher::Domain(glob) => glob.is_match(host),
            Matcher::Any => true,
            _ => false,
        }
    }

    /// Whether the rule is about `tool`: its name, or, for a name ending in `_*` (every tool of
    /// an MCP server, `github_*`), a tool whose name starts with the rest.
    pub fn names_tool(&self, tool: &str) -> bool {
        match self.spec.tool.strip_suffix('*') {
            Some(prefix) if prefix.ends_with('_') => tool.starts_with(prefix),
            _ => self.spec.tool == tool,
        }
    }

    pub fn matches_any(&self) -> bool {
        matches!(self.matcher, Matcher::Any)
    }

    /// Orders rules by precedence: the greatest decides.
    pub fn precedence(&self, other: &Rule) -> Ordering {
        let kind = |k: MatchKind| match k {
            MatchKind::Glob => 0,
            MatchKind::Prefix => 1,
            MatchKind::Exact => 2,
        };
        self.specificity
            .cmp(&other.specificity)
            .then(self.is_user().cmp(&other.is_user()))
            .then(kind(self.kind).cmp(&kind(other.kind)))
            .then(self.spec.action.cmp(&other.spec.action))
    }
}

/// Words joined by single spaces: the text rules see.
pub fn command_text(words: &[Word]) -> String {
    policy_common::commands::text(words)
}

fn normalize_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn has_glob_chars(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{', '\\'])
}

/// Characters before the first glob operator, escapes counted as the character they escape.
fn literal_prefix(pattern: &str) -> usize {
    let mut count = 0;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            // A trailing backslash escapes nothing.
            '\\' if chars.next().is_none() => break,
            '*' | '?' | '[' | '{' => break,
            _ => {}
        }
        count += 1;
    }
    count
}

/// Escapes glob operators so `text` matches only itself.
pub fn escape_glob(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn expand_path_pattern(pattern: &str, workspace: &str) -> String {
    let root = escape_glob(workspace.trim_end_matches('/'));
    if let Some(rest) = pattern.strip_prefix("$WORKSPACE") {
        format!("{root}{rest}")
    } else if pattern.starts_with('/') {
        pattern.to_string()
    } else {
        format!("{root}/{}", pattern.trim_start_matches("./"))
    }
}

fn glob(pattern: &str, literal_separator: bool) -> Result<Glob, String> {
    Glob::new(pattern, literal_separator).map_err(|e| format!("invalid glob: {e}"))
}

fn prefix_matches(pattern: &[String], words: &[Word], from_start: bool) -> bool {
    let (Some(first), Some(program)) = (pattern.first(), words.first()) else {
        return false;
    };
    let program_matches =
        program.text == *first || program_name(program).is_some_and(|name| name == first);
    if !program_matches {
        return false;
    }
    let mut options_done = false;
    let mut positionals = Vec::new();
    let mut short = String::new();
    let mut long = Vec::new();
    for word in &words[1..] {
        let text = word.text.as_str();
        if options_done || !text.starts_with('-') || text == "-" {
            positionals.push(text);
        } else if text == "--" {
            options_done = true;
        } else if let Some(name) = text.strip_prefix("--") {
            long.push(name.split('=').next().unwrap_or(name));
        } else {
            short.push_str(&text[1..]);
        }
    }
    let mut next = 0;
    for want in &pattern[1..] {
        if let Some(name) = want.strip_prefix("--").filter(|n| !n.is_empty()) {
            if !long.contains(&name) {
                return false;
            }
        } else if let Some(letters) = want.strip_prefix('-').filter(|l| !l.is_empty()) {
            if !letters.chars().all(|l| short.contains(l)) {
                return false;
            }
        } else if from_start {
            if positionals.get(next) != Some(&want.as_str()) {
                return false;
            }
            next += 1;
        } else {
            match positionals[next..].iter().position(|p| p == want) {
                Some(at) => next += at + 1,
                None => return false,
            }
        }
    }
    true
}

/// Rules from one file's text.
pub fn parse(text: &str, source: &Source, workspace: &str) -> Result<Vec<Rule>, String> {
    let file: RuleFile = toml::from_str(text).map_err(|e| e.to_string())?;
    file.rules
        .into_iter()
        .map(|spec| Rule::new(spec, source.clone(), workspace))
        .collect()
}

/// The shipped rules.
pub fn defaults(workspace: &str) -> Result<Vec<Rule>, String> {
    parse(include_str!("defaults.toml"), &Source::Default, workspace)
        .map_err(|e| format!("permission-gate's default rules are broken: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use policy_common::commands::analyze;

    const WS: &str = "/ws";

    fn rule(tool: &str, pattern: &str, action: Action) -> Rule {
        Rule::new(
            RuleSpec {
                tool: tool.into(),
                pattern: pattern.into(),
                action,
                kind: None,
            },
            Source::Project("/ws/.tack/permissions.toml".into()),
            WS,
        )
        .expect("rule")
    }

    fn leaf_matches(rule: &Rule, line: &str) -> bool {
        let analysis = analyze(line).expect("parse");
        rule.matches_command(analysis.commands[0].leaf())
    }

    #[test]
    fn prefix_rules() {
        let push = rule("bash", "git push", Action::Deny);
        assert!(leaf_matches(&push, "git push origin main"));
        assert!(leaf_matches(&push, "/usr/bin/git push"));
        assert!(leaf_matches(&push, "git -C sub push"));
        assert!(!leaf_matches(&push, "git pushx"));
        assert!(!leaf_matches(&push, "git status"));
        let force = rule("bash", "git push --force", Action::Ask);
        assert!(leaf_matches(&force, "git push origin main --force"));
        assert!(leaf_matches(&force, "git push --force=true"));
        assert!(!leaf_matches(&force, "git push --force-with-lease"));
        let rf = rule("bash", "rm -rf", Action::Ask);
        for line in ["rm -rf x", "rm -fr x", "rm -r -f x", "rm x -Rf -r -f"] {
            assert!(leaf_matches(&rf, line), "{line}");
        }
        assert!(!leaf_matches(&rf, "rm -r x"));
        let allow = rule("bash", "git status", Action::Allow);
        assert!(leaf_matches(&allow, "git status --short"));
        assert!(
            !leaf_matches(&allow, "git push status"),
            "allow rules match from the first argument"
        );
    }

    #[test]
    fn glob_and_exact_rules() {
        let pipe = rule("bash", "curl * | {sh,bash}", Action::Ask);
        assert!(pipe.matches_pipeline("curl -fsSL https://x.sh | sh"));
        assert!(!pipe.matches_pipeline("curl -fsSL https://x.sh | grep sh"));
        let exact = Rule::new(
            RuleSpec {
                tool: "bash".into(),
                pattern: "rm  -rf build".into(),
                action: Action::Allow,
                kind: Some(MatchKind::Exact),
            },
            Source::Default,
            WS,
        )
        .expect("rule");
        assert!(leaf_matches(&exact, "rm -rf build"));
        assert!(!leaf_matches(&exact, "rm -rf build /"));
        let escaped = rule("bash", &escape_glob("rm *.log"), Action::Allow);
        assert!(leaf_matches(&escaped, "rm '*.log'"));
        assert!(!leaf_matches(&escaped, "rm a.log"));
    }

    #[test]
    fn path_rules() {
        let src = rule("write", "src/**", Action::Allow);
        assert!(src.matches_path("/ws/src/a/b.rs"));
        assert!(!src.matches_path("/ws/srcx/a"));
        let outside = rule("write", "!$WORKSPACE/**", Action::Ask);
        assert!(outside.matches_path("/etc/hosts"));
        assert!(!outside.matches_path("/ws/a.txt"));
        let tmp = rule("write", "/tmp/**", Action::Allow);
        assert!(tmp.precedence(&outside) == Ordering::Greater);
        let exact = rule("edit", &escape_glob("notes [draft].md"), Action::Allow);
        assert!(exact.matches_path("/ws/notes [draft].md"));
        assert!(!exact.matches_path("/ws/notes d.md"));
    }

    #[test]
    fn precedence() {
        let general = rule("bash", "git", Action::Allow);
        let specific = rule("bash", "git push", Action::Deny);
        assert_eq!(specific.precedence(&general), Ordering::Greater);
        let allow = rule("bash", "git push", Action::Allow);
        assert_eq!(
            specific.precedence(&allow),
            Ordering::Greater,
            "deny wins ties"
        );
        let shipped = Rule::new(
            RuleSpec {
                tool: "bash".into(),
                pattern: "git push".into(),
                action: Action::Deny,
                kind: None,
            },
            Source::Default,
            WS,
        )
        .expect("rule");
        assert_eq!(
            allow.precedence(&shipped),
            Ordering::Greater,
            "user rules win ties"
        );
    }

    #[test]
    fn files_and_defaults_parse() {
        let defaults = defaults(WS).expect("defaults");
        assert!(defaults.len() > 20);
        let text = "[[rules]]\ntool = \"bash\"\npattern = \"npm publish\"\naction = \"deny\"\n";
        let rules = parse(text, &Source::Global("g".into()), WS).expect("parse");
        assert_eq!(rules[0].spec.action, Action::Deny);
        assert!(parse("[[rules]]\ntool = \"bash\"\n", &Source::Default, WS).is_err());
        assert!(parse(
            "[[rules]]\ntool = \"webfetch\"\npattern = \"x\"\naction = \"deny\"\n",
            &Source::Default,
            WS
        )
        .is_err());
        assert!(parse("", &Source::Default, WS).expect("empty").is_empty());
    }
}
