//! A blocking client for `tack --mode rpc`: spawns the process, writes commands, and sorts what
//! comes back into responses (matched by id) and events (kept in arrival order). Scripts, editor
//! integrations written in Rust and the test suite drive tack through it.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command as Process, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Command, Request, Response, UiResponse};

/// A line the process wrote.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Response(Response),
    Event(Value),
    /// Not a JSON object: the process broke the protocol.
    Invalid(String),
}

#[derive(Debug)]
pub enum ClientError {
    Io(std::io::Error),
    /// Nothing matching arrived in time; says what was awaited.
    Timeout(String),
    /// The process closed its stdout.
    Closed,
    /// The command was answered with `success: false`.
    Failed {
        command: String,
        error: String,
    },
    /// A response's `data` did not have the expected shape.
    BadData(String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Io(e) => write!(f, "i/o error talking to tack: {e}"),
            ClientError::Timeout(what) => write!(f, "timed out waiting for {what}"),
            ClientError::Closed => f.write_str("tack closed its output"),
            ClientError::Failed { command, error } => write!(f, "{command} failed: {error}"),
            ClientError::BadData(e) => write!(f, "unexpected response data: {e}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<std::io::Error> for ClientError {
    fn from(e: std::io::Error) -> Self {
        ClientError::Io(e)
    }
}

enum Line {
    Text(String),
    Eof,
}

pub struct RpcClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    transcript: Vec<Incoming>,
    events: VecDeque<Value>,
    responses: Vec<Response>,
    next_id: u64,
    eof: bool,
    timeout: Duration,
}

impl RpcClient {
    /// Starts `process` (which should be `tack --mode rpc ...`) with piped stdin and stdout.
    /// Its stderr is left as the caller configured it.
    pub fn spawn(mut process: Process) -> Result<Self, ClientError> {
        let mut child = process
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| ClientError::Io(std::io::Error::other("stdout was not piped")))?;
        let (tx, lines) = mpsc::channel();
        // A thread, so that waiting for a line can time out on a plain channel.
        std::thread::spawn(move || {
            let reader = BufReader::new(stdout);
            for line in reader.lines() {
                let Ok(line) = line else { break };
                if tx.send(Line::Text(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Line::Eof);
        });
        Ok(RpcClient {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: Vec::new(),
            events: VecDeque::new(),
            responses: Vec::new(),
            next_id: 1,
            eof: false,
            timeout: Duration::from_secs(60),
        })
    }

    /// How long [`RpcClient::call`] waits for a response (60 s unless changed).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Sends a command with a fresh id and returns the id.
    pub fn send(&mut self, command: Command) -> Result<String, ClientError> {
        let id = self.next_id.to_string();
        self.next_id += 1;
        let request = Request {
            id: Some(id.clone()),
            command,
        };
        let line = serde_json::to_string(&request)
            .map_err(|e| ClientError::Io(std::io::Error::other(e)))?;
        self.send_line(&line)?;
        Ok(id)
    }

    /// Writes one raw line (a newline is added).
    pub fn send_line(&mut self, line: &str) -> Result<(), ClientError> {
        let stdin = self.stdin.as_mut().ok_or(ClientError::Closed)?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        Ok(())
    }

    /// Answers a plugin dialog.
    pub fn answer(&mut self, answer: &UiResponse) -> Result<(), ClientError> {
        let line =
            serde_json::to_string(answer).map_err(|e| ClientError::Io(std::io::Error::other(e)))?;
        self.send_line(&line)
    }

    /// Waits for the response to the command sent with `id`.
    pub fn response(&mut self, id: &str, timeout: Duration) -> Result<Response, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(i) = self
                .responses
                .iter()
                .position(|r| r.id.as_deref() == Some(id))
            {
                return Ok(self.responses.remove(i));
            }
            self.pump(deadline, || format!("the response to command {id}"))?;
        }
    }

