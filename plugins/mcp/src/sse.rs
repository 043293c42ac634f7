//! Server-sent events, parsed as they arrive, as the HTML standard's event-stream parsing reads
//! them: lines end at CRLF, LF or CR (also when a chunk ends between CR and LF); `data:` lines of
//! one event join with `\n`; a blank line ends an event; comments (`:`) and `id`/`retry` do not
//! matter to an MCP client. The maintained SSE crates parse async byte streams; this client reads
//! synchronously through host calls, so it feeds bytes to this instead.

/// One event: its type (`message` when the stream names none) and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub kind: String,
    pub data: String,
}

/// The longest line kept: a longer one is cut there (and its JSON then fails to parse, which
/// the client counts as a malformed message).
const MAX_LINE: usize = 16 << 20;

#[derive(Default)]
pub struct EventParser {
    line: Vec<u8>,
    skip_lf: bool,
    kind: Option<String>,
    data: Option<String>,
    started: bool,
}

impl EventParser {
    /// The events `bytes` completes.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        for &byte in bytes {
            if std::mem::take(&mut self.skip_lf) && byte == b'\n' {
                continue;
            }
            match byte {
                b'\r' | b'\n' => {
                    self.skip_lf = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, &mut events);
                }
                _ if self.line.len() < MAX_LINE => self.line.push(byte),
                _ => {}
            }
        }
        events
    }

    /// The end of the stream: what was left ends its event (a server that closes the stream
    /// right after its last event need not send the blank line).
    pub fn finish(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, &mut events);
        }
        self.dispatch(&mut events);
        events
    }

    fn line_done(&mut self, line: &[u8], events: &mut Vec<Event>) {
        let mut line = String::from_utf8_lossy(line);
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_string().into();
            }
        }
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.kind = Some(value.to_string()),
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<Event>) {
        let kind = self.kind.take();
        if let Some(data) = self.data.take() {
            events.push(Event {
                kind: kind
                    .filter(|k| !k.is_empty())
                    .unwrap_or_else(|| "message".into()),
                data,
            });
        }
    }
}

/// The data of each `message` event of a whole body with data in it (keep-alives and events
/// without data are left out).
pub fn messages(body: &[u8]) -> Vec<String> {
    let mut parser = EventParser::default();
    let mut events = parser.push(body);
    events.extend(parser.finish());
    events
        .into_iter()
        .filter(|e| e.kind == "message" && !e.data.trim().is_empty())
        .map(|e| e.data)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_body_gives_each_messages_data() {
        let body = ": keep-alive\r\nevent: message\r\nid: 1\r\ndata: {\"a\":1}\r\n\r\n\
                    retry: 3000\n\ndata: {\"b\":\ndata: 2}\n\ndata:{\"c\":3}";
        assert_eq!(
            messages(body.as_bytes()),
            ["{\"a\":1}", "{\"b\":\n2}", "{\"c\":3}"]
        );
        assert!(messages(b"").is_empty());
        assert!(messages(b": ping\n\n").is_empty());
    }

    #[test]
    fn events_split_anywhere_across_chunks_come_out_whole() {
        let stream = "event: endpoint\r\ndata: /messages/?session_id=ab\r\n\r\n\
                      event: message\r\ndata: {\"id\":1,\"text\":\"h\u{e9}llo\"}\r\n\r\n";
        let bytes = stream.as_bytes();
        for split in 0..bytes.len() {
            let mut parser = EventParser::default();
            let mut events = parser.push(&bytes[..split]);
            events.extend(parser.push(&bytes[split..]));
            assert_eq!(
                events,
                [
                    Event {
                        kind: "endpoint".into(),
                        data: "/messages/?session_id=ab".into()
                    },
                    Event {
                        kind: "message".into(),
                        data: "{\"id\":1,\"text\":\"h\u{e9}llo\"}".into()
                    }
                ],
                "split at {split}"
            );
        }
    }
}
