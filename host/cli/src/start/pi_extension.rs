//! Pi extensions, unchanged (`tack -e ./ext.ts`): each one runs as a plugin of its own in tack's
//! Pi runtime, one JavaScript component (sdk/pi) that evaluates the extension's bundle and maps
//! Pi's API onto `tack:plugin@0.2.0`. The extension gets the capabilities its user granted to
//! `pi-<name>` in grants.toml, as any plugin does, and nothing else.
//!
//! Building needs Node and the Pi SDK's toolchain (esbuild; componentize-js through the
//! JavaScript SDK), which `scripts/install-sdk-toolchains` installs. Both products are cached
//! under the component cache: the runtime by a hash of its sources, so it is built once per
//! version; an extension's bundle with the hash of every file it was built from, so a second
//! start of an unchanged extension runs no build at all.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tack_runtime::grants::GrantStore;
use tack_runtime::{Manifest, PluginSource, PluginSpec};

use crate::settings::Settings;

/// Where the Pi SDK is: `$TACK_PI_SDK`, else the repository this binary was built from.
fn sdk_dir() -> PathBuf {
    match std::env::var_os("TACK_PI_SDK") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/pi"),
    }
}

fn node() -> PathBuf {
    std::env::var_os("TACK_NODE")
        .filter(|n| !n.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("node"))
}

