//! `@file` arguments on the command line (`tack @spec.md @shot.png "…"`), as Pi reads them: a
//! text file is inlined into the first message inside `<file name="…">` tags, an image is
//! attached to it (and named by an empty tag, so the model knows which file it is).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use tack_core::agent::InputKind;
use tack_core::message::{Content, ImageContent};

/// Larger images are refused by every provider tack speaks to; better to say so before sending.
pub(crate) const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// A text file this large would fill any context window on its own.
const MAX_TEXT_BYTES: u64 = 4 * 1024 * 1024;

/// The command line's prompts with the `@file` arguments taken out.
#[derive(Debug, Default)]
pub struct Prompts {
    /// The `<file>` blocks, in the order given; they open the first message.
    pub files_text: String,
    pub images: Vec<ImageContent>,
    /// Everything that is not an `@file` argument, in order.
    pub texts: Vec<String>,
}

impl Prompts {
    /// Splits `args` into files (read relative to `cwd`) and prompt text.
    pub fn read(args: &[String], cwd: &Path) -> Result<Prompts> {
        let mut prompts = Prompts::default();
        for arg in args {
            match arg.strip_prefix('@').filter(|path| !path.is_empty()) {
                Some(path) => prompts.add_file(&resolve(path, cwd))?,
                None => prompts.texts.push(arg.clone()),
            }
        }
        Ok(prompts)
    }

    pub fn has_files(&self) -> bool {
        !self.files_text.is_empty() || !self.images.is_empty()
    }

    fn add_file(&mut self, path: &Path) -> Result<()> {
        let shown = path.display();
        let meta = std::fs::metadata(path).with_context(|| format!("@{shown}: cannot read it"))?;
        if !meta.is_file() {
            bail!("@{shown}: not a file");
        }
        if meta.len() == 0 {
            return Ok(());
        }
        let bytes = std::fs::read(path).with_context(|| format!("@{shown}: cannot read it"))?;
        if let Some(mime_type) = image_type(&bytes) {
            if meta.len() > MAX_IMAGE_BYTES {
                bail!(
                    "@{shown}: the image is {} MiB; providers take at most {} MiB",
                    meta.len() / (1024 * 1024),
                    MAX_IMAGE_BYTES / (1024 * 1024)
                );
            }
            self.files_text
                .push_str(&format!("<file name=\"{shown}\"></file>\n"));
            self.images.push(ImageContent {
                data: base64::engine::general_purpose::STANDARD.encode(&bytes),
                mime_type: mime_type.to_string(),
            });
            return Ok(());
        }
        if meta.len() > MAX_TEXT_BYTES {
            bail!(
                "@{shown}: the file is {} MiB, too large to put in a message (at most {} MiB)",
                meta.len() / (1024 * 1024),
                MAX_TEXT_BYTES / (1024 * 1024)
            );
        }
        let text = String::from_utf8(bytes).map_err(|_| {
            anyhow::anyhow!(
                "@{shown}: neither UTF-8 text nor an image tack can attach (PNG, JPEG, GIF, WebP)"
            )
        })?;
        self.files_text
            .push_str(&format!("<file name=\"{shown}\">\n{text}\n</file>\n"));
        Ok(())
    }

    /// The messages to send, in order: the files open the first one. Images go only to a model
    /// that takes them; otherwise they are left out and the returned note says so.
    pub fn messages(
        self,
        model_input: &[InputKind],
        model: &str,
    ) -> (Vec<Vec<Content>>, Option<String>) {
        let mut note = None;
        let images: Vec<Content> =
            if self.images.is_empty() || model_input.contains(&InputKind::Image) {
                self.images.into_iter().map(Content::Image).collect()
            } else {
                note = Some(format!(
                "model '{model}' does not accept images; {} attached image(s) left out (the file \
                 names are still sent)",
                self.images.len()
            ));
                Vec::new()
            };
        let mut texts = self.texts.into_iter();
        let first_text = texts.next().unwrap_or_default();
        let mut first = vec![Content::text(format!("{}{first_text}", self.files_text))];
        first.extend(images);
        let mut messages = vec![first];
        messages.extend(texts.map(|text| vec![Content::text(text)]));
        (messages, note)
    }
}

