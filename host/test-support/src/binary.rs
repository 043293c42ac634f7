//! The real `tack` binary, run in a temp tree: a tack home and a project folder side by side.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};
use tack_builtin::artifacts;

use crate::Package;

/// The binary under test and the folder its compiled components are cached in. Build it with
/// [`tack!`](crate::tack).
#[derive(Debug, Clone)]
pub struct Tack {
    exe: PathBuf,
    cache: PathBuf,
}

impl Tack {
    pub fn new(exe: impl Into<PathBuf>, cache: impl Into<PathBuf>) -> Self {
        Tack {
            exe: exe.into(),
            cache: cache.into(),
        }
    }

    /// The same binary with a component cache of its own (to see what lands in it).
    pub fn with_cache(mut self, cache: impl Into<PathBuf>) -> Self {
        self.cache = cache.into();
        self
    }

    /// `tack` in `cwd` with `home` as its home: no provider key or log filter from the caller's
    /// environment, and stdin closed.
    pub fn command(&self, home: &Path, cwd: &Path) -> Command {
        let mut cmd = Command::new(&self.exe);
        cmd.current_dir(cwd)
            .env("TACK_HOME", home)
            // Shared between tests: each home would otherwise compile every plugin again.
            .env("TACK_CACHE_DIR", &self.cache)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("TACK_LOG")
            .stdin(Stdio::null());
        cmd
    }
}

/// A temp folder holding tack's home and a project (the working directory of every run), both
/// created empty, and what each run of the binary gets in its environment.
pub struct Env {
    tack: Tack,
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    workspace: PathBuf,
    vars: Vec<(OsString, OsString)>,
}

impl Env {
    /// `home/` and `workspace/` in a new temp folder.
    pub fn new(tack: Tack) -> Self {
        Self::with_layout(tack, "home", "workspace")
    }

    /// Tack's home and the project under the given folder names.
    pub fn with_layout(tack: Tack, home: &str, workspace: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        let env = Env {
            tack,
            _dir: dir,
            home: root.join(home),
            workspace: root.join(workspace),
            root,
            vars: Vec::new(),
        };
        std::fs::create_dir_all(&env.home).expect("home");
        std::fs::create_dir_all(&env.workspace).expect("workspace");
        env
    }

    /// Sets `key` in the environment of every run.
    pub fn with_var(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.vars.push((key.into(), value.into()));
        self
    }

    /// The temp folder holding the home, the project and anything else a test puts beside them.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Writes a project file (folders created as needed).
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.workspace.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("project dir");
        }
        std::fs::write(&path, contents).expect("project file");
        path
    }

    pub fn command(&self) -> Command {
        self.command_in(&self.workspace)
    }

    pub fn command_in(&self, cwd: &Path) -> Command {
        let mut cmd = self.tack.command(&self.home, cwd);
        cmd.envs(self.vars.iter().map(|(k, v)| (k, v)));
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.workspace, args)
    }

    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        self.command_in(cwd).args(args).output().expect("tack runs")
    }

    /// Writes `config.toml` from JSON.
    pub fn config(&self, config: Value) {
        let text = toml::to_string(&config).expect("config as TOML");
        std::fs::write(self.home.join("config.toml"), text).expect("config");
    }

    /// Changes `config.toml` as `edit` says, keeping what is there.
    pub fn edit_config(&self, edit: impl FnOnce(&mut Value)) {
        let text = std::fs::read_to_string(self.home.join("config.toml")).unwrap_or_default();
        let mut config: Value = toml::from_str(&text).expect("config.toml is TOML");
        edit(&mut config);
        self.config(config);
    }

    /// Writes `grants.toml` granting `plugin` the capabilities in `grants` (TOML lines).
    pub fn grant(&self, plugin: &str, grants: &str) {
        std::fs::write(
            self.home.join("grants.toml"),
            format!("[plugins.{plugin}]\n{grants}\n"),
        )
        .expect("grants");
    }

    /// The example package in the repository's `examples/<folder>` as its user installs it: its
    /// own `tack.toml` (api, capabilities and all), with `wasm` copied in as the component the
    /// manifest names. Returns the folder for `--plugin`.
    pub fn example_package(&self, folder: &str, wasm: &str) -> PathBuf {
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(folder)
            .join("tack.toml");
        let manifest = std::fs::read_to_string(&source).expect("the example's manifest");
        let parsed: toml::Value = toml::from_str(&manifest).expect("the manifest is TOML");
        let name = parsed["plugin"]["name"].as_str().expect("plugin.name");
        let component = parsed["plugin"]["component"]
            .as_str()
            .expect("plugin.component");
        let dir = self.package_dir(name);
        std::fs::create_dir_all(&dir).expect("package dir");
        std::fs::write(dir.join("tack.toml"), &manifest).expect("manifest");
        std::fs::copy(wasm, dir.join(component)).expect("component");
        dir
    }

    /// Where [`package`](Self::package) writes the package `name`: beside the home.
    pub fn package_dir(&self, name: &str) -> PathBuf {
        self.root.join("packages").join(name)
    }

    /// A package folder of `wasm` named `name`, asking for `capabilities` (TOML lines).
    pub fn package(&self, name: &str, wasm: &str, capabilities: &str) -> PathBuf {
        Package::new(name, wasm)
            .capabilities(capabilities)
            .write_to(&self.package_dir(name))
    }

    /// The scripted provider as the default provider, playing `script`; returns its package
    /// folder for `--plugin`.
    pub fn scripted_provider(&self, script: Value) -> PathBuf {
        self.scripted_provider_with(json!({ "script": script }), json!({}))
    }

    /// The scripted provider as the default provider with `scripted` as its configuration and
    /// `plugins` as every other plugin's; returns its package folder for `--plugin`.
    pub fn scripted_provider_with(&self, scripted: Value, mut plugins: Value) -> PathBuf {
        plugins["scripted"] = scripted;
        self.config(json!({ "provider": "scripted", "plugins": plugins }));
        self.package("scripted", artifacts::TEST_SCRIPTED_PROVIDER, "")
    }

    /// Every session file under the home, in path order.
    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut stack = vec![self.home.join("sessions")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }

    /// Every JSON line of every session file.
    pub fn session_lines(&self) -> Vec<Value> {
        self.session_files()
            .iter()
            .flat_map(|file| {
                std::fs::read_to_string(file)
                    .expect("session")
                    .lines()
                    .filter_map(|l| serde_json::from_str(l).ok())
                    .collect::<Vec<Value>>()
            })
            .collect()
    }

    /// Every session file's text, for "this never got recorded" checks.
    pub fn sessions_text(&self) -> String {
        self.session_files()
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }
}
