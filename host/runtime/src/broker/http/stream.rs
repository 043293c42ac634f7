//! `tack:plugin/http-stream` (0.2.0): a response read as it arrives, for event streams that
//! stay open (MCP's SSE transports, a server's notifications). The request is checked exactly as
//! `fetch` checks it ([`PluginState::authorized_request`]). A stream belongs to its plugin,
//! reachable from each of its instances and from no other plugin, and is closed when the plugin
//! closes it, when the server ends it, or when the plugin goes.
//!
//! Budgets: 8 streams open per plugin, or one per origin of its `http` grant when it names
//! more, up to 32 (the MCP client holds one per server); the host reads at most 16 chunks ahead
//! of the plugin (then stops reading, and the server waits); one read returns at most 1 MiB and
//! waits at most until the call's deadline, since a wait here, unlike `fetch`'s, is the
//! plugin's choice.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::mpsc;

use super::{classify, header_pairs};
use crate::bindings::latest::tack::plugin::http::HttpError;
use crate::bindings::v0_2_0::tack::plugin0_2_0::http_stream as wit;
use crate::state::PluginState;

/// Streams one plugin may hold open at once, unless its grant names more origins.
pub const MAX_OPEN_STREAMS: usize = 8;
/// The most streams any grant buys.
pub const MAX_GRANTED_STREAMS: usize = 32;

/// The streams a plugin granted `http` may hold open at once.
pub fn stream_budget(http: &[String]) -> usize {
    http.len().clamp(MAX_OPEN_STREAMS, MAX_GRANTED_STREAMS)
}
/// Chunks the host reads ahead of the plugin.
const CHUNKS_AHEAD: usize = 16;
/// The most one read returns.
const MAX_READ: usize = 1 << 20;
/// How long opening waits for the answer's head when the request names no timeout.
const HEAD_TIMEOUT: Duration = Duration::from_secs(60);

/// A plugin's open streams, shared by its instances.
#[derive(Default)]
pub struct StreamTable {
    next: AtomicU64,
    state: Mutex<Streams>,
}

#[derive(Default)]
struct Streams {
    open: HashMap<u64, Arc<tokio::sync::Mutex<Reader>>>,
    /// Streams whose head is awaited: they hold a place in the budget already, so instances
    /// opening at once cannot pass it together.
    opening: usize,
}

impl StreamTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, Streams> {
        // Plain values: a holder that panicked left them whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, id: u64) -> Option<Arc<tokio::sync::Mutex<Reader>>> {
        self.lock().open.get(&id).cloned()
    }

    /// Takes a place for a stream about to open, if the budget has one.
    fn reserve(&self, budget: usize) -> Result<(), usize> {
        let mut streams = self.lock();
        let held = streams.open.len() + streams.opening;
        if held >= budget {
            return Err(held);
        }
        streams.opening += 1;
        Ok(())
    }

    /// Ends a reservation: with the opened stream, or none.
    fn settle(&self, opened: Option<(u64, Reader)>) {
        let mut streams = self.lock();
        streams.opening = streams.opening.saturating_sub(1);
        if let Some((id, reader)) = opened {
            streams
                .open
                .insert(id, Arc::new(tokio::sync::Mutex::new(reader)));
        }
    }
}

/// One response body: the chunks the reading task passes on, and what a read left over.
struct Reader {
    chunks: mpsc::Receiver<Result<Bytes, String>>,
    pending: Bytes,
    ended: bool,
    /// The body broke after bytes a read took first; the next read says so.
    failed: Option<String>,
    task: tokio::task::AbortHandle,
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Reader {
    /// Up to `max` bytes: what a read left over, then whatever chunks have already arrived (a
    /// read never waits for more once it has some).
    fn take(&mut self, max: usize) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let n = (max - out.len()).min(self.pending.len());
            out.extend_from_slice(&self.pending.split_to(n));
            if out.len() >= max || !self.pending.is_empty() {
                return out;
            }
            match self.chunks.try_recv() {
                Ok(Ok(chunk)) => self.pending = chunk,
                // An error or the end is seen by the next read, after these bytes.
                Ok(Err(e)) => {
                    self.failed = Some(e);
                    return out;
                }
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    self.ended = true;
                    return out;
                }
                Err(mpsc::error::TryRecvError::Empty) => return out,
            }
        }
    }
}

