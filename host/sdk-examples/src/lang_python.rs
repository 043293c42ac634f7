//! Python plugins: componentize-py with the SDK package on the path.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::cached_as;
use crate::toolchains::Toolchains;
use crate::{repo_root, run, speaks_0_2, wit_dir, wit_dir_0_2, BuildError, Lang};

/// The conformance example, `examples/hello-python`.
pub fn build(toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    build_package(
        toolchains,
        &Lang::Python.example_dir(),
        &Lang::Python.plugin_name(),
    )
}

/// The Python plugin in folder `dir` (its `src/app.py` and the repository's SDK, bound to the
/// 0.1.0 `plugin-extended` world, as its build.sh does), cached under plugin `name`. A package
/// whose manifest says `api = "0.2"` is bound to 0.2.0's `plugin` world instead: 0.1.0's and
/// 0.2.0's imports, and 0.2.0's two optional exports, which `tack_plugin.v2` implements.
pub fn build_package(
    toolchains: &Toolchains,
    dir: &Path,
    name: &str,
) -> Result<PathBuf, BuildError> {
    let componentize = toolchains.componentize_py()?;
    let sdk = repo_root().join("sdk").join("python");
    let inputs = [
        dir.to_path_buf(),
        sdk.join("tack_plugin"),
        sdk.join("guest.py"),
        sdk.join("requirements.txt"),
        wit_dir(),
    ];
    let next = speaks_0_2(dir);
    let mut worlds: Vec<std::ffi::OsString> = vec!["-d".into(), wit_dir().into()];
    if next {
        // 0.2.0's `plugin` world includes 0.1.0's `plugin-extended` and every addition
        // (componentize-py 0.25 panics when asked to merge those worlds itself).
        worlds.extend([
            "-d".into(),
            wit_dir_0_2().into(),
            "-w".into(),
            "tack:plugin/plugin@0.2.0".into(),
        ]);
    } else {
        worlds.extend(["-w".into(), "plugin-extended".into()]);
    }
    let mut inputs = inputs.to_vec();
    if next {
        inputs.push(wit_dir_0_2());
    }
    cached_as(name, Lang::Python, &inputs, |scratch, out| {
        run(
            Lang::Python,
            Command::new(&componentize)
                .args(&worlds)
                .args(["componentize", "app", "-p"])
                .arg(dir.join("src"))
                .arg("-p")
                .arg(&sdk)
                .arg("-o")
                .arg(out)
                // Python would otherwise drop __pycache__ folders into the source tree.
                .env("PYTHONDONTWRITEBYTECODE", "1")
                .current_dir(scratch),
        )
    })
}
