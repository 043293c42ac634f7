//! The protocol's stdout: one writer thread takes whole lines from a channel, so responses and
//! events never interleave mid-line, and the agent loop (which emits events inline) never blocks
//! on a client that reads slowly.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use serde::Serialize;
use tack_core::event::{AgentEvent, EventSink};
use tack_protocol::{EventWire, Response};

enum Out {
    Line(String),
    /// Acknowledged once every line before it is written and flushed.
    Flush(mpsc::Sender<()>),
}

#[derive(Clone)]
pub struct Output {
    tx: mpsc::Sender<Out>,
}

impl Output {
    /// Lines to stdout.
    pub fn start() -> Output {
        Output::start_with(std::io::stdout())
    }

    pub fn start_with<W: Write + Send + 'static>(mut writer: W) -> Output {
        let (tx, rx) = mpsc::channel::<Out>();
        std::thread::spawn(move || {
            for out in rx {
                match out {
                    Out::Line(mut line) => {
                        line.push('\n');
                        // A client that closed our stdout is gone; keep draining so that senders
                        // never block, and let EOF on stdin end the process.
                        let _ = writer.write_all(line.as_bytes());
                        let _ = writer.flush();
                    }
                    Out::Flush(ack) => {
                        let _ = writer.flush();
                        let _ = ack.send(());
                    }
                }
            }
        });
        Output { tx }
    }

    pub fn send<T: Serialize>(&self, value: &T) {
        match serde_json::to_string(value) {
            Ok(line) => {
                let _ = self.tx.send(Out::Line(line));
            }
            // Protocol values hold only strings, numbers and JSON values; this cannot happen, and
            // a line that cannot be written must not take the server down.
            Err(e) => tracing::error!("cannot serialize an RPC line: {e}"),
        }
    }

    pub fn respond(&self, response: Response) {
        self.send(&response);
    }

    /// Blocks until everything sent so far is on stdout.
    pub fn flush(&self) {
        let (ack, done) = mpsc::channel();
        if self.tx.send(Out::Flush(ack)).is_ok() {
            let _ = done.recv();
        }
    }
}

/// The agent's events, as `--mode json` prints them.
pub struct EventLines {
    pub out: Output,
    pub wire: EventWire,
    /// Set when `agent_end` goes out: the client may act on it before the run's task has
    /// finished, and the server must not call the agent busy then.
    pub run_ended: Arc<AtomicBool>,
    /// Between `compaction_start` and `compaction_end` (manual or automatic).
    pub compacting: Arc<AtomicBool>,
}

impl EventSink for EventLines {
    fn emit(&self, event: &AgentEvent) {
        match event {
            AgentEvent::AgentEnd { .. } => self.run_ended.store(true, Ordering::SeqCst),
            AgentEvent::CompactionStart { .. } => self.compacting.store(true, Ordering::SeqCst),
            AgentEvent::CompactionEnd { .. } => self.compacting.store(false, Ordering::SeqCst),
            _ => {}
        }
        for line in self.wire.lines(event) {
            let _ = self.out.tx.send(Out::Line(line));
        }
    }
}
