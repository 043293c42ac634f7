//! Registry credentials: those `tack login` saved in `<tack home>/registries.toml` (mode 0600),
//! else the Docker config's (`$DOCKER_CONFIG/config.json` or `~/.docker/config.json`, with its
//! credential helpers), else anonymous. Credentials are never printed, logged or locked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use oci_client::secrets::RegistryAuth;
use serde::{Deserialize, Serialize};

#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Store {
    #[serde(default)]
    registries: BTreeMap<String, Login>,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Login {
    username: String,
    password: String,
}

fn store_path(home: &Path) -> PathBuf {
    home.join("registries.toml")
}

fn load(home: &Path) -> Result<Store> {
    let path = store_path(home);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            toml::from_str(&text).with_context(|| format!("{} is malformed", path.display()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Store::default()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The credentials to use for `registry` (`host[:port]`), and where they came from.
pub fn credentials(home: &Path, registry: &str) -> Result<(RegistryAuth, &'static str)> {
    if let Some(login) = load(home)?.registries.get(registry) {
        return Ok((
            RegistryAuth::Basic(login.username.clone(), login.password.clone()),
            "tack login",
        ));
    }
    match docker_credential::get_credential(registry) {
        Ok(docker_credential::DockerCredential::UsernamePassword(user, password)) => {
            Ok((RegistryAuth::Basic(user, password), "the Docker config"))
        }
        // An identity token is a refresh token for an OAuth exchange the registry client does not
        // do; pulling public packages anonymously still works.
        Ok(docker_credential::DockerCredential::IdentityToken(_)) | Err(_) => {
            Ok((RegistryAuth::Anonymous, "none"))
        }
    }
}

/// `tack login`: saves `username` and `password` for `registry`.
pub fn login(home: &Path, registry: &str, username: &str, password: &str) -> Result<PathBuf> {
    if registry.is_empty() || registry.contains('/') || registry.contains("://") {
        bail!("'{registry}' is not a registry host (give host[:port], like ghcr.io or 127.0.0.1:5000)");
    }
    if username.is_empty() || password.is_empty() {
        bail!("a username and a password are needed");
    }
    let mut store = load(home)?;
    store.registries.insert(
        registry.to_string(),
        Login {
            username: username.to_string(),
            password: password.to_string(),
        },
    );
    let path = store_path(home);
    let text = toml::to_string_pretty(&store).context("serializing registry logins")?;
    let dir = path.parent().unwrap_or(home);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // Written to a private temp file and renamed, so the passwords are never readable by others.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    std::io::Write::write_all(&mut tmp, text.as_bytes())?;
    tmp.persist(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
