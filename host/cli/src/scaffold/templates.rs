//! The files `tack plugin new` writes, per language, embedded from the repository's SDKs and
//! templates so the scaffold always matches the SDK this binary was built with.

use super::Lang;

/// (path inside the new plugin, contents with `{{name}}`, `{{crate}}`, `{{command}}` and
/// `{{sdk_rust}}` placeholders, executable).
pub type TemplateFile = (&'static str, &'static str, bool);

/// Every file of the newest released WIT package, byte for byte (a test below checks that none is
/// missing).
const WIT: &[TemplateFile] = &[
    (
        "wit/agent.wit",
        include_str!("../../../../wit/v0.1.0/agent.wit"),
        false,
    ),
    (
        "wit/exec.wit",
        include_str!("../../../../wit/v0.1.0/exec.wit"),
        false,
    ),
    (
        "wit/files.wit",
        include_str!("../../../../wit/v0.1.0/files.wit"),
        false,
    ),
    (
        "wit/guest.wit",
        include_str!("../../../../wit/v0.1.0/guest.wit"),
        false,
    ),
    (
        "wit/host.wit",
        include_str!("../../../../wit/v0.1.0/host.wit"),
        false,
    ),
    (
        "wit/http.wit",
        include_str!("../../../../wit/v0.1.0/http.wit"),
        false,
    ),
    (
        "wit/project.wit",
        include_str!("../../../../wit/v0.1.0/project.wit"),
        false,
    ),
    (
        "wit/session.wit",
        include_str!("../../../../wit/v0.1.0/session.wit"),
        false,
    ),
    (
        "wit/task-runner.wit",
        include_str!("../../../../wit/v0.1.0/task-runner.wit"),
        false,
    ),
    (
        "wit/tasks.wit",
        include_str!("../../../../wit/v0.1.0/tasks.wit"),
        false,
    ),
    (
        "wit/types.wit",
        include_str!("../../../../wit/v0.1.0/types.wit"),
        false,
    ),
    (
        "wit/ui.wit",
        include_str!("../../../../wit/v0.1.0/ui.wit"),
        false,
    ),
    (
        "wit/worlds.wit",
        include_str!("../../../../wit/v0.1.0/worlds.wit"),
        false,
    ),
];

const RUST: &[TemplateFile] = &[
    (
        "Cargo.toml",
        include_str!("../../../../sdk/rust/template/Cargo.toml"),
        false,
    ),
    (
        "src/lib.rs",
        include_str!("../../../../sdk/rust/template/lib.rs"),
        false,
    ),
    (
        "build.sh",
        include_str!("../../../../sdk/rust/template/build.sh"),
        true,
    ),
];

const JS: &[TemplateFile] = &[
    (
        "package.json",
        include_str!("../../../../sdk/js/template/package.json"),
        false,
    ),
    (
        "src/plugin.js",
        include_str!("../../../../sdk/js/template/plugin.js"),
        false,
    ),
    (
        "src/tack.js",
        include_str!("../../../../sdk/js/src/tack.js"),
        false,
    ),
    (
        "build.js",
        include_str!("../../../../sdk/js/bin/build.js"),
        false,
    ),
    (
        "build.sh",
        include_str!("../../../../sdk/js/template/build.sh"),
        true,
    ),
];

const PYTHON: &[TemplateFile] = &[
    (
        "src/app.py",
        include_str!("../../../../sdk/python/template/app.py"),
        false,
    ),
    (
        "src/tack_plugin/__init__.py",
        include_str!("../../../../sdk/python/tack_plugin/__init__.py"),
        false,
    ),
    (
        "src/guest.py",
        include_str!("../../../../sdk/python/guest.py"),
        false,
    ),
    (
        "requirements.txt",
        include_str!("../../../../sdk/python/template/requirements.txt"),
        false,
    ),
    (
        "build.sh",
        include_str!("../../../../sdk/python/template/build.sh"),
        true,
    ),
];

const C: &[TemplateFile] = &[
    (
        "src/plugin.c",
        include_str!("../../../../sdk/c/template/plugin.c"),
        false,
    ),
    (
        "src/tack_helpers.c",
        include_str!("../../../../sdk/c/src/tack_helpers.c"),
        false,
    ),
    (
        "src/tack_defaults.c",
        include_str!("../../../../sdk/c/src/tack_defaults.c"),
        false,
    ),
    (
        "include/tack.h",
        include_str!("../../../../sdk/c/include/tack.h"),
        false,
    ),
    (
        "build.sh",
        include_str!("../../../../sdk/c/template/build.sh"),
        true,
    ),
];

/// Every file of a new plugin in `lang`, except tack.toml.
pub fn files(lang: Lang) -> Vec<TemplateFile> {
    let own = match lang {
        Lang::Rust => RUST,
        Lang::Js => JS,
        Lang::Python => PYTHON,
        Lang::C => C,
    };
    // Rust plugins get the WIT through the SDK crate; the others build from a local copy.
    let wit: &[TemplateFile] = if lang == Lang::Rust { &[] } else { WIT };
    own.iter().chain(wit).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaffolds_carry_the_whole_released_wit_package() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wit/v0.1.0");
        let mut on_disk: Vec<(String, String)> = std::fs::read_dir(&dir)
            .expect("wit/v0.1.0 is readable")
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "wit"))
            .map(|path| {
                let name = path.file_name().expect("a file name").to_string_lossy();
                let text = std::fs::read_to_string(&path).expect("a WIT file is UTF-8");
                (format!("wit/{name}"), text)
            })
            .collect();
        on_disk.sort();
        let mut shipped: Vec<(String, String)> = WIT
            .iter()
            .map(|(path, text, _)| (path.to_string(), text.to_string()))
            .collect();
        shipped.sort();
        assert_eq!(
            shipped.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            on_disk.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            "the scaffold's WIT list must name every file of wit/v0.1.0"
        );
        assert_eq!(shipped, on_disk);
    }
}
