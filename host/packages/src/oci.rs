//! Packages in OCI registries, laid out as the CNCF Wasm OCI Artifact: the manifest at the tag has
//! a `application/vnd.wasm.config.v0+json` config and exactly one `application/wasm` layer, the
//! component, so `wkg oci pull` and registry UIs see a Wasm component.
//!
//! The rest of the package (tack.toml, README, skills, prompts) is one `.tar.gz` blob whose digest
//! the manifest names in its `dev.tack.package.files` annotation: the manifest digest (what is
//! locked and signed) covers every byte of the package. A second manifest, tagged
//! `sha256-<hex>.tack` and with the package manifest as its `subject`, holds that blob as its layer
//! so registries keep it (and show it as a referrer).
//!
//! A signature sits where cosign puts one: a manifest tagged `sha256-<hex>.sig` whose layer is
//! cosign's simple-signing payload, with the base64 signature in the layer's
//! `dev.cosignproject.cosign/signature` annotation and the signer's raw public key in
//! `dev.tack.publisher-key`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::errors::{OciDistributionError, OciErrorCode};
use oci_client::manifest::{OciDescriptor, OciImageManifest, OCI_IMAGE_MEDIA_TYPE};
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::signing::{self, AuthorKey, PublisherKey};

pub const WASM_CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
pub const WASM_LAYER_MEDIA_TYPE: &str = "application/wasm";
const FILES_MEDIA_TYPE: &str = "application/vnd.tack.package.files.v1.tar+gzip";
const FILES_ARTIFACT_TYPE: &str = "application/vnd.tack.package.v1";
const FILES_ANNOTATION: &str = "dev.tack.package.files";
const EMPTY_MEDIA_TYPE: &str = "application/vnd.oci.empty.v1+json";
const COSIGN_LAYER_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
const COSIGN_SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
const PUBLISHER_KEY_ANNOTATION: &str = "dev.tack.publisher-key";

/// Largest blob pulled (the component, the package files): as large as any package may be.
const MAX_BLOB: u64 = crate::MAX_DOWNLOAD;

/// `oci://<registry>/<repository>[:<tag>][@sha256:<hex>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciRef {
    pub registry: String,
    pub repository: String,
    pub tag: Option<String>,
    pub digest: Option<String>,
}

impl OciRef {
    /// Parses the text after `oci://`. The first path segment is always the registry host, so
    /// nothing silently resolves to Docker Hub.
    pub fn parse(text: &str) -> Result<Self> {
        let full = format!("oci://{text}");
        let (registry, rest) = text
            .split_once('/')
            .with_context(|| format!("'{full}' needs a registry and a repository: oci://<registry>/<namespace>/<name>:<tag>"))?;
        if registry.is_empty() || registry.contains('@') {
            bail!("'{full}' has no registry host");
        }
        let (rest, digest) = match rest.split_once('@') {
            Some((r, d)) => (r, Some(d.to_string())),
            None => (rest, None),
        };
        let (repository, tag) = match rest.rsplit_once(':') {
            Some((r, t)) if !t.contains('/') => (r, Some(t.to_string())),
            _ => (rest, None),
        };
        if repository.is_empty()
            || !repository.split('/').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
            })
        {
            bail!("'{full}': repository '{repository}' may hold only lowercase letters, digits, '.', '_', '-' and '/'");
        }
        if let Some(tag) = &tag {
            let valid = tag.len() <= 128
                && tag
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && tag
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
            if !valid {
                bail!("'{full}': '{tag}' is not a valid tag");
            }
        }
        if let Some(digest) = &digest {
            if !is_sha256_digest(digest) {
                bail!("'{full}': '{digest}' is not a digest (sha256:<64 hex digits>)");
            }
        }
        if tag.is_none() && digest.is_none() {
            bail!("'{full}' names no version: add a tag (:1.0.0) or a digest (@sha256:…)");
        }
        Ok(Self {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag,
            digest,
        })
    }

    pub fn to_url(&self) -> String {
        let mut text = format!("oci://{}/{}", self.registry, self.repository);
        if let Some(tag) = &self.tag {
            text.push(':');
            text.push_str(tag);
        }
        if let Some(digest) = &self.digest {
            text.push('@');
            text.push_str(digest);
        }
        text
    }

    /// `registry/repository`, as the signature payload names it.
    pub fn repository_path(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }

    fn reference(&self) -> Reference {
        match (&self.digest, &self.tag) {
            (Some(digest), _) => self.at_digest(digest),
            (None, Some(tag)) => self.at_tag(tag),
            (None, None) => self.at_tag("latest"),
        }
    }

    fn at_digest(&self, digest: &str) -> Reference {
        Reference::with_digest(
            self.registry.clone(),
            self.repository.clone(),
            digest.to_string(),
        )
    }

    fn at_tag(&self, tag: &str) -> Reference {
        Reference::with_tag(
            self.registry.clone(),
            self.repository.clone(),
            tag.to_string(),
        )
    }

    fn is_loopback(&self) -> bool {
        let host = match self.registry.rsplit_once(':') {
            Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
            _ => self.registry.as_str(),
        };
        matches!(host, "127.0.0.1" | "localhost" | "[::1]")
    }
}

