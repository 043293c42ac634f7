//! A loopback HTTP/1.1 server on a thread of its own: it answers each request with the reply
//! its caller picks (by the request's number, from a list, or from a queue filled as the test
//! goes) and records what it was sent. One request a connection; the reply closes it.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request line and headers, each line ending in CRLF.
    pub head: String,
    pub body: Vec<u8>,
}

impl Request {
    /// The body, as text.
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The head followed by the body, for "the request carries this" checks.
    pub fn text(&self) -> String {
        format!("{}{}", self.head, self.body_text())
    }

    /// The body as JSON; `null` when it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub struct Reply {
    status: &'static str,
    content_type: Option<&'static str>,
    body: Vec<u8>,
    /// Streams have no length: the body ends when the connection closes.
    sized: bool,
    /// Written in pieces of this many bytes, flushed one by one.
    pieces: Option<usize>,
    /// A server that stops answering: after the head and this many bytes of the body (`None`:
    /// before anything), it says nothing for the duration, then hangs up.
    stall: Option<(Option<usize>, Duration)>,
    /// Headers besides the content type, length and `connection`.
    headers: Vec<(String, String)>,
}

impl Reply {
    /// `200 OK` with a server-sent event stream.
    pub fn sse(body: impl Into<Vec<u8>>) -> Self {
        Reply {
            status: "200 OK",
            content_type: Some("text/event-stream"),
            body: body.into(),
            sized: false,
            pieces: None,
            stall: None,
            headers: Vec::new(),
        }
    }

    /// `200 OK` with `body` and its length, no content type.
    pub fn bytes(body: impl Into<Vec<u8>>) -> Self {
        Reply {
            status: "200 OK",
            content_type: None,
            body: body.into(),
            sized: true,
            pieces: None,
            stall: None,
            headers: Vec::new(),
        }
    }

    /// `status` (e.g. "401 Unauthorized") with a JSON body.
    pub fn json(status: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Reply {
            status,
            content_type: Some("application/json"),
            body: body.into(),
            sized: true,
            pieces: None,
            stall: None,
            headers: Vec::new(),
        }
    }

    /// `200 OK` with an HTML page in UTF-8.
    pub fn html(body: impl Into<Vec<u8>>) -> Self {
        Reply {
            content_type: Some("text/html; charset=utf-8"),
            ..Reply::bytes(body)
        }
    }

    /// `status` (e.g. "302 Found") pointing at `location`, with an empty body.
    pub fn redirect(status: &'static str, location: &str) -> Self {
        Reply {
            status,
            ..Reply::bytes(Vec::new())
        }
        .with_header("location", location)
    }

    /// The same reply with `status` instead.
    pub fn with_status(mut self, status: &'static str) -> Self {
        self.status = status;
        self
    }

    /// The same reply with one more header.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Takes the request and answers nothing for `wait`, then hangs up: a server that stalls
    /// before the first byte.
    pub fn silent(wait: Duration) -> Self {
        let mut reply = Reply::bytes(Vec::new());
        reply.stall = Some((None, wait));
        reply
    }

    /// Sends the head and `bytes` bytes of the body, then nothing for `wait`, then hangs up: a
    /// stream that stalls midway.
    pub fn stall_after(mut self, bytes: usize, wait: Duration) -> Self {
        self.stall = Some((Some(bytes), wait));
        self
    }

    /// Writes the body in pieces of `size` bytes, as a slow network delivers it.
    pub fn in_pieces(mut self, size: usize) -> Self {
        self.pieces = Some(size.max(1));
        self
    }

    fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        if let Some((bytes, wait)) = self.stall {
            if let Some(bytes) = bytes {
                out.write_all(self.head().as_bytes())?;
                out.write_all(&self.body[..bytes.min(self.body.len())])?;
                out.flush()?;
            }
            std::thread::sleep(wait);
            return Ok(());
        }
        out.write_all(self.head().as_bytes())?;
        match self.pieces {
            Some(size) => {
                for piece in self.body.chunks(size) {
                    out.write_all(piece)?;
                    out.flush()?;
                }
                Ok(())
            }
            None => out.write_all(&self.body),
        }
    }

    fn head(&self) -> String {
        let mut head = format!("HTTP/1.1 {}\r\n", self.status);
        if let Some(kind) = self.content_type {
            head.push_str(&format!("content-type: {kind}\r\n"));
        }
        if self.sized {
            head.push_str(&format!("content-length: {}\r\n", self.body.len()));
        }
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("connection: close\r\n\r\n");
        head
    }
}

/// A running server; it lives as long as the test process.
pub struct MockServer {
    url: String,
    port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
    /// What [`push`](Self::push) queued for a server made by [`queued`](Self::queued).
    queue: Arc<Mutex<VecDeque<Reply>>>,
}

impl MockServer {
    /// Answers the n-th request (from 0) with `reply(n)`.
    pub fn start(reply: impl Fn(usize) -> Reply + Send + 'static) -> Self {
        Self::serve(true, move |n, _| reply(n))
    }

    /// Answers the n-th request with `reply(n, request)`, for a server with more than one
    /// endpoint (a model listing beside the chat endpoint).
    pub fn routed(reply: impl Fn(usize, &Request) -> Reply + Send + 'static) -> Self {
        Self::serve(true, reply)
    }

