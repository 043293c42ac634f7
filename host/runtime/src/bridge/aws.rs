//! Amazon Bedrock's credentials, held and used by the host alone. The Bedrock plugin writes
//! Converse requests as any provider plugin does; the host finds the user's AWS credentials (the
//! SDKs' default chain, the parts of it that need no AWS service), signs each request with
//! SigV4 for the provider's own URL, and reads AWS's binary event stream into the events the
//! plugin's decoder takes. No key, secret or session token ever reaches plugin code.

mod credentials;
mod event_stream;
mod profile;
mod sign;

pub use credentials::{
    configured as credentials_configured, AwsCredentialError, AwsEnvironment, Credentials,
};
pub(crate) use event_stream::EventStreamFrames;
pub use sign::AwsSigner;

/// The content type of AWS's binary event stream (`application/vnd.amazon.eventstream`).
pub const EVENT_STREAM_CONTENT_TYPE: &str = "application/vnd.amazon.eventstream";

/// The region Bedrock is reached in, as the AWS SDKs resolve it: `AWS_REGION`,
/// `AWS_DEFAULT_REGION`, the profile's `region`; `None` when nothing names one.
pub fn configured_region(env: &AwsEnvironment) -> Option<String> {
    env.var("AWS_REGION")
        .or_else(|| env.var("AWS_DEFAULT_REGION"))
        .or_else(|| profile::region(env))
}

/// The region in a standard Bedrock runtime endpoint (`bedrock-runtime.eu-west-1.amazonaws.com`).
pub fn endpoint_region(url: &str) -> Option<String> {
    let host = url::Url::parse(url).ok()?.host_str()?.to_string();
    let rest = host.strip_prefix("bedrock-runtime.")?;
    let region = rest
        .strip_suffix(".amazonaws.com")
        .or_else(|| rest.strip_suffix(".amazonaws.com.cn"))?;
    (!region.is_empty() && !region.contains('.')).then(|| region.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_region_of_a_standard_endpoint_is_read_from_its_host() {
        assert_eq!(
            endpoint_region("https://bedrock-runtime.eu-central-1.amazonaws.com").as_deref(),
            Some("eu-central-1")
        );
        assert_eq!(endpoint_region("http://127.0.0.1:9000"), None);
        assert_eq!(
            endpoint_region("https://bedrock-runtime.a.b.amazonaws.com"),
            None
        );
    }
}
