//! Starting a confined command without copying tack's memory.
//!
//! std starts a command with `posix_spawn` (a vfork: the child borrows the parent's memory until
//! it execs) unless the command has a pre-exec step, which the sandbox needs; then std forks, and
//! a fork copies the page tables of all of tack's memory, a cost that grows with the session
//! (10 ms at 64 MiB on a small VM, against a budget of 3 ms). So a confined command is started
//! the way `posix_spawn` starts one: `clone(CLONE_VM | CLONE_VFORK)` on a stack of its own, the
//! parent's thread waiting until the child has exec'd or failed. The child only makes system
//! calls on what was made before the clone: the argument and environment arrays, the pipes and
//! the sandbox's [`ChildSetup`].

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use tokio::io::unix::AsyncFd;
use tokio::net::unix::pipe;

use crate::sandbox::ChildSetup;

/// What [`spawn`] started: the child, the read ends of its stdout and stderr, and the write end
/// of its stdin when it was asked for.
pub(super) struct Spawned {
    pub child: ConfinedChild,
    pub stdout: pipe::Receiver,
    pub stderr: pipe::Receiver,
    pub stdin: Option<pipe::Sender>,
}

/// A child started by [`spawn`], waited for through its pidfd.
pub(super) struct ConfinedChild {
    pid: libc::pid_t,
    pidfd: AsyncFd<OwnedFd>,
    reaped: bool,
    /// Kept past tack's exit: dropping it leaves it running.
    kept: bool,
}

impl ConfinedChild {
    pub(super) fn id(&self) -> u32 {
        self.pid.unsigned_abs()
    }

    /// Waits for the child to exit; its exit code, `None` when a signal ended it.
    pub(super) async fn wait(&mut self) -> io::Result<Option<i32>> {
        loop {
            if let Some(code) = self.try_wait()? {
                return Ok(code);
            }
            let mut ready = self.pidfd.readable().await?;
            ready.clear_ready();
        }
    }

    fn try_wait(&mut self) -> io::Result<Option<Option<i32>>> {
        let mut status = 0;
        // SAFETY: waits (without blocking) for our own child; `status` is ours.
        let got = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        if got == 0 {
            return Ok(None);
        }
        self.reaped = true;
        Ok(Some(
            libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        ))
    }

    /// Leaves the child running when it is dropped.
    pub(super) fn keep(&mut self) {
        self.kept = true;
    }

    pub(super) fn start_kill(&mut self) {
        if !self.reaped {
            // SAFETY: kill(2) touches no memory; the pid is our unreaped child, so not reused.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for ConfinedChild {
    fn drop(&mut self) {
        if self.reaped {
            return;
        }
        // As tokio's `kill_on_drop`: a command nobody waits for dies (unless it was kept), and
        // is reaped so it does not stay a zombie.
        if !self.kept {
            self.start_kill();
        }
        let pid = self.pid;
        std::thread::spawn(move || {
            let mut status = 0;
            // SAFETY: blocks until our killed child is gone; `status` is ours.
            unsafe { libc::waitpid(pid, &mut status, 0) };
        });
    }
}

/// Everything the child reads, made before the clone.
struct ChildArgs<'a> {
    path: &'a CString,
    argv: &'a [*const libc::c_char],
    envp: &'a [*const libc::c_char],
    cwd: &'a CString,
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    /// Where the child writes its errno if it cannot exec.
    report: RawFd,
    setup: &'a ChildSetup,
}

const STACK: usize = 256 * 1024;

/// Starts `program` (a path) as `argv0` with `args`, exactly `env`, in `cwd`, in a process group
/// of its own, confined by `setup`; its stdin is a pipe when `with_stdin`, else `/dev/null`.
pub(super) fn spawn(
    program: &Path,
    argv0: &str,
    args: &[String],
    env: &[(OsString, OsString)],
    cwd: &Path,
    setup: &ChildSetup,
    with_stdin: bool,
) -> io::Result<Spawned> {
    let invalid = || io::Error::from_raw_os_error(libc::EINVAL);
    let c = |bytes: &[u8]| CString::new(bytes).map_err(|_| invalid());
    let path = c(program.as_os_str().as_bytes())?;
    let cwd = c(cwd.as_os_str().as_bytes())?;
    let mut argv_owned = vec![c(argv0.as_bytes())?];
    for arg in args {
        argv_owned.push(c(arg.as_bytes())?);
    }
    let env_owned = env
        .iter()
        .map(|(k, v)| {
            let mut pair = k.as_bytes().to_vec();
            pair.push(b'=');
            pair.extend_from_slice(v.as_bytes());
            c(&pair)
        })
        .collect::<io::Result<Vec<_>>>()?;
    let argv: Vec<*const libc::c_char> = argv_owned
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let envp: Vec<*const libc::c_char> = env_owned
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();

    let (out_r, out_w) = pipe_pair()?;
    let (err_r, err_w) = pipe_pair()?;
    let (report_r, report_w) = pipe_pair()?;
    let (stdin, stdin_w): (OwnedFd, Option<OwnedFd>) = if with_stdin {
        let (r, w) = pipe_pair()?;
        (r, Some(w))
    } else {
        (std::fs::File::open("/dev/null")?.into(), None)
    };
    let args = ChildArgs {
        path: &path,
        argv: &argv,
        envp: &envp,
        cwd: &cwd,
        stdin: stdin.as_raw_fd(),
        stdout: out_w.as_raw_fd(),
        stderr: err_w.as_raw_fd(),
        report: report_w.as_raw_fd(),
        setup,
    };
    let stack = Stack::new()?;
    let pid = clone_child(&args, &stack)?;
    drop(stack);
    drop((out_w, err_w, report_w, stdin));

    let mut errno = [0u8; 4];
    let mut got = 0;
    while got < errno.len() {
        // SAFETY: reads into our buffer from our pipe; the child has exec'd (closing its end) or
        // written and exited by now.
        let n = unsafe {
            libc::read(
                report_r.as_raw_fd(),
                errno[got..].as_mut_ptr().cast(),
                errno.len() - got,
            )
        };
        if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        if n <= 0 {
            break;
        }
        got += n.unsigned_abs();
    }
    if got == errno.len() {
        let mut status = 0;
        // SAFETY: reaps the child that failed before exec; `status` is ours.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        return Err(io::Error::from_raw_os_error(i32::from_ne_bytes(errno)));
    }

    let child = match watch(pid) {
        Ok(pidfd) => ConfinedChild {
            pid,
            pidfd,
            reaped: false,
            kept: false,
        },
        Err(error) => {
            let mut status = 0;
            // SAFETY: kill and reap our own child, which we cannot watch.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Err(error);
        }
    };
    Ok(Spawned {
        child,
        stdout: pipe::Receiver::from_owned_fd(nonblocking(out_r)?)?,
        stderr: pipe::Receiver::from_owned_fd(nonblocking(err_r)?)?,
        stdin: match stdin_w {
            Some(w) => Some(pipe::Sender::from_owned_fd(nonblocking(w)?)?),
            None => None,
        },
    })
}

/// A pidfd of `pid`, registered with tokio: readable once the process has exited.
fn watch(pid: libc::pid_t) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor we then own.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if pidfd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just returned to us and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(pidfd as RawFd) };
    // SAFETY: an OwnedFd keeps its descriptor open, and the same, until it is dropped.
    unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) }
        .map_err(|e| e.into_parts().1)
}

