//! Credentials the host holds for a preset and applies to each of its requests itself: AWS
//! signing for Bedrock, Google access tokens for Vertex AI. A plugin never sees them, and only
//! the host's presets get them (a third-party provider's registration cannot ask for them).

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
        }
    }
}
