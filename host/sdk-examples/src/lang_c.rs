//! The C example: bindings from the WIT, zig as the wasm32-wasi C compiler, then the reactor
//! adapter makes the core module a component (all through tack-c-tool, in-process).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::cached_as;
use crate::toolchains::Toolchains;
use crate::{failed, repo_root, run, speaks_0_2, wit_dir, wit_dir_0_2, BuildError, Lang};

pub fn build(toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    build_example(toolchains, &Lang::C.example_dir(), &Lang::C.plugin_name())
}

/// The C example in folder `dir` (its `src/*.c` with the repository's C SDK, as its build.sh
/// does), cached under plugin `name`. A package whose tack.toml says `api = "0.2"` is bound to
/// 0.2.0's `plugin` world (0.1.0's and 0.2.0's WIT folders), which also compiles the SDK's 0.2.0
/// helpers and default exports.
pub fn build_example(
    toolchains: &Toolchains,
    dir: &Path,
    name: &str,
) -> Result<PathBuf, BuildError> {
    toolchains.zig_python()?;
    let sdk = repo_root().join("sdk").join("c");
    let wit = wit_dirs(dir);
    let mut inputs = vec![
        dir.to_path_buf(),
        sdk.join("include"),
        sdk.join("src"),
        // The bindings generator: which world it binds, under which names.
        sdk.join("tool").join("src"),
    ];
    inputs.extend(wit.iter().cloned());
    cached_as(name, Lang::C, &inputs, |scratch, out| {
        let mut sources = c_sources(&dir.join("src"))?;
        sources.push(sdk.join("src").join("tack_helpers.c"));
        sources.push(sdk.join("src").join("tack_defaults.c"));
        compile(
            toolchains,
            &wit,
            &[sdk.join("include")],
            &sources,
            scratch,
            out,
        )
    })
}

/// The WIT folders a package in the repository is bound against: 0.1.0's, and 0.2.0's after it
/// when its tack.toml says `api = "0.2"`.
pub(crate) fn wit_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![wit_dir()];
    if speaks_0_2(dir) {
        dirs.push(wit_dir_0_2());
    }
    dirs
}

/// C bindings for `wit` (one folder: 0.1.0's `plugin-extended`; two: 0.2.0's `plugin`) in `out`.
pub(crate) fn bindgen(lang: Lang, wit: &[PathBuf], out: &Path) -> Result<(), BuildError> {
    let written = match wit {
        [one] => tack_c_tool::generate_bindings(one, out),
        [old, new] => tack_c_tool::generate_bindings_0_2(old, new, out),
        _ => return Err(failed(lang, format!("no WIT folders to bind: {wit:?}"))),
    };
    written.map(drop).map_err(|e| failed(lang, e.to_string()))
}

/// Builds a C plugin folder as `tack plugin new --lang c` lays it out (wit/, include/, src/*.c)
/// into the component `out`, doing in-process what its build.sh does with `tack-c`.
pub fn build_package(toolchains: &Toolchains, dir: &Path, out: &Path) -> Result<(), BuildError> {
    let scratch = tempfile::tempdir().map_err(|e| failed(Lang::C, e.to_string()))?;
    let sources = c_sources(&dir.join("src"))?;
    compile(
        toolchains,
        &[dir.join("wit")],
        &[dir.join("include")],
        &sources,
        scratch.path(),
        out,
    )
}

/// Bindings for `wit`, zig for the core module, the reactor adapter for the component.
fn compile(
    toolchains: &Toolchains,
    wit: &[PathBuf],
    includes: &[PathBuf],
    sources: &[PathBuf],
    scratch: &Path,
    out: &Path,
) -> Result<(), BuildError> {
    let python = toolchains.zig_python()?;
    let generated = scratch.join("gen");
    bindgen(Lang::C, wit, &generated)?;
    let core = scratch.join("core.wasm");
    let mut cc = Command::new(&python);
    cc.args(["-m", "ziglang", "cc", "-target", "wasm32-wasi"])
        .args(["-mexec-model=reactor", "-O2", "-s"])
        .arg("-I")
        .arg(&generated);
    for include in includes {
        cc.arg("-I").arg(include);
    }
    cc.args(sources)
        .arg(generated.join("plugin.c"))
        .arg(generated.join("plugin_component_type.o"))
        .arg("-o")
        .arg(&core)
        .env("ZIG_GLOBAL_CACHE_DIR", toolchains.zig_cache())
        .env("ZIG_LOCAL_CACHE_DIR", toolchains.zig_cache());
    run(Lang::C, &mut cc)?;
    let bytes = std::fs::read(&core).map_err(|e| failed(Lang::C, e.to_string()))?;
    let component =
        tack_c_tool::componentize(&bytes).map_err(|e| failed(Lang::C, e.to_string()))?;
    std::fs::write(out, component).map_err(|e| failed(Lang::C, e.to_string()))
}

pub(crate) fn c_sources(dir: &Path) -> Result<Vec<PathBuf>, BuildError> {
    let entries = std::fs::read_dir(dir).map_err(|e| failed(Lang::C, e.to_string()))?;
    let mut sources: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    sources.sort();
    Ok(sources)
}