/// What sdk/pi/bin/bundle.js writes.
#[derive(Debug, Deserialize)]
struct Bundle {
    ok: bool,
    #[serde(default)]
    entry: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    capabilities: Vec<String>,
    #[serde(default)]
    inputs: Vec<Input>,
    #[serde(default)]
    refused: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Input {
    path: PathBuf,
    sha256: String,
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl Bundle {
    /// Whether every file the bundle was built from is as it was.
    fn is_current(&self) -> bool {
        !self.inputs.is_empty()
            && self.inputs.iter().all(|input| {
                std::fs::read(&input.path).is_ok_and(|bytes| sha256_hex(&bytes) == input.sha256)
            })
    }
}

/// The plugin name of an extension: `pi-` and its file's stem, or its folder's name.
fn plugin_name(path: &Path) -> String {
    tack_packages::pi_package::extension_plugin_name(path)
}

/// Runs one of the Pi SDK's scripts under Node, naming what is missing when it cannot.
fn run_script(sdk: &Path, script: &str, args: &[&Path]) -> Result<std::process::Output> {
    let path = sdk.join("bin").join(script);
    if !sdk.join("node_modules").join("esbuild").is_dir() {
        bail!(
            "the Pi SDK's toolchain is not installed in {} (run scripts/install-sdk-toolchains, \
             or set TACK_PI_SDK to a copy of sdk/pi with its node_modules)",
            sdk.display()
        );
    }
    Command::new(node())
        .arg(&path)
        .args(args)
        .output()
        .with_context(|| {
            format!(
                "cannot run Node ({}) for {script}; Pi extensions need Node.js",
                node().display()
            )
        })
}

/// Hash of everything the runtime component is built from.
fn runtime_key(sdk: &Path) -> Result<String> {
    let repo = sdk.join("../..");
    let mut hasher = Sha256::new();
    let folders = [
        sdk.join("src"),
        sdk.join("bin"),
        repo.join("sdk/js/src"),
        repo.join("sdk/js/bin"),
        repo.join("wit/plugin/v0.1.0"),
        repo.join("wit/plugin/v0.2.0"),
    ];
    for folder in folders {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .with_context(|| format!("cannot read {}", folder.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for file in files {
            hasher.update(file.file_name().unwrap_or_default().as_encoded_bytes());
            hasher.update(
                std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?,
            );
        }
    }
    for lock in [
        sdk.join("package-lock.json"),
        repo.join("sdk/js/package-lock.json"),
    ] {
        if let Ok(bytes) = std::fs::read(&lock) {
            hasher.update(bytes);
        }
    }
    Ok(hex::encode(hasher.finalize())[..16].to_string())
}

/// The runtime component, built on first use of this version and cached.
fn runtime(sdk: &Path, cache: &Path) -> Result<Arc<[u8]>> {
    let path = cache.join(format!("runtime-{}.wasm", runtime_key(sdk)?));
    if let Ok(bytes) = read_shared(&path) {
        return Ok(bytes);
    }
    std::fs::create_dir_all(cache).with_context(|| format!("cannot create {}", cache.display()))?;
    let partial = tempfile::Builder::new()
        .prefix("runtime-")
        .suffix(".wasm")
        .tempfile_in(cache)
        .context("cannot create the runtime's build file")?;
    let out = run_script(sdk, "build-runtime.js", &[partial.path()])?;
    if !out.status.success() {
        bail!(
            "building tack's Pi runtime failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    partial
        .persist(&path)
        .with_context(|| format!("cannot store {}", path.display()))?;
    read_shared(&path).with_context(|| format!("cannot read {}", path.display()))
}

/// Reads `path` straight into bytes the extensions' specs share: one allocation of the
/// runtime's many megabytes, where a `Vec` turned into an `Arc` would be two at once, at every
/// start.
fn read_shared(path: &Path) -> std::io::Result<Arc<[u8]>> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
    // Collected from an iterator of known length: allocated once, in place.
    let mut bytes: Arc<[u8]> = std::iter::repeat_n(0u8, len).collect();
    let Some(buffer) = Arc::get_mut(&mut bytes) else {
        return Err(std::io::Error::other(
            "the runtime's bytes were shared before being read",
        ));
    };
    file.read_exact(buffer)?;
    Ok(bytes)
}

/// The extension's bundle: with a `cache`, the cached one while its files are unchanged, else a
/// new one, kept. With a `root` (an installed package's folder), every file the bundle reads
/// must be inside it (or the SDK's own modules): a package's code is its own files.
fn bundle(
    sdk: &Path,
    cache: Option<&Path>,
    extension: &Path,
    root: Option<&Path>,
) -> Result<Bundle> {
    let mut keyed = extension.as_os_str().as_encoded_bytes().to_vec();
    if let Some(root) = root {
        keyed.push(0);
        keyed.extend_from_slice(root.as_os_str().as_encoded_bytes());
    }
    let key = sha256_hex(&keyed);
    let dir = match cache {
        Some(cache) => cache.join("bundles"),
        None => std::env::temp_dir(),
    };
    let path = dir.join(format!("{}.json", &key[..16]));
    if let Some(cached) = cache
        .and_then(|_| std::fs::read(&path).ok())
        .and_then(|bytes| serde_json::from_slice::<Bundle>(&bytes).ok())
        .filter(|b| b.ok && b.is_current())
    {
        return Ok(cached);
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let partial = tempfile::Builder::new()
        .suffix(".json")
        .tempfile_in(&dir)
        .context("cannot create the bundle file")?;
    let mut args = vec![extension, partial.path()];
    if let Some(root) = root {
        args.push(root);
    }
    let out = run_script(sdk, "bundle.js", &args)?;
    let text = std::fs::read(partial.path()).unwrap_or_default();
    let built: Bundle = serde_json::from_slice(&text).with_context(|| {
        format!(
            "bundling {} failed:\n{}",
            extension.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    if built.ok && cache.is_some() {
        partial
            .persist(&path)
            .with_context(|| format!("cannot store {}", path.display()))?;
    }
    Ok(built)
}

/// `tack install` of a Pi package: each extension bundled as it will run, from the package's
/// staging folder (so nothing is kept: the first start bundles it again from its installed
/// place, once).
pub struct InstallCheck;

impl tack_packages::commands::PiExtensions for InstallCheck {
    fn check(&self, root: &Path, extensions: &[PathBuf]) -> Result<Vec<(String, Vec<String>)>> {
        let sdk = sdk_dir();
        let mut checked = Vec::with_capacity(extensions.len());
        let mut refused = Vec::new();
        for extension in extensions {
            let built = bundle(&sdk, None, extension, Some(root))?;
            if built.ok {
                checked.push((plugin_name(extension), built.capabilities));
            } else {
                refused.push(format!(
                    "{}: {}",
                    plugin_name(extension),
                    built.refused.join("; ")
                ));
            }
        }
        if !refused.is_empty() {
            bail!(
                "the package has extensions that cannot run in tack, so it is not installed:\n  \
                 - {}",
                refused.join("\n  - ")
            );
        }
        Ok(checked)
    }
}

/// The plugins that run the Pi extensions at `paths` (files, or folders), each with a warning
/// when its code reaches for a capability its user has not granted it. Every extension is
/// bundled (or found in the cache) before the runtime is read, once, for all of them: a refused
/// extension costs no runtime build.
/// `root`: the installed package they belong to, outside which their code may read nothing.
pub fn load_all(
    paths: &[PathBuf],
    root: Option<&Path>,
    cache: &Path,
    grants: &GrantStore,
    settings: &Settings,
) -> Result<Vec<(PluginSpec, Option<String>)>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let sdk = sdk_dir();
    let cache = cache.join("pi");
    let mut bundled = Vec::with_capacity(paths.len());
    for path in paths {
        let extension = path
            .canonicalize()
            .with_context(|| format!("cannot find the Pi extension {}", path.display()))?;
        let built = bundle(&sdk, Some(&cache), &extension, root)?;
        if !built.ok {
            bail!(
                "the Pi extension {} cannot run in tack:\n  - {}",
                extension.display(),
                built.refused.join("\n  - ")
            );
        }
        bundled.push((extension, built));
    }
    // One copy of the runtime's bytes for every extension: each spec holds the same
    // allocation, and the runtime compiles and maps it once (`ComponentCache::load_shared`).
    let wasm = runtime(&sdk, &cache)?;
    bundled
        .into_iter()
        .map(|(extension, built)| spec(extension, built, wasm.clone(), grants, settings))
        .collect()
}

/// The plugin `pi-<name>` for one bundled extension.
fn spec(
    extension: PathBuf,
    built: Bundle,
    wasm: Arc<[u8]>,
    grants: &GrantStore,
    settings: &Settings,
) -> Result<(PluginSpec, Option<String>)> {
    let name = plugin_name(&extension);
    // One instance, as Pi runs an extension in one process: its module state (a counter, a
    // list of todos) is one state, and its calls take turns.
    let mut manifest = Manifest::parse(&format!(
        "[plugin]\nname = \"{name}\"\nversion = \"0.0.0\"\napi = \"0.2\"\n\
         component = \"pi-runtime.wasm\"\ndescription = \"Pi extension {}\"\ninstances = 1\n",
        extension.display().to_string().replace(['"', '\\'], "_")
    ))
    .map_err(|e| anyhow::anyhow!("Pi extension {}: {e}", extension.display()))?;
    // A Pi extension declares nothing: what it may reach is what its user granted.
    let granted = grants.get(&name).cloned().unwrap_or_default();
    manifest.capabilities = granted.clone();
    let mut config = settings.plugin_config(&manifest);
    if let Some(object) = config.as_object_mut() {
        object.insert(
            "pi_extension".into(),
            serde_json::json!({ "entry": built.entry, "source": built.source }),
        );
    }
    let warning = (!built.capabilities.is_empty() && grants.get(&name).is_none()).then(|| {
        format!(
            "Pi extension {} ({name}) has no grants; what its code uses needs {}: add them under \
             [plugins.{name}] in grants.toml",
            extension.display(),
            built.capabilities.join("; ")
        )
    });
    let spec = PluginSpec {
        wasm,
        wasm_label: format!("pi-extension:{}", extension.display()),
        source: PluginSource::Path(extension),
        granted,
        config,
        manifest,
    };
    Ok((spec, warning))
}

/// The extensions in Pi's extension folders, as Pi finds them: each `.ts`/`.js` file, and each
/// folder holding a `package.json` or an `index.ts`/`index.js`, in name order.
pub fn discover(folders: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut here: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|path| {
                if path.is_dir() {
                    ["package.json", "index.ts", "index.js"]
                        .iter()
                        .any(|f| path.join(f).is_file())
                } else {
                    path.extension()
                        .is_some_and(|ext| ext == "ts" || ext == "js")
                }
            })
            .collect();
        here.sort();
        found.extend(here);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_file_or_folder() {
        assert_eq!(
            plugin_name(Path::new("/x/permission-gate.ts")),
            "pi-permission-gate"
        );
        assert_eq!(plugin_name(Path::new("/x/My Ext.js")), "pi-my-ext");
    }

    #[test]
    fn discovery_takes_scripts_and_package_folders_in_name_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::write(root.join("b.ts"), "").expect("b.ts");
        std::fs::write(root.join("a.js"), "").expect("a.js");
        std::fs::write(root.join("notes.md"), "").expect("notes.md");
        std::fs::create_dir_all(root.join("pkg")).expect("pkg");
        std::fs::write(root.join("pkg/package.json"), "{}").expect("package.json");
        std::fs::create_dir_all(root.join("empty")).expect("empty");
        let found = discover([root.to_path_buf(), root.join("missing")]);
        let names: Vec<_> = found
            .iter()
            .map(|p| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["a.js", "b.ts", "pkg"]);
    }
}
