//! The `bash` command: the user's own shell command (the client's `!ls`), run by
//! [`crate::commands::user_bash`]; `abort_bash` kills everything it started.

use anyhow::bail;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::server::{data, Reply, Server};
use crate::commands::user_bash;
use crate::sync::lock;

impl Server {
    /// `bash`: one command at a time. Its output goes into the session for the model to see;
    /// during a run that waits until the run ends, so it never lands inside a turn.
    pub async fn bash(&self, command: &str, exclude_from_context: bool) -> Reply {
        let cancel = {
            let mut slot = lock(&self.bash);
            if slot.is_some() {
                bail!("a bash command is already running (abort_bash stops it)");
            }
            slot.insert(CancellationToken::new()).clone()
        };
        // Unlike the terminal UI's `!cmd`, not judged by the policy hooks: Pi's RPC `bash` runs
        // the client's command as given, and a client is the user's own program.
        let result = user_bash::run(command, &self.front.loaded.cwd, cancel, |_| {}).await;
        *lock(&self.bash) = None;
        let result = result?;
        if !exclude_from_context {
            let entry = user_bash::entry(command, &result);
            self.driver.append_when_idle(entry)?;
        }
        data(result)
    }

    pub fn abort_bash(&self) -> Reply {
        let running = lock(&self.bash)
            .as_ref()
            .map(CancellationToken::cancel)
            .is_some();
        data(json!({ "aborted": running }))
    }
}
