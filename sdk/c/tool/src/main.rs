//! `tack-c bindgen <wit-dir> <out-dir>` (a `tack:plugin@0.2.0` plugin passes 0.1.0's and
//! 0.2.0's folders: `tack-c bindgen <wit-0.1.0> <wit-0.2.0> <out-dir>`) and
//! `tack-c componentize <core.wasm> <component.wasm>`: the steps of a C plugin build that need
//! the component-model tooling.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

const USAGE: &str = "usage:\n  tack-c bindgen <wit-dir> <out-dir>\n  tack-c bindgen <wit-0.1.0-dir> <wit-0.2.0-dir> <out-dir>    (a tack:plugin@0.2.0 plugin)\n  tack-c componentize <core.wasm> <component.wasm>";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tack-c: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<()> {
    match args.as_slice() {
        [cmd, wit, out] if cmd == "bindgen" => {
            for path in tack_c_tool::generate_bindings(&PathBuf::from(wit), &PathBuf::from(out))? {
                println!("{}", path.display());
            }
            Ok(())
        }
        [cmd, wit_0_1, wit_0_2, out] if cmd == "bindgen" => {
            let written = tack_c_tool::generate_bindings_0_2(
                &PathBuf::from(wit_0_1),
                &PathBuf::from(wit_0_2),
                &PathBuf::from(out),
            )?;
            for path in written {
                println!("{}", path.display());
            }
            Ok(())
        }
        [cmd, input, output] if cmd == "componentize" => {
            let core = std::fs::read(input).with_context(|| format!("reading {input}"))?;
            let component = tack_c_tool::componentize(&core)?;
            std::fs::write(output, component).with_context(|| format!("writing {output}"))?;
            Ok(())
        }
        _ => bail!("{USAGE}"),
    }
}
