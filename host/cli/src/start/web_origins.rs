//! Grants the built-in `web` plugin the origins the user named in its configuration: the search
//! backend's `search_url` (the only place besides the usual backends its key may go) and the
//! `private_origins` web_fetch may read on this machine or a private network. Its manifest grant
//! covers public addresses only; these become origins granted by name. The values come from the
//! user's config.toml (or a trusted project's), never from a package.

use tack_runtime::PluginSpec;

/// The built-in web plugin's name.
pub const PLUGIN: &str = "web";

pub fn apply(specs: &mut [PluginSpec], warnings: &mut Vec<String>) {
    let Some(spec) = specs.iter_mut().find(|s| s.is_builtin(PLUGIN)) else {
        return;
    };
    let mut named: Vec<(&str, String)> = Vec::new();
    if let Some(url) = spec.config.get("search_url").and_then(|v| v.as_str()) {
        if !url.trim().is_empty() {
            named.push(("search_url", url.trim().to_string()));
        }
    }
    match spec.config.get("private_origins") {
        Some(serde_json::Value::Array(origins)) => {
            for origin in origins {
                match origin.as_str() {
                    Some(text) => named.push(("private_origins", text.trim().to_string())),
                    None => warnings.push(format!(
                        "[plugins.web] private_origins: {origin} is not a string; ignored"
                    )),
                }
            }
        }
        Some(serde_json::Value::Null) | None => {}
        Some(other) => warnings.push(format!(
            "[plugins.web] private_origins must be a list of URLs, not {other}; ignored"
        )),
    }
    for (option, text) in named {
        match origin(&text) {
            Ok(grant) => {
                for list in [&mut spec.manifest.capabilities.http, &mut spec.granted.http] {
                    if !list.contains(&grant) {
                        list.push(grant.clone());
                    }
                }
            }
            Err(why) => warnings.push(format!("[plugins.web] {option}: `{text}` {why}; ignored")),
        }
    }
}

/// `text` as an http grant: an http(s) URL with a host and no credentials, without a trailing
/// slash.
fn origin(text: &str) -> Result<String, &'static str> {
    let url = url::Url::parse(text).map_err(|_| "is not a URL")?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("is not an http(s) URL with a host");
    }
    if tack_runtime::broker::http::public::wildcard_scheme(text).is_some() {
        return Err("names no origin (it is the wildcard the plugin already has)");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("carries credentials; put a key in auth.json instead");
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tack_runtime::{Manifest, PluginSource};

    fn web(config: serde_json::Value) -> PluginSpec {
        let manifest = Manifest::parse(
            "[plugin]\nname = \"web\"\nversion = \"0.1.0\"\napi = \"0.1\"\ncomponent = \"web.wasm\"\n\
             [capabilities]\nhttp = [\"https://*\"]\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        PluginSpec {
            wasm: Default::default(),
            wasm_label: "builtin:web".into(),
            source: PluginSource::Builtin,
            granted: manifest.capabilities.clone(),
            config,
            manifest,
        }
    }

    #[test]
    fn configured_origins_are_granted_by_name_and_bad_ones_named() {
        let mut specs = vec![web(json!({
            "search_url": "http://127.0.0.1:8888/",
            "private_origins": ["http://localhost:3000", "ftp://x", "https://u:p@intranet", 7],
        }))];
        let mut warnings = Vec::new();
        apply(&mut specs, &mut warnings);
        let expected = vec![
            "https://*".to_string(),
            "http://127.0.0.1:8888".into(),
            "http://localhost:3000".into(),
        ];
        assert_eq!(specs[0].manifest.capabilities.http, expected);
        assert_eq!(specs[0].granted.http, expected);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings.iter().any(|w| w.contains("ftp://x")),
            "{warnings:?}"
        );
        assert!(
            warnings.iter().any(|w| w.contains("credentials")),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_package_named_web_gets_nothing() {
        let mut spec = web(json!({ "private_origins": ["http://localhost:3000"] }));
        spec.source = PluginSource::Path("/tmp/web".into());
        let mut specs = vec![spec];
        apply(&mut specs, &mut Vec::new());
        assert_eq!(specs[0].granted.http, vec!["https://*".to_string()]);
    }
}