fn is_sha256_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    })
}

pub fn sha256_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// A client for `reference`'s registry: https always, except plain http for a registry on this
/// machine (a registry run for development or tests), never for any other host.
fn client(reference: &OciRef) -> Client {
    let protocol = if reference.is_loopback() {
        ClientProtocol::HttpsExcept(vec![reference.registry.clone()])
    } else {
        ClientProtocol::Https
    };
    Client::new(ClientConfig {
        protocol,
        read_timeout: Some(std::time::Duration::from_secs(300)),
        ..Default::default()
    })
}

/// Names the registry and how to log in, without the credentials themselves.
fn registry_error(
    e: OciDistributionError,
    what: &str,
    reference: &OciRef,
    how: &str,
) -> anyhow::Error {
    let hint = if matches!(&e, OciDistributionError::UnauthorizedError { .. })
        || e.to_string().contains("401")
        || e.to_string().to_ascii_lowercase().contains("unauthorized")
    {
        format!(
            " (credentials used: {how}; log in with `tack login {}` or `docker login`)",
            reference.registry
        )
    } else {
        String::new()
    };
    anyhow::anyhow!("{what} {}: {e}{hint}", reference.to_url())
}

fn is_not_found(e: &OciDistributionError) -> bool {
    match e {
        OciDistributionError::ImageManifestNotFoundError(_) => true,
        OciDistributionError::RegistryError { envelope, .. } => envelope.errors.iter().any(|err| {
            matches!(
                err.code,
                OciErrorCode::ManifestUnknown | OciErrorCode::NotFound
            )
        }),
        OciDistributionError::ServerError { code, .. } => *code == 404,
        _ => false,
    }
}

/// The manifest's bytes as pushed: canonical JSON, so its digest is what the registry computes.
fn manifest_bytes(manifest: &OciImageManifest) -> Result<Vec<u8>> {
    serde_json::to_vec(manifest).context("serializing a manifest")
}

fn descriptor(media_type: &str, bytes: &[u8]) -> OciDescriptor {
    OciDescriptor {
        media_type: media_type.to_string(),
        digest: sha256_digest(bytes),
        size: bytes.len() as i64,
        ..Default::default()
    }
}

/// The Wasm OCI Artifact config.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WasmConfig {
    created: String,
    architecture: &'static str,
    os: &'static str,
    layer_digests: Vec<String>,
}

/// What `tack publish` pushes.
pub struct Publication<'a> {
    pub name: &'a str,
    pub version: &'a str,
    pub description: &'a str,
    pub component: Vec<u8>,
    /// The package's other files as a `.tar.gz`.
    pub files: Vec<u8>,
    pub signer: Option<&'a AuthorKey>,
}

