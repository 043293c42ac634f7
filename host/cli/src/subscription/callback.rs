//! The server on this machine that the browser comes back to after signing in
//! (`http://localhost:<port>/auth/callback?code=…&state=…`). It listens on 127.0.0.1 only,
//! answers each visit with a short page, and gives up its code only when the state is the
//! sign-in's own; anything else (another path, a stale tab's state) is answered and ignored.

use std::time::Duration;

use anyhow::{Context, Result};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

const PATH: &str = "/auth/callback";
/// The most of a request that is read: a request line with a code and state, and headers.
const MAX_REQUEST: usize = 16 * 1024;
/// A visitor that sends nothing is dropped after this.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Callback {
    listener: TcpListener,
    port: u16,
}

impl Callback {
    pub async fn listen(port: u16) -> Result<Callback> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .with_context(|| {
                format!(
                    "cannot listen on 127.0.0.1:{port} for the browser's return (is another login \
                 running?)"
                )
            })?;
        let port = listener
            .local_addr()
            .context("the callback's address")?
            .port();
        Ok(Callback { listener, port })
    }

    pub fn redirect_uri(&self) -> String {
        format!("http://localhost:{}{PATH}", self.port)
    }

    /// The code of the first visit that brings `state` back.
    pub async fn code(&self, state: &str) -> Result<String> {
        loop {
            let (stream, _) = self
                .listener
                .accept()
                .await
                .context("the callback server stopped")?;
            match tokio::time::timeout(READ_TIMEOUT, visit(stream, state)).await {
                Ok(Ok(Visit::Code(code))) => return Ok(code),
                Ok(Ok(Visit::Refused(error))) => {
                    anyhow::bail!("the sign-in was refused ({error}); nothing was saved")
                }
                _ => continue,
            }
        }
    }
}

/// What one visit brought.
enum Visit {
    Code(String),
    /// The sign-in's own return, with the server's error instead of a code.
    Refused(String),
    /// Another path, another state, a broken request.
    Ignored,
}

/// Answers one visit.
async fn visit(mut stream: TcpStream, state: &str) -> std::io::Result<Visit> {
    let mut request = Vec::new();
    let mut chunk = [0u8; 2048];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < MAX_REQUEST {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        request.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&request);
    let target = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("GET "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default();
    let url = Url::parse(&format!("http://localhost{target}")).ok();
    let (status, page, visit) = match url.filter(|url| url.path() == PATH) {
        None => (
            "404 Not Found",
            "This is not a sign-in address of tack's.",
            Visit::Ignored,
        ),
        Some(url) => {
            let get = |name: &str| {
                url.query_pairs()
                    .find(|(key, _)| key == name)
                    .map(|(_, value)| value.into_owned())
            };
            match (get("state"), get("code"), get("error")) {
                (Some(given), Some(code), _) if given == state => (
                    "200 OK",
                    "Signed in. You can close this tab and go back to tack.",
                    Visit::Code(code),
                ),
                (Some(given), _, Some(error)) if given == state => (
                    "400 Bad Request",
                    "The sign-in was refused or cancelled. Nothing was saved.",
                    Visit::Refused(
                        error
                            .chars()
                            .filter(|c| !c.is_control())
                            .take(200)
                            .collect(),
                    ),
                ),
                _ => (
                    "400 Bad Request",
                    "This sign-in answer is not the one tack is waiting for (an old tab?).",
                    Visit::Ignored,
                ),
            }
        }
    };
    let body = format!("<!doctype html><meta charset=utf-8><title>tack</title><p>{page}</p>\n");
    let reply = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(reply.as_bytes()).await?;
    let _ = stream.shutdown().await;
    Ok(visit)
}
