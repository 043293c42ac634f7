//! Ctrl+V with an image on the system clipboard: the platform's clipboard program writes it
//! out, tack saves it under `<tack home>/pasted-images` and the editor gets an `[image N]` chip.
//! Terminals pass only text through a paste, so the image has to be fetched beside them.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use tack_tui::UiEvent;
use tokio::io::AsyncReadExt;

use super::controller::Controller;
use crate::modes::file_args::{image_type, MAX_IMAGE_BYTES};

/// A clipboard program that hangs (a clipboard owner that never answers) must not leave the
/// paste pending forever.
const CLIPBOARD_TIMEOUT: Duration = Duration::from_secs(5);

impl Controller {
    pub(super) async fn paste_image(self: Arc<Self>) {
        match self.clipboard_image().await {
            Ok(path) => self.send(UiEvent::AttachImage(path)),
            Err(e) => self.send(UiEvent::Error(format!("Ctrl+V: {e:#}"))),
        }
    }

    async fn clipboard_image(&self) -> Result<PathBuf> {
        let command = match &self.front.loaded.settings.paste_image_command {
            Some(command) => command.clone(),
            None => default_command().ok_or_else(|| {
                anyhow!(
                    "no clipboard program for this system; set paste_image_command in \
                     config.toml (a program writing the clipboard's image to its output)"
                )
            })?,
        };
        let Some((program, args)) = command.split_first() else {
            bail!("paste_image_command in config.toml is empty");
        };
        let bytes = tokio::time::timeout(CLIPBOARD_TIMEOUT, run(program, args))
            .await
            .map_err(|_| anyhow!("`{program}` did not answer within 5 s"))??;
        let Some(mime_type) = image_type(&bytes) else {
            bail!("the clipboard holds no image (PNG, JPEG, GIF or WebP)");
        };
        let extension = mime_type.trim_start_matches("image/");
        let dir = self.front.loaded.home.root().join("pasted-images");
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or_default();
        let path = dir.join(format!("{stamp}.{extension}"));
        std::fs::write(&path, &bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }
}

/// Runs the clipboard program and reads at most one byte more than an image may be.
async fn run(program: &str, args: &[String]) -> Result<Vec<u8>> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => anyhow!(
                "`{program}` is not installed (wl-clipboard under Wayland, xclip under X11), \
                 or set paste_image_command in config.toml"
            ),
            _ => anyhow!("cannot run `{program}`: {e}"),
        })?;
    let mut bytes = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        stdout
            .take(MAX_IMAGE_BYTES + 1)
            .read_to_end(&mut bytes)
            .await
            .with_context(|| format!("reading `{program}`'s output"))?;
    }
    if bytes.len() as u64 > MAX_IMAGE_BYTES {
        bail!(
            "the clipboard's image is over {} MiB, more than providers take",
            MAX_IMAGE_BYTES / (1024 * 1024)
        );
    }
    let output = child
        .wait_with_output()
        .await
        .with_context(|| format!("waiting for `{program}`"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let reason = stderr.lines().next().unwrap_or("no message").trim();
        bail!("`{program}` failed ({}): {reason}", output.status);
    }
    Ok(bytes)
}

/// The usual clipboard program of the session the terminal runs in.
fn default_command() -> Option<Vec<String>> {
    let words = |w: &[&str]| Some(w.iter().map(|s| s.to_string()).collect());
    if cfg!(target_os = "macos") {
        return words(&["pngpaste", "-"]);
    }
    if std::env::var_os("WAYLAND_DISPLAY").is_some() {
        return words(&["wl-paste", "--no-newline", "--type", "image/png"]);
    }
    if std::env::var_os("DISPLAY").is_some() {
        return words(&["xclip", "-selection", "clipboard", "-t", "image/png", "-o"]);
    }
    None
}
