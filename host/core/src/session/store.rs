//! Where session files live: `<tack_home>/sessions/<encoded cwd>/<timestamp>_<id>.jsonl`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::file::{first_user_text, io_error, last_session_name, read_header};
use super::{
    new_header, LoadWarning, Provenance, Session, SessionError, SessionHeader, SessionOptions,
};

/// How many lines listing reads at most to find a session's first user message.
const FIRST_MESSAGE_SCAN_LINES: usize = 200;

/// The sessions of every working directory.
#[derive(Debug, Clone)]
pub struct SessionStore {
    root: PathBuf,
    options: SessionOptions,
    /// Pi's sessions folder (`<pi agent dir>/sessions`), whose sessions are listed, continued
    /// (`-c`) and resumed beside tack's: the files are the same format. New sessions are never
    /// created there.
    pi_root: Option<PathBuf>,
    /// `--session-dir`: every session of this run is created and looked up in this one folder,
    /// whatever its directory.
    fixed_dir: Option<PathBuf>,
}

/// What listing shows of a session without loading it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub path: PathBuf,
    pub id: String,
    pub cwd: String,
    /// Header timestamp (RFC 3339).
    pub created: String,
    pub parent_session: Option<String>,
    pub modified: SystemTime,
    /// File size in bytes.
    pub size: u64,
    /// Text of the first user message, if one is near the start of the file.
    pub first_message: Option<String>,
}

impl SessionStore {
    /// Sessions under `<tack_home>/sessions`.
    pub fn new(tack_home: &Path) -> Self {
        SessionStore {
            root: tack_home.join("sessions"),
            options: SessionOptions::default(),
            pi_root: None,
            fixed_dir: None,
        }
    }

    /// Creates and looks up sessions in `dir` rather than in the per-directory folders
    /// (`--session-dir`). Listing still shows only the sessions of the asked directory.
    pub fn with_session_dir(mut self, dir: PathBuf) -> Self {
        self.fixed_dir = Some(dir);
        self
    }

    /// Lists Pi's sessions under `pi_sessions` (its agent dir's `sessions`) as well.
    pub fn with_pi_sessions(mut self, pi_sessions: PathBuf) -> Self {
        self.pi_root = Some(pi_sessions);
        self
    }

    pub fn with_options(mut self, options: SessionOptions) -> Self {
        self.options = options;
        self
    }

    pub fn options(&self) -> SessionOptions {
        self.options
    }

    /// `<tack_home>/sessions`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory holding the sessions of `cwd`.
    pub fn dir_for(&self, cwd: &Path) -> PathBuf {
        match &self.fixed_dir {
            Some(dir) => dir.clone(),
            None => self.root.join(encode_cwd(cwd)),
        }
    }

