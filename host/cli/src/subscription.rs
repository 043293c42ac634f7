//! Subscription logins: a ChatGPT Plus/Pro plan used through OAuth, as Codex and Pi use it
//! (`tack login openai-codex`, `/login openai-codex`). The user signs in at OpenAI in a browser
//! (authorization code with PKCE, sent back to a server on this machine); the tokens go into the
//! tack home's `auth.json` beside the API keys (0600, Pi's shape), and the host attaches the
//! access token to the `openai-codex` preset's requests itself, refreshing it before it expires
//! (`FreshTokens`). Plugin code never sees either token: a login is an object in `auth.json`,
//! which is never a secret a plugin can be granted.
//!
//! Claude Pro/Max and GitHub Copilot logins, which Pi also offers, are left out: they sign in as
//! those vendors' own apps (Claude Code's and VS Code's OAuth clients), which Anthropic's terms
//! forbid for other tools, and GitHub has not opened Copilot's API to them.

mod chatgpt;
mod fresh;
mod tokens;

use std::path::Path;

use anyhow::Result;

use crate::oauth_loopback::{refusal, Callback};

pub use chatgpt::ChatGpt;
pub use fresh::FreshTokens;
pub use tokens::Tokens;

/// The preset a ChatGPT login serves, under Pi's id for it.
pub const CHATGPT: &str = "openai-codex";

/// Whether `provider` is signed in to by a subscription login rather than given a key.
pub fn is_subscription(provider: &str) -> bool {
    provider == CHATGPT
}

/// Whether `auth.json` holds a login for `provider` (expired or not: it is refreshed when used).
pub fn logged_in(auth: &Path, provider: &str) -> bool {
    tokens::Tokens::read(auth, provider).is_ok_and(|tokens| tokens.is_some())
}

/// A login under way: the address the user opens, and the server on this machine the browser
/// comes back to.
pub struct PendingLogin {
    pub url: String,
    flow: chatgpt::Flow,
    callback: Callback,
    chatgpt: ChatGpt,
}

/// How long a login waits for the browser or a pasted answer.
const LOGIN_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

impl PendingLogin {
    /// Starts listening for the browser's return and makes the address to sign in at.
    pub async fn start(chatgpt: ChatGpt) -> Result<PendingLogin> {
        // OpenAI sends the browser back to `localhost`, on Codex's port.
        let callback =
            Callback::listen("localhost", chatgpt.callback_port(), "/auth/callback").await?;
        let flow = chatgpt::Flow::new(callback.redirect_uri())?;
        Ok(PendingLogin {
            url: chatgpt.authorize_url(&flow),
            flow,
            callback,
            chatgpt,
        })
    }

    /// Waits for the browser to come back (or for `pasted`, the address it was sent to or the
    /// code, typed by a user whose browser is on another machine; `None` cancels), exchanges
    /// the code for tokens and saves them for `CHATGPT` in `auth`.
    pub async fn finish(
        self,
        pasted: impl std::future::Future<Output = Option<String>>,
        http: &reqwest::Client,
        auth: &Path,
    ) -> Result<Tokens> {
        let state = self.flow.state.clone();
        let code = tokio::select! {
            answer = self.callback.answer(&state) => {
                let answer = answer?;
                if let Some(refusal) = refusal(&answer) {
                    anyhow::bail!("the sign-in was refused ({refusal}); nothing was saved");
                }
                match answer.get("code").filter(|code| !code.is_empty()) {
                    Some(code) => code.clone(),
                    None => anyhow::bail!("the browser's answer carries no code; nothing was saved"),
                }
            }
            text = pasted => match text {
                Some(text) => chatgpt::code_from_pasted(&text, &state)?,
                None => anyhow::bail!("the sign-in was cancelled; nothing was saved"),
            },
            () = tokio::time::sleep(LOGIN_WAIT) => anyhow::bail!(
                "no answer from the browser in {} minutes; nothing was saved",
                LOGIN_WAIT.as_secs() / 60
            ),
        };
        let tokens = self.chatgpt.exchange(http, &code, &self.flow).await?;
        tokens.save(auth, CHATGPT)?;
        Ok(tokens)
    }
}

/// Opens `url` in the user's browser, if this machine has one to open (best effort: the address
/// is shown too, for a browser elsewhere).
pub fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        // Without a display, xdg-open would start a text browser in tack's own terminal.
        let display = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        if !display("DISPLAY") && !display("WAYLAND_DISPLAY") {
            return;
        }
        "xdg-open"
    };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}
