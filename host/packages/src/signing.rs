//! Publisher keys and signatures: `tack keygen` makes an ed25519 key pair, `tack publish --sign`
//! signs a package's manifest digest with it, and `tack install` verifies the signature.
//!
//! What is signed is cosign's "simple signing" payload (a small JSON naming the manifest digest),
//! so a signature is laid out as cosign lays out its own. Keys are PEM: PKCS#8 for the private
//! key, SubjectPublicKeyInfo for the public one (the forms `cosign verify --key` reads).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use base64::Engine;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The `type` cosign writes into every payload it signs.
const COSIGN_TYPE: &str = "cosign container image signature";

/// A publisher's public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublisherKey(VerifyingKey);

impl PublisherKey {
    /// `SHA256:<base64>` of the raw key, as OpenSSH prints key fingerprints.
    pub fn fingerprint(&self) -> String {
        let digest = Sha256::digest(self.0.as_bytes());
        format!(
            "SHA256:{}",
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest)
        )
    }

    /// The raw 32 bytes, base64: how pins are stored and how a signature names its key.
    pub fn to_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.0.as_bytes())
    }

    pub fn from_base64(text: &str) -> Result<Self> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .context("the key is not base64")?;
        let raw: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
            anyhow::anyhow!("an ed25519 public key is 32 bytes, not {}", bytes.len())
        })?;
        Ok(Self(
            VerifyingKey::from_bytes(&raw).context("not a valid ed25519 public key")?,
        ))
    }

    pub fn to_pem(&self) -> Result<String> {
        self.0
            .to_public_key_pem(LineEnding::LF)
            .context("cannot encode the public key as PEM")
    }

    pub fn from_pem(text: &str) -> Result<Self> {
        Ok(Self(
            VerifyingKey::from_public_key_pem(text.trim())
                .context("not an ed25519 public key in PEM (-----BEGIN PUBLIC KEY-----)")?,
        ))
    }

    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Self::from_pem(&text).with_context(|| format!("{}", path.display()))
    }
}

/// An author's private key, read from a PKCS#8 PEM file.
pub struct AuthorKey(SigningKey);

impl AuthorKey {
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the signing key {}", path.display()))?;
        let key = SigningKey::from_pkcs8_pem(text.trim()).with_context(|| {
            format!(
                "{} is not an ed25519 private key in PEM (-----BEGIN PRIVATE KEY-----); `tack keygen` makes one",
                path.display()
            )
        })?;
        Ok(Self(key))
    }

    pub fn public(&self) -> PublisherKey {
        PublisherKey(self.0.verifying_key())
    }

    pub fn sign(&self, payload: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.0.sign(payload).to_bytes())
    }
}

/// Where `tack keygen` keeps key pairs: `<tack home>/keys/<name>.key` and `.pub`.
pub fn key_paths(home: &Path, name: &str) -> (PathBuf, PathBuf) {
    let dir = home.join("keys");
    (
        dir.join(format!("{name}.key")),
        dir.join(format!("{name}.pub")),
    )
}

/// Makes a new key pair under `<tack home>/keys/`, the private half readable by its owner only.
/// An existing key is never overwritten: packages signed with it would lose their publisher.
pub fn keygen(home: &Path, name: &str) -> Result<(PathBuf, PathBuf, PublisherKey)> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        bail!("key name '{name}' may hold only letters, digits, '-' and '_'");
    }
    let (private, public) = key_paths(home, name);
    if private.exists() || public.exists() {
        bail!(
            "{} already exists; packages signed with it would no longer verify against a new key. Pick another name (--name)",
            private.display()
        );
    }
    let dir = private.parent().unwrap_or(home);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let key = SigningKey::generate(&mut rand_core::OsRng);
    let pem = key
        .to_pkcs8_pem(LineEnding::LF)
        .context("cannot encode the private key")?;
    write_private(&private, pem.as_bytes())?;
    let publisher = PublisherKey(key.verifying_key());
    std::fs::write(&public, publisher.to_pem()?)
        .with_context(|| format!("cannot write {}", public.display()))?;
    Ok((private, public, publisher))
}

/// Creates `path` with mode 0600 from the start, so the key is never readable by others.
fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

#[derive(Debug, Serialize, Deserialize)]
struct Payload {
    critical: Critical,
    #[serde(default)]
    optional: Option<serde_json::Value>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Critical {
    identity: Identity,
    image: Image,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Identity {
    #[serde(rename = "docker-reference")]
    docker_reference: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Image {
    #[serde(rename = "docker-manifest-digest")]
    docker_manifest_digest: String,
}

/// The payload cosign signs for `repository` (`registry/namespace/name`) at `digest`.
pub fn payload(repository: &str, digest: &str) -> Vec<u8> {
    let payload = Payload {
        critical: Critical {
            identity: Identity {
                docker_reference: repository.to_string(),
            },
            image: Image {
                docker_manifest_digest: digest.to_string(),
            },
            kind: COSIGN_TYPE.to_string(),
        },
        optional: None,
    };
    // Serializing plain structs of strings cannot fail.
    serde_json::to_vec(&payload).unwrap_or_default()
}

/// Checks that `signature` (base64) by `key` is over `payload_bytes`, and that the payload names
/// `digest`: a signature of another manifest, however valid, vouches for nothing here.
pub fn verify(
    key: &PublisherKey,
    payload_bytes: &[u8],
    signature: &str,
    digest: &str,
) -> Result<()> {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(signature.trim())
        .context("the signature is not base64")?;
    let signature =
        Signature::from_slice(&raw).context("the signature is not an ed25519 signature")?;
    key.0
        .verify(payload_bytes, &signature)
        .map_err(|_| anyhow::anyhow!("the signature does not match key {}", key.fingerprint()))?;
    let payload: Payload =
        serde_json::from_slice(payload_bytes).context("the signed payload is not cosign's JSON")?;
    if payload.critical.kind != COSIGN_TYPE {
        bail!("the signed payload is of type '{}'", payload.critical.kind);
    }
    if payload.critical.image.docker_manifest_digest != digest {
        bail!(
            "the signature is for manifest {}, not {digest}",
            payload.critical.image.docker_manifest_digest
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_for_its_key_and_digest() {
        let home = tempfile::tempdir().expect("tmp");
        let (private, public, publisher) = keygen(home.path(), "me").expect("keygen");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&private)
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(PublisherKey::read(&public).expect("pub"), publisher);
        assert!(keygen(home.path(), "me").is_err(), "never overwrites");
        let author = AuthorKey::read(&private).expect("key");
        assert_eq!(author.public(), publisher);

        let digest = format!("sha256:{}", "a".repeat(64));
        let body = payload("127.0.0.1:5000/ns/p", &digest);
        let signature = author.sign(&body);
        verify(&publisher, &body, &signature, &digest).expect("verifies");

        let other = format!("sha256:{}", "b".repeat(64));
        assert!(verify(&publisher, &body, &signature, &other).is_err());
        let (_, _, stranger) = keygen(home.path(), "other").expect("keygen");
        assert!(verify(&stranger, &body, &signature, &digest).is_err());
        let forged = payload("127.0.0.1:5000/ns/p", &other);
        assert!(verify(&publisher, &forged, &signature, &other).is_err());
        assert_eq!(
            PublisherKey::from_base64(&publisher.to_base64()).expect("b64"),
            publisher
        );
        assert!(publisher.fingerprint().starts_with("SHA256:"));
    }
}
