//! Claude Code's permission rules (`permissions.allow`, `ask` and `deny` in its `settings.json`
//! files) as permission-gate rules, so a project set up for Claude Code is guarded the same way.
//!
//! - `Bash(npm run test:*)`: the command prefix `npm run test`; `Bash(git status)`: that exact
//!   command; `Bash(git * main)`: a glob over the command; `Bash` or `Bash(*)`: every command.
//! - `Read(…)` judges read, ls, find and grep; `Edit(…)` edit and write (Claude Code's Edit rules
//!   cover every tool that changes files); `Write(…)` write; `MultiEdit(…)` edit; `Glob(…)` find;
//!   `Grep(…)` grep; `LS(…)` ls. Paths follow Claude Code: `//abs` is absolute, `~/x` in the
//!   home folder, `/x` and `./x` or `x` from the project root; a pattern without `/` matches at
//!   any depth, and one naming a folder covers what is below it (gitignore's rules).
//! - `Task` is tack's task tool (sub-agents).
//!
//! - `mcp__github__create_issue` is the tool `github_create_issue` of tack's mcp plugin;
//!   `mcp__github` (or `mcp__github__*`) every tool of that server, `github_*`.
//!
//! - `WebFetch(domain:docs.rs)` is web_fetch of that host (`WebFetch`: of every host);
//!   `WebSearch` is web_search.
//!
//! Anything else names a tool tack does not have; it is left out and listed by `/permissions`. Precedence stays permission-gate's: the most
//! specific rule decides, deny winning ties.

use serde_json::Value;

use crate::rules::{escape_glob, Action, MatchKind, RuleSpec};

/// What one settings file gave.
#[derive(Debug, Default, PartialEq)]
pub struct Converted {
    pub specs: Vec<RuleSpec>,
    /// Entries that have no tack counterpart, each with why.
    pub skipped: Vec<String>,
}

/// The rules of a Claude Code `settings.json`. `home` resolves `~/` patterns; without it they
/// are skipped. A file without `permissions` gives nothing.
pub fn convert(text: &str, home: Option<&str>) -> Result<Converted, String> {
    let settings: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let mut out = Converted::default();
    let Some(permissions) = settings.get("permissions") else {
        return Ok(out);
    };
    for (key, action) in [
        ("allow", Action::Allow),
        ("ask", Action::Ask),
        ("deny", Action::Deny),
    ] {
        let entries = match permissions.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(entries)) => entries,
            Some(_) => return Err(format!("`permissions.{key}` is not a list")),
        };
        for entry in entries {
            let Some(entry) = entry.as_str() else {
                out.skipped.push(format!("{key} {entry}: not a string"));
                continue;
            };
            match rule_specs(entry, action, home) {
                Ok(specs) => out.specs.extend(specs),
                Err(why) => out.skipped.push(format!("{key} `{entry}`: {why}")),
            }
        }
    }
    Ok(out)
}

