//! Secrets: looked up by name in the environment, then in `auth.json` in the tack home. Values go
//! into outgoing requests and never into a guest.
//!
//! A value in `auth.json` is read as Pi reads one: `!command` runs the command (once per process)
//! and takes what it prints, so a password manager can hold the key; a value that names a set
//! environment variable takes that variable's value; anything else is the key itself.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Default)]
pub struct SecretStore {
    auth_file: Option<PathBuf>,
    overrides: BTreeMap<String, String>,
    /// Secrets the host made for one address: name -> the URL prefix they may go to.
    bound: BTreeMap<String, String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SecretError {
    #[error("secret {0} is not granted to this plugin")]
    NotGranted(String),
    #[error("secret {0} is not set (export it or add it to auth.json)")]
    Missing(String),
    #[error("{0}")]
    AuthFile(String),
    #[error("secret {name}: the command `{command}` in auth.json {problem}")]
    Command {
        name: String,
        command: String,
        problem: String,
    },
}

/// Secrets named with this prefix are the host's own, made at start-up for a built-in plugin
/// (`tack:mcp:<server>`: an MCP server's header); a manifest may not ask for one.
pub const HOST_SECRET_PREFIX: &str = "tack:";

/// How long a key command (a password manager asked for a key) may take.
const KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

impl SecretStore {
    pub fn new(auth_file: Option<PathBuf>) -> Self {
        Self {
            auth_file,
            overrides: BTreeMap::new(),
            bound: BTreeMap::new(),
        }
    }

    /// The `auth.json` keys are read from (and subscription logins kept in), if any.
    pub fn auth_file(&self) -> Option<&Path> {
        self.auth_file.as_deref()
    }

    /// A secret the host holds for requests to `url` (and below it) alone, whatever else the
    /// plugin it is granted to may reach: an MCP server's token goes to that server only.
    pub fn with_bound_override(mut self, name: &str, value: String, url: &str) -> Self {
        self.overrides.insert(name.to_string(), value);
        self.bound.insert(name.to_string(), url.to_string());
        self
    }

    /// The URL prefix `name` may go to, if the host bound it to one.
    pub fn bound_to(&self, name: &str) -> Option<&str> {
        self.bound.get(name).map(String::as_str)
    }

    /// A value given on the command line (`--api-key`) wins over everything else.
    pub fn with_override(mut self, name: &str, value: String) -> Self {
        self.overrides.insert(name.to_string(), value);
        self
    }

    /// Whether `name` has a value, without running a key command to find out (that happens
    /// when the key is first sent, and a failing command is reported then).
    pub fn has(&self, name: &str) -> bool {
        self.overrides.contains_key(name)
            || std::env::var(name).is_ok_and(|v| !v.is_empty())
            || self
                .stored()
                .is_some_and(|stored| stored.get(name).is_some_and(|v| !v.is_empty()))
    }

    /// Whether the host keeps `name` as a secret of its own: given on the command line, stored
    /// in `auth.json`, or named there as the variable a key is read from. Such a variable never
    /// reaches a plugin's command.
    pub fn holds(&self, name: &str) -> bool {
        self.overrides.contains_key(name)
            || self.stored().is_some_and(|stored| {
                stored.contains_key(name) || stored.values().any(|value| value == name)
            })
    }

    fn stored(&self) -> Option<BTreeMap<String, String>> {
        read_auth_file(self.auth_file.as_deref()?).ok()
    }