    /// Moves the sessions of `cwd` out of the folder earlier versions named for it, which other
    /// directories could share (`/a-b` and `/a/b`). Only files whose header names exactly this
    /// `cwd` move; the rest stay for their own directory to collect. Failures are logged and
    /// leave the file where it was: [`SessionStore::list`] still finds it there.
    pub fn migrate_legacy(&self, cwd: &Path) {
        if self.fixed_dir.is_some() {
            return;
        }
        let legacy = self.root.join(legacy_encode_cwd(cwd));
        let current = self.dir_for(cwd);
        if legacy == current {
            return;
        }
        let Ok(entries) = fs::read_dir(&legacy) else {
            return;
        };
        let cwd_text = cwd.display().to_string();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            if !read_header(&path).is_ok_and(|h| h.cwd == cwd_text) {
                continue;
            }
            let target = current.join(entry.file_name());
            if target.exists() {
                tracing::warn!(
                    "not moving {}: {} already exists",
                    path.display(),
                    target.display()
                );
                continue;
            }
            if let Err(e) = fs::create_dir_all(&current).and_then(|()| fs::rename(&path, &target)) {
                tracing::warn!(
                    "cannot move {} to {}: {e}",
                    path.display(),
                    target.display()
                );
            }
        }
        // Gone once empty; kept while another directory's sessions are still in it.
        let _ = fs::remove_dir(&legacy);
    }

    /// The file of a new session: `<dir for cwd>/<timestamp>_<id>.jsonl`.
    pub fn path_for(&self, header: &SessionHeader) -> PathBuf {
        let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M-%S-%3fZ");
        self.dir_for(Path::new(&header.cwd))
            .join(format!("{stamp}_{}.jsonl", header.id))
    }

    /// Creates a new session for `cwd`.
    pub fn create(&self, cwd: &Path) -> Result<Session, SessionError> {
        self.create_child(cwd, None)
    }

    /// Creates a new session for `cwd` whose header names `parent_session` (a session file) as
    /// its parent, as Pi's `new_session` does.
    pub fn create_child(
        &self,
        cwd: &Path,
        parent_session: Option<String>,
    ) -> Result<Session, SessionError> {
        self.migrate_legacy(cwd);
        let header = new_header(cwd, parent_session);
        Session::create_with_header(self.path_for(&header), header, self.options)
    }

    /// Opens a session file. One outside tack's own folders (the sessions root and
    /// `--session-dir`), such as a path someone handed the user or Pi's folder, is opened with
    /// its plugin state disowned ([`Session::open_as`]).
    pub fn open(&self, path: &Path) -> Result<(Session, Vec<LoadWarning>), SessionError> {
        let provenance = if self.is_own(path) {
            Provenance::Own
        } else {
            Provenance::Foreign
        };
        Session::open_as(path, self.options, provenance)
    }

    /// [`SessionStore::open`] without writing or locking the file, to export or fork it.
    pub fn open_copy(&self, path: &Path) -> Result<(Session, Vec<LoadWarning>), SessionError> {
        let provenance = if self.is_own(path) {
            Provenance::Own
        } else {
            Provenance::Foreign
        };
        Session::load_copy(path, self.options, provenance)
    }

    /// Whether `path` lies in a folder where only tack writes sessions.
    pub fn is_own(&self, path: &Path) -> bool {
        let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
        let file = real(path);
        std::iter::once(&self.root)
            .chain(self.fixed_dir.as_ref())
            .any(|dir| file.starts_with(real(dir)))
    }

    /// Forks `session` at `entry_id` into a new file beside the sessions of its cwd (or into
    /// memory, when `session` is in memory).
    pub fn fork(&self, session: &Session, entry_id: &str) -> Result<Session, SessionError> {
        let header = session.fork_header();
        let path = session.path().is_some().then(|| self.path_for(&header));
        session.fork_with_header(header, path, entry_id)
    }

    /// The sessions of `cwd`, newest (last modified) first.
    pub fn list(&self, cwd: &Path) -> Result<Vec<SessionSummary>, SessionError> {
        self.migrate_legacy(cwd);
        let cwd_text = cwd.display().to_string();
        let mut sessions = self.list_dir(&self.dir_for(cwd))?;
        if self.fixed_dir.is_some() {
            sessions.retain(|s| s.cwd == cwd_text);
            sort_newest_first(&mut sessions);
            return Ok(sessions);
        }
        let legacy = self.root.join(legacy_encode_cwd(cwd));
        if legacy != self.dir_for(cwd) {
            // Whatever could not be moved is still this directory's.
            sessions.extend(self.list_dir(&legacy)?);
        }
        if let Some(pi_root) = &self.pi_root {
            sessions.extend(self.list_dir(&pi_root.join(pi_encode_cwd(cwd)))?);
        }
        sessions.retain(|s| s.cwd == cwd_text);
        sort_newest_first(&mut sessions);
        Ok(sessions)
    }

    /// The sessions of every working directory, newest first.
    pub fn list_all(&self) -> Result<Vec<SessionSummary>, SessionError> {
        let mut sessions = Vec::new();
        if let Some(dir) = &self.fixed_dir {
            sessions = self.list_dir(dir)?;
            sort_newest_first(&mut sessions);
            return Ok(sessions);
        }
        for root in std::iter::once(&self.root).chain(&self.pi_root) {
            let dirs = match fs::read_dir(root) {
                Ok(dirs) => dirs,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_error(root, e)),
            };
            for dir in dirs.flatten() {
                if dir.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                    sessions.extend(self.list_dir(&dir.path())?);
                }
            }
        }
        sort_newest_first(&mut sessions);
        Ok(sessions)
    }

    /// The name the session at `path` was last given (`/name`, or a rename in `/resume`); read
    /// on demand, since it means reading the whole file.
    pub fn name_of(&self, path: &Path) -> Option<String> {
        last_session_name(path)
    }

    /// Names the session at `path` (a `session_info` entry appended at its leaf), as `/name`
    /// does for the open session.
    pub fn rename(&self, path: &Path, name: &str) -> Result<(), SessionError> {
        let (mut session, _) = self.open(path)?;
        session.append(super::EntryKind::SessionInfo {
            name: Some(name.to_owned()),
        })?;
        Ok(())
    }

    /// Deletes the session file at `path`, which must be a session file (its header reads).
    pub fn delete(&self, path: &Path) -> Result<(), SessionError> {
        read_header(path)?;
        fs::remove_file(path).map_err(|e| io_error(path, e))
    }

    /// The most recently modified session of `cwd` (for `-c`).
    pub fn most_recent(&self, cwd: &Path) -> Result<Option<SessionSummary>, SessionError> {
        Ok(self.list(cwd)?.into_iter().next())
    }

    /// Resolves `-r <arg>`: a path to a session file, or a prefix of a session id (looked up
    /// among the sessions of `cwd` first, then among all).
    pub fn resolve(&self, cwd: &Path, arg: &str) -> Result<PathBuf, SessionError> {
        let as_path = Path::new(arg);
        if as_path.is_file() {
            return Ok(as_path.to_owned());
        }
        if arg.is_empty() {
            return Err(SessionError::NotFound(arg.to_owned()));
        }
        for candidates in [self.list(cwd)?, self.list_all()?] {
            let mut matching: Vec<SessionSummary> = candidates
                .into_iter()
                .filter(|s| s.id.starts_with(arg))
                .collect();
            match matching.len() {
                0 => continue,
                1 => return Ok(matching.remove(0).path),
                _ => {
                    return Err(SessionError::Ambiguous {
                        arg: arg.to_owned(),
                        candidates: matching.into_iter().map(|s| s.id).collect(),
                    })
                }
            }
        }
        Err(SessionError::NotFound(arg.to_owned()))
    }

    fn list_dir(&self, dir: &Path) -> Result<Vec<SessionSummary>, SessionError> {
        let mut sessions = Vec::new();
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(sessions),
            Err(e) => return Err(io_error(dir, e)),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            let header = match read_header(&path) {
                Ok(header) => header,
                Err(e) => {
                    tracing::warn!("skipping {}: {e}", path.display());
                    continue;
                }
            };
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            sessions.push(SessionSummary {
                first_message: first_user_text(&path, FIRST_MESSAGE_SCAN_LINES),
                path,
                id: header.id,
                cwd: header.cwd,
                created: header.timestamp,
                parent_session: header.parent_session,
                modified: metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                size: metadata.len(),
            });
        }
        sort_newest_first(&mut sessions);
        Ok(sessions)
    }
}

