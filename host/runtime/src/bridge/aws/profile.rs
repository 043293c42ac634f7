//! The shared AWS files (`~/.aws/credentials`, `~/.aws/config`) as the AWS SDKs read them: a
//! profile's keys are its section's `key = value` lines, the credentials file's `[name]` taking
//! precedence over the config file's `[profile name]` (`[default]` in both). Indented lines
//! (an S3 sub-section's settings) and comments are skipped. Hand-written: the SDKs' parser
//! lives in `aws-config`, which brings an HTTP stack of its own.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::credentials::AwsEnvironment;

/// The profile tack uses: `AWS_PROFILE`, else `default`.
pub fn name(env: &AwsEnvironment) -> String {
    env.var("AWS_PROFILE")
        .or_else(|| env.var("AWS_DEFAULT_PROFILE"))
        .unwrap_or_else(|| "default".into())
}

/// The profile's settings from both files; `None` when neither has it.
pub fn settings(env: &AwsEnvironment) -> Result<Option<BTreeMap<String, String>>, String> {
    let profile = name(env);
    let mut found: Option<BTreeMap<String, String>> = None;
    let config_section = if profile == "default" {
        "default".to_string()
    } else {
        format!("profile {profile}")
    };
    for (path, section) in [
        (config_file(env), config_section.as_str()),
        (credentials_file(env), profile.as_str()),
    ] {
        let Some(path) = path else { continue };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        if let Some(keys) = section_of(&text, section) {
            // The credentials file comes second, so its keys win.
            found.get_or_insert_with(BTreeMap::new).extend(keys);
        }
    }
    Ok(found)
}

/// The profile's `region`, if its files name one.
pub fn region(env: &AwsEnvironment) -> Option<String> {
    settings(env)
        .ok()
        .flatten()?
        .remove("region")
        .filter(|r| !r.is_empty())
}

fn config_file(env: &AwsEnvironment) -> Option<PathBuf> {
    env.var("AWS_CONFIG_FILE")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from(env.var("HOME")?).join(".aws/config")))
}

fn credentials_file(env: &AwsEnvironment) -> Option<PathBuf> {
    env.var("AWS_SHARED_CREDENTIALS_FILE")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from(env.var("HOME")?).join(".aws/credentials")))
}

/// The `key = value` lines of `[section]`, keys lower-cased as the SDKs compare them.
fn section_of(text: &str, section: &str) -> Option<BTreeMap<String, String>> {
    let mut current: Option<bool> = None;
    let mut keys: Option<BTreeMap<String, String>> = None;
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or_default();
            let header = header.split_whitespace().collect::<Vec<_>>().join(" ");
            let here = header == section;
            if here {
                keys.get_or_insert_with(BTreeMap::new);
            }
            current = Some(here);
            continue;
        }
        if current != Some(true) {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            if let Some(keys) = keys.as_mut() {
                keys.insert(key.trim().to_ascii_lowercase(), value.trim().to_string());
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_is_read_without_comments_or_sub_sections() {
        let text = "\
# a comment
[default]
aws_access_key_id = AKIADEFAULT
region=us-west-2

[profile  work ]
region = eu-west-1
s3 =
  max_concurrent_requests = 20
credential_process = /usr/bin/creds --json
; another comment
";
        let work = section_of(text, "profile work").expect("work");
        assert_eq!(work["region"], "eu-west-1");
        assert_eq!(work["credential_process"], "/usr/bin/creds --json");
        assert!(!work.contains_key("max_concurrent_requests"));
        let default = section_of(text, "default").expect("default");
        assert_eq!(default["aws_access_key_id"], "AKIADEFAULT");
        assert_eq!(default["region"], "us-west-2");
        assert!(section_of(text, "profile other").is_none());
    }
}
