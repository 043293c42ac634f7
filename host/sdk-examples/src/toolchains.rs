//! Where the SDK toolchains are: all inside the clone (see scripts/install-sdk-toolchains).

use std::path::PathBuf;
use std::process::Command;

use crate::{repo_root, target_dir, BuildError, Lang};

const INSTALL: &str = "scripts/install-sdk-toolchains";

#[derive(Debug, Clone)]
pub struct Toolchains {
    /// sdk/js, holding node_modules with componentize-js.
    pub js_sdk: PathBuf,
    /// The Python venv with componentize-py and ziglang.
    pub venv: PathBuf,
}

impl Default for Toolchains {
    fn default() -> Self {
        Self::locate()
    }
}

impl Toolchains {
    pub fn locate() -> Self {
        let venv = std::env::var_os("TACK_SDK_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| target_dir().join("sdk-toolchains").join("venv"));
        Toolchains {
            js_sdk: repo_root().join("sdk").join("js"),
            venv,
        }
    }

    /// `node`, when componentize-js is installed next to the SDK.
    pub fn node(&self) -> Result<PathBuf, BuildError> {
        let componentize = self
            .js_sdk
            .join("node_modules/@bytecodealliance/componentize-js");
        if !componentize.is_dir() {
            return Err(missing(
                Lang::Js,
                "componentize-js in sdk/js/node_modules",
                format!("{INSTALL} (or: npm ci --prefix sdk/js)"),
            ));
        }
        let node = PathBuf::from("node");
        let works = Command::new(&node)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !works {
            return Err(missing(
                Lang::Js,
                "node",
                "apt-get install nodejs npm".to_string(),
            ));
        }
        Ok(node)
    }

    pub fn componentize_py(&self) -> Result<PathBuf, BuildError> {
        let bin = self.venv.join("bin").join("componentize-py");
        if bin.is_file() {
            Ok(bin)
        } else {
            Err(missing(Lang::Python, "componentize-py", venv_install()))
        }
    }

    /// The venv's python with the `ziglang` package (zig as a C compiler for wasm32-wasi).
    pub fn zig_python(&self) -> Result<PathBuf, BuildError> {
        self.zig_python_for(Lang::C)
    }

    /// The same, for `lang`'s build (C or Zig), which a missing zig is reported against.
    pub fn zig_python_for(&self, lang: Lang) -> Result<PathBuf, BuildError> {
        let python = self.venv.join("bin").join("python");
        let has_zig = self.venv.join("bin").join("python-zig").is_file()
            || Command::new(&python)
                .args(["-c", "import ziglang"])
                .output()
                .is_ok_and(|o| o.status.success());
        if python.is_file() && has_zig {
            Ok(python)
        } else {
            Err(missing(
                lang,
                "zig (the ziglang Python package)",
                venv_install(),
            ))
        }
    }

    /// Zig keeps its compiled libc in a cache; keep it inside the clone too.
    pub fn zig_cache(&self) -> PathBuf {
        self.venv
            .parent()
            .map(|p| p.join("zig-cache"))
            .unwrap_or_else(|| target_dir().join("zig-cache"))
    }
}

fn venv_install() -> String {
    format!(
        "{INSTALL} (or: python3 -m venv target/sdk-toolchains/venv && \
         target/sdk-toolchains/venv/bin/pip install -r sdk/python/requirements.txt)"
    )
}

fn missing(lang: Lang, what: &str, install: String) -> BuildError {
    BuildError::Missing {
        lang: lang.name(),
        what: what.to_string(),
        install,
    }
}
