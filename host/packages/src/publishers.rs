//! Whose key a package must be signed with. The first signed install of a package name pins the
//! key that signed it (trust on first use) in `<tack home>/publishers.toml`; later versions must
//! be signed by the same key. Keys the user put in `<tack home>/trusted-keys/` (PEM `.pub` files,
//! as `tack keygen` writes them) are accepted without a first use, and may replace a pin.
//!
//! Pins outlive `tack remove`: removing a package and installing a look-alike under its name must
//! not reset whose it is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::signing::PublisherKey;

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PinFile {
    /// Package name → base64 of the publisher's raw ed25519 key.
    #[serde(default)]
    pins: BTreeMap<String, String>,
}

pub struct Publishers {
    path: PathBuf,
    pins: BTreeMap<String, String>,
    trusted: Vec<(String, PublisherKey)>,
}

/// What the signature check decided, for the user to read.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No signature, and none was required.
    Unsigned,
    /// Signed by the key pinned for the name.
    Pinned(PublisherKey),
    /// The first signed install of the name: the key is pinned from now on.
    FirstUse(PublisherKey),
    /// Signed by a key from `trusted-keys/` (file name given); pinned from now on.
    Trusted(PublisherKey, String),
}

impl Verdict {
    pub fn describe(&self, name: &str) -> String {
        match self {
            Verdict::Unsigned => "unsigned: nothing but the registry vouches for it".to_string(),
            Verdict::Pinned(key) => format!("signed by {}, the key pinned for {name}", key.fingerprint()),
            Verdict::FirstUse(key) => format!(
                "signed by {}; first install of {name}: pinning this key (trust on first use), later versions must be signed by it",
                key.fingerprint()
            ),
            Verdict::Trusted(key, file) => {
                format!("signed by {} (trusted-keys/{file})", key.fingerprint())
            }
        }
    }

    /// The key to pin once the package is installed.
    pub fn key_to_pin(&self) -> Option<&PublisherKey> {
        match self {
            Verdict::Unsigned => None,
            Verdict::Pinned(key) | Verdict::FirstUse(key) | Verdict::Trusted(key, _) => Some(key),
        }
    }
}

impl Publishers {
    pub fn load(home: &Path) -> Result<Self> {
        let path = home.join("publishers.toml");
        let file: PinFile = match std::fs::read_to_string(&path) {
            Ok(text) => {
                toml::from_str(&text).with_context(|| format!("{} is malformed", path.display()))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => PinFile::default(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let trusted = trusted_keys(&home.join("trusted-keys"))?;
        Ok(Self {
            path,
            pins: file.pins,
            trusted,
        })
    }

    pub fn pinned(&self, name: &str) -> Result<Option<PublisherKey>> {
        self.pins
            .get(name)
            .map(|k| {
                PublisherKey::from_base64(k).with_context(|| {
                    format!(
                        "the key pinned for {name} in {} is broken",
                        self.path.display()
                    )
                })
            })
            .transpose()
    }

    /// Decides whether a package `name` signed by `signers` (verified signatures, possibly none)
    /// may be installed.
    pub fn check(
        &self,
        name: &str,
        signers: &[PublisherKey],
        require_signature: bool,
    ) -> Result<Verdict> {
        let pinned = self.pinned(name)?;
        if signers.is_empty() {
            if let Some(pin) = pinned {
                bail!(
                    "refusing {name}: it is unsigned, but earlier versions were signed by {} (pinned in {}). If its publisher really stopped signing, remove the pin there",
                    pin.fingerprint(),
                    self.path.display()
                );
            }
            if require_signature {
                bail!("refusing {name}: it is unsigned, and a signature is required (--require-signature or [packages] require_signature in config.toml)");
            }
            return Ok(Verdict::Unsigned);
        }
        if let Some(pin) = &pinned {
            if signers.contains(pin) {
                return Ok(Verdict::Pinned(pin.clone()));
            }
        }
        for signer in signers {
            if let Some((file, _)) = self.trusted.iter().find(|(_, k)| k == signer) {
                return Ok(Verdict::Trusted(signer.clone(), file.clone()));
            }
        }
        if let Some(pin) = pinned {
            let seen: Vec<String> = signers.iter().map(PublisherKey::fingerprint).collect();
            bail!(
                "refusing {name}: it is signed by {}, but {name} was first installed signed by {} (pinned in {}). A new key may mean someone else published this version. If the publisher really changed keys, put their new public key in trusted-keys/ of the tack home",
                seen.join(", "),
                pin.fingerprint(),
                self.path.display()
            );
        }
        Ok(Verdict::FirstUse(signers[0].clone()))
    }

    pub fn pin(&mut self, name: &str, key: &PublisherKey) {
        self.pins.insert(name.to_string(), key.to_base64());
    }

    pub fn save(&self) -> Result<()> {
        let text = format!(
            "# Written by `tack install`: the key that signed each package name (trust on first use).\n{}",
            toml::to_string_pretty(&PinFile {
                pins: self.pins.clone(),
            })
            .context("serializing the publisher pins")?
        );
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut tmp, text.as_bytes())?;
        tmp.persist(&self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        Ok(())
    }
}

/// The `.pub` files of `dir`, by file name. A file that is not a key is an error naming it: a
/// key the user meant to trust must not be silently ignored.
fn trusted_keys(dir: &Path) -> Result<Vec<(String, PublisherKey)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut keys = Vec::new();
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "pub") {
            let name = entry.file_name().to_string_lossy().into_owned();
            keys.push((name, PublisherKey::read(&path)?));
        }
    }
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::keygen;

    #[test]
    fn first_use_pins_and_a_second_key_is_refused() {
        let home = tempfile::tempdir().expect("tmp");
        let keys = tempfile::tempdir().expect("tmp");
        let (_, _, a) = keygen(keys.path(), "a").expect("a");
        let (_, b_pub, b) = keygen(keys.path(), "b").expect("b");

        let mut publishers = Publishers::load(home.path()).expect("load");
        assert_eq!(
            publishers.check("p", &[], false).expect("unsigned"),
            Verdict::Unsigned
        );
        assert!(publishers.check("p", &[], true).is_err());
        let verdict = publishers
            .check("p", std::slice::from_ref(&a), false)
            .expect("tofu");
        assert_eq!(verdict, Verdict::FirstUse(a.clone()));
        publishers.pin("p", &a);
        publishers.save().expect("save");

        let publishers = Publishers::load(home.path()).expect("reload");
        assert_eq!(
            publishers
                .check("p", std::slice::from_ref(&a), true)
                .expect("same"),
            Verdict::Pinned(a.clone())
        );
        let err = publishers
            .check("p", std::slice::from_ref(&b), false)
            .expect_err("other key");
        assert!(err.to_string().contains(&a.fingerprint()), "{err}");
        assert!(
            publishers.check("p", &[], false).is_err(),
            "unsigned after a pin"
        );

        std::fs::create_dir_all(home.path().join("trusted-keys")).expect("dir");
        std::fs::copy(&b_pub, home.path().join("trusted-keys/b.pub")).expect("copy");
        let publishers = Publishers::load(home.path()).expect("reload");
        assert_eq!(
            publishers
                .check("p", std::slice::from_ref(&b), false)
                .expect("trusted"),
            Verdict::Trusted(b, "b.pub".into())
        );
    }
}
