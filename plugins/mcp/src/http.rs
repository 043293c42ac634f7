//! MCP's streamable HTTP transport (revision 2025-03-26 on): every message the client sends is
//! one POST to the server's endpoint; the answer is a JSON body or a `text/event-stream` body
//! whose events carry the server's messages (notifications and requests first, the response
//! last). The session the server names in `Mcp-Session-Id` goes with every later request.
//!
//! The host's `http` import hands over a whole body, so the messages of one exchange arrive when
//! the server has closed its stream; nothing arrives between exchanges (the optional GET stream
//! for unprompted server messages needs a streaming read the plugin API does not have).

use std::collections::VecDeque;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use tack_sdk::http::{self, HttpError, Request, SecretUse};
use tack_sdk::AuthScheme;

/// The header that carries a secret, as the host hands it over: the host holds its value.
#[derive(Debug, Clone, Deserialize)]
pub struct SecretHeader {
    /// The secret's name in the host's store.
    pub name: String,
    /// The header it goes in, whole (`Authorization: Bearer …` is this header's value).
    pub header: String,
}

/// What went wrong with one POST.
#[derive(Debug, Clone, PartialEq)]
pub enum PostError {
    /// The server no longer knows the session (404 while one was open): start a new one.
    SessionGone,
    /// Anything else, said in words.
    Failed(String),
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
        }
    }

    /// The next message the server sent, if one waits.
    pub fn next(&mut self) -> Option<String> {
        self.inbox.pop_front()
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
            return Err(PostError::Failed(format!(
                "{} answered HTTP {}{}",
                self.url,
                response.status,
                excerpt(&response.body)
            )));
        }
        if let Some(id) = header(&response.headers, "mcp-session-id") {
            self.session = Some(id.to_string());
        }
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
            self.inbox.extend(event_data(&text));
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

    fn secret_use(&self) -> Option<SecretUse> {
        self.secret.as_ref().map(|secret| SecretUse {
            name: secret.name.clone(),
            auth: AuthScheme::Header(secret.header.clone()),
        })
    }
}

fn describe(error: &HttpError) -> String {
    match error {
        HttpError::Denied(why) => format!("tack refused the request: {why}"),
        HttpError::Invalid(why) => format!("the request was malformed: {why}"),
        HttpError::Transport(why) => format!("the connection failed: {why}"),
        HttpError::Timeout => "no answer came in time".to_string(),
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// The start of a body, for an error message: `: <text>`, or nothing.
fn excerpt(body: &[u8]) -> String {
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

/// The `data` of each event in a whole event-stream body, as the HTML standard's event-stream
/// parsing gives it: lines end at CRLF, LF or CR; `data:` lines of one event join with `\n`; a
/// blank line ends an event; comments (`:`) and other fields do not matter here. Events without
/// data (keep-alives, a `retry:` hint) are skipped.
pub fn event_data(body: &str) -> Vec<String> {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in body.split("\r\n").flat_map(|l| l.split(['\n', '\r'])) {
        if line.is_empty() {
            events.extend(data.take());
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut data {
                Some(text) => {
                    text.push('\n');
                    text.push_str(value);
                }
                None => data = Some(value.to_string()),
            }
        }
    }
    // A stream that ends without a blank line still ends its last event: the server closed it
    // after the response, which is all a client waits for.
    events.extend(data);
    events.retain(|text| !text.trim().is_empty());
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_stream_body_gives_each_events_data() {
        let body = ": keep-alive\r\nevent: message\r\nid: 1\r\ndata: {\"a\":1}\r\n\r\n\
                    retry: 3000\n\ndata: {\"b\":\ndata: 2}\n\ndata:{\"c\":3}";
        assert_eq!(event_data(body), ["{\"a\":1}", "{\"b\":\n2}", "{\"c\":3}"]);
        assert!(event_data("").is_empty());
        assert!(event_data(": ping\n\n").is_empty());
    }

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
