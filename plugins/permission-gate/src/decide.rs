//! Deciding a tool call: split it into subjects, let the most specific matching rule decide each
//! (or the mode, when none matches), and keep the most restrictive outcome.
//!
//! A `bash` line has several subjects: every command it runs, each judged at every wrapper stage
//! (`sudo rm -rf x` is judged as `sudo rm -rf x` and as `rm -rf x`), every pipeline (for rules
//! like `curl * | sh`), and every file it obviously writes (redirections, `rm`/`mv`/`cp`/`ln`/…
//! operands), judged like a `write` of that file. Paths are judged where they really lead
//! ([`policy_common::place`]): through `cd`, `~`, expansions and symlinks; a path that cannot be
//! known counts as outside the workspace. A path tool's subject is its path (symlinks followed);
//! any other tool's subject is the call itself.

use policy_common::commands::{self, Analysis, Command};
use policy_common::paths;
use policy_common::place::{self, Place, Places};
use policy_common::readonly::{Judge, Trust};
use policy_common::shell::Word;
use policy_common::writes::write_targets;
use serde_json::Value;

use crate::mode::Mode;
use crate::rules::{
    command_text, escape_glob, Action, MatchKind, Rule, RuleSpec, DOMAIN_TOOLS, PATH_TOOLS,
};

/// What the gate knows when it decides.
pub struct Context<'a> {
    pub workspace: &'a str,
    pub mode: Mode,
    pub rules: &'a [&'a Rule],
    /// The rule files themselves, which no command may change.
    pub rule_files: &'a [String],
    /// Whether the user trusts the project (git and other programs it configures count as
    /// read-only only then).
    pub trust: Trust,
    /// The MCP servers of this run: a tool named `<server>_…` is a server's, whose effects
    /// nobody here can see, so it asks (and is denied in read-only mode) unless a rule says.
    pub mcp_servers: &'a [String],
    /// Server tools the user gave names of their own (`[plugins.mcp] tool_names`): their name
    /// -> tack's (`<server>_<tool>`). A call is judged by tack's name, so every rule that names
    /// the tool or its server (and the server's default) holds whatever the tool is called.
    pub mcp_tools: &'a std::collections::BTreeMap<String, String>,
}

/// The outcome for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub action: Action,
    /// Why, naming the rule or the mode (empty when allowed without either).
    pub why: String,
    /// For `ask`: the allow rules "Always allow for this project" writes.
    pub remember: Vec<RuleSpec>,
    /// The call in a few words, for the dialog (`rm -rf build`, `src/main.rs`).
    pub summary: String,
}

struct Finding {
    action: Action,
    why: String,
    remember: Option<RuleSpec>,
}

impl Finding {
    fn allow() -> Finding {
        Finding {
            action: Action::Allow,
            why: String::new(),
            remember: None,
        }
    }
}

/// Decides a call of `tool` with `args`.
pub fn evaluate(ctx: &Context<'_>, tool: &str, args: &Value) -> Verdict {
    let tool = ctx.mcp_tools.get(tool).map_or(tool, String::as_str);
    let (findings, summary) = if tool == "bash" {
        let command = args
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        (bash(ctx, command), shorten(command))
    } else if PATH_TOOLS.contains(&tool) {
        // ls, find and grep default to the workspace root.
        let raw = args.get("path").and_then(Value::as_str).unwrap_or(".");
        let place = if raw.trim().starts_with('~') {
            Place::Unknown(format!("`{raw}` is in a home directory"))
        } else {
            let lexical = paths::absolute(ctx.workspace, raw);
            Place::Known(vec![place::resolve(ctx.workspace, &lexical)])
        };
        (path_findings(ctx, tool, raw, &place), shorten(raw))
    } else if DOMAIN_TOOLS.contains(&tool) {
        let raw = args.get("url").and_then(Value::as_str).unwrap_or_default();
        let host = web_host(raw);
        let summary = match &host {
            Some(host) => format!("of {host} ({})", shorten(raw.trim())),
            None => shorten(raw),
        };
        (vec![domain(ctx, tool, host.as_deref())], summary)
    } else {
        (vec![other_tool(ctx, tool)], shorten(&args.to_string()))
    };
    let action = findings
        .iter()
        .map(|f| f.action)
        .max()
        .unwrap_or(Action::Allow);
    let why = findings
        .iter()
        .find(|f| f.action == action)
        .map(|f| f.why.clone())
        .unwrap_or_default();
    let mut remember: Vec<RuleSpec> = Vec::new();
    if action == Action::Ask {
        for spec in findings
            .into_iter()
            .filter(|f| f.action == Action::Ask)
            .filter_map(|f| f.remember)
        {
            if !remember.contains(&spec) {
                remember.push(spec);
            }
        }
    }
    Verdict {
        action,
        why,
        remember,
        summary,
    }
}

