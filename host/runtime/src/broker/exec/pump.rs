//! Reading a command's output: one task per pipe, sending what it reads to the command's
//! handle. A pump hands its pipe back when asked, so a command kept past tack's exit can have
//! its output relayed ([`super::relay`]) and be read through the relay's pipes instead.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::sync::{mpsc, oneshot};

use super::Chunk;

/// What a pump gives back: its pipe (blocking again), where it sent what it read, and what it
/// had read but not yet sent when it was asked.
pub(super) struct PumpParts {
    pub fd: OwnedFd,
    pub tx: mpsc::Sender<Chunk>,
    pub wrap: fn(Vec<u8>) -> Chunk,
    pub unsent: Vec<u8>,
}

/// Asks a running pump for its pipe.
pub(super) struct HandOver(oneshot::Sender<oneshot::Sender<PumpParts>>);

impl HandOver {
    /// The pump's parts; `None` when it has already ended (it read its stream to the end).
    pub async fn take(self) -> Option<PumpParts> {
        let (reply, parts) = oneshot::channel();
        self.0.send(reply).ok()?;
        parts.await.ok()
    }
}

/// Starts a task reading `reader` into `tx`, each read wrapped by `wrap`.
pub(super) fn pump(
    reader: pipe::Receiver,
    tx: mpsc::Sender<Chunk>,
    wrap: fn(Vec<u8>) -> Chunk,
) -> HandOver {
    let (ask, asked) = oneshot::channel();
    tokio::spawn(run(reader, tx, wrap, asked, Vec::new()));
    HandOver(ask)
}

/// [`pump`] on a pipe's read end given as a descriptor, sending `first` before anything it
/// reads.
pub(super) fn from_fd(
    fd: OwnedFd,
    tx: mpsc::Sender<Chunk>,
    wrap: fn(Vec<u8>) -> Chunk,
    first: Vec<u8>,
) -> std::io::Result<HandOver> {
    let reader = pipe::Receiver::from_owned_fd(fd)?;
    let (ask, asked) = oneshot::channel();
    tokio::spawn(run(reader, tx, wrap, asked, first));
    Ok(HandOver(ask))
}

/// What a pump waits on came.
enum Next {
    Asked(Result<oneshot::Sender<PumpParts>, oneshot::error::RecvError>),
    Read(std::io::Result<usize>),
    Room(Result<mpsc::OwnedPermit<Chunk>, mpsc::error::SendError<()>>),
}

/// Reads into `tx`, `pending` first. Whatever it waits on (the pipe, or room in the channel,
/// which is waiting for a reader who may be the very call that asks for the pipe), an ask for
/// the pipe gets through, and takes what was read but not sent along.
async fn run(
    mut reader: pipe::Receiver,
    tx: mpsc::Sender<Chunk>,
    wrap: fn(Vec<u8>) -> Chunk,
    asked: oneshot::Receiver<oneshot::Sender<PumpParts>>,
    mut pending: Vec<u8>,
) {
    let mut asked = Some(asked);
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        let next = if pending.is_empty() {
            tokio::select! {
                biased;
                ask = asked_for(&mut asked) => Next::Asked(ask),
                // A read is cancel-safe: nothing it took is lost when the pipe is asked for.
                read = reader.read(&mut buf) => Next::Read(read),
            }
        } else {
            tokio::select! {
                biased;
                ask = asked_for(&mut asked) => Next::Asked(ask),
                room = tx.clone().reserve_owned() => Next::Room(room),
            }
        };
        match next {
            Next::Asked(Ok(reply)) => {
                hand_over(reader, tx, wrap, pending, reply);
                return;
            }
            // The handle went without asking; it never will.
            Next::Asked(Err(_)) => asked = None,
            Next::Read(Ok(0) | Err(_)) => return,
            Next::Read(Ok(n)) => pending = buf[..n].to_vec(),
            Next::Room(Ok(room)) => {
                room.send(wrap(std::mem::take(&mut pending)));
            }
            Next::Room(Err(_)) => return,
        }
    }
}

fn hand_over(
    reader: pipe::Receiver,
    tx: mpsc::Sender<Chunk>,
    wrap: fn(Vec<u8>) -> Chunk,
    unsent: Vec<u8>,
    reply: oneshot::Sender<PumpParts>,
) {
    if let Ok(fd) = reader.into_blocking_fd() {
        let _ = reply.send(PumpParts {
            fd,
            tx,
            wrap,
            unsent,
        });
    }
}

/// The hand-over request, once one comes; never when nobody can ask any more.
async fn asked_for(
    asked: &mut Option<oneshot::Receiver<oneshot::Sender<PumpParts>>>,
) -> Result<oneshot::Sender<PumpParts>, oneshot::error::RecvError> {
    match asked {
        Some(asked) => asked.await,
        None => std::future::pending().await,
    }
}

/// A new pipe, both ends close-on-exec: (write end, read end).
pub(super) fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut ends = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the two-element array it is given.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just opened and nothing else owns them.
    Ok(unsafe { (OwnedFd::from_raw_fd(ends[1]), OwnedFd::from_raw_fd(ends[0])) })
}
