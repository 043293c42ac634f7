//! API keys (and subscription logins, `crate::subscription`) the user saves through tack (`/login <provider>` in the terminal UI, `tack login
//! <provider>`): written into the tack home's `auth.json` under the provider's secret name,
//! beside whatever else is there (other keys, `!command` values), where the host reads them as
//! it reads any key there. The file stays private to the user (0600) and is replaced whole, so a
//! crash mid-write leaves the old one.

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::{Map, Value};

use crate::models::catalog::ProviderEntry;

/// The secret `provider` takes its key from, and the provider's name as shown.
pub fn secret_for(providers: &[ProviderEntry], provider: &str) -> Result<(String, String)> {
    let Some(entry) = providers.iter().find(|e| e.id == provider) else {
        let known: Vec<&str> = providers
            .iter()
            .filter(|e| e.spec.secret.is_some())
            .map(|e| e.id.as_str())
            .collect();
        bail!(
            "unknown provider '{provider}' (with keys: {})",
            known.join(", ")
        );
    };
    if let Some(secret) = &entry.spec.secret {
        return Ok((secret.clone(), entry.spec.name.clone()));
    }
    // A preset whose credentials the host finds itself (Bedrock, Vertex) also takes an API key
    // of its own, which then goes instead.
    let preset_key = crate::models::presets::all()
        .iter()
        .find(|preset| entry.preset && preset.id == entry.id)
        .map(|preset| preset.secret.clone());
    match preset_key {
        Some(secret) => Ok((secret, entry.spec.name.clone())),
        None => bail!("provider '{provider}' takes no API key"),
    }
}

/// Saves `key` as `name`, replacing a key of that name.
pub fn save(auth: &Path, name: &str, key: &str) -> Result<()> {
    if key.starts_with('!') {
        // auth.json runs such a value as a command (a password manager's).
        bail!(
            "a key that starts with `!` would be run as a command; write a command into {} \
             yourself if that is what you mean",
            auth.display()
        );
    }
    let _lock = lock(auth)?;
    let mut keys = read(auth)?;
    keys.insert(name.to_string(), Value::String(key.to_string()));
    write(auth, &keys)
}

/// Removes the key (or the login) `name`; false when there was none.
pub fn forget(auth: &Path, name: &str) -> Result<bool> {
    let _lock = lock(auth)?;
    let mut keys = read(auth)?;
    if keys.remove(name).is_none() {
        return Ok(false);
    }
    write(auth, &keys)?;
    Ok(true)
}

/// Holds `auth.json` for one read-modify-write, against another tack doing the same (a login's
/// refresh in another session): `auth.json.lock` beside it, locked until this is dropped.
pub fn lock(auth: &Path) -> Result<std::fs::File> {
    let path = auth.with_extension("json.lock");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    // Waited for with a limit: a tack stopped (Ctrl+Z) while holding it must not hang this one.
    let deadline = std::time::Instant::now() + LOCK_WAIT;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(25))
            }
            Err(std::fs::TryLockError::WouldBlock) => bail!(
                "{} has been locked by another tack for {} s; is one stopped?",
                path.display(),
                LOCK_WAIT.as_secs()
            ),
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()))
            }
        }
    }
}

/// How long [`lock`] waits for another tack to finish with `auth.json`.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Every entry of `auth.json`: keys, and logins' tokens. Callers that write it back hold
/// [`lock`].
pub fn read(auth: &Path) -> Result<Map<String, Value>> {
    match std::fs::read_to_string(auth) {
        Ok(text) if text.trim().is_empty() => Ok(Map::new()),
        Ok(text) => serde_json::from_str(&text)
            .with_context(|| format!("{} is not a JSON object of keys", auth.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", auth.display())),
    }
}

pub fn write(auth: &Path, keys: &Map<String, Value>) -> Result<()> {
    let text = serde_json::to_string_pretty(keys).context("encoding the keys")?;
    crate::private_file::write(auth, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_saved_beside_the_others_privately_and_forgotten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let auth = dir.path().join("auth.json");
        std::fs::write(&auth, r#"{"OTHER_KEY": "!pass show other"}"#).expect("write");
        save(&auth, "GROQ_API_KEY", "gsk-1").expect("saved");
        let text = std::fs::read_to_string(&auth).expect("read");
        assert!(
            text.contains("!pass show other") && text.contains("gsk-1"),
            "{text}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&auth).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(forget(&auth, "GROQ_API_KEY").expect("forgot"));
        assert!(!forget(&auth, "GROQ_API_KEY").expect("nothing to forget"));
        assert!(!std::fs::read_to_string(&auth)
            .expect("read")
            .contains("gsk-1"));
        assert!(save(&auth, "A", "!rm -rf ~").is_err(), "never a command");
        std::fs::write(&auth, "[1]").expect("write");
        assert!(
            save(&auth, "A", "b").is_err(),
            "a broken file is not overwritten"
        );
    }
}