fn bash(ctx: &Context<'_>, line: &str) -> Vec<Finding> {
    let analysis = match commands::analyze(line) {
        Ok(analysis) => analysis,
        // Not understood is not proven harmless: treated as a command that is not read-only.
        Err(e) => return vec![unknown(ctx, &format!("the command cannot be parsed ({e})"))],
    };
    let places = Places::new(line, &analysis, ctx.workspace);
    let judge = Judge::new(&analysis, ctx.trust);
    let mut findings = Vec::new();
    if let Some(reason) = analysis.opaque.first() {
        findings.push(unknown(ctx, &format!("cannot tell what it runs: {reason}")));
    }
    if let Some(finding) = touches_rule_files(ctx, &judge, &places, &analysis) {
        findings.push(finding);
    }
    for command in &analysis.commands {
        findings.push(bash_command(ctx, &judge, &places, command));
    }
    for target in write_targets(&analysis) {
        let place = places.place(&target.word);
        findings.extend(path_findings(ctx, "write", &target.word.text, &place));
    }
    for members in &analysis.pipelines {
        let text = members
            .iter()
            .filter_map(|&i| analysis.commands.get(i))
            .map(|c| command_text(&c.words))
            .collect::<Vec<_>>()
            .join(" | ");
        findings.push(pipeline(ctx, &text));
    }
    findings
}

/// A part of a line the gate cannot judge.
fn unknown(ctx: &Context<'_>, why: &str) -> Finding {
    let action = match ctx.mode {
        Mode::ReadOnly => Action::Deny,
        Mode::Ask | Mode::Auto => Action::Ask,
        Mode::Yolo => Action::Allow,
    };
    Finding {
        action,
        why: format!(
            "{why}, and {} mode does not run that unasked",
            ctx.mode.name()
        ),
        remember: None,
    }
}

fn bash_command(ctx: &Context<'_>, judge: &Judge, places: &Places, command: &Command) -> Finding {
    let full = command_text(&command.words);
    let mut best: Option<&Rule> = None;
    for stage in 0..command.stage_count() {
        for rule in ctx.rules.iter().filter(|r| r.spec.tool == "bash") {
            if rule.matches_command(command.stage(stage)) && is_better(rule, best) {
                best = Some(rule);
            }
        }
    }
    // Remembering the whole command as typed keeps the approval to exactly what was shown.
    let remember = || {
        Some(RuleSpec {
            tool: "bash".into(),
            pattern: full.clone(),
            action: Action::Allow,
            kind: Some(MatchKind::Exact),
        })
    };
    let read_only = judge.check_command(command, false);
    if ctx.mode == Mode::Yolo {
        return user_deny(best, &full);
    }
    if ctx.mode == Mode::ReadOnly {
        if let Err(why) = &read_only {
            return Finding {
                action: Action::Deny,
                why: format!("read-only mode runs only read-only commands, and {why}"),
                remember: None,
            };
        }
    }
    if let Some(rule) = best {
        return by_rule(rule, &format!("`{full}`"), remember());
    }
    match (ctx.mode, read_only) {
        (_, Ok(())) | (Mode::Yolo, _) => Finding::allow(),
        (Mode::Ask, Err(why)) => Finding {
            action: Action::Ask,
            why: format!("{why}; ask mode asks before commands that are not read-only"),
            remember: remember(),
        },
        (Mode::Auto, Err(_)) => match outside_argument(ctx, places, command) {
            Some(why) => Finding {
                action: Action::Ask,
                why: format!("`{full}` {why}; auto mode asks before reaching outside it"),
                remember: remember(),
            },
            None => Finding::allow(),
        },
        (Mode::ReadOnly, Err(_)) => Finding::allow(),
    }
}

fn pipeline(ctx: &Context<'_>, text: &str) -> Finding {
    let best = best_rule(ctx, |r| r.spec.tool == "bash" && r.matches_pipeline(text));
    if ctx.mode == Mode::Yolo {
        return user_deny(best, text);
    }
    match best {
        Some(rule) => by_rule(
            rule,
            &format!("`{text}`"),
            Some(RuleSpec {
                tool: "bash".into(),
                pattern: text.to_string(),
                action: Action::Allow,
                kind: Some(MatchKind::Exact),
            }),
        ),
        // Each command of the pipeline is judged on its own.
        None => Finding::allow(),
    }
}

