//! SigV4 signing of a provider's request, by AWS's own signer (`aws-sigv4`): the host adds
//! `x-amz-date`, `authorization` and, for temporary credentials, `x-amz-security-token`, after
//! the request is final (payload hooks included), so the signature covers what is sent.

use std::sync::Mutex;
use std::time::SystemTime;

use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
use aws_sigv4::sign::v4;

use super::credentials::{self, AwsCredentialError, AwsEnvironment, Credentials};

/// Signs requests for one service in one region with the credentials the chain finds, kept
/// until they are about to expire.
#[derive(Debug)]
pub struct AwsSigner {
    region: String,
    service: String,
    env: AwsEnvironment,
    held: Mutex<Option<Credentials>>,
}

#[derive(Debug, thiserror::Error)]
pub enum AwsSignError {
    #[error(transparent)]
    Credentials(#[from] AwsCredentialError),
    #[error("cannot sign the request: {0}")]
    Signing(String),
}

impl AwsSigner {
    pub fn new(region: &str, service: &str, env: AwsEnvironment) -> Self {
        AwsSigner {
            region: region.to_string(),
            service: service.to_string(),
            env,
            held: Mutex::new(None),
        }
    }

    pub fn region(&self) -> &str {
        &self.region
    }

    /// The credentials to sign with now: the ones held, or found again when there are none,
    /// they are about to expire, or they came from the shared files (which another tool may
    /// have refreshed since, and which cost a read).
    fn credentials(&self, now: SystemTime) -> Result<Credentials, AwsCredentialError> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        match held.as_ref() {
            Some(credentials) if !credentials.reread && !credentials.stale(now) => {
                Ok(credentials.clone())
            }
            _ => {
                let found = credentials::resolve(&self.env)?;
                *held = Some(found.clone());
                Ok(found)
            }
        }
    }

    /// Adds the signature headers for `method` `url` with `headers` and `body`.
    pub fn sign(
        &self,
        method: &str,
        url: &url::Url,
        headers: &mut Vec<(String, String)>,
        body: &[u8],
    ) -> Result<(), AwsSignError> {
        let now = SystemTime::now();
        self.sign_at(method, url, headers, body, now)
    }

    fn sign_at(
        &self,
        method: &str,
        url: &url::Url,
        headers: &mut Vec<(String, String)>,
        body: &[u8],
        now: SystemTime,
    ) -> Result<(), AwsSignError> {
        let found = self.credentials(now)?;
        let identity = aws_credential_types::Credentials::new(
            found.access_key_id,
            found.secret_access_key,
            found.session_token,
            found.expires,
            "tack",
        )
        .into();
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name(&self.service)
            .time(now)
            .settings(SigningSettings::default())
            .build()
            .map_err(|e| AwsSignError::Signing(e.to_string()))?
            .into();
        let signable = SignableRequest::new(
            method,
            url.as_str(),
            headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            SignableBody::Bytes(body),
        )
        .map_err(|e| AwsSignError::Signing(e.to_string()))?;
        let (instructions, _signature) = sign(signable, &params)
            .map_err(|e| AwsSignError::Signing(e.to_string()))?
            .into_parts();
        let (added, _query) = instructions.into_parts();
        for header in added {
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case(header.name()));
            headers.push((header.name().to_string(), header.value().to_string()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AWS's documented example (the SigV4 test suite's `get-vanilla`, same keys and time),
    /// reproduced through the signer: the signature AWS publishes for it.
    #[test]
    fn the_signature_is_the_one_aws_documents() {
        let env = AwsEnvironment::from_vars([
            ("AWS_ACCESS_KEY_ID".to_string(), "AKIDEXAMPLE".to_string()),
            (
                "AWS_SECRET_ACCESS_KEY".to_string(),
                "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".to_string(),
            ),
        ]);
        let signer = AwsSigner::new("us-east-1", "service", env);
        let url = url::Url::parse("https://example.amazonaws.com/").expect("url");
        let mut headers = Vec::new();
        // 2015-08-30T12:36:00Z
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_440_938_160);
        signer
            .sign_at("GET", &url, &mut headers, b"", at)
            .expect("signed");
        let authorization = headers
            .iter()
            .find(|(n, _)| n == "authorization")
            .map(|(_, v)| v.as_str())
            .unwrap_or_default();
        assert_eq!(
            authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
             SignedHeaders=host;x-amz-date, \
             Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
        assert!(headers
            .iter()
            .any(|(n, v)| n == "x-amz-date" && v == "20150830T123600Z"));
    }
}
