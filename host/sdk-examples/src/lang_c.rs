//! The C example: bindings from the WIT, zig as the wasm32-wasi C compiler, then the reactor
//! adapter makes the core module a component (all through tack-c-tool, in-process).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cache::cached;
use crate::toolchains::Toolchains;
use crate::{failed, repo_root, run, wit_dir, BuildError, Lang};

pub fn build(toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    toolchains.zig_python()?;
    let root = repo_root();
    let example = Lang::C.example_dir();
    let sdk = root.join("sdk").join("c");
    let inputs = [
        example.clone(),
        sdk.join("include"),
        sdk.join("src"),
        // The bindings generator: which world it binds, under which names.
        sdk.join("tool").join("src"),
        wit_dir(),
    ];
    cached(Lang::C, &inputs, |scratch, out| {
        let mut sources = c_sources(&example.join("src"))?;
        sources.push(sdk.join("src").join("tack_helpers.c"));
        sources.push(sdk.join("src").join("tack_defaults.c"));
        compile(
            toolchains,
            &wit_dir(),
            &[sdk.join("include")],
            &sources,
            scratch,
            out,
        )
    })
}

/// Builds a C plugin folder as `tack plugin new --lang c` lays it out (wit/, include/, src/*.c)
/// into the component `out`, doing in-process what its build.sh does with `tack-c`.
pub fn build_package(toolchains: &Toolchains, dir: &Path, out: &Path) -> Result<(), BuildError> {
    let scratch = tempfile::tempdir().map_err(|e| failed(Lang::C, e.to_string()))?;
    let sources = c_sources(&dir.join("src"))?;
    compile(
        toolchains,
        &dir.join("wit"),
        &[dir.join("include")],
        &sources,
        scratch.path(),
        out,
    )
}

/// Bindings for `wit`, zig for the core module, the reactor adapter for the component.
fn compile(
    toolchains: &Toolchains,
    wit: &Path,
    includes: &[PathBuf],
    sources: &[PathBuf],
    scratch: &Path,
    out: &Path,
) -> Result<(), BuildError> {
    let python = toolchains.zig_python()?;
    let generated = scratch.join("gen");
    tack_c_tool::generate_bindings(wit, &generated).map_err(|e| failed(Lang::C, e.to_string()))?;
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
