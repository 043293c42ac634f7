//! MCP's older HTTP+SSE transport (revision 2024-11-05), for servers that do not speak
//! streamable HTTP: the client holds a GET event stream open; the server's first event,
//! `endpoint`, names where to POST messages (on the same origin); every answer and
//! notification arrives on the stream as a `message` event.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tack_sdk::http::{self, Request};
use tack_sdk::http_stream::{self, Chunk};

use crate::http::{describe, excerpt, open_event_stream, SecretHeader};
use crate::sse::EventParser;

pub struct SseLink {
    url: String,
    headers: Vec<(String, String)>,
    secret: Option<SecretHeader>,
    stream: u64,
    parser: EventParser,
    /// Where messages are POSTed, once the server has named it.
    endpoint: Option<String>,
    inbox: VecDeque<String>,
}

impl SseLink {
    /// Opens the event stream and waits (until `deadline`) for the server to name its endpoint.
    pub fn connect(
        url: &str,
        headers: Vec<(String, String)>,
        secret: Option<SecretHeader>,
        deadline: Instant,
    ) -> Result<SseLink, String> {
        let wait = deadline.saturating_duration_since(Instant::now());
        let stream = open_event_stream(url, headers.clone(), secret.as_ref(), wait)?;
        let mut link = SseLink {
            url: url.to_string(),
            headers,
            secret,
            stream,
            parser: EventParser::default(),
            endpoint: None,
            inbox: VecDeque::new(),
        };
        while link.endpoint.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                link.close();
                return Err(format!(
                    "{url} did not name its message endpoint in time (its first event must be \
                     `endpoint`)"
                ));
            }
            if let Err(why) = link.read(left) {
                link.close();
                return Err(why);
            }
        }
        Ok(link)
    }

    /// The next message the server sent, waiting up to `wait` for one.
    pub fn next(&mut self, wait: Duration) -> Result<Option<String>, String> {
        if self.inbox.is_empty() {
            self.read(wait)?;
        }
        Ok(self.inbox.pop_front())
    }

    /// Reads what the stream has, waiting up to `wait` for something.
    fn read(&mut self, wait: Duration) -> Result<(), String> {
        let wait_ms = wait.as_millis().min(u128::from(u32::MAX)) as u32;
        match http_stream::read(self.stream, 1 << 20, wait_ms) {
            Ok(Chunk::Data(bytes)) => {
                for event in self.parser.push(&bytes) {
                    self.take(event);
                }
                Ok(())
            }
            Ok(Chunk::Idle) => Ok(()),
            Ok(Chunk::End) => {
                for event in self.parser.finish() {
                    self.take(event);
                }
                Err(format!("{} closed its event stream", self.url))
            }
            Err(e) => Err(format!("its event stream broke: {}", describe(&e))),
        }
    }

    fn take(&mut self, event: crate::sse::Event) {
        match event.kind.as_str() {
            "endpoint" => match same_origin(&self.url, event.data.trim()) {
                Some(endpoint) => self.endpoint = Some(endpoint),
                None => self.inbox.push_back(format!(
                    "(the server named {} as its endpoint, which is not on {}'s origin)",
                    event.data.trim(),
                    self.url
                )),
            },
            "message" if !event.data.trim().is_empty() => self.inbox.push_back(event.data),
            _ => {}
        }
    }

    /// POSTs one message to the endpoint; its answer comes on the stream.
    pub fn post(&mut self, message: &str, timeout: Duration) -> Result<(), String> {
        let Some(endpoint) = self.endpoint.clone() else {
            return Err("the server has named no message endpoint".into());
        };
        let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
        headers.extend(self.headers.iter().cloned());
        let response = http::fetch(&Request {
            method: "POST".into(),
            url: endpoint.clone(),
            headers,
            body: message.as_bytes().to_vec(),
            secret: self.secret.as_ref().map(SecretHeader::as_use),
            timeout_ms: Some(timeout.as_millis().max(1) as u64),
        })
        .map_err(|e| match e {
            // Written as a streamable HTTP server, its grant is its URL, and this server takes
            // messages elsewhere on its origin.
            http::HttpError::Denied(_) => format!(
                "it speaks the older HTTP+SSE transport and takes messages at {endpoint}, \
                 outside {}; write its entry with \"type\": \"sse\" so tack may reach its origin",
                self.url
            ),
            other => describe(&other),
        })?;
        if (200..300).contains(&response.status) {
            Ok(())
        } else {
            Err(format!(
                "{endpoint} answered HTTP {}{}",
                response.status,
                excerpt(&response.body)
            ))
        }
    }

    pub fn close(&mut self) {
        http_stream::close(self.stream);
        self.inbox.clear();
    }
}

/// `endpoint` made absolute against `base`, if it stays on `base`'s origin (scheme, host and
/// port): a server may not send the client's messages elsewhere.
pub fn same_origin(base: &str, endpoint: &str) -> Option<String> {
    let base = url::Url::parse(base).ok()?;
    let joined = base.join(endpoint).ok()?;
    (joined.origin() == base.origin()).then(|| joined.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_taken_on_the_streams_origin_only() {
        let base = "http://127.0.0.1:8000/sse";
        assert_eq!(
            same_origin(base, "/messages/?session_id=ab").as_deref(),
            Some("http://127.0.0.1:8000/messages/?session_id=ab")
        );
        assert_eq!(
            same_origin(base, "http://127.0.0.1:8000/m").as_deref(),
            Some("http://127.0.0.1:8000/m")
        );
        assert_eq!(same_origin(base, "http://evil.example/m"), None);
        assert_eq!(same_origin(base, "//evil.example/m"), None);
        assert_eq!(same_origin(base, "https://127.0.0.1:8000/m"), None);
    }
}
