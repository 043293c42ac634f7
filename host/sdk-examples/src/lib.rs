//! Builds the conformance example plugins, one per SDK language, for the conformance test and the
//! benchmarks.
//!
//! The Rust example comes from host/builtin's guest build. The others are built here with the
//! toolchains `scripts/install-sdk-toolchains` puts inside the clone (sdk/js/node_modules and a
//! venv under target/sdk-toolchains), and cached in target/sdk-examples under a hash of every
//! input, so a test run compiles each at most once and an unchanged tree not at all.

mod cache;
mod lang_c;
mod lang_js;
mod lang_python;
mod lang_zig;
mod toolchains;

use std::path::{Path, PathBuf};

pub use lang_c::build_example as build_c_example;
pub use lang_c::build_package as build_c_package;
pub use lang_js::build_package as build_js_package;
pub use lang_python::build_package as build_python_package;
pub use lang_zig::build_example as build_zig_example;
pub use toolchains::Toolchains;

/// The languages with an SDK and an example.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Rust,
    Js,
    Python,
    C,
    Zig,
}

impl Lang {
    pub const ALL: [Lang; 5] = [Lang::Rust, Lang::Js, Lang::Python, Lang::C, Lang::Zig];

    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Js => "js",
            Lang::Python => "python",
            Lang::C => "c",
            Lang::Zig => "zig",
        }
    }

    /// The example's folder (tack.toml, sources, build script).
    pub fn example_dir(self) -> PathBuf {
        repo_root()
            .join("examples")
            .join(format!("hello-{}", self.name()))
    }

    /// The plugin name its tack.toml declares.
    pub fn plugin_name(self) -> String {
        format!("hello-{}", self.name())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A toolchain is not installed; `install` says how to get it.
    #[error("the {lang} toolchain is missing ({what}); install it with: {install}")]
    Missing {
        lang: &'static str,
        what: String,
        install: String,
    },
    #[error("building the {lang} example failed: {message}")]
    Failed { lang: &'static str, message: String },
}

/// Builds (or finds in the cache) the example for `lang` and returns the component's path.
pub fn build(lang: Lang, toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    match lang {
        Lang::Rust => Ok(PathBuf::from(tack_builtin::artifacts::HELLO_RUST)),
        Lang::Js => lang_js::build(toolchains),
        Lang::Python => lang_python::build(toolchains),
        Lang::C => lang_c::build(toolchains),
        Lang::Zig => lang_zig::build(toolchains),
    }
}

/// Whether a missing toolchain must fail instead of skip (CI sets `TACK_REQUIRE_SDKS=1`).
pub fn sdks_required() -> bool {
    std::env::var("TACK_REQUIRE_SDKS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// A test's component from a build: its path, or `None` (said on stderr) when the toolchain is
/// missing and [`sdks_required`] is not set; a failed build, or a missing toolchain where SDKs
/// are required, panics with the reason.
pub fn built_or_skipped(name: &str, built: Result<PathBuf, BuildError>) -> Option<String> {
    match built {
        Ok(wasm) => Some(wasm.display().to_string()),
        Err(e @ BuildError::Missing { .. }) if !sdks_required() => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED {name}: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// Whether sdk/pi's toolchain (esbuild and the JS SDK's), which bundling a Pi extension needs,
/// is installed. When it is not, the calling test is skipped (said on stderr), or fails where
/// [`sdks_required`] is set.
pub fn pi_sdk_ready() -> bool {
    if repo_root().join("sdk/pi/node_modules/esbuild").is_dir() {
        return true;
    }
    assert!(
        !sdks_required(),
        "sdk/pi's toolchain is missing (run scripts/install-sdk-toolchains), and TACK_REQUIRE_SDKS=1"
    );
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "skipping: sdk/pi's toolchain is missing (run scripts/install-sdk-toolchains)"
    );
    false
}

/// The repository root (this crate lives two levels below it).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The WIT package the example plugins are built against: the newest released `tack:plugin`.
pub fn wit_dir() -> PathBuf {
    repo_root().join("wit").join("plugin").join("v0.1.0")
}

/// The `tack:plugin` 0.2.0 folder, which plugins whose manifest says `api = "0.2"` are built
/// against beside [`wit_dir`] (its worlds include 0.1.0's).
pub fn wit_dir_0_2() -> PathBuf {
    repo_root().join("wit").join("plugin").join("v0.2.0")
}

/// Whether the package in `dir` speaks `tack:plugin@0.2.0`: its `tack.toml` says `api = "0.2"`.
pub fn speaks_0_2(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("tack.toml")).is_ok_and(|manifest| {
        manifest.lines().any(|line| {
            let line: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            line == "api=\"0.2\""
        })
    })
}

/// The workspace's target dir, where build outputs and the in-clone toolchains live.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
}

fn failed(lang: Lang, message: impl Into<String>) -> BuildError {
    BuildError::Failed {
        lang: lang.name(),
        message: message.into(),
    }
}

/// Runs `cmd`, turning a spawn failure or a non-zero exit into a build error with its output.
fn run(lang: Lang, cmd: &mut std::process::Command) -> Result<(), BuildError> {
    let output = cmd
        .output()
        .map_err(|e| failed(lang, format!("cannot run {:?}: {e}", cmd.get_program())))?;
    if output.status.success() {
        return Ok(());
    }
    let tail = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    };
    Err(failed(
        lang,
        format!(
            "{:?} exited with {}:\n{}\n{}",
            cmd.get_program(),
            output.status,
            tail(&output.stdout),
            tail(&output.stderr)
        ),
    ))
}
