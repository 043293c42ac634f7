//! Amazon Bedrock: the Converse API in the user's region, reached as Pi reaches it. A Bedrock
//! API key in `AWS_BEARER_TOKEN_BEDROCK` (environment or auth.json) goes as a bearer token;
//! without one, the host signs each request with SigV4 from the user's AWS credentials
//! (`tack_runtime::bridge::aws`). The region is `AWS_REGION`, `AWS_DEFAULT_REGION` or the
//! profile's, else `us-east-1`; `base_url` under `[providers.amazon-bedrock]` names another
//! endpoint (a VPC endpoint, a proxy), signed for the region its host names, if any.

use tack_runtime::bridge::aws::{self, AwsEnvironment};

/// The preset's id, as Pi names the provider.
pub const ID: &str = "amazon-bedrock";

/// The AWS service name requests are signed for.
pub const SERVICE: &str = "bedrock";

const DEFAULT_REGION: &str = "us-east-1";

/// How the Bedrock preset is set up: where its requests go, and the region the host signs them
/// for (`None` when a Bedrock API key goes as a bearer token instead).
pub struct BedrockSetup {
    pub base_url: String,
    pub signing_region: Option<String>,
}

/// The Bedrock preset's setup from the URL the user's config gave it, if any, whether a Bedrock
/// API key is set, and the AWS settings of `env`.
pub fn setup(configured_url: Option<&str>, api_key: bool, env: &AwsEnvironment) -> BedrockSetup {
    let region = configured_url
        .and_then(aws::endpoint_region)
        .or_else(|| aws::configured_region(env))
        .unwrap_or_else(|| DEFAULT_REGION.into());
    BedrockSetup {
        base_url: configured_url
            .map(str::to_string)
            .unwrap_or_else(|| format!("https://bedrock-runtime.{region}.amazonaws.com")),
        signing_region: (!api_key).then_some(region),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> AwsEnvironment {
        AwsEnvironment::from_vars(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    #[test]
    fn the_region_comes_from_the_endpoint_then_the_environment() {
        assert_eq!(
            aws::configured_region(&env(&[
                ("AWS_REGION", "eu-west-3"),
                ("HOME", "/nonexistent")
            ]))
            .as_deref(),
            Some("eu-west-3")
        );
        assert_eq!(
            aws::configured_region(&env(&[("HOME", "/nonexistent")])),
            None
        );
    }
}