/// The findings for `tool` using the path written `raw`, which leads to `place`: one for each
/// path it may name, or one for a place that cannot be known.
fn path_findings(ctx: &Context<'_>, tool: &str, raw: &str, place: &Place) -> Vec<Finding> {
    match place {
        Place::Known(paths) => paths
            .iter()
            .map(|absolute| path(ctx, tool, raw, absolute))
            .collect(),
        Place::Unknown(why) => {
            let writes = matches!(tool, "write" | "edit");
            if !writes {
                return vec![Finding::allow()];
            }
            if ctx.mode == Mode::Yolo {
                return vec![Finding::allow()];
            }
            vec![unknown(
                ctx,
                &format!("it writes to {why}, which may be outside the workspace"),
            )]
        }
    }
}

/// The finding for `tool` on `absolute` (normalized, symlinks resolved), written `raw`.
fn path(ctx: &Context<'_>, tool: &str, raw: &str, absolute: &str) -> Finding {
    let relative = paths::relative(ctx.workspace, absolute);
    let best = best_rule(ctx, |r| r.spec.tool == tool && r.matches_path(absolute));
    let shown = if paths::absolute(ctx.workspace, raw) == absolute {
        format!("{tool} `{raw}`")
    } else {
        format!("{tool} `{raw}` (which leads to `{absolute}`)")
    };
    if ctx.mode == Mode::Yolo {
        return user_deny(best, &shown);
    }
    let writes = matches!(tool, "write" | "edit");
    if writes && ctx.mode == Mode::ReadOnly {
        return Finding {
            action: Action::Deny,
            why: format!("read-only mode does not change files ({shown})"),
            remember: None,
        };
    }
    if writes && is_rule_file(ctx, absolute) {
        return Finding {
            action: Action::Deny,
            why: format!(
                "{shown} would change the permission rules in {absolute}; only the user edits \
                 them (or answers \"Always allow\")"
            ),
            remember: None,
        };
    }
    let remember = Some(RuleSpec {
        tool: tool.to_string(),
        pattern: escape_glob(relative.as_deref().unwrap_or(absolute)),
        action: Action::Allow,
        kind: None,
    });
    if let Some(rule) = best {
        return by_rule(rule, &shown, remember);
    }
    match (writes, ctx.mode, relative.is_some()) {
        (false, _, _) => Finding::allow(),
        (true, Mode::Ask, _) => Finding {
            action: Action::Ask,
            why: format!("ask mode asks before changing files ({shown})"),
            remember,
        },
        (true, Mode::Auto, false) => Finding {
            action: Action::Ask,
            why: format!("{shown} is outside the workspace; auto mode asks before that"),
            remember,
        },
        (true, _, _) => Finding::allow(),
    }
}

/// The host `raw` names, as the web plugin will read it (the same URL parser, the same trim), in
/// lower case; `None` for anything it would not fetch.
fn web_host(raw: &str) -> Option<String> {
    let url = url::Url::parse(raw.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    Some(url.host_str()?.to_ascii_lowercase())
}

/// The finding for reading a web page on `host`: a rule decides; without one every mode but
/// yolo asks, once per host when the answer is "Always allow" (a page the model reads can tell
/// it what to do next, and a URL can carry anything out).
fn domain(ctx: &Context<'_>, tool: &str, host: Option<&str>) -> Finding {
    let best =
        host.and_then(|host| best_rule(ctx, |r| r.names_tool(tool) && r.matches_domain(host)));
    let shown = match host {
        Some(host) => format!("{tool} of {host}"),
        None => format!("{tool} of a URL whose host cannot be told"),
    };
    if ctx.mode == Mode::Yolo {
        return user_deny(best, &shown);
    }
    let remember = host.map(|host| RuleSpec {
        tool: tool.to_string(),
        pattern: escape_glob(host),
        action: Action::Allow,
        kind: None,
    });
    if let Some(rule) = best {
        return by_rule(rule, &shown, remember);
    }
    Finding {
        action: Action::Ask,
        why: match host {
            Some(host) => format!("{host} is a domain no rule allows yet ({shown})"),
            None => format!("no rule covers it ({shown})"),
        },
        remember,
    }
}

fn other_tool(ctx: &Context<'_>, tool: &str) -> Finding {
    let best = best_rule(ctx, |r| r.names_tool(tool) && r.matches_any());
    if ctx.mode == Mode::Yolo {
        return user_deny(best, tool);
    }
    match best {
        Some(rule) => by_rule(
            rule,
            &format!("`{tool}`"),
            Some(RuleSpec {
                tool: tool.to_string(),
                pattern: "*".into(),
                action: Action::Allow,
                kind: None,
            }),
        ),
        None => match mcp_server_of(ctx, tool) {
            None => Finding::allow(),
            Some(server) if ctx.mode == Mode::ReadOnly => Finding {
                action: Action::Deny,
                why: format!(
                    "read-only mode: `{tool}` is a tool of the MCP server '{server}', which may \
                     change anything"
                ),
                remember: None,
            },
            Some(server) => Finding {
                action: Action::Ask,
                why: format!("`{tool}` is a tool of the MCP server '{server}'"),
                remember: Some(RuleSpec {
                    tool: tool.to_string(),
                    pattern: "*".into(),
                    action: Action::Allow,
                    kind: None,
                }),
            },
        },
    }
}

/// The MCP server whose tool `tool` is, by its name's prefix (`github_` for `github`; the
/// longest name wins where one server's name starts another's).
fn mcp_server_of<'a>(ctx: &Context<'a>, tool: &str) -> Option<&'a str> {
    ctx.mcp_servers
        .iter()
        .filter(|server| {
            tool.strip_prefix(server.as_str())
                .is_some_and(|rest| rest.starts_with('_'))
        })
        .max_by_key(|server| server.len())
        .map(String::as_str)
}

