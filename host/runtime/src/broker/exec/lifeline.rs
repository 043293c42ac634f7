//! Commands end with tack, however tack ends. A handle kills its command's process group when
//! it is dropped, but nothing is dropped when tack is killed with SIGKILL or crashes: a
//! background dev server would keep its port, and a `sleep` its shell, for ever. So the first
//! command tack starts also starts a keeper: a process forked from tack that holds the read end
//! of a pipe whose write end only tack holds, and learns over it which process groups are
//! running. When tack is gone, however it went, the kernel closes the write end; the keeper
//! reads the end of the pipe, kills every group it still knows, and exits.
//!
//! `PR_SET_PDEATHSIG` would not do: it fires when the *thread* that started the child ends
//! (tokio retires its blocking threads), and it reaches only the child, not the programs a
//! shell started.
//!
//! The keeper is forked, not executed, from a process with many threads, so until it exits it
//! calls only async-signal-safe functions (`read`, `kill`, `close`, `dup2`, `_exit`…) and never
//! allocates. The pipe's write end is close-on-exec, and confined commands close every
//! descriptor above 2 before their exec, so no command holds the keeper's pipe open.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;

/// Process groups the keeper can hold at once; more are not kept (and die only with their
/// handles, as before the keeper).
const KEEPER_CAPACITY: usize = 4096;

/// A group the keeper kills if tack goes first; forgotten again when dropped.
#[derive(Debug)]
pub(super) struct Watched(i32);

impl Drop for Watched {
    fn drop(&mut self) {
        tell(-self.0);
    }
}

/// Has the keeper kill process group `pgid` if tack dies while it runs.
pub(super) fn watch(pgid: Option<i32>) -> Option<Watched> {
    let pgid = pgid.filter(|p| *p > 1)?;
    tell(pgid).then_some(Watched(pgid))
}

/// The write end of the keeper's pipe; `None` when no keeper could be started.
fn keeper() -> Option<&'static OwnedFd> {
    static KEEPER: OnceLock<Option<OwnedFd>> = OnceLock::new();
    KEEPER.get_or_init(start).as_ref()
}

/// Sends one message: a group to watch (positive) or to forget (negative).
fn tell(message: i32) -> bool {
    let Some(pipe) = keeper() else {
        return false;
    };
    let bytes = message.to_ne_bytes();
    // SAFETY: writes 4 bytes from a live stack array to a descriptor we own. Writes of at most
    // PIPE_BUF bytes are atomic, so messages from several threads never interleave.
    let written = unsafe { libc::write(pipe.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
    written == 4
}

#[cfg(target_os = "linux")]
fn start() -> Option<OwnedFd> {
    let mut ends = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the two-element array it is given.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        tracing::warn!(
            "commands may outlive a killed tack: no pipe for their keeper: {}",
            std::io::Error::last_os_error()
        );
        return None;
    }
    let [read_end, write_end] = ends;
    // SAFETY: fork duplicates this process; the child runs only `keep`, which calls
    // async-signal-safe functions alone and never returns.
    match unsafe { libc::fork() } {
        -1 => {
            tracing::warn!(
                "commands may outlive a killed tack: cannot start their keeper: {}",
                std::io::Error::last_os_error()
            );
            // SAFETY: both descriptors are ours and closed once.
            unsafe {
                libc::close(read_end);
                libc::close(write_end);
            }
            None
        }
        0 => keep(read_end, write_end),
        _ => {
            // SAFETY: the read end is the keeper's now; ours is closed once.
            unsafe { libc::close(read_end) };
            // SAFETY: `write_end` is an open descriptor nothing else owns.
            Some(unsafe { OwnedFd::from_raw_fd(write_end) })
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn start() -> Option<OwnedFd> {
    None
}

/// The keeper's whole life, in the forked child.
#[cfg(target_os = "linux")]
fn keep(read_end: RawFd, write_end: RawFd) -> ! {
    // SAFETY (the whole function): only async-signal-safe calls on descriptors and memory of
    // this process; no allocation, no lock, no return.
    unsafe {
        libc::close(write_end);
        // Its own process group, and deaf to the terminal's signals: Ctrl+C reaches tack's
        // group, and the keeper must outlive tack, not die beside it.
        libc::setpgid(0, 0);
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
        for signal in [
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGHUP,
            libc::SIGTERM,
            libc::SIGTSTP,
            libc::SIGTTIN,
            libc::SIGTTOU,
            libc::SIGPIPE,
        ] {
            libc::sigaction(signal, &ignore, std::ptr::null_mut());
        }
        let mut unblocked: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut unblocked);
        libc::sigprocmask(libc::SIG_SETMASK, &unblocked, std::ptr::null_mut());
        // The pipe moves to 3 first: tack started with a standard stream closed may have been
        // given it as 0, 1 or 2, which /dev/null takes over next.
        let pipe: RawFd = 3;
        if read_end != pipe {
            libc::dup2(read_end, pipe);
        }
        // Holds nothing of tack's open: not its terminal, not a test's pipes, not its files.
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for fd in 0..=2 {
                if fd != null {
                    libc::dup2(null, fd);
                }
            }
        }
        if libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32) != 0 {
            for fd in 4..1024 {
                libc::close(fd);
            }
        }
        libc::prctl(libc::PR_SET_NAME, c"tack-keeper".as_ptr(), 0, 0, 0);

        let mut groups = [0i32; KEEPER_CAPACITY];
        let mut held = 0usize;
        let mut buffer = [0u8; 4096];
        let mut pending = [0u8; 4];
        let mut pending_len = 0usize;
        loop {
            let got = libc::read(pipe, buffer.as_mut_ptr().cast(), buffer.len());
            if got < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            if got <= 0 {
                break;
            }
            for &byte in &buffer[..got as usize] {
                pending[pending_len] = byte;
                pending_len += 1;
                if pending_len < 4 {
                    continue;
                }
                pending_len = 0;
                let message = i32::from_ne_bytes(pending);
                if message > 0 {
                    if held < KEEPER_CAPACITY {
                        groups[held] = message;
                        held += 1;
                    }
                } else if let Some(at) = groups[..held].iter().position(|g| *g == -message) {
                    held -= 1;
                    groups[at] = groups[held];
                }
            }
        }
        for &group in &groups[..held] {
            libc::kill(-group, libc::SIGKILL);
        }
        libc::_exit(0)
    }
}
