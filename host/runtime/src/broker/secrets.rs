//! Secrets: looked up by name in the environment, then in `auth.json` in the tack home. Values go
//! into outgoing requests and never into a guest.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct SecretStore {
    auth_file: Option<PathBuf>,
    overrides: BTreeMap<String, String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SecretError {
    #[error("secret {0} is not granted to this plugin")]
    NotGranted(String),
    #[error("secret {0} is not set (export it or add it to auth.json)")]
    Missing(String),
    #[error("{0}")]
    AuthFile(String),
}

impl SecretStore {
    pub fn new(auth_file: Option<PathBuf>) -> Self {
        Self {
            auth_file,
            overrides: BTreeMap::new(),
        }
    }

    /// A value given on the command line (`--api-key`) wins over everything else.
    pub fn with_override(mut self, name: &str, value: String) -> Self {
        self.overrides.insert(name.to_string(), value);
        self
    }

    pub fn has(&self, name: &str) -> bool {
        self.lookup(name).is_ok()
    }

    /// Whether the host keeps `name` as a secret of its own: given on the command line or stored
    /// in `auth.json`. Such a variable never reaches a plugin's command.
    pub fn holds(&self, name: &str) -> bool {
        self.overrides.contains_key(name)
            || self
                .auth_file
                .as_deref()
                .and_then(|path| read_auth_file(path).ok())
                .is_some_and(|stored| stored.contains_key(name))
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
                return Ok(v);
            }
        }
        Err(SecretError::Missing(name.to_string()))
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
    serde_json::from_str(&text).map_err(|e| {
        SecretError::AuthFile(format!(
            "{} is not a JSON object of strings: {e}",
            path.display()
        ))
    })
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
}
