//! `tack.toml`: what a plugin package is and what it asks for.

use serde::{Deserialize, Serialize};

use crate::bindings::SUPPORTED_API_VERSIONS;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub plugin: PluginSection,
    #[serde(default)]
    pub capabilities: Capabilities,
    /// Default configuration handed to the plugin's `init` as JSON; user config overrides keys.
    #[serde(default)]
    pub config: toml::Table,
    /// Defaults that replace `config`'s when nobody is there to answer a dialog (print and JSON
    /// modes), for the options the user did not set.
    #[serde(default)]
    pub unattended: toml::Table,
    /// Command-line flags the plugin answers to (`tack --plan`), each setting one option.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<Flag>,
    /// Folders the host looks for on the plugin's behalf (skills, prompt templates): those that
    /// exist are granted read and handed over in the plugin's config.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<PathSet>,
    /// What `tack install` copies besides tack.toml and the component.
    #[serde(default)]
    pub package: PackageSection,
}

/// The files of a package. Without `include`, a package is its folder minus build and tool
/// folders (`target/`, `node_modules/`, `.venv/`, ...); with it, tack.toml, the component and the
/// files and folders `include` names (paths or globs relative to the package folder).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageSection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
}

/// Folders a plugin reads its content from. The host looks for each, in this order, later ones
/// winning where the plugin merges by name: a folder of the name `packages` in every installed
/// package, the `user` folders, the `project` and `project_walk` folders of a trusted project,
/// then the paths given with `--<flag>`. Those that exist are granted read (a file given with the
/// flag: its folder) and set as the config option `option`: a list of `{ "path", "scope" }`,
/// `scope` being `package`, `user`, `project` or `flag`. A missing folder is left out, not an
/// error; an untrusted project's folders are neither looked at nor granted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathSet {
    pub option: String,
    /// `$TACK_HOME/…` or `$HOME/…`.
    #[serde(default)]
    pub user: Vec<String>,
    /// Relative to the project root (`.tack/skills`).
    #[serde(default)]
    pub project: Vec<String>,
    /// Relative to every directory from the project root down to the working directory.
    #[serde(default)]
    pub project_walk: Vec<String>,
    /// A folder name looked for in every installed package (`skills`).
    #[serde(default)]
    pub packages: Option<String>,
    /// The name of a repeatable flag whose values add paths (`skill` for `--skill <path>`).
    #[serde(default)]
    pub flag: Option<String>,
}

/// Placeholders a `user` folder of a [`PathSet`] starts with.
pub const USER_PLACEHOLDERS: [&str; 2] = ["$TACK_HOME", "$HOME"];

/// `--<name>` sets the plugin's config `option`: to `value` for a switch, or to the text given
/// after the flag when the flag takes one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flag {
    pub name: String,
    pub option: String,
    /// What a switch sets; `None`: the flag takes a value.
    #[serde(default)]
    pub value: Option<toml::Value>,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginSection {
    pub name: String,
    pub version: String,
    /// The `tack:plugin` WIT version the component was built against ("0.1").
    pub api: String,
    /// Component file, relative to the package folder.
    pub component: String,
    #[serde(default)]
    pub description: String,
    /// At most this many instances of the plugin at once (never more than the host's own cap).
    /// `1` runs every call in turn on one instance: for a plugin that keeps one conversation
    /// with a program (an MCP or language server), where two instances reading the program's
    /// output at once would each take the other's answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instances: Option<u32>,
}