/// Pushes a package to `reference` (which names a tag) and returns the manifest digest.
pub async fn push(home: &Path, reference: &OciRef, package: Publication<'_>) -> Result<String> {
    let Some(tag) = &reference.tag else {
        bail!("publish to a tag (oci://…/name:1.0.0), not a digest");
    };
    if reference.digest.is_some() {
        bail!("publish to a tag only; the digest is what the registry computes");
    }
    let (auth, how) = super::registry_auth::credentials(home, &reference.registry)?;
    let client = client(reference);
    let target = reference.at_tag(tag);
    client
        .store_auth_if_needed(target.resolve_registry(), &auth)
        .await;
    let push_blob = |bytes: Vec<u8>| {
        let client = &client;
        let target = &target;
        async move {
            let digest = sha256_digest(&bytes);
            client
                .push_blob(target, &bytes, &digest)
                .await
                .map_err(|e| registry_error(e, "cannot push a blob to", reference, how))?;
            Ok::<_, anyhow::Error>(digest)
        }
    };

    let component = descriptor(WASM_LAYER_MEDIA_TYPE, &package.component);
    let files = descriptor(FILES_MEDIA_TYPE, &package.files);
    let config = serde_json::to_vec(&WasmConfig {
        created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        architecture: "wasm",
        os: "wasip2",
        layer_digests: vec![component.digest.clone()],
    })
    .context("serializing the config")?;
    let config_descriptor = descriptor(WASM_CONFIG_MEDIA_TYPE, &config);
    push_blob(package.component).await?;
    push_blob(package.files).await?;
    push_blob(config).await?;

    let mut annotations = BTreeMap::from([
        (
            "org.opencontainers.image.title".to_string(),
            package.name.to_string(),
        ),
        (
            "org.opencontainers.image.version".to_string(),
            package.version.to_string(),
        ),
        (FILES_ANNOTATION.to_string(), files.digest.clone()),
    ]);
    if !package.description.is_empty() {
        annotations.insert(
            "org.opencontainers.image.description".to_string(),
            package.description.to_string(),
        );
    }
    let manifest = OciImageManifest {
        media_type: Some(OCI_IMAGE_MEDIA_TYPE.to_string()),
        config: config_descriptor,
        layers: vec![component],
        annotations: Some(annotations),
        ..Default::default()
    };
    let body = manifest_bytes(&manifest)?;
    let digest = sha256_digest(&body);
    push_manifest(&client, &target, body, reference, how).await?;
    let subject = OciDescriptor {
        media_type: OCI_IMAGE_MEDIA_TYPE.to_string(),
        digest: digest.clone(),
        size: manifest_bytes(&manifest)?.len() as i64,
        ..Default::default()
    };

    // The files' own manifest keeps the blob referenced (registries collect unreferenced blobs).
    let empty = b"{}".to_vec();
    let empty_descriptor = descriptor(EMPTY_MEDIA_TYPE, &empty);
    push_blob(empty).await?;
    let files_manifest = OciImageManifest {
        media_type: Some(OCI_IMAGE_MEDIA_TYPE.to_string()),
        artifact_type: Some(FILES_ARTIFACT_TYPE.to_string()),
        config: empty_descriptor,
        layers: vec![files],
        subject: Some(subject.clone()),
        annotations: None,
        ..Default::default()
    };
    let files_tag = reference.at_tag(&format!("{}.tack", digest.replace(':', "-")));
    push_manifest(
        &client,
        &files_tag,
        manifest_bytes(&files_manifest)?,
        reference,
        how,
    )
    .await?;

    if let Some(key) = package.signer {
        let payload = signing::payload(&reference.repository_path(), &digest);
        let signature = key.sign(&payload);
        let payload_digest = sha256_digest(&payload);
        let mut layer = descriptor(COSIGN_LAYER_MEDIA_TYPE, &payload);
        layer.annotations = Some(BTreeMap::from([
            (COSIGN_SIGNATURE_ANNOTATION.to_string(), signature),
            (
                PUBLISHER_KEY_ANNOTATION.to_string(),
                key.public().to_base64(),
            ),
        ]));
        // The image config cosign writes for its signature manifests.
        let sig_config = serde_json::to_vec(&serde_json::json!({
            "architecture": "",
            "config": {},
            "created": "0001-01-01T00:00:00Z",
            "history": [{ "created": "0001-01-01T00:00:00Z" }],
            "os": "",
            "rootfs": { "type": "layers", "diff_ids": [payload_digest] },
        }))
        .context("serializing the signature config")?;
        let sig_config_descriptor =
            descriptor(oci_client::manifest::IMAGE_CONFIG_MEDIA_TYPE, &sig_config);
        push_blob(payload).await?;
        push_blob(sig_config).await?;
        let sig_manifest = OciImageManifest {
            media_type: Some(OCI_IMAGE_MEDIA_TYPE.to_string()),
            config: sig_config_descriptor,
            layers: vec![layer],
            ..Default::default()
        };
        let sig_tag = reference.at_tag(&signature_tag(&digest));
        push_manifest(
            &client,
            &sig_tag,
            manifest_bytes(&sig_manifest)?,
            reference,
            how,
        )
        .await?;
    }
    Ok(digest)
}

fn signature_tag(digest: &str) -> String {
    format!("{}.sig", digest.replace(':', "-"))
}