fn sort_newest_first(sessions: &mut [SessionSummary]) {
    // File names start with the creation time, which breaks ties between equal mtimes.
    sessions.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| b.path.file_name().cmp(&a.path.file_name()))
    });
}

/// A directory name for `cwd`: Pi's readable `--home-me-project--` form (see
/// [`legacy_encode_cwd`]) followed by 16 hex digits of the SHA-256 of the full path, so that
/// directories the readable form confuses (`/home/u/a-b` and `/home/u/a/b`) never share a folder.
pub fn encode_cwd(cwd: &Path) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(cwd.as_os_str().as_encoded_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}{hex}", legacy_encode_cwd(cwd))
}

/// The folder name earlier versions (and Pi) gave `cwd`: characters other than ASCII letters,
/// digits, `.`, `_` and `-` become `-`. When that loses more than the path separators, or the name
/// would be long, a hash of the full path is appended. `/a-b` and `/a/b` get the same name.
pub fn legacy_encode_cwd(cwd: &Path) -> String {
    let text = cwd.display().to_string();
    let trimmed = text.trim_start_matches(['/', '\\']);
    let mut lossy = false;
    let mut name: String = trimmed
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                if !matches!(c, '/' | '\\' | ':') {
                    lossy = true;
                }
                '-'
            }
        })
        .collect();
    const MAX: usize = 120;
    if name.len() > MAX {
        // Only ASCII is left, so any byte index is a char boundary.
        name = name[name.len() - MAX..].to_owned();
        lossy = true;
    }
    if lossy {
        name = format!("{name}-{:016x}", fnv1a(text.as_bytes()));
    }
    format!("--{name}--")
}

