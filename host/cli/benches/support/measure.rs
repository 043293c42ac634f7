//! One run of the `tack` binary with its own resource usage, for the benches that measure the
//! binary (`startup`, `pi_extensions`): included by each with `#[path]`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Measured {
    pub wall: Duration,
    pub peak_kib: u64,
}

/// Runs `cmd` to the end and reads its own resource usage.
// The child is reaped by `wait4` (which std's `wait` cannot replace: it returns no rusage).
#[allow(clippy::zombie_processes)]
pub fn measure(cmd: &mut Command) -> Measured {
    let start = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tack");
    let pid = child.id() as libc::pid_t;
    // stderr is small (a notice or two), so the child never blocks on a full pipe.
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; `status` and `usage` are valid outputs.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(waited, pid, "wait4");
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let mut err = String::new();
        if let Some(mut pipe) = child.stderr {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut err);
        }
        panic!("tack failed ({status}): {err}");
    }
    Measured {
        wall,
        // Linux reports ru_maxrss in KiB.
        peak_kib: usage.ru_maxrss as u64,
    }
}
