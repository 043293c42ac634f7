//! The files `tack plugin new` writes, per language, embedded from the repository's SDKs and
//! templates so the scaffold always matches the SDK this binary was built with.

use super::Lang;

/// (path inside the new plugin, contents with `{{name}}`, `{{crate}}`, `{{command}}` and
/// `{{sdk_rust}}` placeholders, executable).
pub type TemplateFile = (&'static str, &'static str, bool);

const WIT: &[TemplateFile] = &[
    (
        "wit/world.wit",
        include_str!("../../../../wit/world.wit"),
        false,
    ),
    (
        "wit/types.wit",
        include_str!("../../../../wit/types.wit"),
        false,
    ),
    (
        "wit/host.wit",
        include_str!("../../../../wit/host.wit"),
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
