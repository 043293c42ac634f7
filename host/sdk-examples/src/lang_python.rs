//! The Python example: componentize-py with the SDK package on the path.

use std::path::PathBuf;
use std::process::Command;

use crate::cache::cached;
use crate::toolchains::Toolchains;
use crate::{repo_root, run, wit_dir, BuildError, Lang};

pub fn build(toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    let componentize = toolchains.componentize_py()?;
    let root = repo_root();
    let example = Lang::Python.example_dir();
    let sdk = root.join("sdk").join("python");
    let inputs = [
        example.clone(),
        sdk.join("tack_plugin"),
        sdk.join("guest.py"),
        sdk.join("requirements.txt"),
        wit_dir(),
    ];
    cached(Lang::Python, &inputs, |scratch, out| {
        run(
            Lang::Python,
            Command::new(&componentize)
                .arg("-d")
                .arg(wit_dir())
                .args(["-w", "plugin-extended", "componentize", "app", "-p"])
                .arg(example.join("src"))
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