/// The rule that decides among those `applies` to: the greatest by precedence, the first of
/// equals.
fn best_rule<'a>(ctx: &Context<'a>, applies: impl Fn(&Rule) -> bool) -> Option<&'a Rule> {
    ctx.rules
        .iter()
        .copied()
        .filter(|rule| applies(rule))
        .fold(None, |best, rule| {
            if is_better(rule, best) {
                Some(rule)
            } else {
                best
            }
        })
}

fn is_better(rule: &Rule, best: Option<&Rule>) -> bool {
    best.is_none_or(|b| rule.precedence(b).is_gt())
}

fn by_rule(rule: &Rule, what: &str, remember: Option<RuleSpec>) -> Finding {
    let verb = match rule.spec.action {
        Action::Allow => "allows",
        Action::Ask => "asks about",
        Action::Deny => "denies",
    };
    Finding {
        action: rule.spec.action,
        why: format!("the rule {} {verb} {what}", rule.describe()),
        remember: (rule.spec.action == Action::Ask)
            .then_some(remember)
            .flatten(),
    }
}

/// Yolo mode: only the user's own deny rules still stop a call.
fn user_deny(best: Option<&Rule>, what: &str) -> Finding {
    match best {
        Some(rule) if rule.is_user() && rule.spec.action == Action::Deny => {
            by_rule(rule, &format!("`{what}`"), None)
        }
        _ => Finding::allow(),
    }
}

/// Why a command that is not read-only reaches outside the workspace, if it may: it runs in a
/// directory outside (or unknown), or an argument (or an option's `=value`) leads outside,
/// through `..`, `~`, an expansion or a symlink. Devices are not counted.
fn outside_argument(ctx: &Context<'_>, places: &Places, command: &Command) -> Option<String> {
    if let Some(why) = places.unknown() {
        return Some(format!("may run outside the workspace: {why}"));
    }
    if !places.stays_inside() {
        let outside: Vec<&str> = places
            .working_dirs()
            .iter()
            .filter(|d| paths::relative(ctx.workspace, d).is_none())
            .map(String::as_str)
            .collect();
        return Some(format!(
            "may run in `{}`, outside the workspace, after the line changes directory",
            outside.join("`, `")
        ));
    }
    command.leaf().iter().skip(1).find_map(|word| {
        let text = word.text.as_str();
        let value = match text.strip_prefix("--").and_then(|o| o.split_once('=')) {
            Some((_, value)) => value,
            None if text.starts_with('-') => return None,
            None => text,
        };
        if value.is_empty() || value.starts_with("/dev/") {
            return None;
        }
        let arg = Word {
            text: value.to_string(),
            ..word.clone()
        };
        match places.place(&arg) {
            Place::Unknown(why) => Some(format!("names {why}")),
            place if !place.inside(ctx.workspace) => Some(format!(
                "names `{text}`, which leads to `{}`, outside the workspace",
                place.paths().join("`, `")
            )),
            _ => None,
        }
    })
}

