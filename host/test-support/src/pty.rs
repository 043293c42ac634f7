//! `tack` in a pseudo-terminal, as a person runs it: keys typed into the terminal, and the
//! screen it draws read back through a terminal emulator (vt100).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::Env;

/// How long a wait for the screen lasts before the test fails.
pub const WAIT: Duration = Duration::from_secs(60);
/// The pseudo-terminal's size.
pub const ROWS: u16 = 32;
pub const COLS: u16 = 100;

/// `tack` running in a pseudo-terminal, and the screen it drew.
pub struct Tui {
    pub child: Child,
    pub master: File,
    pub parser: Arc<Mutex<vt100::Parser>>,
    /// Every byte the binary wrote, for what the screen does not show (OSC 52).
    pub raw: Arc<Mutex<Vec<u8>>>,
}

impl Tui {
    pub fn spawn(env: &Env, args: &[&str]) -> Tui {
        let (master, slave) = open_pty();
        let mut command = env.command();
        command
            .args(args)
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .stdin(Stdio::from(slave.try_clone().expect("slave")))
            .stdout(Stdio::from(slave.try_clone().expect("slave")))
            .stderr(Stdio::from(slave));
        // SAFETY: between fork and exec only async-signal-safe calls: setsid and ioctl make the
        // pty the child's controlling terminal, as a terminal emulator does.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("spawn tack");
        let parser = Arc::new(Mutex::new(vt100::Parser::new(ROWS, COLS, 0)));
        let mut reader = master.try_clone().expect("master");
        let screen = parser.clone();
        let raw = Arc::new(Mutex::new(Vec::new()));
        let written = raw.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            // Ends with EIO once the child and every copy of the slave side are gone.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen.lock().expect("parser").process(&buf[..n]);
                written.lock().expect("raw").extend_from_slice(&buf[..n]);
            }
        });
        Tui {
            child,
            master,
            parser,
            raw,
        }
    }

    pub fn screen(&self) -> String {
        self.parser.lock().expect("parser").screen().contents()
    }

    pub fn type_keys(&mut self, keys: &str) {
        self.master.write_all(keys.as_bytes()).expect("write");
        self.master.flush().expect("flush");
    }

    /// Esc, then a pause: an escape byte followed at once by more input reads as Alt+key.
    pub fn escape(&mut self) {
        self.type_keys("\x1b");
        std::thread::sleep(Duration::from_millis(150));
    }

    /// Types text, then presses Enter in a separate write, as a person does.
    pub fn submit(&mut self, text: &str) {
        self.type_keys(text);
        std::thread::sleep(Duration::from_millis(100));
        self.type_keys("\r");
    }

    /// Waits until the bytes written so far contain `what` (text printed outside the UI).
    pub fn wait_raw(&self, what: &str) {
        let deadline = Instant::now() + WAIT;
        while !String::from_utf8_lossy(&self.raw.lock().expect("raw")).contains(what) {
            assert!(Instant::now() < deadline, "never printed {what:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_for(&self, what: &str) -> String {
        self.wait_until(what, |screen| screen.contains(what))
    }

    pub fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what:?}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("tack did not exit; the screen:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// CPU time (user + system) the process used, in clock ticks: in all, and without the
    /// plugin runtime's epoch thread (which ticks in every mode, UI or not).
    pub fn cpu_ticks(&self) -> (u64, u64) {
        let pid = self.child.id();
        let mut all = 0;
        let mut without_epoch = 0;
        for task in std::fs::read_dir(format!("/proc/{pid}/task"))
            .expect("tasks")
            .flatten()
        {
            let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
                continue;
            };
            // Fields after the thread name (which may hold spaces) start after its ')'.
            let Some(close) = stat.rfind(')') else {
                continue;
            };
            let name = stat[..close].split_once('(').map_or("", |(_, n)| n);
            let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
            let ticks: u64 = fields[11].parse::<u64>().expect("utime")
                + fields[12].parse::<u64>().expect("stime");
            all += ticks;
            if name != "tack-epoch" {
                without_epoch += ticks;
            }
        }
        (all, without_epoch)
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn open_pty() -> (File, File) {
    let mut master = -1;
    let mut slave = -1;
    let size = libc::winsize {
        ws_row: ROWS,
        ws_col: COLS,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two new descriptors into the out-parameters; the name and termios
    // pointers may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    assert!(master.as_raw_fd() >= 0 && slave.as_raw_fd() >= 0);
    (File::from(master), File::from(slave))
}