async fn push_manifest(
    client: &Client,
    target: &Reference,
    body: Vec<u8>,
    reference: &OciRef,
    how: &str,
) -> Result<()> {
    client
        .push_manifest_raw(
            target,
            body,
            reqwest::header::HeaderValue::from_static(OCI_IMAGE_MEDIA_TYPE),
        )
        .await
        .map_err(|e| registry_error(e, "cannot push a manifest to", reference, how))?;
    Ok(())
}

/// A package pulled into a work folder.
pub struct Pulled {
    /// The folder holding tack.toml and the component.
    pub dir: PathBuf,
    /// The manifest digest the reference resolved to.
    pub digest: String,
    /// Keys whose signatures over this digest verified (empty: unsigned).
    pub signers: Vec<PublisherKey>,
}

/// Resolves `reference` to a manifest digest and pulls the package at that digest, checking every
/// blob against its digest and every signature against its key.
pub async fn pull(home: &Path, reference: &OciRef, work: &Path) -> Result<Pulled> {
    let (auth, how) = super::registry_auth::credentials(home, &reference.registry)?;
    let client = client(reference);
    let (body, _) = client
        .pull_manifest_raw(&reference.reference(), &auth, &[OCI_IMAGE_MEDIA_TYPE])
        .await
        .map_err(|e| registry_error(e, "cannot fetch the manifest of", reference, how))?;
    // The digest of the bytes received, not the one the registry announces.
    let digest = sha256_digest(&body);
    if let Some(pinned) = &reference.digest {
        if &digest != pinned {
            bail!(
                "{} returned a manifest with digest {digest}, not the {pinned} asked for",
                reference.to_url()
            );
        }
    }
    let manifest: OciImageManifest = serde_json::from_slice(&body)
        .with_context(|| format!("{} has a malformed manifest", reference.to_url()))?;
    if manifest.config.media_type != WASM_CONFIG_MEDIA_TYPE {
        bail!(
            "{} is not a Wasm OCI artifact (its config is {})",
            reference.to_url(),
            manifest.config.media_type
        );
    }
    let component = match manifest.layers.as_slice() {
        [layer] if layer.media_type == WASM_LAYER_MEDIA_TYPE => layer.clone(),
        _ => bail!(
            "{} does not hold exactly one {WASM_LAYER_MEDIA_TYPE} layer",
            reference.to_url()
        ),
    };
    let files_digest = manifest
        .annotations
        .as_ref()
        .and_then(|a| a.get(FILES_ANNOTATION))
        .filter(|d| is_sha256_digest(d))
        .with_context(|| {
            format!(
                "{} is a Wasm component but not a tack package (no {FILES_ANNOTATION} annotation naming its tack.toml); `tack publish` makes packages",
                reference.to_url()
            )
        })?
        .clone();
    // Everything from here on is fetched by digest from the manifest just checked.
    let pinned = reference.at_digest(&digest);
    let blob = |descriptor: OciDescriptor| {
        let client = &client;
        let pinned = &pinned;
        async move {
            let mut out = Capped::default();
            client
                .pull_blob(pinned, &descriptor, &mut out)
                .await
                .map_err(|e| {
                    if out.over {
                        anyhow::anyhow!(
                            "blob {} of {} is larger than {} MiB, the most a package may be",
                            descriptor.digest,
                            reference.to_url(),
                            MAX_BLOB >> 20
                        )
                    } else {
                        registry_error(
                            e,
                            &format!("blob {} failed its check in", descriptor.digest),
                            reference,
                            how,
                        )
                    }
                })?;
            Ok::<_, anyhow::Error>(out.bytes)
        }
    };
    blob(manifest.config.clone()).await?;
    let wasm = blob(component).await?;
    let files = blob(OciDescriptor {
        media_type: FILES_MEDIA_TYPE.to_string(),
        digest: files_digest,
        ..Default::default()
    })
    .await?;

    let dir = work.join("pkg");
    super::archive::extract(&files, &dir).context("the package's files layer")?;
    let package = super::contents::read_manifest(&dir).context("the package's files layer")?;
    let component_path = dir.join(&package.plugin.component);
    if component_path.exists() {
        bail!(
            "the package's files layer carries its own {}; the component must come from the wasm layer only",
            package.plugin.component
        );
    }
    if let Some(parent) = component_path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&component_path, wasm)
        .with_context(|| format!("cannot write {}", component_path.display()))?;

    let signers = signatures(&client, &auth, reference, &digest, &blob).await?;
    Ok(Pulled {
        dir,
        digest,
        signers,
    })
}