/// The rules one entry stands for.
fn rule_specs(entry: &str, action: Action, home: Option<&str>) -> Result<Vec<RuleSpec>, String> {
    let entry = entry.trim();
    let (tool, specifier) = match entry.split_once('(') {
        Some((tool, rest)) => {
            let inner = rest
                .strip_suffix(')')
                .ok_or("the rule does not end with ')'")?;
            (tool.trim(), Some(inner.trim()))
        }
        None => (entry, None),
    };
    let specifier = specifier.filter(|s| !s.is_empty() && *s != "*");
    let spec = |tool: &str, pattern: String, kind: Option<MatchKind>| RuleSpec {
        tool: tool.to_string(),
        pattern,
        action,
        kind,
    };
    let path_tools: &[&str] = match tool {
        "Bash" => {
            let rule = match specifier {
                None => spec("bash", "*".into(), Some(MatchKind::Glob)),
                Some(s) => match s.strip_suffix(":*") {
                    Some(prefix) if !prefix.trim().is_empty() => {
                        spec("bash", prefix.trim().to_string(), Some(MatchKind::Prefix))
                    }
                    _ if s.contains('*') => spec("bash", s.to_string(), Some(MatchKind::Glob)),
                    _ => spec("bash", s.to_string(), Some(MatchKind::Exact)),
                },
            };
            return Ok(vec![rule]);
        }
        "Task" if specifier.is_none() => return Ok(vec![spec("task", "*".into(), None)]),
        "WebSearch" => return Ok(vec![spec("web_search", "*".into(), None)]),
        "WebFetch" => {
            let pattern = match specifier {
                None => "*".to_string(),
                Some(s) => match s.strip_prefix("domain:") {
                    Some(host) if !host.trim().is_empty() => host.trim().to_ascii_lowercase(),
                    _ => return Err("a WebFetch rule names a host as `domain:<host>`".into()),
                },
            };
            return Ok(vec![spec("web_fetch", pattern, None)]);
        }
        mcp if mcp.starts_with("mcp__") => {
            if specifier.is_some() {
                return Err("an MCP tool's rule takes no pattern".into());
            }
            return Ok(vec![spec(
                &mcp_tool(&mcp["mcp__".len()..]),
                "*".into(),
                None,
            )]);
        }
        "Read" => &["read", "ls", "find", "grep"],
        "Edit" => &["edit", "write"],
        "Write" => &["write"],
        "MultiEdit" => &["edit"],
        "Glob" => &["find"],
        "Grep" => &["grep"],
        "LS" => &["ls"],
        other => return Err(format!("tack has no tool like Claude Code's {other}")),
    };
    let patterns = match specifier {
        None => vec!["/**".to_string()],
        Some(path) => path_patterns(path, home)?,
    };
    Ok(path_tools
        .iter()
        .flat_map(|tool| patterns.iter().map(|p| spec(tool, p.clone(), None)))
        .collect())
}

/// tack's name for Claude Code's `mcp__<server>__<tool>`: the mcp plugin's `<server>_<tool>`
/// (characters outside `[a-zA-Z0-9_-]` made `_`, as the plugin names them); `mcp__<server>` and
/// `mcp__<server>__*`, every tool of the server: `<server>_*`.
pub(crate) fn mcp_tool(rest: &str) -> String {
    let clean = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    match rest.split_once("__") {
        Some((server, "*")) | Some((server, "")) => format!("{}_*", clean(server)),
        Some((server, tool)) => {
            let mut name = clean(&format!("{server}_{tool}"));
            name.truncate(64);
            name
        }
        None => format!("{}_*", clean(rest)),
    }
}