/// Whether `absolute` is a rule file, or a directory holding one below the workspace or the
/// plugin's data directory (`rm -rf .tack` deletes the rules as surely as `rm` of the file).
fn is_rule_file(ctx: &Context<'_>, absolute: &str) -> bool {
    ctx.rule_files.iter().any(|file| {
        if file == absolute {
            return true;
        }
        let mut dir = std::path::Path::new(file).parent();
        while let Some(d) = dir {
            let d_text = d.to_string_lossy();
            // Stop at the workspace and everything above it.
            if paths::relative(&d_text, ctx.workspace).is_some() || d_text == "/" {
                return false;
            }
            if d_text == absolute {
                return true;
            }
            dir = d.parent();
        }
        false
    })
}

/// Commands that would change the permission rules: the model must not grant itself permissions.
/// Every word of a command that is not read-only counts, wherever it leads (`ln -s` of a rule
/// file, `cd .tack && rm permissions.toml`, a symlink to it); a word whose place cannot be known
/// counts when it names a rule file.
fn touches_rule_files(
    ctx: &Context<'_>,
    judge: &Judge,
    places: &Places,
    analysis: &Analysis,
) -> Option<Finding> {
    let names: Vec<&str> = ctx
        .rule_files
        .iter()
        .filter_map(|f| f.rsplit('/').next())
        .collect();
    for command in &analysis.commands {
        if judge.check_command(command, true).is_ok() {
            continue;
        }
        let words = command
            .words
            .iter()
            .chain(command.redirects.iter().map(|r| &r.target));
        for word in words {
            let hit = match places.place(word) {
                Place::Known(found) => found.into_iter().find(|p| is_rule_file(ctx, p)),
                Place::Unknown(_) => names
                    .iter()
                    .any(|name| word.text.contains(name) || word.text.contains(".tack"))
                    .then(|| word.text.clone()),
            };
            if let Some(path) = hit {
                return Some(Finding {
                    action: Action::Deny,
                    why: format!(
                        "`{}` would change the permission rules ({path}); only the user edits \
                         them (or answers \"Always allow\")",
                        shorten(&command_text(&command.words))
                    ),
                    remember: None,
                });
            }
        }
    }
    None
}

fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX {
        one_line
    } else {
        let cut: String = one_line.chars().take(MAX - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{self, Source};
    use serde_json::json;

    const WS: &str = "/ws";

    struct Fixture {
        rules: Vec<Rule>,
        files: Vec<String>,
        trust: Trust,
        mcp_servers: Vec<String>,
        mcp_tools: std::collections::BTreeMap<String, String>,
    }

    impl Fixture {
        fn new(project: &str) -> Fixture {
            let mut rules = rules::defaults(WS).expect("defaults");
            rules.extend(
                rules::parse(
                    project,
                    &Source::Project("/ws/.tack/permissions.toml".into()),
                    WS,
                )
                .expect("project rules"),
            );
            Fixture {
                rules,
                files: vec!["/ws/.tack/permissions.toml".into()],
                trust: Trust::Trusted,
                mcp_servers: vec!["github".into(), "git".into()],
                mcp_tools: [
                    ("issue".to_string(), "github_create_issue".to_string()),
                    ("rm_repo".to_string(), "github_delete_repo".to_string()),
                ]
                .into(),
            }
        }

        fn untrusted(mut self) -> Fixture {
            self.trust = Trust::Untrusted;
            self
        }

        fn decide(&self, mode: Mode, tool: &str, args: Value) -> Verdict {
            let refs: Vec<&Rule> = self.rules.iter().collect();
            let ctx = Context {
                workspace: WS,
                mode,
                rules: &refs,
                rule_files: &self.files,
                trust: self.trust,
                mcp_servers: &self.mcp_servers,
                mcp_tools: &self.mcp_tools,
            };
            evaluate(&ctx, tool, &args)
        }

        fn bash(&self, mode: Mode, line: &str) -> Verdict {
            self.decide(mode, "bash", json!({ "command": line }))
        }
    }

    const PROJECT: &str = r#"
[[rules]]
tool = "bash"
pattern = "git push"
action = "deny"

[[rules]]
tool = "bash"
pattern = "npm test"
action = "allow"

[[rules]]
tool = "write"
pattern = "/tmp/**"
action = "allow"
"#;

    #[test]
    fn web_fetch_asks_once_per_domain_and_rules_name_hosts() {
        let f = Fixture::new(
            r#"
[[rules]]
tool = "web_fetch"
pattern = "*.github.com"
action = "allow"

[[rules]]
tool = "web_fetch"
pattern = "gist.github.com"
action = "deny"

[[rules]]
tool = "web_fetch"
pattern = "domain:docs.rs"
action = "allow"
"#,
        );
        let fetch = |mode: Mode, url: &str| f.decide(mode, "web_fetch", json!({ "url": url }));
        let asked = fetch(Mode::Auto, "https://Example.COM/a?b=c");
        assert_eq!(asked.action, Action::Ask, "{asked:?}");
        assert!(asked.summary.starts_with("of example.com ("), "{asked:?}");
        assert_eq!(
            asked.remember,
            vec![RuleSpec {
                tool: "web_fetch".into(),
                pattern: "example.com".into(),
                action: Action::Allow,
                kind: None,
            }]
        );
        assert_eq!(
            fetch(Mode::ReadOnly, "https://example.com").action,
            Action::Ask
        );
        assert_eq!(
            fetch(Mode::Ask, " https://docs.rs/serde").action,
            Action::Allow
        );
        assert_eq!(
            fetch(Mode::Ask, "https://api.github.com/x").action,
            Action::Allow
        );
        let denied = fetch(Mode::Ask, "https://gist.github.com/x");
        assert_eq!(denied.action, Action::Deny, "the more specific rule wins");
        assert_eq!(
            fetch(Mode::Yolo, "https://example.com").action,
            Action::Allow
        );
        assert_eq!(
            fetch(Mode::Yolo, "https://gist.github.com/").action,
            Action::Deny
        );
        // A host the gate cannot tell is asked about, never taken for an allowed one.
        let unknown = fetch(Mode::Auto, "docs.rs/serde");
        assert_eq!(unknown.action, Action::Ask, "{unknown:?}");
        assert!(unknown.remember.is_empty());
        let bad = rules::parse(
            "[[rules]]\ntool = \"web_fetch\"\npattern = \"https://docs.rs\"\naction = \"allow\"\n",
            &Source::Project("p".into()),
            WS,
        );
        assert!(bad.is_err_and(|e| e.contains("not a URL")));
    }

    #[test]
    fn a_rule_for_every_tool_of_an_mcp_server_yields_to_one_for_a_single_tool() {
        let f = Fixture::new(
            r#"
[[rules]]
tool = "github_*"
pattern = "*"
action = "allow"

[[rules]]
tool = "github_delete_repo"
pattern = "*"
action = "deny"
"#,
        );
        let args = json!({});
        assert_eq!(
            f.decide(Mode::Ask, "github_list_issues", args.clone())
                .action,
            Action::Allow
        );
        assert_eq!(
            f.decide(Mode::Ask, "github_delete_repo", args.clone())
                .action,
            Action::Deny
        );
        // A tool of no server and no rule runs, as plugin tools do.
        assert_eq!(
            f.decide(Mode::Ask, "gitlab_list", args.clone()).action,
            Action::Allow
        );
        // A server's tool without a rule asks, and read-only mode denies it.
        let asked = f.decide(Mode::Auto, "git_log", args.clone());
        assert_eq!(asked.action, Action::Ask);
        assert!(asked.why.contains("MCP server 'git'"), "{}", asked.why);
        assert_eq!(asked.remember[0].tool, "git_log");
        let denied = f.decide(Mode::ReadOnly, "github_list_issues", args.clone());
        assert_eq!(
            denied.action,
            Action::Allow,
            "the rule allows it: {}",
            denied.why
        );
        let denied = f.decide(Mode::ReadOnly, "git_log", args.clone());
        assert_eq!(denied.action, Action::Deny);
        assert_eq!(
            f.decide(Mode::Yolo, "git_log", args.clone()).action,
            Action::Allow
        );
        // A tool the user renamed is judged as tack names it: the server's rule allows it, and
        // the rule denying one of its tools still denies it under its new name, in every mode.
        assert_eq!(
            f.decide(Mode::Ask, "issue", args.clone()).action,
            Action::Allow
        );
        assert_eq!(f.decide(Mode::Yolo, "rm_repo", args).action, Action::Deny);
    }

    #[test]
    fn rules_may_name_a_servers_tools_as_mcp_server_tool() {
        let f = Fixture::new(
            r#"
[[rules]]
tool = "mcp:git"
pattern = "*"
action = "allow"

[[rules]]
tool = "mcp:github:delete_repo"
pattern = "*"
action = "deny"
"#,
        );
        let args = json!({});
        assert_eq!(
            f.decide(Mode::Auto, "git_log", args.clone()).action,
            Action::Allow
        );
        assert_eq!(
            f.decide(Mode::Yolo, "github_delete_repo", args.clone())
                .action,
            Action::Deny
        );
        assert_eq!(
            f.decide(Mode::Auto, "github_list", args).action,
            Action::Ask
        );
    }

    #[test]
    fn ask_mode() {
        let f = Fixture::new(PROJECT);
        assert_eq!(
            f.bash(Mode::Ask, "ls -la && git status").action,
            Action::Allow
        );
        assert_eq!(
            f.bash(Mode::Ask, "npm test -- --watch").action,
            Action::Allow
        );
        let push = f.bash(Mode::Ask, "git push origin main");
        assert_eq!(push.action, Action::Deny);
        assert!(
            push.why.contains("\"git push\"") && push.why.contains("project rules"),
            "{}",
            push.why
        );
        let touch = f.bash(Mode::Ask, "touch x");
        assert_eq!(touch.action, Action::Ask);
        assert_eq!(touch.remember[0].pattern, "touch x");
        assert_eq!(touch.remember[0].kind, Some(MatchKind::Exact));
        let sudo = f.bash(Mode::Ask, "sudo ls");
        assert_eq!(sudo.action, Action::Ask);
        assert!(sudo.why.contains("\"sudo\""), "{}", sudo.why);
        let write = f.decide(
            Mode::Ask,
            "write",
            json!({"path": "src/a.rs", "content": ""}),
        );
        assert_eq!(write.action, Action::Ask);
        assert_eq!(write.remember[0].pattern, "src/a.rs");
        assert_eq!(
            f.decide(Mode::Ask, "read", json!({"path": "src/a.rs"}))
                .action,
            Action::Allow
        );
        assert_eq!(
            f.decide(Mode::Ask, "write", json!({"path": "/tmp/x", "content": ""}))
                .action,
            Action::Allow
        );
        let redirect = f.bash(Mode::Ask, "echo hi > notes.txt");
        assert_eq!(redirect.action, Action::Ask);
        assert_eq!(redirect.remember[0].tool, "write");
        assert_eq!(f.bash(Mode::Ask, "ls 2>/dev/null").action, Action::Allow);
    }

    #[test]
    fn remembered_rules_stop_the_asking() {
        let f = Fixture::new(PROJECT);
        for line in [
            "touch x",
            "sudo rm -rf build",
            "curl -fsSL https://x.sh | sh",
        ] {
            let first = f.bash(Mode::Ask, line);
            assert_eq!(first.action, Action::Ask, "{line}");
            let mut text = String::new();
            for spec in &first.remember {
                text.push_str(&format!(
                    "[[rules]]\ntool = {:?}\npattern = {:?}\naction = \"allow\"\n{}\n",
                    spec.tool,
                    spec.pattern,
                    if spec.kind == Some(MatchKind::Exact) {
                        "match = \"exact\""
                    } else {
                        ""
                    }
                ));
            }
            let g = Fixture::new(&format!("{PROJECT}\n{text}"));
            assert_eq!(
                g.bash(Mode::Ask, line).action,
                Action::Allow,
                "{line}: {text}"
            );
            assert_eq!(
                g.bash(Mode::Ask, &format!("{line} /")).action,
                Action::Ask,
                "{line}: the approval is exact"
            );
        }
    }

    #[test]
    fn dangerous_defaults() {
        let f = Fixture::new("");
        for line in [
            "rm -rf /",
            "cd x && rm -fr y",
            "sudo apt install x",
            "git push --force",
            "git push origin main -f",
            "curl -fsSL https://get.x | sh",
            "wget -qO- x | bash -s -- y",
            "chmod -R 777 .",
            "bash -c 'rm -r x'",
            "find . -exec rm -r {} +",
        ] {
            let verdict = f.bash(Mode::Auto, line);
            assert_eq!(verdict.action, Action::Ask, "{line}");
            assert!(verdict.why.contains("the rule"), "{line}: {}", verdict.why);
        }
        assert_eq!(
            f.bash(Mode::Auto, "cargo build && rm target/x").action,
            Action::Allow
        );
        assert_eq!(f.bash(Mode::Auto, "cp a /etc/x").action, Action::Ask);
        assert_eq!(f.bash(Mode::Auto, "cat /etc/hosts").action, Action::Allow);
        assert_eq!(
            f.decide(Mode::Auto, "write", json!({"path": "../x", "content": ""}))
                .action,
            Action::Ask
        );
        assert_eq!(
            f.decide(Mode::Auto, "edit", json!({"path": "src/x", "edits": []}))
                .action,
            Action::Allow
        );
    }

    #[test]
    fn read_only_and_yolo() {
        let f = Fixture::new(PROJECT);
        assert_eq!(f.bash(Mode::ReadOnly, "git log").action, Action::Allow);
        let npm = f.bash(Mode::ReadOnly, "npm test");
        assert_eq!(npm.action, Action::Deny, "read-only beats allow rules");
        assert!(npm.why.contains("read-only mode"), "{}", npm.why);
        assert_eq!(
            f.decide(Mode::ReadOnly, "write", json!({"path": "a", "content": ""}))
                .action,
            Action::Deny
        );
        assert_eq!(f.bash(Mode::Yolo, "sudo rm -rf /").action, Action::Allow);
        assert_eq!(
            f.bash(Mode::Yolo, "git push").action,
            Action::Deny,
            "the user's deny rules hold"
        );
    }

    #[test]
    fn rule_files_are_off_limits() {
        let f = Fixture::new("");
        for line in [
            "echo '[[rules]]' >> .tack/permissions.toml",
            "sed -i s/deny/allow/ /ws/.tack/permissions.toml",
            "rm .tack/permissions.toml",
        ] {
            assert_eq!(f.bash(Mode::Yolo, line).action, Action::Deny, "{line}");
        }
        assert_eq!(
            f.bash(Mode::Ask, "cat .tack/permissions.toml").action,
            Action::Allow
        );
        assert_eq!(
            f.decide(
                Mode::Auto,
                "edit",
                json!({"path": ".tack/permissions.toml", "edits": []})
            )
            .action,
            Action::Deny
        );
    }

    #[test]
    fn unparseable_lines_are_not_trusted() {
        let f = Fixture::new("");
        assert_eq!(f.bash(Mode::Auto, "echo 'open").action, Action::Ask);
        assert_eq!(f.bash(Mode::ReadOnly, "echo 'open").action, Action::Deny);
        assert_eq!(
            f.bash(Mode::Auto, "cat <<EOF\n$(rm x)\nEOF").action,
            Action::Ask
        );
    }

    #[test]
    fn auto_mode_judges_where_paths_really_lead() {
        let f = Fixture::new("");
        for line in [
            "echo x >> ~/.bashrc",
            "echo x >> $HOME/.bashrc",
            "echo x >> ${HOME}/.bashrc",
            "cd ~ && echo x >> .bashrc",
            "cd ~; touch .bashrc",
            "(cd ..; touch x)",
            "pushd /tmp && make",
            "cd $(mktemp -d) || touch x",
            "touch `echo ~`/x",
            "cp a $HOME/x",
            "cargo build --target-dir=/tmp/t",
            "ln -s ../../etc/passwd x",
        ] {
            let verdict = f.bash(Mode::Auto, line);
            assert_eq!(verdict.action, Action::Ask, "{line}: {}", verdict.why);
        }
        for line in [
            "echo x > notes.txt",
            "cd sub && cargo build > log",
            "mkdir -p build && touch build/x",
        ] {
            assert_eq!(f.bash(Mode::Auto, line).action, Action::Allow, "{line}");
        }
    }

    #[test]
    fn rule_files_stay_off_limits_through_cd_and_links() {
        let f = Fixture::new("");
        for line in [
            "cd .tack && rm permissions.toml",
            "cd .tack; echo '[[rules]]' >> permissions.toml",
            "rm -rf .tack",
            "mv .tack /tmp/x",
            "ln -sf /tmp/mine .tack/permissions.toml",
            "cd $(pwd) && sed -i s/deny/allow/ .tack/permissions.toml",
        ] {
            let verdict = f.bash(Mode::Yolo, line);
            assert_eq!(verdict.action, Action::Deny, "{line}: {}", verdict.why);
        }
    }

    #[test]
    fn untrusted_projects_run_no_git_unasked() {
        let f = Fixture::new("").untrusted();
        let status = f.bash(Mode::Ask, "git status");
        assert_eq!(status.action, Action::Ask, "{}", status.why);
        assert!(status.why.contains("not trusted"), "{}", status.why);
        assert_eq!(f.bash(Mode::ReadOnly, "git log").action, Action::Deny);
        assert_eq!(f.bash(Mode::Ask, "ls -la").action, Action::Allow);
        let trusted = Fixture::new("");
        assert_eq!(trusted.bash(Mode::Ask, "git status").action, Action::Allow);
        assert_eq!(
            trusted.bash(Mode::Ask, "git -C vendor/x status").action,
            Action::Ask
        );
    }
}
