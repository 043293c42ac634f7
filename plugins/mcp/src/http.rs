//! MCP's streamable HTTP transport (revision 2025-03-26 on): every message the client sends is
//! one POST to the server's endpoint; the answer is a JSON body or a `text/event-stream` body
//! whose events carry the server's messages (notifications and requests first, the response
//! last). The session the server names in `Mcp-Session-Id` goes with every later request.
//!
//! A POST is read whole (the host's `http` import), so the messages of one exchange arrive when
//! the server has closed that answer's stream. What the server says unprompted (a tool list that
//! changed between calls) comes over the GET stream the transport lets a client open once the
//! session exists; it is read as it arrives (`tack:plugin/http-stream`), without waiting, each
//! time the client looks for messages.

use std::collections::VecDeque;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tack_sdk::http::{self, HttpError, Request, SecretUse};
use tack_sdk::http_stream::{self, Chunk};
use tack_sdk::AuthScheme;

use crate::sse::EventParser;

/// The header that carries a secret, as the host hands it over: the host holds its value.
#[derive(Debug, Clone, Deserialize)]
pub struct SecretHeader {
    /// The secret's name in the host's store.
    pub name: String,
    /// The header it goes in, whole (`Authorization: Bearer …` is this header's value).
    pub header: String,
}

impl SecretHeader {
    /// How the host attaches it: the whole header value is the secret.
    pub fn as_use(&self) -> SecretUse {
        SecretUse {
            name: self.name.clone(),
            auth: AuthScheme::Header(self.header.clone()),
        }
    }
}

/// What went wrong with one POST.
#[derive(Debug, Clone, PartialEq)]
pub enum PostError {
    /// The server no longer knows the session (404 while one was open): start a new one.
    SessionGone,
    /// The server refused the request with this 4xx status (before any session: perhaps it
    /// speaks only the older HTTP+SSE transport).
    Refused(u16, String),
    /// Anything else, said in words.
    Failed(String),
}

impl PostError {
    pub fn message(&self) -> String {
        match self {
            PostError::SessionGone => "it no longer knows tack's session".into(),
            PostError::Refused(_, why) | PostError::Failed(why) => why.clone(),
        }
    }
}

/// The GET stream of a session: its id, and the events read from it so far.
struct Listening {
    stream: u64,
    parser: EventParser,
}

pub struct HttpLink {
    url: String,
    headers: Vec<(String, String)>,
    secret: Option<SecretHeader>,
    session: Option<String>,
    /// The protocol revision agreed on, sent with every request after `initialize`.
    pub protocol: Option<String>,
    /// Messages the server sent that have not been handled yet, oldest first.
    inbox: VecDeque<String>,
    /// The session's GET stream, once open; `None` also when the server offers none.
    listening: Option<Listening>,
    /// The server offers no GET stream (or opening one failed): not tried again this session.
    deaf: bool,
}

/// The most of one answer that is read as messages: a server's tool result can be large, but
/// not unbounded.
const MAX_ANSWER: usize = 8 << 20;

impl HttpLink {
    pub fn new(url: String, headers: Vec<(String, String)>, secret: Option<SecretHeader>) -> Self {
        HttpLink {
            url,
            headers,
            secret,
            session: None,
            protocol: None,
            inbox: VecDeque::new(),
            listening: None,
            deaf: false,
        }
    }

    /// The next message the server sent, if one waits: an answer's, else what its GET stream
    /// has brought by now.
    pub fn next(&mut self) -> Option<String> {
        if self.inbox.is_empty() {
            self.hear();
        }
        self.inbox.pop_front()
    }

    /// Opens the session's GET stream, over which the server may send messages unprompted; a
    /// server that offers none (405) or fails to is simply not listened to.
    pub fn listen(&mut self) {
        if self.listening.is_some() || self.session.is_none() || self.deaf {
            return;
        }
        let mut headers = self.session_headers();
        headers.extend(self.headers.iter().cloned());
        match open_event_stream(
            &self.url,
            headers,
            self.secret.as_ref(),
            Duration::from_secs(5),
        ) {
            Ok(stream) => {
                self.listening = Some(Listening {
                    stream,
                    parser: EventParser::default(),
                })
            }
            Err(_) => self.deaf = true,
        }
    }

    /// Takes what the GET stream has brought, without waiting.
    fn hear(&mut self) {
        let Some(listening) = &mut self.listening else {
            return;
        };
        let mut ended = false;
        loop {
            match http_stream::read(listening.stream, 1 << 20, 0) {
                Ok(Chunk::Data(bytes)) => {
                    for event in listening.parser.push(&bytes) {
                        if event.kind == "message" && !event.data.trim().is_empty() {
                            self.inbox.push_back(event.data);
                        }
                    }
                }
                Ok(Chunk::Idle) => break,
                Ok(Chunk::End) | Err(_) => {
                    ended = true;
                    break;
                }
            }
        }
        if ended {
            // The server closed it (or it broke); the next exchange opens another.
            if let Some(listening) = self.listening.take() {
                http_stream::close(listening.stream);
            }
        }
    }

    /// Opens the GET stream again after the server closed it (a proxy's idle timeout, say).
    fn listen_again(&mut self) {
        if self.listening.is_none() && self.protocol.is_some() {
            self.listen();
        }
    }

