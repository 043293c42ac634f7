//! The folders plugins declare in `[[paths]]` (skills, prompt templates): looked for once at
//! start-up, and those that exist granted read and handed to the plugin in its config. The host
//! knows places (the tack home, the user's home, the project, packages, flags), never what a
//! plugin keeps in them.

use std::path::{Path, PathBuf};

use serde_json::json;
use tack_runtime::{Access, FsGrant, PathSet, PluginSource, PluginSpec};

/// Where `[[paths]]` folders are looked for in this run.
pub struct Places {
    pub tack_home: PathBuf,
    /// `$HOME`; `None` when it is not set.
    pub user_home: Option<PathBuf>,
    /// The project root, only when the project is trusted.
    pub trusted_project: Option<PathBuf>,
    pub cwd: PathBuf,
    /// Plugin flags from the command line (`skill` → a path), in order.
    pub flags: Vec<(String, Option<String>)>,
}

/// A folder found for a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub scope: &'static str,
}

/// Resolves every plugin's `[[paths]]`: sets each set's option in the plugin's config and grants
/// read on the folders found. A third-party plugin gets a declared folder only where the user
/// granted read on it by its declared name (`$TACK_HOME/skills`, `$PROJECT/.tack/skills`,
/// `$PACKAGES/skills`); paths given with its flag are the user's own choice and always granted.
pub fn apply(specs: &mut [PluginSpec], places: &Places, warnings: &mut Vec<String>) {
    let packages: Vec<PathBuf> = specs
        .iter()
        .filter_map(|s| match &s.source {
            PluginSource::Path(dir) => Some(dir.clone()),
            PluginSource::Builtin => None,
        })
        .collect();
    for spec in specs.iter_mut() {
        if spec.manifest.paths.is_empty() {
            continue;
        }
        let builtin = matches!(spec.source, PluginSource::Builtin);
        let granted = spec.granted.clone();
        let allowed = |declared: &str| {
            builtin
                || granted
                    .fs
                    .iter()
                    .any(|g| g.path == declared && g.access == Access::Read)
        };
        for set in spec.manifest.paths.clone() {
            let found = find(&set, places, &packages, &allowed, warnings);
            for folder in &found {
                let dir = if folder.path.is_dir() {
                    folder.path.clone()
                } else {
                    match folder.path.parent() {
                        Some(parent) => parent.to_path_buf(),
                        None => continue,
                    }
                };
                let Some(text) = dir.to_str() else { continue };
                let grant = FsGrant {
                    path: text.to_string(),
                    access: Access::Read,
                };
                for caps in [&mut spec.manifest.capabilities, &mut spec.granted] {
                    if !caps.fs.contains(&grant) {
                        caps.fs.push(grant.clone());
                    }
                }
            }
            let list: Vec<_> = found
                .iter()
                .map(|f| json!({ "path": f.path.display().to_string(), "scope": f.scope }))
                .collect();
            if let Some(config) = spec.config.as_object_mut() {
                config.insert(set.option.clone(), serde_json::Value::Array(list));
            }
        }
    }
}

