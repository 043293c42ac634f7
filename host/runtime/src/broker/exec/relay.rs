//! Output that outlives tack, for a command the user keeps (`process.keep`). A command's output
//! goes through pipes tack reads; when tack exits, their read ends close and the command's next
//! write kills it (SIGPIPE) or fails. So a kept command's pipes are handed to a *relay* per
//! stream: `tee -a -p /dev/fd/3`, reading the command's pipe, appending everything to the log
//! (the file tack created, open as descriptor 3) and copying it on to tack through a new pipe
//! while tack lives, so tack reads the command exactly as before. When tack is gone, the copy
//! to it fails (`-p`: a broken pipe is not an error) and tee goes on with the file alone; when
//! the command and everything it started have closed their output, tee exits.
//!
//! The relay is a program of its own, executed, not a fork of tack: a fork would keep a copy of
//! all of tack's memory (keys and tokens among it) and its signal handlers for as long as the
//! command runs. It is forked twice: the first child forks the relay and exits at once, so tack
//! reaps it on the spot and the relay, an orphan from its first moment, is reaped by init and
//! never left a zombie of tack's. Between fork and exec only async-signal-safe calls are made,
//! on memory prepared before the fork. The relay starts a session of its own (no terminal, so
//! closing the terminal does not reach it), keeps only its own three descriptors (not the
//! keeper's pipe, which would keep the keeper from ever seeing tack go), and gets no environment.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// One stream handed to the relay: the command's pipe, and the new pipe tack reads instead.
pub(super) struct Relayed {
    pub from: OwnedFd,
    pub to_tack: OwnedFd,
}

/// Where GNU coreutils' tee is.
const TEE: [&str; 2] = ["/usr/bin/tee", "/bin/tee"];

/// Starts a relay for each of `streams`, appending to `log`. The relays hold their own copies
/// of the descriptors; the caller closes its own once they run (or reads the command's pipes
/// again when one could not start).
#[cfg(target_os = "linux")]
pub(super) fn start(streams: &[Relayed], log: &OwnedFd) -> std::io::Result<()> {
    let tee = TEE
        .iter()
        .find(|path| std::path::Path::new(path).is_file())
        .ok_or_else(|| std::io::Error::other("no tee (GNU coreutils) to relay its output"))?;
    let program = CString::new(*tee).map_err(std::io::Error::other)?;
    let words = ["tee", "-a", "-p", "/dev/fd/3"];
    let args: Vec<CString> = words
        .iter()
        .map(|w| CString::new(*w).map_err(std::io::Error::other))
        .collect::<std::io::Result<_>>()?;
    let mut argv: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    for stream in streams {
        spawn(
            &program,
            &argv,
            &envp,
            [
                stream.from.as_raw_fd(),
                stream.to_tack.as_raw_fd(),
                log.as_raw_fd(),
            ],
        )?;
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub(super) fn start(_streams: &[Relayed], _log: &OwnedFd) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Forks the relay for one stream: `fds` are its standard input, standard output and log.
#[cfg(target_os = "linux")]
fn spawn(
    program: &CString,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
    fds: [RawFd; 3],
) -> std::io::Result<()> {
    // SAFETY: fork duplicates this process; the child runs only `first_child`, which calls
    // async-signal-safe functions alone on memory prepared before the fork and never returns.
    let first = unsafe { libc::fork() };
    match first {
        -1 => Err(std::io::Error::last_os_error()),
        0 => first_child(program, argv, envp, fds),
        pid => {
            let mut status = 0;
            loop {
                // SAFETY: waits for our own first child, which exits as soon as it forked;
                // `status` is ours.
                let got = unsafe { libc::waitpid(pid, &mut status, 0) };
                if got == pid {
                    break;
                }
                let error = std::io::Error::last_os_error();
                if got < 0 && error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(error);
                }
            }
            if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::other("the relay could not be started"))
            }
        }
    }
}

/// The first child: forks the relay and exits, 0 when the fork worked.
#[cfg(target_os = "linux")]
fn first_child(
    program: &CString,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
    fds: [RawFd; 3],
) -> ! {
    // SAFETY (the whole function): only async-signal-safe calls on descriptors and memory of
    // this process; no allocation, no lock, no return.
    unsafe {
        match libc::fork() {
            -1 => libc::_exit(1),
            0 => relay(program, argv, envp, fds),
            _ => libc::_exit(0),
        }
    }
}

/// The relay, up to its exec.
#[cfg(target_os = "linux")]
fn relay(
    program: &CString,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
    fds: [RawFd; 3],
) -> ! {
    // SAFETY (the whole function): as in `first_child`.
    unsafe {
        libc::setsid();
        // What tack handles is reset by the exec; what it ignores stays ignored, so every
        // signal the relay should hear is made default first, then the terminal's ignored.
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        for signal in 1..32 {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        let mut ignore: libc::sigaction = std::mem::zeroed();
        ignore.sa_sigaction = libc::SIG_IGN;
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

        // Out of the way first (any of them may sit where another must go), then into place:
        // the command's pipe as 0, tack's as 1, the log as 3.
        let mut moved = [-1 as RawFd; 3];
        for (slot, fd) in fds.iter().enumerate() {
            moved[slot] = libc::fcntl(*fd, libc::F_DUPFD, 64);
            if moved[slot] < 0 {
                libc::_exit(126);
            }
        }
        for (fd, target) in moved.iter().zip([0, 1, 3]) {
            if libc::dup2(*fd, target) < 0 {
                libc::_exit(126);
            }
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null < 0 || libc::dup2(null, 2) < 0 {
            libc::_exit(126);
        }
        if libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32) != 0 {
            for fd in 4..65536 {
                libc::close(fd);
            }
        }
        libc::execve(program.as_ptr(), argv.as_ptr(), envp.as_ptr());
        libc::_exit(127)
    }
}
