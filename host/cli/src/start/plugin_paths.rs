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
    /// Where a file found for a plugin is copied alone, so that granting it does not grant the
    /// folder it sits in (`<tack home>/flag-files`).
    pub file_copies: PathBuf,
    /// The folders of installed Pi packages, which count as packages' folders (their `skills/`
    /// and `prompts/`) though no plugin is loaded from them as a package.
    pub pi_packages: Vec<PathBuf>,
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
/// `$PACKAGES/skills`). Paths given with a flag go to the plugin that flag belongs to: a built-in's
/// flags (`--skill`, `--agent`) only to built-ins, a package's own flag (`--flag name=path`, shown
/// at install) to it. A file is granted alone (a copy of it in a folder of its own), never the
/// folder it sits in.
pub fn apply(specs: &mut [PluginSpec], places: &Places, warnings: &mut Vec<String>) {
    let builtin_flags: Vec<String> = specs
        .iter()
        .filter(|s| matches!(s.source, PluginSource::Builtin))
        .flat_map(|s| {
            let declared = s.manifest.flags.iter().map(|f| f.name.clone());
            let paths = s.manifest.paths.iter().filter_map(|p| p.flag.clone());
            declared.chain(paths).collect::<Vec<_>>()
        })
        .chain(
            crate::cli::BUILTIN_PLUGIN_FLAGS
                .iter()
                .map(|f| f.to_string()),
        )
        .collect();
    let packages: Vec<PathBuf> = specs
        .iter()
        .filter_map(|s| match &s.source {
            PluginSource::Path(dir) => Some(dir.clone()),
            PluginSource::Builtin => None,
        })
        .chain(places.pi_packages.iter().cloned())
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
        for mut set in spec.manifest.paths.clone() {
            if let Some(flag) = set.flag.as_deref() {
                if !builtin && builtin_flags.iter().any(|f| f == flag) {
                    warnings.push(format!(
                        "plugin '{}' asks for the paths given with --{flag}, which belong to \
                         tack's built-in plugins; it does not get them",
                        spec.manifest.plugin.name
                    ));
                    set.flag = None;
                }
            }
            let mut found = Vec::new();
            for mut folder in find(&set, places, &packages, &allowed, warnings) {
                let dir = if folder.path.is_dir() {
                    folder.path.clone()
                } else {
                    match copy_alone(&folder.path, &places.file_copies) {
                        Ok(copy) => {
                            folder.path = copy;
                            match folder.path.parent() {
                                Some(parent) => parent.to_path_buf(),
                                None => continue,
                            }
                        }
                        Err(e) => {
                            warnings.push(format!(
                                "cannot hand {} to plugin '{}': {e}",
                                folder.path.display(),
                                spec.manifest.plugin.name
                            ));
                            continue;
                        }
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
                found.push(folder);
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

/// Copies `file` into a folder that holds nothing else (`<copies>/<digest of its path>/<its
/// folder's name>/<its name>`, keeping the folder's name, which a skill without a `name` is
/// called by) and returns the copy's path. Written whole and renamed, so another run reading
/// the copy never sees half of it.
fn copy_alone(file: &Path, copies: &Path) -> std::io::Result<PathBuf> {
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(file.as_os_str().as_encoded_bytes()));
    let parent_name = file
        .parent()
        .and_then(Path::file_name)
        .map_or_else(|| "root".into(), |n| n.to_os_string());
    let name = file
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path has no file name"))?;
    let dir = copies.join(&digest[..16]).join(parent_name);
    std::fs::create_dir_all(&dir)?;
    let copy = dir.join(name);
    let staging = dir.join(format!(
        ".{}.{}",
        std::process::id(),
        digest.get(..8).unwrap_or("")
    ));
    std::fs::copy(file, &staging)?;
    std::fs::rename(&staging, &copy)?;
    copy.canonicalize()
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
            file_copies: root.join("copies"),
            pi_packages: Vec::new(),
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

    fn spec(manifest: &str, source: PluginSource) -> PluginSpec {
        PluginSpec {
            manifest: tack_runtime::Manifest::parse(manifest).expect("manifest"),
            wasm: Default::default(),
            wasm_label: "test".into(),
            source,
            granted: Default::default(),
            config: json!({}),
        }
    }

    const AGENTS: &str = "[plugin]\nname = \"NAME\"\nversion = \"0.1.0\"\napi = \"0.1\"\n\
                          component = \"x.wasm\"\n\n[[paths]]\noption = \"agents\"\nflag = \"FLAG\"\n";

    #[test]
    fn a_file_is_granted_alone_and_a_builtins_flag_only_to_builtins() {
        let root = tempfile::tempdir().expect("tempdir");
        let root = root.path().canonicalize().expect("canonical");
        let cwd = root.join("work");
        std::fs::create_dir_all(&cwd).expect("mkdir");
        std::fs::write(cwd.join("reviewer.md"), "---\nname: reviewer\n---\n").expect("write");
        std::fs::write(cwd.join(".env"), "SECRET=1").expect("write");
        let package = root.join("pkg");
        let manifest = |name: &str, flag: &str| AGENTS.replace("NAME", name).replace("FLAG", flag);
        let mut specs = vec![
            spec(&manifest("subagents", "agent"), PluginSource::Builtin),
            spec(
                &manifest("borrower", "agent"),
                PluginSource::Path(package.clone()),
            ),
            spec(
                &manifest("own-flag", "persona"),
                PluginSource::Path(package),
            ),
        ];
        let places = Places {
            tack_home: root.join("home"),
            user_home: None,
            trusted_project: None,
            cwd: cwd.clone(),
            flags: vec![
                ("agent".into(), Some("reviewer.md".into())),
                ("persona".into(), Some("reviewer.md".into())),
            ],
            file_copies: root.join("home/flag-files"),
            pi_packages: Vec::new(),
        };
        let mut warnings = Vec::new();
        apply(&mut specs, &places, &mut warnings);

        let listed = |spec: &PluginSpec| -> Vec<PathBuf> {
            spec.config["agents"]
                .as_array()
                .expect("list")
                .iter()
                .map(|p| PathBuf::from(p["path"].as_str().expect("path")))
                .collect()
        };
        // The built-in gets the file, as a copy alone in a folder named like the original's.
        let given = listed(&specs[0]);
        assert_eq!(given.len(), 1, "{given:?}");
        assert!(
            given[0].starts_with(root.join("home/flag-files")),
            "{given:?}"
        );
        assert!(given[0].ends_with("work/reviewer.md"), "{given:?}");
        let granted = &specs[0].granted.fs;
        assert_eq!(granted.len(), 1, "{granted:?}");
        let folder = PathBuf::from(&granted[0].path);
        assert!(
            !folder.join(".env").exists(),
            "the original folder is not granted"
        );
        assert_eq!(std::fs::read_dir(&folder).expect("dir").count(), 1);

        // A package does not get what the user passed to a built-in's flag.
        assert!(listed(&specs[1]).is_empty());
        assert!(specs[1].granted.fs.is_empty(), "{:?}", specs[1].granted);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("'borrower'") && w.contains("--agent")),
            "{warnings:?}"
        );
        // A package's own flag reaches it, again as the file alone.
        assert_eq!(listed(&specs[2]).len(), 1);
        assert!(!PathBuf::from(&specs[2].granted.fs[0].path)
            .join(".env")
            .exists());
    }
}
