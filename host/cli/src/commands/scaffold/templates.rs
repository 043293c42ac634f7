//! The files `tack plugin new` writes, per language, embedded from the repository's SDKs and
//! templates so the scaffold always matches the SDK this binary was built with, and needs nothing
//! from the tack source tree to build.

use crate::cli::Lang;

// `WIT_FILES` (wit/plugin/v0.1.0/*.wit), `PLUGIN_V0_2_WIT_FILES` (wit/plugin/v0.2.0/*.wit, what
// 0.2.0 adds), `AGENTS_WIT_FILES` (wit/agents/v0.1.0/*.wit),
// `PROVIDER_WIT_FILES` (wit/provider/v0.1.0/*.wit) and `SDK_RUST_FILES` (sdk/rust/src/*.rs),
// listed by build.rs.
include!(concat!(env!("OUT_DIR"), "/scaffold_sources.rs"));

/// One file of a new plugin.
#[derive(Debug, Clone)]
pub struct TemplateFile {
    pub path: String,
    pub contents: String,
    pub executable: bool,
    /// Whether `{{name}}`, `{{crate}}` and `{{command}}` are filled in; SDK and WIT files are
    /// copied verbatim.
    pub template: bool,
}

fn template(path: &str, contents: &str, executable: bool) -> TemplateFile {
    TemplateFile {
        path: path.to_string(),
        contents: contents.to_string(),
        executable,
        template: true,
    }
}

fn verbatim(path: String, contents: &str) -> TemplateFile {
    TemplateFile {
        path,
        contents: contents.to_string(),
        executable: false,
        template: false,
    }
}

/// The WIT package under `dir` (`wit` for the languages that bind it themselves, `tack-sdk/wit`
/// for the vendored Rust SDK).
fn wit(dir: &str) -> impl Iterator<Item = TemplateFile> + '_ {
    WIT_FILES
        .iter()
        .map(move |(name, text)| verbatim(format!("{dir}/{name}"), text))
}

/// The Rust SDK's sources bind the WIT of the repository (`../../wit/plugin/v0.1.0` and
/// `../../wit/plugin/v0.2.0`, `../../wit/agents/v0.1.0` for its `agents` module and `../../wit/provider/v0.1.0` for
/// incremental providers); the vendored copy binds the ones beside it.
const SDK_WIT_PATH: &str = "\"../../wit/plugin/v0.1.0\"";
const SDK_V0_2_WIT_PATH: &str = "\"../../wit/plugin/v0.2.0\"";
const SDK_AGENTS_WIT_PATH: &str = "\"../../wit/agents/v0.1.0\"";
const SDK_PROVIDER_WIT_PATH: &str = "\"../../wit/provider/v0.1.0\"";

fn rust() -> Vec<TemplateFile> {
    let mut files = vec![
        template(
            "Cargo.toml",
            include_str!("../../../../../sdk/rust/template/Cargo.toml"),
            false,
        ),
        template(
            "src/lib.rs",
            include_str!("../../../../../sdk/rust/template/lib.rs"),
            false,
        ),
        template(
            "build.sh",
            include_str!("../../../../../sdk/rust/template/build.sh"),
            true,
        ),
        template(
            "README.md",
            include_str!("../../../../../sdk/rust/template/README.md"),
            false,
        ),
        verbatim(
            "tack-sdk/Cargo.toml".into(),
            include_str!("../../../../../sdk/rust/template/tack-sdk.Cargo.toml"),
        ),
    ];
    files.extend(SDK_RUST_FILES.iter().map(|(name, text)| {
        verbatim(
            format!("tack-sdk/src/{name}"),
            &text
                .replace(SDK_WIT_PATH, "\"wit\"")
                .replace(SDK_V0_2_WIT_PATH, "\"wit-0.2\"")
                .replace(SDK_AGENTS_WIT_PATH, "\"wit-agents\"")
                .replace(SDK_PROVIDER_WIT_PATH, "\"wit-provider\""),
        )
    }));
    files.extend(wit("tack-sdk/wit"));
    files.extend(
        PLUGIN_V0_2_WIT_FILES
            .iter()
            .map(|(name, text)| verbatim(format!("tack-sdk/wit-0.2/{name}"), text)),
    );
    files.extend(
        AGENTS_WIT_FILES
            .iter()
            .map(|(name, text)| verbatim(format!("tack-sdk/wit-agents/{name}"), text)),
    );
    files.extend(
        PROVIDER_WIT_FILES
            .iter()
            .map(|(name, text)| verbatim(format!("tack-sdk/wit-provider/{name}"), text)),
    );
    files
}