/// An image file for a message (the UI's `[image N]` chips): PNG, JPEG, GIF or WebP by its
/// bytes, at most 20 MiB.
pub fn read_image(path: &Path) -> Result<ImageContent> {
    let shown = path.display();
    let bytes = std::fs::read(path).with_context(|| format!("{shown}: cannot read it"))?;
    let Some(mime_type) = image_type(&bytes) else {
        bail!("{shown}: not an image tack can attach (PNG, JPEG, GIF, WebP)");
    };
    if bytes.len() as u64 > MAX_IMAGE_BYTES {
        bail!(
            "{shown}: the image is {} MiB; providers take at most {} MiB",
            bytes.len() / (1024 * 1024),
            MAX_IMAGE_BYTES / (1024 * 1024)
        );
    }
    Ok(ImageContent {
        data: base64::engine::general_purpose::STANDARD.encode(&bytes),
        mime_type: mime_type.to_string(),
    })
}

fn resolve(path: &str, cwd: &Path) -> PathBuf {
    let expanded = match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(|home| PathBuf::from(home).join(rest))
            .unwrap_or_else(|| PathBuf::from(path)),
        None => PathBuf::from(path),
    };
    cwd.join(expanded)
}

/// The image type by the file's first bytes (not its name, which may lie).
pub(crate) fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn text_files_open_the_first_message_and_images_attach() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("spec.md"), "# Spec\nbe fast").unwrap();
        std::fs::write(dir.path().join("shot.png"), PNG).unwrap();
        std::fs::write(dir.path().join("empty.txt"), "").unwrap();
        let prompts = Prompts::read(
            &args(&[
                "@spec.md",
                "@shot.png",
                "@empty.txt",
                "review this",
                "then that",
            ]),
            dir.path(),
        )
        .unwrap();
        assert!(prompts.has_files());
        let (messages, note) = prompts.messages(&[InputKind::Text, InputKind::Image], "m");
        assert_eq!(note, None);
        assert_eq!(messages.len(), 2);
        let spec = dir.path().join("spec.md");
        let shot = dir.path().join("shot.png");
        let Content::Text(first) = &messages[0][0] else {
            panic!("text first")
        };
        assert_eq!(
            first.text,
            format!(
                "<file name=\"{}\">\n# Spec\nbe fast\n</file>\n<file name=\"{}\"></file>\nreview this",
                spec.display(),
                shot.display()
            )
        );
        assert!(
            matches!(&messages[0][1], Content::Image(i) if i.mime_type == "image/png" && !i.data.is_empty())
        );
        assert!(matches!(&messages[1][0], Content::Text(t) if t.text == "then that"));
    }

    #[test]
    fn a_model_without_image_input_gets_a_note_instead() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shot.png"), PNG).unwrap();
        let prompts = Prompts::read(&args(&["@shot.png", "what is this"]), dir.path()).unwrap();
        let (messages, note) = prompts.messages(&[InputKind::Text], "demo");
        assert_eq!(messages[0].len(), 1);
        assert!(note
            .unwrap()
            .contains("model 'demo' does not accept images"));
    }

    #[test]
    fn bad_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("blob.bin"), [0xC3, 0x28, 0, 1]).unwrap();
        let missing = Prompts::read(&args(&["@nope.md"]), dir.path()).unwrap_err();
        assert!(
            format!("{missing:#}").contains("nope.md: cannot read it"),
            "{missing:#}"
        );
        let binary = Prompts::read(&args(&["@blob.bin"]), dir.path()).unwrap_err();
        assert!(binary
            .to_string()
            .contains("neither UTF-8 text nor an image"));
        let folder = Prompts::read(&args(&["@."]), dir.path()).unwrap_err();
        assert!(folder.to_string().contains("not a file"));
    }
}