/// Sends the request and waits (up to `head_timeout`) for the answer's head; a task then reads
/// the body ahead into the returned reader. The body may stream for as long as the plugin keeps
/// the stream open.
async fn open_stream(
    client: &reqwest::Client,
    request: super::FetchRequest,
    head_timeout: Duration,
) -> Result<(u16, Vec<(String, String)>, Reader), HttpError> {
    let builder = super::build(client, request).map_err(HttpError::from)?;
    let mut response = match tokio::time::timeout(head_timeout, builder.send()).await {
        Err(_) => return Err(HttpError::Timeout),
        Ok(Err(e)) => return Err(classify(e).into()),
        Ok(Ok(response)) => response,
    };
    let status = response.status().as_u16();
    let headers = header_pairs(response.headers());
    let (tx, rx) = mpsc::channel(CHUNKS_AHEAD);
    let task = tokio::spawn(async move {
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if tx.send(Ok(chunk)).await.is_err() {
                        return;
                    }
                }
                Ok(None) => return,
                Err(e) => {
                    let _ = tx.send(Err(e.to_string())).await;
                    return;
                }
            }
        }
    });
    let reader = Reader {
        chunks: rx,
        pending: Bytes::new(),
        ended: false,
        failed: None,
        task: task.abort_handle(),
    };
    Ok((status, headers, reader))
}

impl wit::Host for PluginState {
    async fn open(
        &mut self,
        request: wit::Request,
    ) -> wasmtime::Result<Result<wit::StreamHead, HttpError>> {
        let (client, mut request) = match self.authorized_request(request) {
            Ok(authorized) => authorized,
            Err(refused) => return Ok(Err(refused)),
        };
        let budget = stream_budget(&self.env.capabilities.http);
        if let Err(held) = self.env.streams.reserve(budget) {
            return Ok(Err(HttpError::Denied(format!(
                "this plugin has {held} streams open, the most it may; close one first"
            ))));
        }
        let head_timeout = request.timeout.take().unwrap_or(HEAD_TIMEOUT);
        let started = Instant::now();
        let opened = open_stream(&client, request, head_timeout).await;
        self.resume_after(started);
        Ok(match opened {
            Ok((status, headers, reader)) => {
                let id = self.env.streams.next.fetch_add(1, Ordering::Relaxed) + 1;
                self.env.streams.settle(Some((id, reader)));
                Ok(wit::StreamHead {
                    id,
                    status,
                    headers,
                })
            }
            Err(e) => {
                self.env.streams.settle(None);
                Err(e)
            }
        })
    }

    async fn read(
        &mut self,
        id: u64,
        max_bytes: u32,
        wait_ms: u32,
    ) -> wasmtime::Result<Result<wit::Chunk, HttpError>> {
        let Some(reader) = self.env.streams.get(id) else {
            return Ok(Err(HttpError::Invalid(format!(
                "this plugin has no open stream {id}"
            ))));
        };
        let max = (max_bytes as usize).clamp(1, MAX_READ);
        let wait = Duration::from_millis(u64::from(wait_ms))
            .min(self.call.deadline.saturating_duration_since(Instant::now()));
        // Another instance reading this stream holds it for its own wait; this read waits no
        // longer than its own.
        let started = Instant::now();
        let Ok(mut reader) = tokio::time::timeout(wait, reader.lock()).await else {
            return Ok(Ok(wit::Chunk::Idle));
        };
        let wait = wait.saturating_sub(started.elapsed());
        if !reader.pending.is_empty() {
            return Ok(Ok(wit::Chunk::Data(reader.take(max))));
        }
        if let Some(e) = reader.failed.take() {
            reader.ended = true;
            return Ok(Err(HttpError::Transport(e)));
        }
        if reader.ended {
            return Ok(Ok(wit::Chunk::End));
        }
        Ok(
            match tokio::time::timeout(wait, reader.chunks.recv()).await {
                Err(_) => Ok(wit::Chunk::Idle),
                Ok(None) => {
                    reader.ended = true;
                    Ok(wit::Chunk::End)
                }
                Ok(Some(Err(e))) => {
                    reader.ended = true;
                    Err(HttpError::Transport(e))
                }
                Ok(Some(Ok(chunk))) => {
                    reader.pending = chunk;
                    Ok(wit::Chunk::Data(reader.take(max)))
                }
            },
        )
    }

    async fn close(&mut self, id: u64) -> wasmtime::Result<()> {
        // Dropping the reader stops the task that reads the body, which closes the connection.
        let reader = self.env.streams.lock().open.remove(&id);
        drop(reader);
        Ok(())
    }

    async fn list(&mut self) -> wasmtime::Result<Vec<u64>> {
        let mut ids: Vec<u64> = self.env.streams.lock().open.keys().copied().collect();
        ids.sort_unstable();
        Ok(ids)
    }
}
