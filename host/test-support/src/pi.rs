//! Pi's coding agent (npm `@mariozechner/pi-coding-agent`), the peer of tack's Pi-compatibility
//! tests: pinned in `host/cli/tests/pi-peer` and installed there by `scripts/install-pi`.
//!
//! Without node or the installed package a test says what is missing and passes, unless
//! `TACK_REQUIRE_PI=1` (set by `.ci/run`), which makes it fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The installed peer.
#[derive(Debug, Clone)]
pub struct PiPeer {
    dir: PathBuf,
}

/// The peer, or `None` (after saying on stderr what is missing) when the calling test cannot
/// run; panics instead when `TACK_REQUIRE_PI=1`.
pub fn pi_peer() -> Option<PiPeer> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/pi-peer");
    let dir = dir.canonicalize().unwrap_or(dir);
    let peer = PiPeer { dir };
    let Some(missing) = peer.missing() else {
        return Some(peer);
    };
    // libtest names each test's thread after the test.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("this test");
    assert!(
        std::env::var("TACK_REQUIRE_PI").as_deref() != Ok("1"),
        "{test}: {missing}, and TACK_REQUIRE_PI=1"
    );
    eprintln!("skipping {test}: {missing}");
    None
}

impl PiPeer {
    /// `None` when node and the package are there; else what is missing.
    fn missing(&self) -> Option<String> {
        let node = Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !node {
            return Some("node is not installed".into());
        }
        for needed in [self.package().join("package.json"), self.bin()] {
            if !needed.is_file() {
                return Some(format!(
                    "Pi's package is not installed ({} is missing; run scripts/install-pi)",
                    needed.display()
                ));
            }
        }
        None
    }

    /// `host/cli/tests/pi-peer`: the npm project holding the package and the test scripts.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The installed package.
    pub fn package(&self) -> PathBuf {
        self.dir.join("node_modules/@mariozechner/pi-coding-agent")
    }

    /// The `pi` command.
    pub fn bin(&self) -> PathBuf {
        self.dir.join("node_modules/.bin/pi")
    }

    /// `node <script>` for a script of the peer folder, run there.
    pub fn node(&self, script: &str) -> Command {
        let mut cmd = Command::new("node");
        cmd.arg(self.dir.join(script)).current_dir(&self.dir);
        without_provider_keys(&mut cmd);
        cmd
    }

    /// `pi` in `cwd`, with `home` as the user's home and `agent_dir` as its own folder
    /// (`models.json`, `sessions/`): offline, no telemetry, no provider key from the caller's
    /// environment, stdin closed.
    pub fn pi(&self, cwd: &Path, home: &Path, agent_dir: &Path) -> Command {
        let mut cmd = Command::new(self.bin());
        cmd.current_dir(cwd)
            .env("HOME", home)
            .env("PI_CODING_AGENT_DIR", agent_dir)
            .env("PI_OFFLINE", "1")
            .env("PI_SKIP_VERSION_CHECK", "1")
            .env("PI_TELEMETRY", "0")
            .stdin(Stdio::null());
        without_provider_keys(&mut cmd);
        cmd
    }
}

fn without_provider_keys(cmd: &mut Command) {
    cmd.env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("GEMINI_API_KEY");
}

/// Pi's `models.json` for one OpenAI Chat Completions provider `mock` at `base_url` (ending in
/// `/v1`), serving the model `mock-model`.
pub fn models_json(base_url: &str) -> serde_json::Value {
    serde_json::json!({
        "providers": { "mock": {
            "baseUrl": base_url, "api": "openai-completions", "apiKey": "mock-key",
            "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
            "models": [{ "id": crate::openai::MODEL, "contextWindow": 128000, "maxTokens": 4096 }]
        } }
    })
}