/// The folder Pi keeps the sessions of `cwd` in: the leading separator dropped, the others and
/// `:` made `-`, between `--` and `--` (Pi's `getDefaultSessionDir`).
pub fn pi_encode_cwd(cwd: &Path) -> String {
    let text = cwd.display().to_string();
    let trimmed = text
        .strip_prefix(['/', '\\'])
        .unwrap_or(&text)
        .replace(['/', '\\', ':'], "-");
    format!("--{trimmed}--")
}

/// FNV-1a: tiny and stable across Rust versions (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_encoding_is_readable_and_safe() {
        assert_eq!(
            legacy_encode_cwd(Path::new("/home/me/project")),
            "--home-me-project--"
        );
        let name = encode_cwd(Path::new("/home/me/project"));
        assert!(name.starts_with("--home-me-project--"), "{name}");
        assert_eq!(name.len(), "--home-me-project--".len() + 16);
        let odd = encode_cwd(Path::new("/home/me/my project"));
        assert!(odd.starts_with("--home-me-my-project-"));
        assert_ne!(odd, encode_cwd(Path::new("/home/me/my-project")));
        let long = encode_cwd(Path::new(&format!("/{}", "a".repeat(500))));
        assert!(long.len() < 160);
        assert!(encode_cwd(Path::new("/x/../y"))
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')));
    }

    #[test]
    fn pi_folder_names_match_pi() {
        assert_eq!(
            pi_encode_cwd(Path::new("/home/me/my project")),
            "--home-me-my project--"
        );
        assert_eq!(pi_encode_cwd(Path::new("C:\\w")), "--C--w--");
    }

    #[test]
    fn directories_the_readable_form_confuses_get_their_own_folders() {
        let (a, b) = (Path::new("/home/u/a-b"), Path::new("/home/u/a/b"));
        assert_eq!(legacy_encode_cwd(a), legacy_encode_cwd(b));
        assert_ne!(encode_cwd(a), encode_cwd(b));
    }

    #[test]
    fn legacy_sessions_move_to_their_own_folder_and_others_stay() {
        let home = tempfile::tempdir().unwrap();
        let store = SessionStore::new(home.path());
        let (a, b) = (Path::new("/home/u/a-b"), Path::new("/home/u/a/b"));
        let legacy = store.root().join(legacy_encode_cwd(a));
        fs::create_dir_all(&legacy).unwrap();
        for (cwd, name) in [(a, "1_a.jsonl"), (b, "2_b.jsonl")] {
            let header = new_header(cwd, None);
            let session =
                Session::create_with_header(legacy.join(name), header, SessionOptions::default())
                    .unwrap();
            drop(session);
        }
        let listed_a = store.list(a).unwrap();
        assert_eq!(listed_a.len(), 1);
        assert!(listed_a[0].path.starts_with(store.dir_for(a)));
        assert!(legacy.join("2_b.jsonl").exists(), "b's session stays");
        let listed_b = store.list(b).unwrap();
        assert_eq!(listed_b.len(), 1);
        assert!(listed_b[0].path.starts_with(store.dir_for(b)));
        assert!(!legacy.exists(), "the emptied legacy folder is removed");
        assert_eq!(store.list_all().unwrap().len(), 2);
    }
}