/// What a plugin may touch. A capability is usable only if the manifest declares it and the user
/// granted it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fs: Vec<FsGrant>,
    /// Command patterns: words matched one by one, `*` one word, `**` any number of words (see
    /// `broker::exec` for options and `..`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exec: Vec<String>,
    /// Command patterns, as `exec` takes them, of long-lived programs the plugin may start and
    /// write to (`tack:plugin/process`, 0.2.0). Apart from `exec` because a program that reads
    /// its input can be told to do anything it can do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub process: Vec<String>,
    /// URL prefixes: scheme, host and port must match exactly, the path by prefix. `https://*`
    /// (or `http://*`) is any public address over that scheme: never one on this machine or a
    /// private network, and never with a secret (`broker::http::public`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<String>,
    /// Names of secrets the host may attach to this plugin's HTTP requests (and to the requests
    /// of the providers it registers), only ever to the origins in `http`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<String>,
    /// Tools of other plugins whose calls this plugin's before-tool-call hook may change (`*`:
    /// every tool). A plugin may always change calls to its own tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewrite: Vec<String>,
    /// Environment variables its commands get besides the base set (`PATH`, `HOME`, `LANG`, …):
    /// exact names, or a prefix ending in `*` (`CARGO_*`). Variables that hold secrets are never
    /// passed, named or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// May start child agent runs (`tack:agents/agents`). A child uses only tools the parent
    /// session could, under every policy plugin, so the grant is about spending: a child costs
    /// model tokens and time the user pays for.
    #[serde(default, skip_serializing_if = "is_false")]
    pub agents: bool,
    /// Judges requests to run a command outside the command sandbox: a tool call whose arguments
    /// carry `"unsandboxed": true` runs its commands unconfined only when at least one plugin
    /// with this grant subscribes to before-tool-call, and none of the hooks blocked it. Such a
    /// plugin's "allow" of that call is an approval, so this is a policy's grant.
    #[serde(default, skip_serializing_if = "is_false")]
    pub escalation: bool,
    /// Draws components that take the keyboard while they are up (`screen.show-component`,
    /// 0.2.0: a selector, a form, a game). Framed under the plugin's name and closed by Ctrl+C,
    /// but while one is up, what the user types goes to the plugin.
    #[serde(default, skip_serializing_if = "is_false")]
    pub components: bool,
    /// Sees the body of each request sent to a model provider before it goes, and the status
    /// and headers of the answer (`tack:plugin/provider-hooks`, 0.2.0); with `replace`, may send
    /// another body instead. A body holds the whole conversation and system prompt (never a
    /// credential), and a replacement changes what the model is told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_payload: Option<PayloadAccess>,
    /// Names of tack's built-in tools (`read`, `bash`) this plugin's own tool of the same name
    /// replaces, as a Pi extension overrides a built-in tool. Only a built-in plugin's tool, and
    /// only at `init`: every policy plugin still judges each call by the tool's name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace_tools: Vec<String>,
    /// Channels of the event bus between plugins (`tack:plugin/bus`, 0.2.0), by exact name: it
    /// may send on them, and hears what other plugins granted the same channel send there.
    /// What crosses is whatever the two sides put in it, so a channel is an agreement between
    /// plugins the user lets talk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bus: Vec<String>,
}

/// How far the `provider_payload` grant reaches; `replace` includes `read`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PayloadAccess {
    Read,
    Replace,
}

impl PayloadAccess {
    /// The word `tack.toml` and `--grant provider_payload=…` use.
    pub fn as_str(self) -> &'static str {
        match self {
            PayloadAccess::Read => "read",
            PayloadAccess::Replace => "replace",
        }
    }
}