    /// Answers the n-th request with `reply(n, request)` and keeps no requests: for long runs,
    /// whose requests (each carrying the whole conversation) would fill the memory.
    pub fn unrecorded(reply: impl Fn(usize, &Request) -> Reply + Send + 'static) -> Self {
        Self::serve(false, reply)
    }

    fn serve(record: bool, reply: impl Fn(usize, &Request) -> Reply + Send + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        std::thread::spawn(move || {
            for (n, conn) in listener.incoming().enumerate() {
                let Ok(mut conn) = conn else { break };
                let Ok(read) = conn.try_clone() else { continue };
                let request = read_request(read);
                let answer = reply(n, &request);
                if record {
                    seen.lock().expect("requests").push(request);
                }
                // On a thread of its own, so a reply that stalls holds up no other connection;
                // the client may have gone, and the next one is served all the same.
                std::thread::spawn(move || {
                    let _ = answer.write(&mut conn);
                });
            }
        });
        MockServer {
            url: format!("http://{addr}"),
            port: addr.port(),
            requests,
            queue: Arc::default(),
        }
    }

    /// Answers every request with `reply`.
    pub fn always(reply: Reply) -> Self {
        Self::start(move |_| reply.clone())
    }

    /// Answers the n-th request with the n-th reply, and with the last one past the end.
    pub fn replies(replies: Vec<Reply>) -> Self {
        Self::start(move |n| {
            replies
                .get(n)
                .or(replies.last())
                .cloned()
                .unwrap_or_else(|| Reply::bytes(Vec::new()))
        })
    }

    /// Answers each request with the next reply [`push`](Self::push)ed, and with an empty body
    /// once they have run out.
    pub fn queued() -> Self {
        let queue: Arc<Mutex<VecDeque<Reply>>> = Arc::default();
        let next = queue.clone();
        let mut server = Self::start(move |_| {
            next.lock()
                .expect("queue")
                .pop_front()
                .unwrap_or_else(|| Reply::bytes(Vec::new()))
        });
        server.queue = queue;
        server
    }

    /// Queues the reply to a coming request (see [`queued`](Self::queued)).
    pub fn push(&self, reply: Reply) {
        self.queue.lock().expect("queue").push_back(reply);
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The requests so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("requests").clone()
    }

    /// The bodies of the requests so far, as text.
    pub fn bodies(&self) -> Vec<String> {
        self.requests().iter().map(Request::body_text).collect()
    }

    /// The bodies of the requests so far, as JSON (`null` for one that is not).
    pub fn json_bodies(&self) -> Vec<Value> {
        self.requests().iter().map(Request::json).collect()
    }
}

fn read_request(conn: impl Read) -> Request {
    let mut reader = BufReader::new(conn);
    let mut head = String::new();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        // Node's fetch sends JSON bodies chunked, without a length.
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
        head.push_str(&line);
    }
    let body = if chunked {
        read_chunked(&mut reader)
    } else {
        let mut body = vec![0u8; length];
        // A body cut short is recorded as far as it came (the rest stays zero).
        let _ = reader.read_exact(&mut body);
        body
    };
    Request { head, body }
}

/// A `transfer-encoding: chunked` body, as far as it came: each chunk is its size in hex on a
/// line, the bytes and CRLF; a chunk of size 0 ends it.
fn read_chunked(reader: &mut impl BufRead) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        if reader.read_line(&mut size).unwrap_or(0) == 0 {
            break;
        }
        // A chunk extension (`;name=value`) may follow the size.
        let size = size.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size, 16).unwrap_or(0);
        let mut chunk = vec![0u8; size + 2];
        if size == 0 || reader.read_exact(&mut chunk).is_err() {
            break;
        }
        body.extend_from_slice(&chunk[..size]);
    }
    body
}

/// A loopback port where connecting never completes: its listener's accept queue is full and
/// nobody takes from it, so the kernel drops each new SYN. What a connect timeout is for.
pub struct Unreachable {
    port: u16,
    _listener: socket2::Socket,
    _queued: Vec<std::net::TcpStream>,
}

impl Unreachable {
    pub fn new() -> Self {
        use socket2::{Domain, Socket, Type};
        let listener = Socket::new(Domain::IPV4, Type::STREAM, None).expect("socket");
        let addr: std::net::SocketAddr = "127.0.0.1:0".parse().expect("address");
        listener.bind(&addr.into()).expect("bind a loopback port");
        listener.listen(0).expect("listen");
        let port = listener
            .local_addr()
            .expect("local address")
            .as_socket()
            .expect("an inet address")
            .port();
        let target: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
        // Connections completed into the queue until one no longer completes.
        let mut queued = Vec::new();
        while queued.len() < 16 {
            match std::net::TcpStream::connect_timeout(&target, Duration::from_millis(300)) {
                Ok(stream) => queued.push(stream),
                Err(_) => break,
            }
        }
        Unreachable {
            port,
            _listener: listener,
            _queued: queued,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Default for Unreachable {
    fn default() -> Self {
        Self::new()
    }
}
