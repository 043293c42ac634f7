//! JavaScript plugins: sdk/js/bin/build.js (componentize-js, StarlingMonkey engine).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::cached_as;
use crate::toolchains::Toolchains;
use crate::{run, speaks_0_2, wit_dir, wit_dir_0_2, BuildError, Lang};

/// The conformance example, `examples/hello-js`.
pub fn build(toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    build_package(toolchains, &Lang::Js.example_dir(), &Lang::Js.plugin_name())
}

/// The JavaScript plugin in folder `dir` (`src/plugin.js` and the repository's SDK, as its
/// build.sh does), cached under plugin `name`; an `api = "0.2"` package against 0.2.0.
pub fn build_package(
    toolchains: &Toolchains,
    dir: &Path,
    name: &str,
) -> Result<PathBuf, BuildError> {
    let node = toolchains.node()?;
    let mut inputs = vec![
        dir.to_path_buf(),
        toolchains.js_sdk.join("src"),
        toolchains.js_sdk.join("bin"),
        toolchains.js_sdk.join("package-lock.json"),
        wit_dir(),
    ];
    // build.js reads the manifest: an `api = "0.2"` package is built against 0.2.0 too.
    if speaks_0_2(dir) {
        inputs.push(wit_dir_0_2());
    }
    cached_as(name, Lang::Js, &inputs, |_, out| {
        run(
            Lang::Js,
            Command::new(&node)
                .arg(toolchains.js_sdk.join("bin").join("build.js"))
                .arg(dir)
                .arg(out),
        )
    })
}