fn js() -> Vec<TemplateFile> {
    vec![
        template(
            "package.json",
            include_str!("../../../../../sdk/js/template/package.json"),
            false,
        ),
        template(
            "src/plugin.js",
            include_str!("../../../../../sdk/js/template/plugin.js"),
            false,
        ),
        verbatim(
            "src/tack.js".into(),
            include_str!("../../../../../sdk/js/src/tack.js"),
        ),
        verbatim(
            "build.js".into(),
            include_str!("../../../../../sdk/js/bin/build.js"),
        ),
        template(
            "build.sh",
            include_str!("../../../../../sdk/js/template/build.sh"),
            true,
        ),
        template(
            "README.md",
            include_str!("../../../../../sdk/js/template/README.md"),
            false,
        ),
    ]
}

fn python() -> Vec<TemplateFile> {
    vec![
        template(
            "src/app.py",
            include_str!("../../../../../sdk/python/template/app.py"),
            false,
        ),
        verbatim(
            "src/tack_plugin/__init__.py".into(),
            include_str!("../../../../../sdk/python/tack_plugin/__init__.py"),
        ),
        verbatim(
            "src/guest.py".into(),
            include_str!("../../../../../sdk/python/guest.py"),
        ),
        template(
            "requirements.txt",
            include_str!("../../../../../sdk/python/template/requirements.txt"),
            false,
        ),
        template(
            "build.sh",
            include_str!("../../../../../sdk/python/template/build.sh"),
            true,
        ),
        template(
            "README.md",
            include_str!("../../../../../sdk/python/template/README.md"),
            false,
        ),
    ]
}

/// The C SDK's header and helpers, which the C and Zig scaffolds both compile.
fn c_sdk() -> [TemplateFile; 3] {
    [
        verbatim(
            "src/tack_helpers.c".into(),
            include_str!("../../../../../sdk/c/src/tack_helpers.c"),
        ),
        verbatim(
            "src/tack_defaults.c".into(),
            include_str!("../../../../../sdk/c/src/tack_defaults.c"),
        ),
        verbatim(
            "include/tack.h".into(),
            include_str!("../../../../../sdk/c/include/tack.h"),
        ),
    ]
}

fn c() -> Vec<TemplateFile> {
    let mut files = vec![template(
        "src/plugin.c",
        include_str!("../../../../../sdk/c/template/plugin.c"),
        false,
    )];
    files.extend(c_sdk());
    files.extend([
        template(
            "build.sh",
            include_str!("../../../../../sdk/c/template/build.sh"),
            true,
        ),
        template(
            "README.md",
            include_str!("../../../../../sdk/c/template/README.md"),
            false,
        ),
    ]);
    files
}

/// Zig: the Zig SDK over the C SDK's header and helpers, bound like C by `tack plugin c-bindgen`.
fn zig() -> Vec<TemplateFile> {
    let mut files = vec![
        template(
            "src/plugin.zig",
            include_str!("../../../../../sdk/zig/template/plugin.zig"),
            false,
        ),
        verbatim(
            "src/tack.zig".into(),
            include_str!("../../../../../sdk/zig/tack.zig"),
        ),
    ];
    files.extend(c_sdk());
    files.extend([
        template(
            "build.sh",
            include_str!("../../../../../sdk/zig/template/build.sh"),
            true,
        ),
        template(
            "README.md",
            include_str!("../../../../../sdk/zig/template/README.md"),
            false,
        ),
    ]);
    files
}