    /// Waits for the next response without an id (the answer to an unreadable line).
    pub fn anonymous_response(&mut self, timeout: Duration) -> Result<Response, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(i) = self.responses.iter().position(|r| r.id.is_none()) {
                return Ok(self.responses.remove(i));
            }
            self.pump(deadline, || "a response without an id".to_string())?;
        }
    }

    /// Sends a command and waits for its response.
    pub fn request(&mut self, command: Command) -> Result<Response, ClientError> {
        let id = self.send(command)?;
        self.response(&id, self.timeout)
    }

    /// Sends a command; its `data` (`null` when none) on success, else [`ClientError::Failed`].
    pub fn call(&mut self, command: Command) -> Result<Value, ClientError> {
        let response = self.request(command)?;
        if response.success {
            Ok(response.data.unwrap_or(Value::Null))
        } else {
            Err(ClientError::Failed {
                command: response.command,
                error: response.error.unwrap_or_default(),
            })
        }
    }

    /// [`RpcClient::call`], with the data read as `T`.
    pub fn call_as<T: DeserializeOwned>(&mut self, command: Command) -> Result<T, ClientError> {
        let data = self.call(command)?;
        serde_json::from_value(data).map_err(|e| ClientError::BadData(e.to_string()))
    }

    /// The next event not yet taken.
    pub fn next_event(&mut self, timeout: Duration) -> Result<Value, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(event) = self.events.pop_front() {
                return Ok(event);
            }
            self.pump(deadline, || "an event".to_string())?;
        }
    }

    /// Takes events until one satisfies `matches`, and returns it.
    pub fn wait_for_event(
        &mut self,
        timeout: Duration,
        what: &str,
        mut matches: impl FnMut(&Value) -> bool,
    ) -> Result<Value, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            while let Some(event) = self.events.pop_front() {
                if matches(&event) {
                    return Ok(event);
                }
            }
            self.pump(deadline, || what.to_string())?;
        }
    }

    /// Takes events until one of type `kind`.
    pub fn wait_for(&mut self, kind: &str, timeout: Duration) -> Result<Value, ClientError> {
        self.wait_for_event(timeout, &format!("a {kind} event"), |e| e["type"] == kind)
    }

    /// Every line received so far, in order.
    pub fn transcript(&self) -> &[Incoming] {
        &self.transcript
    }

    /// Closes the process's stdin: it finishes what it is doing and exits.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Closes stdin, reads everything up to the end of the output, and waits for the exit.
    pub fn finish(&mut self, timeout: Duration) -> Result<ExitStatus, ClientError> {
        self.close_stdin();
        let deadline = Instant::now() + timeout;
        while !self.eof {
            self.pump(deadline, || "the end of the output".to_string())?;
        }
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status);
            }
            if Instant::now() >= deadline {
                return Err(ClientError::Timeout("the process to exit".into()));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Receives one line before `deadline` and files it.
    fn pump(
        &mut self,
        deadline: Instant,
        what: impl FnOnce() -> String,
    ) -> Result<(), ClientError> {
        if self.eof {
            return Err(ClientError::Closed);
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        let line = match self.lines.recv_timeout(wait) {
            Ok(Line::Text(line)) => line,
            Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                return Ok(());
            }
            Err(RecvTimeoutError::Timeout) => return Err(ClientError::Timeout(what())),
        };
        let incoming = match serde_json::from_str::<Value>(&line) {
            Ok(value) if value["type"] == "response" => {
                match serde_json::from_value::<Response>(value) {
                    Ok(response) => Incoming::Response(response),
                    Err(_) => Incoming::Invalid(line),
                }
            }
            Ok(value) if value.is_object() => Incoming::Event(value),
            _ => Incoming::Invalid(line),
        };
        match &incoming {
            Incoming::Response(r) => self.responses.push(r.clone()),
            Incoming::Event(e) => self.events.push_back(e.clone()),
            Incoming::Invalid(_) => {}
        }
        self.transcript.push(incoming);
        Ok(())
    }
}

impl Drop for RpcClient {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
