//! What tack's two browser logins share (an MCP server's, `crate::mcp::oauth`, and a ChatGPT
//! plan's, `crate::subscription`): PKCE's verifier and challenge (RFC 7636, S256), random
//! `state` values, and the server on this machine the browser comes back to. That server listens
//! on 127.0.0.1 only, answers every visit with a short page, and hands over only the visit that
//! brings the login's own `state` back; another path, another state (a stale tab, a page on this
//! machine guessing the port) or a silent visitor is answered or dropped and waited past.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::time::Duration;

use anyhow::{Context, Result};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The most of a request that is read: a request line with a code and state, and headers.
const MAX_REQUEST: usize = 16 * 1024;
/// A visitor that sends no request in this long is dropped.
const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// Visits answered at once; more are turned away until some are done.
const MAX_VISITS: usize = 32;

/// `bytes` random bytes from the system, URL-safe base64.
pub fn random_token(bytes: usize) -> Result<String> {
    let mut raw = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut raw))
        .context("cannot read /dev/urandom")?;
    Ok(URL_SAFE_NO_PAD.encode(raw))
}

/// One login's PKCE pair: the verifier stays in the process, the challenge goes in the address.
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

impl Pkce {
    pub fn new() -> Result<Pkce> {
        let verifier = random_token(48)?;
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Ok(Pkce {
            verifier,
            challenge,
        })
    }
}

/// The server the browser comes back to.
pub struct Callback {
    listener: TcpListener,
    /// How the redirect address names this machine (some providers register `localhost`).
    host_name: &'static str,
    port: u16,
    path: &'static str,
}

impl Callback {
    /// Listens on 127.0.0.1:`port` (0: any free port) for visits to `path`.
    pub async fn listen(host_name: &'static str, port: u16, path: &'static str) -> Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .with_context(|| {
                format!(
                    "cannot listen on 127.0.0.1:{port} for the browser's answer (is another \
                     login running?)"
                )
            })?;
        let port = listener.local_addr().context("the listener's port")?.port();
        Ok(Callback {
            listener,
            host_name,
            port,
            path,
        })
    }

    /// Where the browser is sent back to.
    pub fn redirect_uri(&self) -> String {
        format!("http://{}:{}{}", self.host_name, self.port, self.path)
    }

    /// The query of the first visit that brings `state` back: a `code`, or the authorization
    /// server's `error`.
    pub async fn answer(&self, state: &str) -> Result<BTreeMap<String, String>> {
        // Visits are answered side by side, so a visitor that sends nothing (a browser's
        // preconnected socket) never holds up the one that brings the answer.
        let (found_tx, mut found) = tokio::sync::mpsc::channel(1);
        let mut visits = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    let (socket, _) = accepted.context("the loopback listener failed")?;
                    while visits.try_join_next().is_some() {}
                    if visits.len() >= MAX_VISITS {
                        continue;
                    }
                    let (found_tx, path, state) = (found_tx.clone(), self.path, state.to_string());
                    visits.spawn(async move {
                        let visit = tokio::time::timeout(READ_TIMEOUT, visit(socket, path, &state));
                        if let Ok(Ok(Some(query))) = visit.await {
                            let _ = found_tx.send(query).await;
                        }
                    });
                }
                Some(query) = found.recv() => return Ok(query),
            }
        }
    }
}

/// Answers one visit; its query when it is the login's return.
async fn visit(
    mut socket: TcpStream,
    path: &str,
    state: &str,
) -> std::io::Result<Option<BTreeMap<String, String>>> {
    let head = request_head(&mut socket).await?;
    let target = head
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("GET "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default();
    let query: Option<BTreeMap<String, String>> =
        url::Url::parse(&format!("http://127.0.0.1{target}"))
            .ok()
            .filter(|url| url.path() == path)
            .map(|url| url.query_pairs().into_owned().collect());
    let (status, page, answer) = match query {
        None => ("404 Not Found", "This is not an address of tack's.", None),
        Some(query) if query.get("state").map(String::as_str) != Some(state) => (
            "400 Bad Request",
            "This answer is not the one tack is waiting for (an old tab?).",
            None,
        ),
        Some(query) if query.contains_key("error") => (
            "400 Bad Request",
            "The sign-in was refused or cancelled. Nothing was saved.",
            Some(query),
        ),
        Some(query) => (
            "200 OK",
            "tack has your answer. You can close this tab and go back to the terminal.",
            Some(query),
        ),
    };
    let body = format!("<!doctype html><meta charset=utf-8><title>tack</title><p>{page}</p>\n");
    let reply = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(reply.as_bytes()).await?;
    let _ = socket.shutdown().await;
    Ok(answer)
}

/// A request's head, up to its blank line (or 16 KiB).
async fn request_head(socket: &mut TcpStream) -> std::io::Result<String> {
    let mut buffer = vec![0u8; MAX_REQUEST];
    let mut read = 0;
    while read < buffer.len() {
        let n = socket.read(&mut buffer[read..]).await?;
        if n == 0 {
            break;
        }
        read += n;
        if buffer[..read].windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&buffer[..read]).into_owned())
}

/// What an authorization server's `error` (and `error_description`) say, made safe to print: the
/// browser brought it, so it could hold anything.
pub fn refusal(answer: &BTreeMap<String, String>) -> Option<String> {
    let error = answer.get("error")?;
    let said = match answer.get("error_description") {
        Some(description) => format!("{error}: {description}"),
        None => error.clone(),
    };
    Some(said.chars().filter(|c| !c.is_control()).take(300).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_the_logins_own_state_is_taken_and_a_refusal_is_printable() {
        let callback = Callback::listen("localhost", 0, "/cb")
            .await
            .expect("listen");
        let uri = callback.redirect_uri();
        assert!(
            uri.starts_with("http://localhost:") && uri.ends_with("/cb"),
            "{uri}"
        );
        let port = callback.port;
        let visit = |target: &'static str| async move {
            let mut socket = TcpStream::connect(("127.0.0.1", port))
                .await
                .expect("connect");
            let request = format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
            socket.write_all(request.as_bytes()).await.expect("send");
            let mut answer = String::new();
            socket.read_to_string(&mut answer).await.expect("read");
            answer
        };
        let waiting = tokio::spawn(async move { callback.answer("s-1").await });
        // A silent visitor, another path and another state are all waited past.
        let _silent = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        assert!(visit("/other?state=s-1&code=c").await.contains("404"));
        assert!(visit("/cb?state=s-2&code=c").await.contains("400"));
        let refused =
            visit("/cb?state=s-1&error=access_denied&error_description=no%1b%5b31m").await;
        assert!(refused.contains("400"), "{refused}");
        let answer = waiting.await.expect("joined").expect("an answer");
        assert_eq!(
            refusal(&answer).as_deref(),
            Some("access_denied: no[31m"),
            "control characters dropped"
        );
    }
}