/// Every file of a new plugin in `lang`, except tack.toml.
pub fn files(lang: Lang) -> Vec<TemplateFile> {
    match lang {
        Lang::Rust => rust(),
        Lang::Js => js().into_iter().chain(wit("wit")).collect(),
        Lang::Python => python().into_iter().chain(wit("wit")).collect(),
        Lang::C => c().into_iter().chain(wit("wit")).collect(),
        Lang::Zig => zig().into_iter().chain(wit("wit")).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on_disk(dir: &str, ext: &str) -> Vec<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(dir);
        let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
            .expect("readable")
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == ext))
            .map(|path| {
                let name = path.file_name().expect("a file name").to_string_lossy();
                let text = std::fs::read_to_string(&path).expect("UTF-8");
                (name.into_owned(), text)
            })
            .collect();
        files.sort();
        files
    }

    fn shipped(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn scaffolds_carry_the_whole_released_wit_package_and_rust_sdk() {
        assert_eq!(shipped(WIT_FILES), on_disk("wit/plugin/v0.1.0", "wit"));
        assert_eq!(
            shipped(PLUGIN_V0_2_WIT_FILES),
            on_disk("wit/plugin/v0.2.0", "wit")
        );
        assert_eq!(
            shipped(AGENTS_WIT_FILES),
            on_disk("wit/agents/v0.1.0", "wit")
        );
        assert_eq!(
            shipped(PROVIDER_WIT_FILES),
            on_disk("wit/provider/v0.1.0", "wit")
        );
        assert_eq!(shipped(SDK_RUST_FILES), on_disk("sdk/rust/src", "rs"));
    }

    #[test]
    fn the_vendored_rust_sdk_binds_its_own_wit_and_no_checkout_path() {
        let files = files(Lang::Rust);
        let lib = files
            .iter()
            .find(|f| f.path == "tack-sdk/src/lib.rs")
            .expect("vendored lib.rs");
        assert!(lib.contents.contains("path: \"wit\""));
        assert!(!lib.contents.contains(SDK_WIT_PATH));
        assert!(lib.contents.contains("path: \"wit-agents\""));
        assert!(!lib.contents.contains(SDK_AGENTS_WIT_PATH));
        assert!(lib.contents.contains("path: \"wit-provider\""));
        assert!(!lib.contents.contains(SDK_PROVIDER_WIT_PATH));
        assert!(lib.contents.contains("path: [\"wit\", \"wit-0.2\"]"));
        assert!(!lib.contents.contains(SDK_V0_2_WIT_PATH));
        assert!(files
            .iter()
            .any(|f| f.path == "tack-sdk/wit-0.2/process.wit"));
        assert!(files
            .iter()
            .any(|f| f.path == "tack-sdk/wit-provider/provider.wit"));
        assert!(files.iter().any(|f| f.path == "tack-sdk/wit/worlds.wit"));
        assert!(files
            .iter()
            .any(|f| f.path == "tack-sdk/wit-agents/agents.wit"));
        for file in &files {
            assert!(
                !file.contents.contains(env!("CARGO_MANIFEST_DIR")),
                "{} names the source tree",
                file.path
            );
        }
    }

    /// The vendored SDK's manifest spells out what the workspace gives the real one.
    #[test]
    fn the_vendored_rust_sdk_depends_on_what_the_workspace_sdk_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let read = |path: &str| -> toml::Table {
            toml::from_str(&std::fs::read_to_string(root.join(path)).expect("readable"))
                .expect("toml")
        };
        let workspace = read("Cargo.toml");
        let workspace_deps = workspace["workspace"]["dependencies"]
            .as_table()
            .expect("workspace deps");
        let sdk = read("sdk/rust/Cargo.toml");
        let vendored = read("sdk/rust/template/tack-sdk.Cargo.toml");
        let sdk_deps = sdk["dependencies"].as_table().expect("deps");
        let vendored_deps = vendored["dependencies"].as_table().expect("deps");
        assert_eq!(
            sdk_deps.keys().collect::<Vec<_>>(),
            vendored_deps.keys().collect::<Vec<_>>()
        );
        for (name, spec) in sdk_deps {
            let resolved = if spec.get("workspace").is_some() {
                &workspace_deps[name]
            } else {
                spec
            };
            assert_eq!(&vendored_deps[name], resolved, "{name}");
        }
    }
}
