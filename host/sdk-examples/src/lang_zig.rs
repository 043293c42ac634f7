//! The Zig example: the C bindings (as for C), `zig translate-c` of the C SDK's header into the
//! `c` module the Zig SDK imports, then one `zig build-exe` of the plugin, the Zig SDK and the C
//! helpers, made a component by the reactor adapter (as for C).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cache::cached_as;
use crate::lang_c::{bindgen, c_sources, wit_dirs};
use crate::toolchains::Toolchains;
use crate::{failed, repo_root, run, BuildError, Lang};

pub fn build(toolchains: &Toolchains) -> Result<PathBuf, BuildError> {
    build_example(
        toolchains,
        &Lang::Zig.example_dir(),
        &Lang::Zig.plugin_name(),
    )
}

/// The Zig example in folder `dir` (its `src/plugin.zig` with the repository's Zig and C SDKs,
/// as its build.sh does), cached under plugin `name`; an `api = "0.2"` package is bound to
/// 0.2.0's `plugin` world, as for C.
pub fn build_example(
    toolchains: &Toolchains,
    dir: &Path,
    name: &str,
) -> Result<PathBuf, BuildError> {
    toolchains.zig_python_for(Lang::Zig)?;
    let sdk = repo_root().join("sdk");
    let wit = wit_dirs(dir);
    let mut inputs = vec![
        dir.to_path_buf(),
        sdk.join("zig").join("tack.zig"),
        sdk.join("c").join("include"),
        sdk.join("c").join("src"),
        sdk.join("c").join("tool").join("src"),
    ];
    inputs.extend(wit.iter().cloned());
    cached_as(name, Lang::Zig, &inputs, |scratch, out| {
        let c_files = c_sources(&sdk.join("c").join("src"))?;
        compile(
            toolchains,
            &Sources {
                wit,
                include: sdk.join("c").join("include"),
                c_files,
                root: dir.join("src").join("plugin.zig"),
                sdk: sdk.join("zig").join("tack.zig"),
            },
            scratch,
            out,
        )
    })
}

struct Sources {
    /// The WIT folders bound (see `lang_c::bindgen`).
    wit: Vec<PathBuf>,
    /// Holds tack.h.
    include: PathBuf,
    /// The C SDK's helpers and defaults.
    c_files: Vec<PathBuf>,
    /// The plugin's root file.
    root: PathBuf,
    /// tack.zig.
    sdk: PathBuf,
}

fn compile(
    toolchains: &Toolchains,
    sources: &Sources,
    scratch: &Path,
    out: &Path,
) -> Result<(), BuildError> {
    let python = toolchains.zig_python_for(Lang::Zig)?;
    let generated = scratch.join("gen");
    bindgen(Lang::Zig, &sources.wit, &generated)?;
    let zig = |args: &[&str]| {
        let mut cmd = Command::new(&python);
        cmd.args(["-m", "ziglang"])
            .args(args)
            .env("ZIG_GLOBAL_CACHE_DIR", toolchains.zig_cache())
            .env("ZIG_LOCAL_CACHE_DIR", toolchains.zig_cache());
        cmd
    };
    let include = format!("-I{}", sources.include.display());
    let gen_include = format!("-I{}", generated.display());
    let header = sources.include.join("tack.h");
    let translated = scratch.join("c.zig");
    let file = std::fs::File::create(&translated).map_err(|e| failed(Lang::Zig, e.to_string()))?;
    run(
        Lang::Zig,
        zig(&[
            "translate-c",
            "-target",
            "wasm32-wasi",
            "-lc",
            &include,
            &gen_include,
        ])
        .arg(&header)
        .stdout(Stdio::from(file)),
    )?;
    let core = scratch.join("core.wasm");
    let mut build = zig(&[
        "build-exe",
        "-target",
        "wasm32-wasi",
        "-O",
        "ReleaseSmall",
        "-fno-entry",
        "-mexec-model=reactor",
        "-lc",
        &include,
        &gen_include,
    ]);
    build
        .args(&sources.c_files)
        .arg(generated.join("plugin.c"))
        .arg(generated.join("plugin_component_type.o"))
        .args(["--dep", "tack"])
        .arg(format!("-Mroot={}", sources.root.display()))
        .args(["--dep", "c"])
        .arg(format!("-Mtack={}", sources.sdk.display()))
        .arg(format!("-Mc={}", translated.display()))
        .arg(format!("-femit-bin={}", core.display()));
    run(Lang::Zig, &mut build)?;
    let bytes = std::fs::read(&core).map_err(|e| failed(Lang::Zig, e.to_string()))?;
    let component =
        tack_c_tool::componentize(&bytes).map_err(|e| failed(Lang::Zig, e.to_string()))?;
    std::fs::write(out, component).map_err(|e| failed(Lang::Zig, e.to_string()))
}
