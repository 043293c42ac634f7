//! Images attached in the editor: a pasted or dragged image path becomes an `[image N]` chip in
//! the text, and the file goes with the message if its chip is still there when it is sent.

use std::path::{Path, PathBuf};

/// The image types providers take, by extension (the host checks the bytes when it reads them).
const IMAGE_EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "gif", "webp"];

#[derive(Debug, Default)]
pub struct Attachments {
    /// Chip number and file, in the order attached.
    images: Vec<(usize, PathBuf)>,
    next: usize,
}

impl Attachments {
    /// The chip for `pasted` when it names an existing image file (a path, quoted or not, or a
    /// `file://` URL as file managers drag them), after registering it.
    pub fn attach_pasted(&mut self, pasted: &str) -> Option<String> {
        let path = image_path(pasted)?;
        self.next += 1;
        self.images.push((self.next, path));
        Some(chip(self.next))
    }

    /// The chip for an image file the program saved (from the clipboard), after registering it.
    pub fn attach_file(&mut self, path: PathBuf) -> String {
        self.next += 1;
        self.images.push((self.next, path));
        chip(self.next)
    }

    /// The files whose chips are still in `text`, and forgets every attachment (the message is
    /// being sent).
    pub fn take_for(&mut self, text: &str) -> Vec<PathBuf> {
        let kept = std::mem::take(&mut self.images)
            .into_iter()
            .filter(|(n, _)| text.contains(&chip(*n)))
            .map(|(_, path)| path)
            .collect();
        self.next = 0;
        kept
    }
}

fn chip(n: usize) -> String {
    format!("[image {n}]")
}

fn image_path(pasted: &str) -> Option<PathBuf> {
    let text = pasted.trim();
    if text.contains('\n') {
        return None;
    }
    let unquoted = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .or_else(|| text.strip_prefix('"').and_then(|t| t.strip_suffix('"')))
        .unwrap_or(text);
    let path = match unquoted.strip_prefix("file://") {
        Some(url_path) => PathBuf::from(percent_decode(url_path)?),
        // Terminals escape spaces in dragged paths with a backslash.
        None => PathBuf::from(unquoted.replace("\\ ", " ")),
    };
    let is_image = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
    (is_image && Path::new(&path).is_file()).then_some(path)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn pasted_image_paths_become_chips_and_go_with_the_message() {
        let dir = tempfile::tempdir().unwrap();
        let shot = dir.path().join("my shot.png");
        std::fs::write(&shot, b"\x89PNG").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let mut attachments = Attachments::default();
        let url = format!("file://{}", shot.display()).replace(' ', "%20");
        assert_eq!(
            attachments.attach_pasted(&url).as_deref(),
            Some("[image 1]")
        );
        let quoted = format!("'{}'", shot.display());
        assert_eq!(
            attachments.attach_pasted(&quoted).as_deref(),
            Some("[image 2]")
        );
        let escaped = shot.display().to_string().replace(' ', "\\ ");
        assert_eq!(
            attachments.attach_pasted(&escaped).as_deref(),
            Some("[image 3]")
        );
        let text_file = dir.path().join("notes.txt");
        assert_eq!(
            attachments.attach_pasted(&text_file.display().to_string()),
            None
        );
        assert_eq!(attachments.attach_pasted("just some words"), None);
        // The chip deleted from the text leaves its image behind.
        let sent = attachments.take_for("compare [image 1] and [image 3]");
        assert_eq!(sent, vec![shot.clone(), shot]);
        assert!(attachments.take_for("[image 1]").is_empty());
    }
}