    pub fn lookup(&self, name: &str) -> Result<String, SecretError> {
        if let Some(v) = self.overrides.get(name) {
            return Ok(v.clone());
        }
        if let Ok(v) = std::env::var(name) {
            if !v.is_empty() {
                return Ok(v);
            }
        }
        if let Some(path) = &self.auth_file {
            if let Some(v) = read_auth_file(path)?.remove(name) {
                return resolve_stored(name, v);
            }
        }
        Err(SecretError::Missing(name.to_string()))
    }
}

/// What an `auth.json` value stands for (see the module's doc).
fn resolve_stored(name: &str, value: String) -> Result<String, SecretError> {
    if let Some(command) = value.strip_prefix('!') {
        return run_key_command(name, command.trim());
    }
    if is_variable_name(&value) {
        if let Ok(from_env) = std::env::var(&value) {
            if !from_env.is_empty() {
                return Ok(from_env);
            }
        }
    }
    Ok(value)
}

fn is_variable_name(value: &str) -> bool {
    let mut chars = value.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Runs a key command once per process; later lookups (every request sends the key) reuse what
/// it printed, or its failure.
fn run_key_command(name: &str, command: &str) -> Result<String, SecretError> {
    static RAN: OnceLock<Mutex<HashMap<String, Result<String, String>>>> = OnceLock::new();
    let ran = RAN.get_or_init(Default::default);
    let mut ran = ran.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let outcome = ran
        .entry(command.to_string())
        .or_insert_with(|| key_command_output(command));
    outcome.clone().map_err(|problem| SecretError::Command {
        name: name.to_string(),
        command: command.to_string(),
        problem,
    })
}

/// What `command` (run by `sh`, at most 30 s) prints, trimmed; or why it failed, with what it
/// said on stderr. Also runs an AWS profile's `credential_process`.
pub(crate) fn key_command_output(command: &str) -> Result<String, String> {
    if command.is_empty() {
        return Err("is empty".into());
    }
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not be started: {e}"))?;
    // Read both pipes while the command runs, so a chatty one cannot fill a pipe and stall.
    let readers = [
        child.stdout.take().map(drain),
        child.stderr.take().map(drain),
    ];
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < KEY_COMMAND_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "took longer than {} s and was stopped",
                    KEY_COMMAND_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Err(format!("could not be waited for: {e}")),
        }
    };
    let [stdout, stderr] =
        readers.map(|reader| reader.and_then(|r| r.join().ok()).unwrap_or_default());
    if !status.success() {
        let said = stderr.trim();
        return Err(match said.is_empty() {
            true => format!("failed ({status})"),
            false => format!("failed ({status}): {}", excerpt(said)),
        });
    }
    let key = stdout.trim();
    if key.is_empty() {
        return Err("printed nothing".into());
    }
    Ok(key.to_string())
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn read_auth_file(path: &Path) -> Result<BTreeMap<String, String>, SecretError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(SecretError::AuthFile(format!("{}: {e}", path.display()))),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.permissions().mode() & 0o077 != 0 {
                return Err(SecretError::AuthFile(format!(
                    "{} is readable by other users; run `chmod 600 {}`",
                    path.display(),
                    path.display()
                )));
            }
        }
    }
    let entries: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| {
            SecretError::AuthFile(format!("{} is not a JSON object: {e}", path.display()))
        })?;
    // Keys are strings. An object is a subscription login's tokens, which only the host's own
    // login code reads: they are never a secret a plugin can be granted.
    entries
        .into_iter()
        .filter_map(|(name, value)| match value {
            serde_json::Value::String(value) => Some(Ok((name, value))),
            serde_json::Value::Object(_) => None,
            _ => Some(Err(SecretError::AuthFile(format!(
                "{}: the value of {name} is not a string",
                path.display()
            )))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_file_must_be_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("auth.json");
        std::fs::write(&path, r#"{"TACK_TEST_SECRET_X": "s3cret"}"#).expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
            let store = SecretStore::new(Some(path.clone()));
            assert!(matches!(
                store.lookup("TACK_TEST_SECRET_X"),
                Err(SecretError::AuthFile(_))
            ));
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        }
        let store = SecretStore::new(Some(path));
        assert_eq!(store.lookup("TACK_TEST_SECRET_X").as_deref(), Ok("s3cret"));
        assert_eq!(
            store.lookup("TACK_TEST_SECRET_MISSING"),
            Err(SecretError::Missing("TACK_TEST_SECRET_MISSING".into()))
        );
    }

    #[test]
    fn a_logins_tokens_are_never_a_secret() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = private_auth_file(
            dir.path(),
            r#"{"openai-codex": {"type": "oauth", "access": "at-1", "refresh": "rt-1"},
                "TACK_TEST_KEY_Y": "k"}"#,
        );
        let store = SecretStore::new(Some(path.clone()));
        assert_eq!(store.lookup("TACK_TEST_KEY_Y").as_deref(), Ok("k"));
        assert_eq!(
            store.lookup("openai-codex"),
            Err(SecretError::Missing("openai-codex".into()))
        );
        assert!(!store.has("openai-codex") && !store.holds("openai-codex"));
        std::fs::write(&path, r#"{"TACK_TEST_KEY_Y": 7}"#).expect("write");
        assert!(matches!(
            store.lookup("TACK_TEST_KEY_Y"),
            Err(SecretError::AuthFile(problem)) if problem.contains("TACK_TEST_KEY_Y")
        ));
    }

    fn private_auth_file(dir: &Path, json: &str) -> PathBuf {
        let path = dir.join("auth.json");
        std::fs::write(&path, json).expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        }
        path
    }

    #[cfg(unix)]
    #[test]
    fn a_stored_command_runs_once_and_its_output_is_the_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        let count = dir.path().join("runs");
        let json = serde_json::json!({
            "TACK_TEST_CMD_KEY": format!("!echo run >> '{}'; printf '  k3y\\n'", count.display()),
            "TACK_TEST_CMD_FAILS": "!echo 'vault is locked' >&2; exit 3",
            "TACK_TEST_CMD_SILENT": "!true",
        });
        let store = SecretStore::new(Some(private_auth_file(dir.path(), &json.to_string())));
        assert!(
            store.has("TACK_TEST_CMD_FAILS"),
            "present without running it"
        );
        assert_eq!(store.lookup("TACK_TEST_CMD_KEY").as_deref(), Ok("k3y"));
        assert_eq!(store.lookup("TACK_TEST_CMD_KEY").as_deref(), Ok("k3y"));
        let runs = std::fs::read_to_string(&count).expect("runs");
        assert_eq!(runs.lines().count(), 1, "run once per process");
        let failed = store.lookup("TACK_TEST_CMD_FAILS").unwrap_err().to_string();
        assert!(failed.contains("TACK_TEST_CMD_FAILS"), "{failed}");
        assert!(failed.contains("exit status: 3"), "{failed}");
        assert!(failed.contains("vault is locked"), "{failed}");
        let silent = store
            .lookup("TACK_TEST_CMD_SILENT")
            .unwrap_err()
            .to_string();
        assert!(silent.contains("printed nothing"), "{silent}");
    }

    #[test]
    fn a_stored_variable_name_reads_that_variable_and_anything_else_is_the_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A name no other test sets, read from this process's environment.
        let var = "TACK_TEST_SECRET_INDIRECT_SOURCE";
        let json = serde_json::json!({
            "TACK_TEST_VIA_ENV": var,
            "TACK_TEST_UNSET_NAME": "TACK_TEST_SECRET_NEVER_SET",
            "TACK_TEST_LITERAL": "sk-literal-123",
        });
        let store = SecretStore::new(Some(private_auth_file(dir.path(), &json.to_string())));
        assert_eq!(
            store.lookup("TACK_TEST_UNSET_NAME").as_deref(),
            Ok("TACK_TEST_SECRET_NEVER_SET"),
            "an unset variable's name is taken as the key itself, as Pi does"
        );
        assert_eq!(
            store.lookup("TACK_TEST_LITERAL").as_deref(),
            Ok("sk-literal-123")
        );
        assert!(
            store.holds(var),
            "the variable a key comes from is kept from plugins"
        );
        assert!(!store.holds("PATH"));
        std::env::set_var(var, "from-the-environment");
        assert_eq!(
            store.lookup("TACK_TEST_VIA_ENV").as_deref(),
            Ok("from-the-environment")
        );
    }
}
