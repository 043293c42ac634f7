//! Python plugins: componentize-py with the SDK package on the path.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::cached_as;
use crate::toolchains::Toolchains;
use crate::{repo_root, run, wit_dir, BuildError, Lang};

/// The conformance example, `examples/hello-python`.
pub fn build(toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    build_package(
        toolchains,
        &Lang::Python.example_dir(),
        &Lang::Python.plugin_name(),
    )
}

/// The Python plugin in folder `dir` (its `src/app.py` and the repository's SDK, bound to the
/// 0.1.0 `plugin-extended` world, as its build.sh does), cached under plugin `name`.
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
    cached_as(name, Lang::Python, &inputs, |scratch, out| {
        run(
            Lang::Python,
            Command::new(&componentize)
                .arg("-d")
                .arg(wit_dir())
                .args(["-w", "plugin-extended", "componentize", "app", "-p"])
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