fn is_false(value: &bool) -> bool {
    !value
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsGrant {
    /// An absolute path, or `$WORKSPACE` optionally followed by `/sub/dir`.
    pub path: String,
    pub access: Access,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    Read,
    ReadWrite,
}

impl Capabilities {
    pub fn is_empty(&self) -> bool {
        self.fs.is_empty()
            && self.exec.is_empty()
            && self.process.is_empty()
            && self.http.is_empty()
            && self.secrets.is_empty()
            && self.rewrite.is_empty()
            && self.env.is_empty()
            && !self.agents
            && !self.escalation
            && !self.components
            && self.provider_payload.is_none()
            && self.replace_tools.is_empty()
            && self.bus.is_empty()
    }

    /// The part of `self` that `granted` covers.
    pub fn intersect(&self, granted: &Capabilities) -> Capabilities {
        Capabilities {
            fs: self
                .fs
                .iter()
                .filter(|want| {
                    granted.fs.iter().any(|g| {
                        g.path == want.path
                            && (g.access == want.access || g.access == Access::ReadWrite)
                    })
                })
                .cloned()
                .collect(),
            exec: keep(&self.exec, &granted.exec),
            process: keep(&self.process, &granted.process),
            http: keep(&self.http, &granted.http),
            secrets: keep(&self.secrets, &granted.secrets),
            rewrite: keep(&self.rewrite, &granted.rewrite),
            env: keep(&self.env, &granted.env),
            agents: self.agents && granted.agents,
            escalation: self.escalation && granted.escalation,
            components: self.components && granted.components,
            provider_payload: self.provider_payload.min(granted.provider_payload),
            replace_tools: keep(&self.replace_tools, &granted.replace_tools),
            bus: keep(&self.bus, &granted.bus),
        }
    }

    /// What `self` asks for beyond `other`.
    pub fn minus(&self, other: &Capabilities) -> Capabilities {
        Capabilities {
            fs: self
                .fs
                .iter()
                .filter(|g| !other.fs.contains(g))
                .cloned()
                .collect(),
            exec: self
                .exec
                .iter()
                .filter(|x| !other.exec.contains(x))
                .cloned()
                .collect(),
            process: self
                .process
                .iter()
                .filter(|x| !other.process.contains(x))
                .cloned()
                .collect(),
            http: self
                .http
                .iter()
                .filter(|x| !other.http.contains(x))
                .cloned()
                .collect(),
            secrets: self
                .secrets
                .iter()
                .filter(|x| !other.secrets.contains(x))
                .cloned()
                .collect(),
            rewrite: self
                .rewrite
                .iter()
                .filter(|x| !other.rewrite.contains(x))
                .cloned()
                .collect(),
            env: self
                .env
                .iter()
                .filter(|x| !other.env.contains(x))
                .cloned()
                .collect(),
            agents: self.agents && !other.agents,
            escalation: self.escalation && !other.escalation,
            components: self.components && !other.components,
            provider_payload: self
                .provider_payload
                .filter(|wanted| other.provider_payload < Some(*wanted)),
            replace_tools: self
                .replace_tools
                .iter()
                .filter(|x| !other.replace_tools.contains(x))
                .cloned()
                .collect(),
            bus: self
                .bus
                .iter()
                .filter(|x| !other.bus.contains(x))
                .cloned()
                .collect(),
        }
    }

    /// One line per capability, in words a user can judge.
    pub fn describe(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for fs in &self.fs {
            let what = match fs.access {
                Access::Read => "read files in",
                Access::ReadWrite => "read and write files in",
            };
            lines.push(format!("{what} {}", fs.path));
        }
        for pattern in &self.exec {
            if pattern.trim() == "**" {
                lines.push("run any command as you (full access to your account)".into());
            } else {
                lines.push(format!("run commands matching `{pattern}`"));
            }
        }
        for pattern in &self.process {
            if pattern.trim() == "**" {
                lines.push(
                    "start any program as you and keep it running, writing to its input (full \
                     access to your account)"
                        .into(),
                );
            } else {
                lines.push(format!(
                    "start programs matching `{pattern}` and keep them running, writing to their \
                     input (so they do whatever that input asks)"
                ));
            }
        }
        for url in &self.http {
            match crate::broker::http::public::wildcard_scheme(url) {
                Some(scheme) => lines.push(format!(
                    "send {scheme} requests to any public address on the internet (not to this \
                     machine or private networks, and with no secret)"
                )),
                None => lines.push(format!("send HTTP requests to {url}")),
            }
        }
        for secret in &self.secrets {
            lines.push(describe_secret(secret, &self.http));
        }
        for tool in &self.rewrite {
            if tool == "*" {
                lines.push("change the arguments of any tool call before it runs".into());
            } else {
                lines.push(format!(
                    "change the arguments of `{tool}` calls before they run"
                ));
            }
        }
        for var in &self.env {
            lines.push(format!(
                "give its commands your environment variable{} {var}",
                if var.ends_with('*') { "s" } else { "" }
            ));
        }
        if self.agents {
            lines.push(
                "start sub-agents and make model calls of its own: runs of the model (a \
                 sub-agent with your session's tools and policies, a model call with none) on \
                 your keys, which it never sees, that cost tokens"
                    .into(),
            );
        }
        if self.escalation {
            lines.push(
                "approve running commands outside the command sandbox (a policy's say, beside \
                 the others')"
                    .into(),
            );
        }
        if self.components {
            lines.push(
                "draw screens that take your keyboard while they are up (framed under its name; \
                 Ctrl+C closes them)"
                    .into(),
            );
        }
        match self.provider_payload {
            Some(PayloadAccess::Read) => lines.push(
                "see every request sent to the model provider (your whole conversation and \
                 system prompt) and the status and headers of its answers"
                    .into(),
            ),
            Some(PayloadAccess::Replace) => lines.push(
                "see and replace every request sent to the model provider (your whole \
                 conversation and system prompt: it can change what the model is told)"
                    .into(),
            ),
            None => {}
        }
        for tool in &self.replace_tools {
            lines.push(format!(
                "replace tack's built-in `{tool}` tool with its own (the model's `{tool}` calls \
                 run in this plugin; the policies still judge them)"
            ));
        }
        for channel in &self.bus {
            lines.push(format!(
                "send and hear messages on the plugin event bus channel `{channel}` (to and from \
                 every other plugin you grant `{channel}`)"
            ));
        }
        lines
    }
}

/// "sends ANTHROPIC_API_KEY to https://api.anthropic.com": a secret only ever goes to the
/// plugin's granted origins, so that is what a user is asked to judge.
pub fn describe_secret(secret: &str, http: &[String]) -> String {
    let named: Vec<&str> = http
        .iter()
        .map(String::as_str)
        .filter(|grant| crate::broker::http::public::wildcard_scheme(grant).is_none())
        .collect();
    if named.is_empty() {
        format!("send the secret {secret} (to no endpoint: it names no http origin)")
    } else {
        format!("send the secret {secret} to {}", named.join(", "))
    }
}

fn keep(wanted: &[String], granted: &[String]) -> Vec<String> {
    wanted
        .iter()
        .filter(|w| granted.contains(w))
        .cloned()
        .collect()
}

impl Manifest {
    pub fn parse(text: &str) -> Result<Self, String> {
        let manifest: Manifest = toml::from_str(text).map_err(|e| e.message().to_string())?;
        manifest.validate()?;
        Ok(manifest)
    }

    fn validate(&self) -> Result<(), String> {
        let name = &self.plugin.name;
        let name_ok = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if !name_ok {
            return Err(format!(
                "plugin name '{name}' must be 1-64 characters of a-z, 0-9, '-' or '_'"
            ));
        }
        if !api_supported(&self.plugin.api) {
            return Err(format!(
                "api '{}' is not supported by this tack (supported: {})",
                self.plugin.api,
                SUPPORTED_API_VERSIONS.join(", ")
            ));
        }
        let component = std::path::Path::new(&self.plugin.component);
        if component.is_absolute()
            || component
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(format!(
                "component '{}' must be a path inside the package",
                self.plugin.component
            ));
        }
        for fs in &self.capabilities.fs {
            if !(fs.path == "$WORKSPACE"
                || fs.path.starts_with("$WORKSPACE/")
                || std::path::Path::new(&fs.path).is_absolute())
            {
                return Err(format!(
                    "plugin '{name}': fs grant '{}' must be absolute or start with $WORKSPACE",
                    fs.path
                ));
            }
            // Checked on the text, before any lookup: `$WORKSPACE/..` must not even be asked for.
            if fs.path.split(['/', '\\']).any(|segment| segment == "..") {
                return Err(format!(
                    "plugin '{name}': fs grant '{}' contains a '..' segment; grant the directory \
                     itself",
                    fs.path
                ));
            }
        }
        for set in &self.paths {
            self.validate_paths(set)?;
        }
        for var in &self.capabilities.env {
            let stem = var.strip_suffix('*').unwrap_or(var);
            let well_formed = !stem.is_empty()
                && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !stem.starts_with(|c: char| c.is_ascii_digit());
            if !well_formed {
                return Err(format!(
                    "plugin '{name}': env grant '{var}' must be a variable name, or a prefix \
                     ending in '*' (like CARGO_*)"
                ));
            }
        }
        for channel in &self.capabilities.bus {
            crate::broker::bus::check_channel(channel)
                .map_err(|e| format!("plugin '{name}': {e}"))?;
        }
        if self.capabilities.bus.len() > crate::broker::bus::MAX_CHANNELS {
            return Err(format!(
                "plugin '{name}': {} bus channels is over the cap of {}",
                self.capabilities.bus.len(),
                crate::broker::bus::MAX_CHANNELS
            ));
        }
        for secret in &self.capabilities.secrets {
            if secret.starts_with(crate::broker::secrets::HOST_SECRET_PREFIX) {
                return Err(format!(
                    "plugin '{name}': secret '{secret}': names starting with '{}' are secrets the \
                     host keeps for its own built-in plugins (an MCP server's token); no package \
                     may ask for one",
                    crate::broker::secrets::HOST_SECRET_PREFIX
                ));
            }
        }
        for url in &self.capabilities.http {
            if crate::broker::http::public::wildcard_scheme(url).is_some() {
                continue;
            }
            let parsed = url::Url::parse(url).map_err(|e| format!("http grant '{url}': {e}"))?;
            if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
                return Err(format!(
                    "http grant '{url}' must be an http(s) URL with a host"
                ));
            }
        }
        Ok(())
    }

    fn validate_paths(&self, set: &PathSet) -> Result<(), String> {
        let name = &self.plugin.name;
        let has_dotdot = |p: &str| p.split(['/', '\\']).any(|segment| segment == "..");
        for user in &set.user {
            let placeholder = USER_PLACEHOLDERS.iter().find(|p| {
                user.strip_prefix(**p)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            });
            if placeholder.is_none() || has_dotdot(user) {
                return Err(format!(
                    "plugin '{name}': paths folder '{user}' must start with $TACK_HOME or $HOME \
                     and contain no '..'"
                ));
            }
        }
        for relative in set.project.iter().chain(&set.project_walk) {
            if relative.is_empty()
                || std::path::Path::new(relative).is_absolute()
                || has_dotdot(relative)
            {
                return Err(format!(
                    "plugin '{name}': project folder '{relative}' must be a relative path \
                     without '..'"
                ));
            }
        }
        if let Some(folder) = &set.packages {
            if folder.is_empty() || folder.contains(['/', '\\']) || folder == ".." {
                return Err(format!(
                    "plugin '{name}': packages folder '{folder}' must be a plain folder name"
                ));
            }
        }
        if set.option.is_empty() {
            return Err(format!(
                "plugin '{name}': a [[paths]] entry needs an option"
            ));
        }
        Ok(())
    }

    /// The manifest's default config as JSON text for `init`.
    pub fn config_json(&self) -> String {
        serde_json::to_string(&self.config).unwrap_or_else(|_| "{}".into())
    }
}