/// The keys of the valid signatures of `digest`. A signature that is there but does not verify
/// is an error: something claims to vouch for the package and does not.
async fn signatures<F, Fut>(
    client: &Client,
    auth: &RegistryAuth,
    reference: &OciRef,
    digest: &str,
    blob: &F,
) -> Result<Vec<PublisherKey>>
where
    F: Fn(OciDescriptor) -> Fut,
    Fut: std::future::Future<Output = Result<Vec<u8>>>,
{
    let tag = reference.at_tag(&signature_tag(digest));
    let body = match client
        .pull_manifest_raw(&tag, auth, &[OCI_IMAGE_MEDIA_TYPE])
        .await
    {
        Ok((body, _)) => body,
        Err(e) if is_not_found(&e) => return Ok(Vec::new()),
        Err(e) => {
            return Err(registry_error(
                e,
                "cannot look up the signature of",
                reference,
                "the same as for the package",
            ))
        }
    };
    let manifest: OciImageManifest = serde_json::from_slice(&body).with_context(|| {
        format!(
            "the signature manifest of {} is malformed",
            reference.to_url()
        )
    })?;
    let mut signers = Vec::new();
    for layer in manifest.layers {
        if layer.media_type != COSIGN_LAYER_MEDIA_TYPE {
            continue;
        }
        let annotations = layer.annotations.clone().unwrap_or_default();
        let (Some(signature), Some(key)) = (
            annotations.get(COSIGN_SIGNATURE_ANNOTATION),
            annotations.get(PUBLISHER_KEY_ANNOTATION),
        ) else {
            // A cosign signature by a key tack is not told of; it cannot check it.
            continue;
        };
        let key = PublisherKey::from_base64(key).with_context(|| {
            format!("the signature of {} names a broken key", reference.to_url())
        })?;
        let payload = blob(layer).await?;
        signing::verify(&key, &payload, signature, digest).with_context(|| {
            format!(
                "refusing {}: it carries a signature that does not verify",
                reference.to_url()
            )
        })?;
        signers.push(key);
    }
    Ok(signers)
}

/// An in-memory sink refusing more than [`MAX_BLOB`] bytes, whatever the registry announces.
#[derive(Default)]
struct Capped {
    bytes: Vec<u8>,
    over: bool,
}

impl tokio::io::AsyncWrite for Capped {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if (self.bytes.len() + buf.len()) as u64 > MAX_BLOB {
            self.over = true;
            return std::task::Poll::Ready(Err(std::io::Error::other("blob too large")));
        }
        self.bytes.extend_from_slice(buf);
        std::task::Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

/// The package's files other than the component as a `.tar.gz` whose bytes depend only on the
/// files (sorted, no times, no owners), so publishing the same package twice pushes the same blob.
pub fn files_archive(dir: &Path, component: &str) -> Result<Vec<u8>> {
    let files = super::lockfile::read_tree(dir)?;
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(encoder);
    for (path, bytes) in files {
        if path == component.trim_start_matches("./") {
            continue;
        }
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        builder
            .append_data(&mut header, &path, bytes.as_slice())
            .with_context(|| format!("cannot archive {path}"))?;
    }
    let encoder = builder.into_inner().context("cannot finish the archive")?;
    encoder.finish().context("cannot compress the archive")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_references_and_keeps_the_registry_explicit() {
        let r = OciRef::parse("127.0.0.1:5000/ns/hello:1.0.0").expect("tag");
        assert_eq!(r.registry, "127.0.0.1:5000");
        assert_eq!(r.repository, "ns/hello");
        assert_eq!(r.tag.as_deref(), Some("1.0.0"));
        assert!(r.is_loopback());
        assert_eq!(r.to_url(), "oci://127.0.0.1:5000/ns/hello:1.0.0");
        let d = format!("sha256:{}", "0".repeat(64));
        let r = OciRef::parse(&format!("ghcr.io/o/p@{d}")).expect("digest");
        assert_eq!(r.digest.as_deref(), Some(d.as_str()));
        assert!(!r.is_loopback());
        assert!(OciRef::parse("ghcr.io/o/p").is_err(), "no version");
        assert!(OciRef::parse("hello:1.0").is_err(), "no registry");
        assert!(OciRef::parse("ghcr.io/O/p:1").is_err(), "uppercase");
        assert!(OciRef::parse("ghcr.io/o/p@sha256:xyz").is_err());
        assert!(OciRef::parse("ghcr.io/o/p:-bad").is_err());
        assert!(!OciRef::parse("localhost.evil.com/o/p:1")
            .expect("x")
            .is_loopback());
    }
}