/// permission-gate path globs (absolute, or from `$WORKSPACE`) for a Claude Code path pattern.
fn path_patterns(pattern: &str, home: Option<&str>) -> Result<Vec<String>, String> {
    let (base, rest) = if let Some(rest) = pattern.strip_prefix("//") {
        (String::new(), rest)
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        let home = home.ok_or("the home folder is not known here")?;
        (escape_glob(home.trim_end_matches('/')), rest)
    } else if let Some(rest) = pattern.strip_prefix("./") {
        ("$WORKSPACE".to_string(), rest)
    } else if let Some(rest) = pattern.strip_prefix('/') {
        ("$WORKSPACE".to_string(), rest)
    } else {
        ("$WORKSPACE".to_string(), pattern)
    };
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() {
        return Ok(vec![format!("{base}/**")]);
    }
    // gitignore: a pattern with no slash but at its end matches at any depth.
    let anywhere = !rest.contains('/');
    let glob = if anywhere {
        format!("{base}/**/{rest}")
    } else {
        format!("{base}/{rest}")
    };
    let mut globs = vec![glob.clone()];
    if !glob.ends_with("/**") {
        globs.push(format!("{glob}/**"));
    }
    Ok(globs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(converted: &Converted) -> Vec<(String, String, Action)> {
        converted
            .specs
            .iter()
            .map(|s| (s.tool.clone(), s.pattern.clone(), s.action))
            .collect()
    }

    #[test]
    fn mcp_rules_name_the_mcp_plugins_tools() {
        let converted = convert(
            r#"{"permissions": {
                "allow": ["mcp__github", "mcp__fs__read_file"],
                "deny": ["mcp__github__delete.repo", "mcp__x__*", "mcp__y__z(arg)"]}}"#,
            None,
        )
        .expect("converts");
        assert_eq!(
            pairs(&converted),
            [
                ("github_*".into(), "*".into(), Action::Allow),
                ("fs_read_file".into(), "*".into(), Action::Allow),
                ("github_delete_repo".into(), "*".into(), Action::Deny),
                ("x_*".into(), "*".into(), Action::Deny),
            ]
        );
        assert!(converted.skipped[0].contains("takes no pattern"));
    }

    #[test]
    fn claude_code_rules_become_gate_rules() {
        let text = r#"{
          "permissions": {
            "allow": ["Bash(npm run test:*)", "Bash(git status)", "Edit(src/**)", "WebFetch(domain:example.com)", "WebSearch", "NotebookEdit"],
            "deny": ["Read(./secrets/**)", "Read(.env)", "Bash(curl:*)", "Read(~/.ssh/**)"],
            "ask": ["Bash"]
          },
          "hooks": {}
        }"#;
        let converted = convert(text, Some("/home/u")).expect("converts");
        let got = pairs(&converted);
        let has = |tool: &str, pattern: &str, action: Action| {
            got.contains(&(tool.to_string(), pattern.to_string(), action))
        };
        assert!(has("bash", "npm run test", Action::Allow), "{got:?}");
        assert!(has("bash", "git status", Action::Allow), "{got:?}");
        assert!(has("edit", "$WORKSPACE/src/**", Action::Allow), "{got:?}");
        assert!(has("write", "$WORKSPACE/src/**", Action::Allow), "{got:?}");
        for tool in ["read", "ls", "find", "grep"] {
            assert!(has(tool, "$WORKSPACE/secrets/**", Action::Deny), "{got:?}");
            assert!(has(tool, "$WORKSPACE/**/.env", Action::Deny), "{got:?}");
        }
        assert!(has("read", "/home/u/.ssh/**", Action::Deny), "{got:?}");
        assert!(has("bash", "curl", Action::Deny), "{got:?}");
        assert!(has("bash", "*", Action::Ask), "{got:?}");
        assert!(has("web_fetch", "example.com", Action::Allow), "{got:?}");
        assert!(has("web_search", "*", Action::Allow), "{got:?}");
        assert_eq!(converted.skipped.len(), 1, "{:?}", converted.skipped);
        assert!(converted.skipped[0].contains("NotebookEdit"));
        assert_eq!(
            converted.specs[0].kind,
            Some(MatchKind::Prefix),
            "`:*` is a prefix"
        );
        assert_eq!(converted.specs[1].kind, Some(MatchKind::Exact));
    }

    #[test]
    fn every_converted_rule_compiles_and_matches_as_claude_code_means() {
        let text = r#"{"permissions": {"deny": ["Read(./secrets/**)", "Read(.env)", "Edit(//etc/**)"],
            "allow": ["Bash(npm run test:*)"]}}"#;
        let converted = convert(text, None).expect("converts");
        let rules: Vec<crate::rules::Rule> = converted
            .specs
            .into_iter()
            .map(|spec| {
                crate::rules::Rule::new(spec, crate::rules::Source::Default, "/ws").expect("rule")
            })
            .collect();
        let path = |p: &str| rules.iter().any(|r| r.matches_path(p));
        assert!(path("/ws/secrets/key.pem"));
        assert!(path("/ws/.env"));
        assert!(path("/ws/app/.env"));
        assert!(path("/etc/passwd"));
        assert!(!path("/ws/src/main.rs"));
        let analysis = policy_common::commands::analyze("npm run test -- --watch").expect("parse");
        assert!(rules
            .iter()
            .any(|r| r.matches_command(analysis.commands[0].leaf())));
    }

    #[test]
    fn without_a_home_tilde_rules_are_skipped_and_bad_files_say_why() {
        let converted =
            convert(r#"{"permissions": {"deny": ["Read(~/.aws/**)"]}}"#, None).expect("converts");
        assert!(converted.specs.is_empty());
        assert!(
            converted.skipped[0].contains("home"),
            "{:?}",
            converted.skipped
        );
        assert!(convert("{", None).is_err());
        assert!(convert(r#"{"permissions": {"allow": "Bash"}}"#, None).is_err());
        assert_eq!(convert("{}", None).expect("empty"), Converted::default());
    }
}