/// `api = "0.1"` or `"0.1.0"` both mean the 0.1 series; patch versions are compatible.
pub fn api_supported(api: &str) -> bool {
    SUPPORTED_API_VERSIONS.iter().any(|v| same_series(v, api))
}

/// Whether two versions are semver-compatible in the 0.x sense (same major and minor).
pub fn same_series(a: &str, b: &str) -> bool {
    let series = |v: &str| {
        let mut parts = v.split('.');
        (
            parts.next().map(str::to_owned),
            parts.next().map(str::to_owned),
        )
    };
    let (a, b) = (series(a), series(b));
    a.0.is_some() && a.1.is_some() && a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[plugin]
name = "permission-gate"
version = "0.3.1"
api = "0.1"
component = "permission_gate.wasm"

[capabilities]
fs = [{ path = "$WORKSPACE", access = "read" }]
exec = ["git status *"]
http = ["https://api.example.com"]
secrets = ["EXAMPLE_API_KEY"]
"#;

    #[test]
    fn parses_the_documented_example() {
        let m = Manifest::parse(GOOD).expect("valid");
        assert_eq!(m.plugin.name, "permission-gate");
        assert_eq!(m.capabilities.exec, vec!["git status *"]);
        assert_eq!(m.capabilities.fs[0].access, Access::Read);
    }

    #[test]
    fn rejects_unsupported_api_and_escaping_component() {
        let bad = GOOD.replace("api = \"0.1\"", "api = \"0.9\"");
        assert!(Manifest::parse(&bad).unwrap_err().contains("not supported"));
        let bad = GOOD.replace("permission_gate.wasm", "../x.wasm");
        assert!(Manifest::parse(&bad)
            .unwrap_err()
            .contains("inside the package"));
        let bad = GOOD.replace("name = \"permission-gate\"", "name = \"../evil\"");
        assert!(Manifest::parse(&bad).is_err());
    }

    #[test]
    fn rejects_dotdot_in_fs_grants_naming_plugin_and_grant() {
        for path in ["$WORKSPACE/..", "$WORKSPACE/docs/../..", "/home/u/../.."] {
            let bad = GOOD.replace(
                "path = \"$WORKSPACE\"",
                &format!("path = \"{}\"", path.replace('\\', "\\\\")),
            );
            let err = Manifest::parse(&bad).expect_err(path);
            assert!(
                err.contains("permission-gate") && err.contains(path) && err.contains("'..'"),
                "{err}"
            );
        }
        let ok = GOOD.replace("path = \"$WORKSPACE\"", "path = \"$WORKSPACE/docs..old\"");
        assert!(
            Manifest::parse(&ok).is_ok(),
            "only whole '..' segments are refused"
        );
    }

    #[test]
    fn path_sets_stay_in_their_places() {
        let with =
            |set: &str| Manifest::parse(&format!("{GOOD}\n[[paths]]\noption = \"dirs\"\n{set}\n"));
        let ok = with("user = [\"$TACK_HOME/skills\", \"$HOME/.agents/skills\"]\nproject = [\".tack/skills\"]\npackages = \"skills\"\nflag = \"skill\"").expect("valid");
        assert_eq!(ok.paths[0].flag.as_deref(), Some("skill"));
        for bad in [
            "user = [\"/etc\"]",
            "user = [\"$HOMEWORK\"]",
            "user = [\"$HOME/../x\"]",
            "project = [\"/abs\"]",
            "project_walk = [\"../up\"]",
            "packages = \"a/b\"",
        ] {
            assert!(with(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn intersection_keeps_only_granted() {
        let m = Manifest::parse(GOOD).expect("valid");
        let granted = Capabilities {
            exec: vec!["git status *".into()],
            ..Default::default()
        };
        let effective = m.capabilities.intersect(&granted);
        assert_eq!(effective.exec, vec!["git status *"]);
        assert!(effective.http.is_empty() && effective.fs.is_empty());
        assert_eq!(
            m.capabilities.minus(&effective).http,
            vec!["https://api.example.com"]
        );
    }

    #[test]
    fn no_manifest_may_ask_for_a_secret_the_host_keeps_for_itself() {
        let asks = GOOD.replace("\"EXAMPLE_API_KEY\"", "\"tack:mcp:github\"");
        let why = Manifest::parse(&asks).expect_err("refused");
        assert!(why.contains("tack:mcp:github"), "{why}");
    }

    #[test]
    fn a_read_grant_of_the_payload_covers_read_and_not_replace() {
        let m = Manifest::parse(&GOOD.replace(
            "[capabilities]",
            "[capabilities]\nprovider_payload = \"replace\"",
        ))
        .expect("valid");
        let read = Capabilities {
            provider_payload: Some(PayloadAccess::Read),
            ..Default::default()
        };
        let effective = m.capabilities.intersect(&read);
        assert_eq!(effective.provider_payload, Some(PayloadAccess::Read));
        assert_eq!(
            m.capabilities.minus(&effective).provider_payload,
            Some(PayloadAccess::Replace),
            "replacing is still ungranted"
        );
        assert_eq!(
            m.capabilities
                .intersect(&Capabilities::default())
                .provider_payload,
            None
        );
        assert!(m
            .capabilities
            .describe()
            .iter()
            .any(|l| l.contains("replace every request")));
        let asks_read = Capabilities {
            provider_payload: Some(PayloadAccess::Read),
            ..Default::default()
        };
        let replace = Capabilities {
            provider_payload: Some(PayloadAccess::Replace),
            ..Default::default()
        };
        assert_eq!(asks_read.minus(&replace).provider_payload, None);
        assert!(Manifest::parse(&GOOD.replace(
            "[capabilities]",
            "[capabilities]\nprovider_payload = \"write\""
        ))
        .is_err());
    }
}
