//! The JavaScript example: sdk/js/bin/build.js (componentize-js, StarlingMonkey engine).

use std::path::PathBuf;
use std::process::Command;

use crate::cache::cached;
use crate::toolchains::Toolchains;
use crate::{run, wit_dir, BuildError, Lang};

pub fn build(toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    let node = toolchains.node()?;
    let example = Lang::Js.example_dir();
    let inputs = [
        example.clone(),
        toolchains.js_sdk.join("src"),
        toolchains.js_sdk.join("bin"),
        toolchains.js_sdk.join("package-lock.json"),
        wit_dir(),
    ];
    cached(Lang::Js, &inputs, |_, out| {
        run(
            Lang::Js,
            Command::new(&node)
                .arg(toolchains.js_sdk.join("bin").join("build.js"))
                .arg(&example)
                .arg(out),
        )
    })
}
