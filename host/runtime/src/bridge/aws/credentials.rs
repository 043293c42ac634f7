//! The user's AWS credentials, found in the order of the AWS SDKs' default chain, as far as it
//! goes without asking an AWS service: the environment (`AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), then the profile's keys in the shared files,
//! then its `credential_process` (which is how SSO and role logins reach tools outside the SDKs:
//! `aws configure export-credentials --format process`). Profiles that assume a role or log in
//! through SSO themselves, and the container and instance metadata endpoints, are not read;
//! the error says so.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime};

use serde::Deserialize;

use super::profile;
use crate::broker::secrets::key_command_output;

/// What the chain looks at, captured once: the variables it reads and the home the shared
/// files are found in.
#[derive(Clone, Default)]
pub struct AwsEnvironment {
    vars: BTreeMap<String, String>,
}

/// The variables the chain reads; nothing else of the environment is kept.
const VARIABLES: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "HOME",
];

impl AwsEnvironment {
    pub fn from_process() -> Self {
        Self::from_vars(VARIABLES.iter().filter_map(|name| {
            std::env::var(name)
                .ok()
                .map(|value| (name.to_string(), value))
        }))
    }

    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Self {
        AwsEnvironment {
            vars: vars
                .into_iter()
                .filter(|(name, value)| VARIABLES.contains(&name.as_str()) && !value.is_empty())
                .collect(),
        }
    }

    pub fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
}

impl fmt::Debug for AwsEnvironment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The names only: the values include the secret key.
        f.debug_struct("AwsEnvironment")
            .field("vars", &self.vars.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A set of AWS credentials. Its `Debug` leaves the secrets out.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
    /// When they stop working (from a `credential_process`); `None` for long-term keys.
    pub expires: Option<SystemTime>,
    /// Read from the shared files, which tools such as saml2aws rewrite: read again for each
    /// request rather than held.
    pub reread: bool,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .field("expires", &self.expires)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// Whether they are too close to their expiry to sign another request with.
    pub fn stale(&self, now: SystemTime) -> bool {
        self.expires
            .is_some_and(|expires| expires <= now + Duration::from_secs(60))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AwsCredentialError {
    #[error(
        "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE \
         naming a profile in ~/.aws with keys or a credential_process (or set \
         AWS_BEARER_TOKEN_BEDROCK to use a Bedrock API key)"
    )]
    NotFound,
    #[error("AWS profile '{profile}': {problem}")]
    Profile { profile: String, problem: String },
    #[error("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")]
    HalfSet,
}

/// Whether the chain has something to find, without running a `credential_process`: the
/// environment's keys, or a profile with keys or a process.
pub fn configured(env: &AwsEnvironment) -> bool {
    if env.var("AWS_ACCESS_KEY_ID").is_some() {
        return true;
    }
    profile::settings(env)
        .ok()
        .flatten()
        .is_some_and(|settings| {
            settings.contains_key("aws_access_key_id")
                || settings.contains_key("credential_process")
        })
}

/// The credentials the chain finds first.
pub fn resolve(env: &AwsEnvironment) -> Result<Credentials, AwsCredentialError> {
    match (
        env.var("AWS_ACCESS_KEY_ID"),
        env.var("AWS_SECRET_ACCESS_KEY"),
    ) {
        (Some(access_key_id), Some(secret_access_key)) => {
            return Ok(Credentials {
                access_key_id,
                secret_access_key,
                session_token: env.var("AWS_SESSION_TOKEN"),
                expires: None,
                reread: false,
            })
        }
        (Some(_), None) => return Err(AwsCredentialError::HalfSet),
        _ => {}
    }
    let name = profile::name(env);
    let problem = |problem: String| AwsCredentialError::Profile {
        profile: name.clone(),
        problem,
    };
    let Some(settings) = profile::settings(env).map_err(problem)? else {
        return Err(AwsCredentialError::NotFound);
    };
    if let (Some(access_key_id), Some(secret_access_key)) = (
        settings.get("aws_access_key_id"),
        settings.get("aws_secret_access_key"),
    ) {
        return Ok(Credentials {
            access_key_id: access_key_id.clone(),
            secret_access_key: secret_access_key.clone(),
            session_token: settings.get("aws_session_token").cloned(),
            expires: None,
            reread: true,
        });
    }
    if let Some(command) = settings.get("credential_process") {
        let printed = key_command_output(command)
            .map_err(|why| problem(format!("credential_process `{command}` {why}")))?;
        return from_process_output(&printed).map_err(|why| {
            problem(format!(
                "credential_process `{command}` printed no usable credentials: {why}"
            ))
        });
    }
    let unsupported = [
        "role_arn",
        "sso_session",
        "sso_start_url",
        "web_identity_token_file",
    ]
    .into_iter()
    .find(|key| settings.contains_key(*key));
    Err(problem(match unsupported {
        Some(key) => format!(
            "its `{key}` needs an AWS service tack does not call; add `credential_process = aws \
             configure export-credentials --profile {name} --format process` to a profile and \
             use that one"
        ),
        None => "has no aws_access_key_id/aws_secret_access_key or credential_process".into(),
    }))
}