    /// Sends one message and keeps what the server answered with for [`HttpLink::next`].
    pub fn post(&mut self, message: &str, timeout: Duration) -> Result<(), PostError> {
        let mut headers = vec![
            ("content-type".to_string(), "application/json".to_string()),
            (
                "accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ),
        ];
        headers.extend(self.session_headers());
        headers.extend(self.headers.iter().cloned());
        let response = http::fetch(&Request {
            method: "POST".into(),
            url: self.url.clone(),
            headers,
            body: message.as_bytes().to_vec(),
            secret: self.secret_use(),
            timeout_ms: Some(timeout.as_millis().max(1) as u64),
        })
        .map_err(|e| PostError::Failed(describe(&e)))?;
        if response.status == 404 && self.session.is_some() {
            self.session = None;
            return Err(PostError::SessionGone);
        }
        if !(200..300).contains(&response.status) {
            let why = format!(
                "{} answered HTTP {}{}",
                self.url,
                response.status,
                excerpt(&response.body)
            );
            // 401 and 403 are about credentials, which the older transport would want too.
            let refused = (400..500).contains(&response.status)
                && !matches!(response.status, 401 | 403)
                && self.session.is_none();
            return Err(if refused {
                PostError::Refused(response.status, why)
            } else {
                PostError::Failed(why)
            });
        }
        if let Some(id) = header(&response.headers, "mcp-session-id") {
            self.session = Some(id.to_string());
        }
        self.listen_again();
        if response.status == 202 || response.body.is_empty() {
            return Ok(());
        }
        if response.body.len() > MAX_ANSWER {
            return Err(PostError::Failed(format!(
                "{} answered with {} bytes; at most {MAX_ANSWER} are read",
                self.url,
                response.body.len()
            )));
        }
        let text = String::from_utf8_lossy(&response.body);
        let kind = header(&response.headers, "content-type").unwrap_or("");
        if kind.starts_with("text/event-stream") {
            self.inbox.extend(crate::sse::messages(text.as_bytes()));
        } else {
            // A JSON body: one message, or (2025-03-26) a batch of them.
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Array(items)) => {
                    self.inbox.extend(items.iter().map(Value::to_string));
                }
                _ => self.inbox.push_back(text.into_owned()),
            }
        }
        Ok(())
    }

    /// Ends the session on the server (a DELETE, as the transport asks of a client that leaves);
    /// a server that does not allow it answers 405, which is fine.
    pub fn close(&mut self) {
        if let Some(listening) = self.listening.take() {
            http_stream::close(listening.stream);
        }
        if self.session.is_none() {
            return;
        }
        let mut headers = self.session_headers();
        headers.extend(self.headers.iter().cloned());
        let _ = http::fetch(&Request {
            method: "DELETE".into(),
            url: self.url.clone(),
            headers,
            body: Vec::new(),
            secret: self.secret_use(),
            timeout_ms: Some(2_000),
        });
        self.session = None;
        self.protocol = None;
        self.deaf = false;
        self.inbox.clear();
    }

    fn session_headers(&self) -> Vec<(String, String)> {
        let mut headers = Vec::new();
        if let Some(id) = &self.session {
            headers.push(("mcp-session-id".to_string(), id.clone()));
        }
        if let Some(version) = &self.protocol {
            headers.push(("mcp-protocol-version".to_string(), version.clone()));
        }
        headers
    }

    pub fn secret_use(&self) -> Option<SecretUse> {
        self.secret.as_ref().map(SecretHeader::as_use)
    }
}

/// A GET for the event stream at `url`: the stream's id once the server answered 200 with an
/// event stream; otherwise what it answered (and the stream closed).
pub fn open_event_stream(
    url: &str,
    mut headers: Vec<(String, String)>,
    secret: Option<&SecretHeader>,
    wait: Duration,
) -> Result<u64, String> {
    headers.insert(0, ("accept".to_string(), "text/event-stream".to_string()));
    let head = http_stream::open(&Request {
        method: "GET".into(),
        url: url.to_string(),
        headers,
        body: Vec::new(),
        secret: secret.map(SecretHeader::as_use),
        timeout_ms: Some(wait.as_millis().max(100) as u64),
    })
    .map_err(|e| describe(&e))?;
    let streams = header(&head.headers, "content-type")
        .is_some_and(|kind| kind.starts_with("text/event-stream"));
    if head.status == 200 && streams {
        return Ok(head.id);
    }
    http_stream::close(head.id);
    Err(format!(
        "{url} answered the event stream's GET with HTTP {}{}",
        head.status,
        if streams { "" } else { ", not an event stream" }
    ))
}

pub fn describe(error: &HttpError) -> String {
    match error {
        HttpError::Denied(why) => format!("tack refused the request: {why}"),
        HttpError::Invalid(why) => format!("the request was malformed: {why}"),
        HttpError::Transport(why) => format!("the connection failed: {why}"),
        HttpError::Timeout => "no answer came in time".to_string(),
    }
}

pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// The start of a body, for an error message: `: <text>`, or nothing.
pub fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control())
        .take(200)
        .collect();
    let text = text.trim();
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_excerpt_is_one_short_line() {
        assert_eq!(excerpt(b""), "");
        assert_eq!(
            excerpt(b"Bad Request\n\x1b[31mno session\x1b[0m"),
            ": Bad Request [31mno session[0m"
        );
        assert_eq!(excerpt(&[b'x'; 500]).len(), 202);
    }
}
