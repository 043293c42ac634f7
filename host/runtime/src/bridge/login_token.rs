//! A subscription login's access token (ChatGPT through OAuth), which the host keeps fresh and
//! attaches to the provider's requests itself: the plugin that writes the requests never sees it,
//! nor the refresh token behind it. Where the tokens are kept and how they are refreshed is the
//! binary's business (the tack home's `auth.json`); the provider only asks for one per request.

use async_trait::async_trait;

/// What goes with one request: the bearer token, and headers that belong to the login (the
/// account a ChatGPT token is for).
#[derive(Clone)]
pub struct LoginToken {
    pub access: String,
    pub headers: Vec<(String, String)>,
}

impl std::fmt::Debug for LoginToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginToken")
            .field("access", &"<redacted>")
            .field("headers", &self.headers)
            .finish()
    }
}

#[async_trait]
pub trait LoginTokenSource: Send + Sync {
    /// The token to send now, refreshed first when it is about to expire; or why there is none,
    /// in words for the user.
    async fn token(&self) -> Result<LoginToken, String>;
}