/// A `credential_process`'s output: `{"Version": 1, "AccessKeyId", "SecretAccessKey",
/// "SessionToken"?, "Expiration"?}` (RFC 3339).
fn from_process_output(printed: &str) -> Result<Credentials, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct Output {
        version: u32,
        access_key_id: String,
        secret_access_key: String,
        session_token: Option<String>,
        expiration: Option<String>,
    }
    let output: Output = serde_json::from_str(printed).map_err(|e| e.to_string())?;
    if output.version != 1 {
        return Err(format!("Version {} (only 1 is defined)", output.version));
    }
    let expires = match output.expiration {
        Some(text) => Some(
            chrono::DateTime::parse_from_rfc3339(&text)
                .map(SystemTime::from)
                .map_err(|e| format!("Expiration {text:?} is not an RFC 3339 time ({e})"))?,
        ),
        None => None,
    };
    Ok(Credentials {
        access_key_id: output.access_key_id,
        secret_access_key: output.secret_access_key,
        session_token: output.session_token,
        expires,
        reread: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> AwsEnvironment {
        AwsEnvironment::from_vars(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    #[test]
    fn the_environment_comes_first_then_the_profile_then_its_process() {
        let home = tempfile::tempdir().expect("tempdir");
        let aws = home.path().join(".aws");
        std::fs::create_dir_all(&aws).expect("mkdir");
        std::fs::write(
            aws.join("credentials"),
            "[default]\naws_access_key_id = AKIAFILE\naws_secret_access_key = filesecret\n",
        )
        .expect("write");
        std::fs::write(
            aws.join("config"),
            "[profile sso]\ncredential_process = printf '{\"Version\":1,\"AccessKeyId\":\"ASIAPROC\",\
             \"SecretAccessKey\":\"procsecret\",\"SessionToken\":\"tok\",\
             \"Expiration\":\"2030-01-01T00:00:00Z\"}'\n[profile role]\nrole_arn = arn:aws:iam::1:role/x\n",
        )
        .expect("write");
        let home = home.path().to_string_lossy().to_string();

        let from_env = resolve(&env(&[
            ("HOME", &home),
            ("AWS_ACCESS_KEY_ID", "AKIAENV"),
            ("AWS_SECRET_ACCESS_KEY", "envsecret"),
        ]))
        .expect("env");
        assert_eq!(from_env.access_key_id, "AKIAENV");

        let from_file = resolve(&env(&[("HOME", &home)])).expect("file");
        assert_eq!(from_file.secret_access_key, "filesecret");

        let from_process =
            resolve(&env(&[("HOME", &home), ("AWS_PROFILE", "sso")])).expect("process");
        assert_eq!(from_process.access_key_id, "ASIAPROC");
        assert_eq!(from_process.session_token.as_deref(), Some("tok"));
        assert!(from_process.expires.is_some());
        assert!(!from_process.stale(SystemTime::UNIX_EPOCH));

        let role = resolve(&env(&[("HOME", &home), ("AWS_PROFILE", "role")])).unwrap_err();
        assert!(role.to_string().contains("role_arn"), "{role}");
        assert!(role.to_string().contains("export-credentials"), "{role}");

        assert_eq!(
            resolve(&env(&[("HOME", "/nonexistent-home")])),
            Err(AwsCredentialError::NotFound)
        );
        assert_eq!(
            resolve(&env(&[("AWS_ACCESS_KEY_ID", "AKIA")])),
            Err(AwsCredentialError::HalfSet)
        );
    }

    #[test]
    fn debug_output_keeps_the_secrets_out() {
        let credentials = Credentials {
            access_key_id: "AKIA".into(),
            secret_access_key: "hush".into(),
            session_token: Some("hush-token".into()),
            expires: None,
            reread: false,
        };
        let shown = format!("{credentials:?}");
        assert!(!shown.contains("hush"), "{shown}");
        let shown = format!("{:?}", env(&[("AWS_SECRET_ACCESS_KEY", "hush")]));
        assert!(!shown.contains("hush"), "{shown}");
    }
}
