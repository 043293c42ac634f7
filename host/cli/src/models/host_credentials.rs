//! Credentials the host holds for a preset and applies to each of its requests itself: AWS
//! signing for Bedrock, Google access tokens for Vertex AI, a ChatGPT login's tokens. A plugin never sees them, and only
//! the host's presets get them (a third-party provider's registration cannot ask for them).

use std::path::PathBuf;
use std::sync::Arc;

use tack_runtime::bridge::aws::AwsEnvironment;
use tack_runtime::bridge::{AwsSigner, GoogleEnvironment, GoogleTokenSource, PluginProvider};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum HostCredentials {
    #[default]
    None,
    /// SigV4 with the user's AWS credentials, for `service` in `region`.
    AwsSigV4 {
        region: String,
        service: &'static str,
    },
    /// An access token for the user's Google Application Default Credentials.
    GoogleAdc,
    /// The access token of the user's ChatGPT login, kept in `auth`.
    ChatGptLogin {
        auth: PathBuf,
        chatgpt: crate::subscription::ChatGpt,
    },
}

impl HostCredentials {
    /// Whether there are credentials to find, without running anything (a profile's
    /// `credential_process` runs when a request is signed).
    pub fn available(&self) -> bool {
        match self {
            HostCredentials::None => true,
            HostCredentials::AwsSigV4 { .. } => {
                tack_runtime::bridge::aws::credentials_configured(&AwsEnvironment::from_process())
            }
            HostCredentials::GoogleAdc => GoogleEnvironment::from_process().has_credentials(),
            HostCredentials::ChatGptLogin { auth, .. } => {
                crate::subscription::logged_in(auth, crate::subscription::CHATGPT)
            }
        }
    }

    /// `provider`, sending its requests with these credentials.
    pub fn apply(&self, provider: PluginProvider, http: &reqwest::Client) -> PluginProvider {
        match self {
            HostCredentials::None => provider,
            HostCredentials::AwsSigV4 { region, service } => provider.with_aws_signer(Arc::new(
                AwsSigner::new(region, service, AwsEnvironment::from_process()),
            )),
            HostCredentials::GoogleAdc => provider.with_google_token_source(Arc::new(
                GoogleTokenSource::new(GoogleEnvironment::from_process(), http.clone()),
            )),
            HostCredentials::ChatGptLogin { auth, chatgpt } => {
                provider.with_login_token_source(Arc::new(crate::subscription::FreshTokens::new(
                    auth.clone(),
                    chatgpt.clone(),
                    http.clone(),
                )))
            }
        }
    }
}