fn clone_child(args: &ChildArgs<'_>, stack: &Stack) -> io::Result<libc::pid_t> {
    // Signals stay blocked from before the clone until the child has set its own, so no handler
    // of tack's runs on the child's stack.
    // SAFETY: the sets are ours; pthread_sigmask changes only this thread's mask.
    let mut all = unsafe { std::mem::zeroed::<libc::sigset_t>() };
    let mut old = unsafe { std::mem::zeroed::<libc::sigset_t>() };
    unsafe {
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
    }
    // SAFETY: the child runs `child_main` on its own stack with `args`, which outlive it: with
    // CLONE_VFORK this thread resumes only once the child has exec'd or exited.
    let pid = unsafe {
        libc::clone(
            child_main,
            stack.top(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::from_ref(args).cast_mut().cast(),
        )
    };
    let error = io::Error::last_os_error();
    // SAFETY: restores this thread's mask from our saved copy.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
    if pid < 0 {
        return Err(error);
    }
    Ok(pid)
}

/// The child: system calls only, then exec; on any failure its errno goes to the report pipe.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `ChildArgs` the parent keeps alive while it waits for us.
    let args = unsafe { &*(arg as *const ChildArgs<'_>) };
    let error = match child_steps(args) {
        Ok(()) => io::Error::last_os_error(),
        Err(e) => e,
    };
    let errno = error.raw_os_error().unwrap_or(libc::EINVAL).to_ne_bytes();
    // SAFETY: writes four bytes of ours and leaves without running any of the parent's code.
    unsafe {
        libc::write(args.report, errno.as_ptr().cast(), errno.len());
        libc::_exit(127)
    }
}

fn child_steps(args: &ChildArgs<'_>) -> io::Result<()> {
    let check = |r: libc::c_int| {
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    // SAFETY: each call takes descriptors, integers or NUL-terminated strings made before the
    // clone.
    unsafe {
        check(libc::dup2(args.stdin, 0))?;
        check(libc::dup2(args.stdout, 1))?;
        check(libc::dup2(args.stderr, 2))?;
        check(libc::chdir(args.cwd.as_ptr()))?;
        check(libc::setpgid(0, 0))?;
        // As std does for its children: tack ignores SIGPIPE, a command must not.
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        let mut none = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    }
    args.setup.apply()?;
    close_inherited_descriptors();
    // SAFETY: the arrays are NULL-terminated and point at strings made before the clone.
    unsafe {
        libc::execve(args.path.as_ptr(), args.argv.as_ptr(), args.envp.as_ptr());
    }
    Err(io::Error::last_os_error())
}

/// Marks every descriptor above standard error close-on-exec. What tack itself inherited
/// without the flag (a lock file its parent held, another terminal) must not reach a confined
/// command: an open descriptor reaches past Landlock. Raw syscalls only, as after a clone.
fn close_inherited_descriptors() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets flags on descriptors of this
    // process, which is about to exec.
    let marked = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            CLOSE_RANGE_CLOEXEC,
        )
    } == 0;
    if !marked {
        // Kernels before 5.11: one by one, up to a limit no tack process reaches.
        for fd in 3..4096 {
            // SAFETY: F_SETFD on a descriptor that may not exist fails with EBADF, harmlessly.
            unsafe {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
    }
}

/// A pipe whose ends close on exec (the child's are duplicated onto 1 and 2, which do not).
fn pipe_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills our two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn nonblocking(fd: OwnedFd) -> io::Result<OwnedFd> {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(fd)
}

/// The child's stack, mapped for one clone.
struct Stack(*mut libc::c_void);

impl Stack {
    fn new() -> io::Result<Self> {
        // SAFETY: an anonymous private mapping we unmap in Drop.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Stack(base))
    }

    /// Stacks grow down on every architecture tack runs on.
    fn top(&self) -> *mut libc::c_void {
        // SAFETY: one past the end of our mapping, which is where a downward stack starts.
        unsafe { self.0.cast::<u8>().add(STACK).cast() }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping made in `new`, which the child no longer uses.
        unsafe {
            libc::munmap(self.0, STACK);
        }
    }
}
