//! API keys the user saves through tack (`/login <provider>` in the terminal UI, `tack login
//! <provider>`): written into the tack home's `auth.json` under the provider's secret name,
//! beside whatever else is there (other keys, `!command` values), where the host reads them as
//! it reads any key there. The file stays private to the user (0600) and is replaced whole, so a
//! crash mid-write leaves the old one.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Map, Value};

/// Saves `key` as `name`, replacing a key of that name.
pub fn save(auth: &Path, name: &str, key: &str) -> Result<()> {
    let mut keys = read(auth)?;
    keys.insert(name.to_string(), Value::String(key.to_string()));
    write(auth, &keys)
}

/// Removes the key `name`; false when there was none.
pub fn forget(auth: &Path, name: &str) -> Result<bool> {
    let mut keys = read(auth)?;
    if keys.remove(name).is_none() {
        return Ok(false);
    }
    write(auth, &keys)?;
    Ok(true)
}

fn read(auth: &Path) -> Result<Map<String, Value>> {
    match std::fs::read_to_string(auth) {
        Ok(text) if text.trim().is_empty() => Ok(Map::new()),
        Ok(text) => serde_json::from_str(&text)
            .with_context(|| format!("{} is not a JSON object of keys", auth.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", auth.display())),
    }
}

fn write(auth: &Path, keys: &Map<String, Value>) -> Result<()> {
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
        std::fs::write(&auth, "[1]").expect("write");
        assert!(
            save(&auth, "A", "b").is_err(),
            "a broken file is not overwritten"
        );
    }
}
