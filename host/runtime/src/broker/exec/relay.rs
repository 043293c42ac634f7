//! Output that outlives tack, for a command the user keeps (`process.keep`). A command's output
//! goes through pipes tack reads; when tack exits, their read ends close and the command's next
//! write kills it (SIGPIPE) or fails. So a kept command's pipes are handed to a *relay*: a small
//! process of its own that copies everything the command writes to a log file and, while tack
//! lives, on to tack through new pipes, so tack reads the command exactly as before. When tack
//! is gone the copies to it fail, and the relay goes on with the file alone; when the command
//! and everything it started have closed their output, the relay exits.
//!
//! The relay is forked twice, from a process with many threads: the first child forks the relay
//! and exits at once, so tack reaps it on the spot and the relay, an orphan from its first
//! moment, is reaped by init and never left a zombie of tack's. Until it exits the relay calls
//! only async-signal-safe functions (`poll`, `read`, `write`, `dup2`, `close`, `_exit`…) and
//! never allocates. It starts a session of its own (no terminal, so closing the terminal does
//! not reach it) and keeps only its own descriptors: not the keeper's pipe (which would keep
//! the keeper from ever seeing tack go), not tack's terminal, sockets or files.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// One stream handed to the relay: the command's pipe, and the new pipe tack reads instead.
pub(super) struct Relayed {
    pub from: OwnedFd,
    pub to_tack: OwnedFd,
}

/// Starts a relay copying each of `streams` (at most two) to `log` and to tack. The relay has
/// its own copies of the descriptors; the caller closes its own once the relay runs (or reads
/// the command's pipes again when it could not start).
#[cfg(target_os = "linux")]
pub(super) fn start(streams: &[Relayed], log: &OwnedFd) -> std::io::Result<()> {
    if streams.is_empty() || streams.len() > 2 {
        return Err(std::io::Error::other("a relay carries one or two streams"));
    }
    let fds: Vec<(RawFd, RawFd)> = streams
        .iter()
        .map(|s| (s.from.as_raw_fd(), s.to_tack.as_raw_fd()))
        .collect();
    let mut plan = [-1 as RawFd; 5];
    for (i, (from, to)) in fds.iter().enumerate() {
        plan[i] = *from;
        plan[2 + i] = *to;
    }
    plan[4] = log.as_raw_fd();
    // SAFETY: fork duplicates this process; the child runs only `relay_child`, which calls
    // async-signal-safe functions alone and never returns.
    let first = unsafe { libc::fork() };
    match first {
        -1 => Err(std::io::Error::last_os_error()),
        0 => relay_child(plan),
        pid => {
            let mut status = 0;
            // SAFETY: waits for our own first child, which exits as soon as it forked; `status`
            // is ours.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::other("the relay could not be started"))
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn start(_streams: &[Relayed], _log: &OwnedFd) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The first child: forks the relay and exits, 0 when the relay started.
#[cfg(target_os = "linux")]
fn relay_child(plan: [RawFd; 5]) -> ! {
    // SAFETY (the whole function): only async-signal-safe calls on descriptors and memory of
    // this process; no allocation, no lock, no return.
    unsafe {
        match libc::fork() {
            -1 => libc::_exit(1),
            0 => relay(plan),
            _ => libc::_exit(0),
        }
    }
}

/// Where the relay keeps its descriptors: the command's streams at 3 and 4, tack's new pipes at
/// 5 and 6, the log at 7.
#[cfg(target_os = "linux")]
const FROM: [RawFd; 2] = [3, 4];
#[cfg(target_os = "linux")]
const TO_TACK: [RawFd; 2] = [5, 6];
#[cfg(target_os = "linux")]
const LOG: RawFd = 7;

/// The relay's whole life.
#[cfg(target_os = "linux")]
fn relay(plan: [RawFd; 5]) -> ! {
    // SAFETY (the whole function): as in `relay_child`.
    unsafe {
        libc::setsid();
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
        // SIGPIPE above all: once tack is gone a write to it fails with EPIPE, and the relay
        // goes on with the log.
        for signal in [
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGHUP,
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

        // Out of the way first (any of them may sit where another must go), then into place.
        let mut moved = [-1 as RawFd; 5];
        for (slot, fd) in plan.iter().enumerate() {
            if *fd >= 0 {
                moved[slot] = libc::fcntl(*fd, libc::F_DUPFD, 64);
                if moved[slot] < 0 {
                    libc::_exit(1);
                }
            }
        }
        let targets = [FROM[0], FROM[1], TO_TACK[0], TO_TACK[1], LOG];
        let mut open = [false; 5];
        for slot in 0..5 {
            if moved[slot] >= 0 {
                if libc::dup2(moved[slot], targets[slot]) < 0 {
                    libc::_exit(1);
                }
                open[slot] = true;
            } else {
                libc::close(targets[slot]);
            }
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for fd in 0..=2 {
                if fd != null {
                    libc::dup2(null, fd);
                }
            }
        }
        if libc::syscall(libc::SYS_close_range, 8u32, u32::MAX, 0u32) != 0 {
            for fd in 8..4096 {
                libc::close(fd);
            }
        }
        libc::prctl(libc::PR_SET_NAME, c"tack-relay".as_ptr(), 0, 0, 0);

        let mut from_open = [open[0], open[1]];
        let mut to_tack = [open[2], open[3]];
        let mut buffer = [0u8; 16 * 1024];
        loop {
            let mut polled: [libc::pollfd; 2] = std::mem::zeroed();
            let mut which = [0usize; 2];
            let mut n = 0;
            for stream in 0..2 {
                if from_open[stream] {
                    polled[n] = libc::pollfd {
                        fd: FROM[stream],
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    which[n] = stream;
                    n += 1;
                }
            }
            if n == 0 {
                break;
            }
            if libc::poll(polled.as_mut_ptr(), n as libc::nfds_t, -1) < 0 {
                if *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                break;
            }
            for i in 0..n {
                if polled[i].revents == 0 {
                    continue;
                }
                let stream = which[i];
                let got = libc::read(FROM[stream], buffer.as_mut_ptr().cast(), buffer.len());
                if got < 0 {
                    let errno = *libc::__errno_location();
                    if errno == libc::EINTR || errno == libc::EAGAIN {
                        continue;
                    }
                }
                if got <= 0 {
                    libc::close(FROM[stream]);
                    from_open[stream] = false;
                    continue;
                }
                let bytes = &buffer[..got as usize];
                write_all(LOG, bytes);
                if to_tack[stream] && !write_all(TO_TACK[stream], bytes) {
                    libc::close(TO_TACK[stream]);
                    to_tack[stream] = false;
                }
            }
        }
        libc::_exit(0)
    }
}

/// Writes all of `bytes`; false when the descriptor stopped taking them (tack went).
#[cfg(target_os = "linux")]
unsafe fn write_all(fd: RawFd, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: writes from a live slice to a descriptor of this process.
        let wrote = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if wrote < 0 {
            // SAFETY: reads this thread's errno.
            if unsafe { *libc::__errno_location() } == libc::EINTR {
                continue;
            }
            return false;
        }
        bytes = &bytes[wrote as usize..];
    }
    true
}