/// The folders of one set that exist, canonical, in precedence order (weakest first), each once.
pub fn find(
    set: &PathSet,
    places: &Places,
    packages: &[PathBuf],
    allowed: &dyn Fn(&str) -> bool,
    warnings: &mut Vec<String>,
) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    // `within`: the folder a project's or package's folder must stay in once its symlinks are
    // followed, so that `.agents/skills -> ~` cannot widen what the plugin reads.
    let mut add = |path: PathBuf, scope: &'static str, within: Option<&Path>| {
        let Ok(real) = path.canonicalize() else {
            return;
        };
        if let Some(outer) = within {
            if !outer
                .canonicalize()
                .is_ok_and(|outer| real.starts_with(outer))
            {
                warnings.push(format!(
                    "{} leads to {}, outside {}; not read",
                    path.display(),
                    real.display(),
                    outer.display()
                ));
                return;
            }
        }
        if real.to_str().is_some() && !found.iter().any(|f| f.path == real) {
            found.push(Found { path: real, scope });
        }
    };
    if let Some(folder) = &set.packages {
        if allowed(&format!("$PACKAGES/{folder}")) {
            for dir in packages {
                add(dir.join(folder), "package", Some(dir));
            }
        }
    }
    for user in &set.user {
        if !allowed(user) {
            continue;
        }
        let (base, rest) = if let Some(rest) = user.strip_prefix("$TACK_HOME") {
            (Some(places.tack_home.clone()), rest)
        } else if let Some(rest) = user.strip_prefix("$HOME") {
            (places.user_home.clone(), rest)
        } else {
            (None, "")
        };
        if let Some(base) = base {
            add(base.join(rest.trim_start_matches('/')), "user", None);
        }
    }
    if let Some(root) = &places.trusted_project {
        for relative in &set.project {
            if allowed(&format!("$PROJECT/{relative}")) {
                add(root.join(relative), "project", Some(root));
            }
        }
        let mut walk: Vec<&Path> = places
            .cwd
            .ancestors()
            .take_while(|dir| dir.starts_with(root))
            .collect();
        walk.reverse();
        for dir in walk {
            for relative in &set.project_walk {
                if allowed(&format!("$PROJECT/{relative}")) {
                    add(dir.join(relative), "project", Some(root));
                }
            }
        }
    }
    let mut missing = Vec::new();
    if let Some(flag) = &set.flag {
        for (name, value) in &places.flags {
            if name != flag {
                continue;
            }
            let Some(value) = value else {
                missing.push(format!("--{flag} needs a path"));
                continue;
            };
            let path = places.cwd.join(value);
            if path.exists() {
                add(path, "flag", None);
            } else {
                missing.push(format!("--{flag} {value}: no such file or folder"));
            }
        }
    }
    warnings.extend(missing);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_found_in_order_and_untrusted_projects_are_skipped() {
        let root = tempfile::tempdir().expect("tempdir");
        let root = root.path().canonicalize().expect("canonical");
        let home = root.join("tack");
        let user = root.join("user");
        let project = root.join("repo");
        let cwd = project.join("sub");
        for dir in [
            home.join("skills"),
            project.join(".tack/skills"),
            project.join(".agents/skills"),
            cwd.join(".agents/skills"),
            root.join("extra"),
        ] {
            std::fs::create_dir_all(dir).expect("mkdir");
        }
        let set: PathSet = toml::from_str(
            "option = \"dirs\"\nuser = [\"$TACK_HOME/skills\", \"$HOME/.agents/skills\"]\n\
             project = [\".tack/skills\"]\nproject_walk = [\".agents/skills\"]\nflag = \"skill\"\n",
        )
        .expect("set");
        let mut places = Places {
            tack_home: home.clone(),
            user_home: Some(user),
            trusted_project: Some(project.clone()),
            cwd: cwd.clone(),
            flags: vec![
                (
                    "skill".into(),
                    Some(root.join("extra").display().to_string()),
                ),
                ("skill".into(), Some("missing".into())),
            ],
        };
        let mut warnings = Vec::new();
        let found = find(&set, &places, &[], &|_| true, &mut warnings);
        let paths: Vec<_> = found.iter().map(|f| (f.path.clone(), f.scope)).collect();
        assert_eq!(
            paths,
            [
                (home.join("skills"), "user"),
                (project.join(".tack/skills"), "project"),
                (project.join(".agents/skills"), "project"),
                (cwd.join(".agents/skills"), "project"),
                (root.join("extra"), "flag"),
            ],
            "the user's home has no .agents/skills: left out"
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("missing"), "{warnings:?}");

        places.trusted_project = None;
        let found = find(&set, &places, &[], &|_| true, &mut Vec::new());
        assert!(found.iter().all(|f| f.scope != "project"), "{found:?}");
        let found = find(
            &set,
            &places,
            &[],
            &|p| p != "$TACK_HOME/skills",
            &mut Vec::new(),
        );
        assert!(
            found.iter().all(|f| f.scope != "user"),
            "ungranted: {found:?}"
        );
    }
}
